"""Times the reference Colang parsers (NeMo Guardrails) on a list of files.

Usage: nemo_parse.py --dialect v1|v2 [--runs N] [--accepted OUT] FILE...

Calls the dialect's own parser, as `nemoguardrails.colang.parse_colang_file` does once it has
picked the version (that function skips a file whose heuristic says it is of the other dialect,
so calling it would time the heuristic, not the parser):

- 1.0: nemoguardrails.colang.v1_0.lang.parser.parse_colang_file(name, content)
- 2.x: nemoguardrails.colang.v2_x.lang.parser.parse_colang_file(name, content)

both with their default `include_source_mapping=True`. The import is timed on its own. One
warm-up run parses every file once (and builds the 2.x Lark parser from its cache); then each of
N runs parses every file the reference accepts, and the median run gives files/s and MB/s
(MB = 10^6 bytes of UTF-8). Prints one JSON line; with --accepted, writes the paths of the files
the reference accepts, one a line, so that the other parser is timed on the same files.
"""

import argparse
import json
import statistics
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dialect", choices=["v1", "v2"], required=True)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--accepted")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    t0 = time.perf_counter()
    if args.dialect == "v1":
        from nemoguardrails.colang.v1_0.lang.parser import parse_colang_file
    else:
        from nemoguardrails.colang.v2_x.lang.parser import parse_colang_file
    import_s = time.perf_counter() - t0

    texts = []
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            texts.append((path, f.read()))

    # Warm-up, and which files the reference accepts.
    t0 = time.perf_counter()
    accepted, rejected = [], []
    for path, text in texts:
        try:
            parse_colang_file(path, text)
            accepted.append((path, text))
        except Exception as e:  # noqa: BLE001 - any failure means "rejected"
            rejected.append((path, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"))
    warmup_s = time.perf_counter() - t0
    for path, why in rejected:
        print(f"reference rejects {path}: {why}", file=sys.stderr)
    if args.accepted:
        with open(args.accepted, "w", encoding="utf-8") as f:
            f.writelines(path + "\n" for path, _ in accepted)

    runs = []
    for _ in range(max(args.runs, 1)):
        t0 = time.perf_counter()
        for path, text in accepted:
            parse_colang_file(path, text)
        runs.append(time.perf_counter() - t0)

    med = statistics.median(runs)
    nbytes = sum(len(text.encode("utf-8")) for _, text in accepted)
    print(
        json.dumps(
            {
                "parser": "nemoguardrails",
                "kind": "files",
                "dialect": args.dialect,
                "files": len(accepted),
                "rejected": len(rejected),
                "bytes": nbytes,
                "runs": len(runs),
                "median_s": round(med, 6),
                "min_s": round(min(runs), 6),
                "files_per_s": round(len(accepted) / med, 1),
                "mb_per_s": round(nbytes / med / 1e6, 4),
                "import_s": round(import_s, 3),
                "warmup_s": round(warmup_s, 3),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
