"""The cheap baseline a team would write for the selector: a scikit-learn TF-IDF vectoriser and
a nearest-example classifier, trained on the same examples the selector is compiled from (the
rulebook's intent examples, labelled with the tool their route reaches, and each tool's name and
description). A turn whose nearest example is less similar than a threshold is unread; a tool the
agent may not reach is declined. The threshold is the one, of 0.05 to 0.60, that gives the
baseline its best accuracy on the set itself (the most favourable choice for it).

Usage: baseline.py EXAMPLES SET ROUTER_OUT [ROUNDS]
Prints one JSON object: accuracy of the baseline and of the selector by the same measure, wrong
tool steps of each, and the baseline's turns per second, median and p99 per turn."""

import json
import sys
import time

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer


def expected_class(kind, tool):
    if kind in ("tool_step", "confirm"):
        return tool
    if kind == "ask":
        return "ask_two" if "|" in tool else tool
    if kind == "declined":
        return tool  # compute | unknown_tool
    return "unread"


def router_class(plan):
    kind = plan["kind"]
    if kind in ("tool_step", "confirm", "chain"):
        return plan["tool"]
    if kind == "ask":
        return plan["tool"] if plan["tool"] else ("ask_two" if plan["choices"] else "ask")
    if kind == "declined":
        return plan["rule"]
    return "unread"


def main():
    examples_path, set_path, router_out = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    data = json.load(open(examples_path, encoding="utf-8"))
    texts = [e["text"] for e in data["examples"]]
    labels = [e["tool"] for e in data["examples"]]
    agents = data["agents"]
    vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True, strip_accents="unicode")
    matrix = vec.fit_transform(texts)

    rows = []
    for line in open(set_path, encoding="utf-8"):
        if line.startswith("#"):
            continue
        agent, kind, tool, _args, turn = line.rstrip("\n").split("\t", 4)
        rows.append((agent, kind, tool, turn))
    plans = [json.loads(l) for l in open(router_out, encoding="utf-8")]

    def classify(turn):
        sims = (matrix @ vec.transform([turn]).T).toarray().ravel()
        best = int(np.argmax(sims))
        return labels[best], float(sims[best])

    nearest = [classify(t) for (_a, _k, _t, t) in rows]

    def baseline_class(agent, label, sim, threshold):
        if sim < threshold:
            return "unread"
        if label not in agents.get(agent, []):
            return "unknown_tool"
        return label

    tools = set(labels)
    best = None
    for threshold in [x / 100 for x in range(5, 61, 1)]:
        right = wrong = 0
        for (agent, kind, tool, _turn), (label, sim) in zip(rows, nearest):
            want = expected_class(kind, tool)
            got = baseline_class(agent, label, sim, threshold)
            right += got == want
            wrong += got in tools and got != want
        if best is None or right > best[1]:
            best = (threshold, right, wrong)
    threshold, b_right, b_wrong = best

    r_right = r_wrong = 0
    for (agent, kind, tool, _turn), plan in zip(rows, plans):
        want = expected_class(kind, tool)
        got = router_class(plan)
        r_right += got == want
        writes = plan["kind"] in ("tool_step", "confirm")
        r_wrong += writes and got != want

    samples = []
    started = time.perf_counter()
    for _ in range(rounds):
        for (_a, _k, _t, turn) in rows:
            t0 = time.perf_counter_ns()
            classify(turn)
            samples.append(time.perf_counter_ns() - t0)
    total = time.perf_counter() - started
    samples.sort()
    n = len(rows)
    print(json.dumps({
        "turns": n,
        "baseline": {
            "accuracy": b_right / n, "wrong_tool_steps": b_wrong, "threshold": threshold,
            "turns_per_second": len(samples) / total,
            "median_ns": samples[len(samples) // 2], "p99_ns": samples[int((len(samples) - 1) * 0.99)],
        },
        "selector": {"accuracy": r_right / n, "wrong_tool_steps": r_wrong},
    }))


main()
