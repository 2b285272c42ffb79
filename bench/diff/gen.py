#!/usr/bin/env python3
"""Generated agents for `stalwart diff` (BENCHMARKS.md, "Diff").

gen.py N OUT writes OUT/old and OUT/new, each an agent.yaml with N tools over agents of 25 and a
Colang 1.0 rulebook gating every fourth tool on `$args.amount > 500`. NEW changes OLD in four ways,
each at a few tools: a loosened condition (> 500 becomes > 50), a removed `after:`, an argument
added to a schema, a tool moved to the next agent. It prints how many tools it changed.
Deterministic: the same N gives the same files.
"""
import os
import sys

PER_AGENT = 25


def name(i):
    return f"tool_{i:04d}"


def changes(n):
    """Which tools NEW changes, by kind: about one tool in 100 of each kind, at least one."""
    step = max(n // 3, 1) if n < 100 else 100
    picks = lambda offset: sorted({(offset + k * step) % n for k in range(max(n // 100, 1))})
    writes = lambda xs: [x for x in xs if x % PER_AGENT not in (0, 5, 10, 15, 20)]
    gated = lambda xs: [x for x in xs if x % 4 == 0 and x % PER_AGENT not in (0, 5, 10, 15, 20)]
    return {
        "loosen": gated([x - x % 4 + 4 if (x - x % 4 + 4) < n else x - x % 4 for x in picks(7)]),
        "after": writes(picks(13)),
        "argument": writes(picks(17)),
        "move": [x for x in picks(21) if x % PER_AGENT != PER_AGENT - 1 and x // PER_AGENT + 1 < (n + PER_AGENT - 1) // PER_AGENT],
    }


def agent_yaml(n, change):
    agents = max((n + PER_AGENT - 1) // PER_AGENT, 1)
    members = {a: [i for i in range(a * PER_AGENT, min((a + 1) * PER_AGENT, n))] for a in range(agents)}
    if change:
        for i in change["move"]:
            a = i // PER_AGENT
            members[a].remove(i)
            members[a + 1].append(i)
    out = [f"# A generated agent: {n} tools, {agents} agent(s).", "agents:"]
    for a in range(agents):
        out.append(f"  agent_{a:03d}:")
        out.append(f"    tools: [{', '.join(name(i) for i in sorted(members[a]))}]")
    out.append("tools:")
    for i in range(n):
        k = i % PER_AGENT
        block = i - k
        extra = ", note: {type: string}" if change and i in change["argument"] else ""
        out.append(f"  - name: {name(i)}")
        out.append(
            "    arguments: {type: object, properties: {id: {type: string}, amount: {type: number}"
            + extra + "}, required: [id], additionalProperties: false}"
        )
        if k % 5 == 0:
            out.append("    effects: reads")
            continue
        out.append("    effects: changes")
        out.append("    undo: none")
        if not (change and i in change["after"]):
            out.append(f"    after: [{{tool: {name(block)}, bind: {{id: id}}}}]")
        if k % 4 == 1:
            out.append("    at_most: 1")
    out.append("rulebook: ./policy.co")
    return "\n".join(out) + "\n"


def policy(n, change):
    out = []
    for i in range(n):
        if i % 4 != 0 or i % PER_AGENT % 5 == 0:
            continue
        bound = 50 if change and i in change["loosen"] else 500
        out.append(f"define flow gate_{name(i)}")
        out.append(f"  if $args.amount > {bound}")
        out.append("    bot refuse large amount")
        out.append("  else")
        out.append(f"    execute {name(i)}")
        out.append("")
    return "\n".join(out)


def main():
    n = int(sys.argv[1])
    root = sys.argv[2]
    change = changes(n)
    for side, c in (("old", None), ("new", change)):
        d = os.path.join(root, side)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "agent.yaml"), "w") as f:
            f.write(agent_yaml(n, c))
        with open(os.path.join(d, "policy.co"), "w") as f:
            f.write(policy(n, c))
    changed = set()
    for xs in change.values():
        changed.update(xs)
    print(len(changed))


if __name__ == "__main__":
    main()
