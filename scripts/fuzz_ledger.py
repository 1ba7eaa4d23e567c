#!/usr/bin/env python3
"""Sums fuzz/corpus/LEDGER.tsv (written by scripts/fuzz_long.sh) per fuzz target: executions over
all long runs, CPU seconds, executions per CPU second of the latest run, and how far each target is
from the goal of 10^7 executions. Targets under fuzz/ that never ran are listed with 0.

    scripts/fuzz_ledger.py [--goal N] [--markdown]
    scripts/fuzz_ledger.py --plan [--max-seconds S]   # "target seconds" lines, cheapest to finish first

--plan lists the targets short of the goal with the seconds each still needs at its latest rate
(targets that never ran get a probe run of 120 s), for scripts/fuzz_long.sh:
    /usr/bin/python3 scripts/fuzz_ledger.py --plan | while read t s; do scripts/fuzz_long.sh "$s" "$t"; done
"""
import argparse
import csv
import os
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--goal", type=float, default=1e7, help="executions per target (default 1e7)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("--plan", action="store_true", help="print the runs still needed, cheapest first")
    ap.add_argument("--max-seconds", type=int, default=1800, help="longest single run in --plan (default 1800)")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ledger = os.path.join(root, "fuzz", "corpus", "LEDGER.tsv")
    targets = sorted(f[:-3] for f in os.listdir(os.path.join(root, "fuzz")) if f.endswith("_fuzz.cc"))
    rows = {t: {"execs": 0, "cpu": 0, "runs": 0, "rate": 0.0, "files": 0} for t in targets}
    if os.path.exists(ledger):
        with open(ledger, newline="") as f:
            for n, r in enumerate(csv.DictReader(f, delimiter="\t"), start=2):
                try:
                    execs, cpu = int(r["executions"]), int(r["cpu_seconds"])
                except (KeyError, TypeError, ValueError):
                    print(f"{ledger}:{n}: skipped: not a ledger row", file=sys.stderr)
                    continue
                s = rows.setdefault(r["target"], {"execs": 0, "cpu": 0, "runs": 0, "rate": 0.0, "files": 0})
                s["execs"] += execs
                s["cpu"] += cpu
                s["runs"] += 1
                s["rate"] = execs / cpu if cpu > 0 else 0.0
                s["files"] = int(r.get("corpus_files") or 0)
    if args.plan:
        plan = []
        for t in sorted(rows):
            s = rows[t]
            if s["execs"] >= args.goal:
                continue
            need = 120 if s["rate"] <= 0 else int((args.goal - s["execs"]) / s["rate"] * 1.05) + 30
            plan.append((0 if s["rate"] <= 0 else 1, need, t))
        for _, need, t in sorted(plan):
            print(t, min(need, args.max_seconds))
        return 0
    header = ["target", "runs", "executions", "CPU-s", "exec/CPU-s (last)", "corpus", "of goal"]
    lines = []
    for t in sorted(rows):
        s = rows[t]
        lines.append([t, str(s["runs"]), f"{s['execs']:,}", f"{s['cpu']:,}", f"{s['rate']:,.0f}",
                      str(s["files"]), f"{100 * s['execs'] / args.goal:.0f} %"])
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for l in lines:
            print("| " + " | ".join(l) + " |")
    else:
        w = [max(len(h), *(len(l[i]) for l in lines)) for i, h in enumerate(header)]
        print("  ".join(h.ljust(w[i]) for i, h in enumerate(header)))
        for l in lines:
            print("  ".join(c.rjust(w[i]) if i else c.ljust(w[i]) for i, c in enumerate(l)))
    done = sum(1 for s in rows.values() if s["execs"] >= args.goal)
    print(f"{done} of {len(rows)} targets at or past {args.goal:,.0f} executions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
