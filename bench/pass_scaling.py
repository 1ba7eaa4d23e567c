#!/usr/bin/env python3
"""Per-pass growth with cluster size, from the passes.json of analyze runs at several sizes (as
bench/analyze_scale.sh leaves them in WORK/out-N): CPU seconds per pass at each size, and the
exponent k of CPU ~ hosts^k between the two largest sizes where the pass took measurable time.
A pass with k well above 1 grows faster than the cluster (bytes read that grow faster than the
hosts count too: say which input).

    bench/pass_scaling.py [WORK]     default WORK: /tmp/toposcope-scale
"""
import json
import math
import os
import re
import sys


def main() -> int:
    work = sys.argv[1] if len(sys.argv) > 1 else "/tmp/toposcope-scale"
    runs = {}
    for d in os.listdir(work):
        m = re.fullmatch(r"out-(\d+)", d)
        p = os.path.join(work, d, "passes.json")
        if m and os.path.exists(p):
            with open(p) as f:
                runs[int(m.group(1))] = {x["name"]: x["cpu_s"] for x in json.load(f)["passes"]}
    if len(runs) < 2:
        print(f"{work}: need passes.json of two sizes or more (bench/analyze_scale.sh)", file=sys.stderr)
        return 1
    sizes = sorted(runs)
    names = sorted({n for r in runs.values() for n in r}, key=lambda n: -runs[sizes[-1]].get(n, 0.0))
    print(f"{'pass':16s}" + "".join(f"{n:>10d}" for n in sizes) + "   k (CPU ~ hosts^k)")
    for name in names:
        cpu = [runs[n].get(name, 0.0) for n in sizes]
        pts = [(n, c) for n, c in zip(sizes, cpu) if c >= 0.01]
        k = ""
        if len(pts) >= 2:
            (n1, c1), (n2, c2) = pts[-2], pts[-1]
            k = f"{math.log(c2 / c1) / math.log(n2 / n1):5.2f} ({n1}->{n2})"
        print(f"{name:16s}" + "".join(f"{c:10.2f}" for c in cpu) + "   " + k)
    return 0


if __name__ == "__main__":
    sys.exit(main())
