#!/usr/bin/python3
"""Compare toposcope's DCGM CSV reader with pandas.read_csv on the same file, one core each.

dcgm_text_bench dumps a synthetic long-form DCGM CSV (`ts,host,gpu,field,value`, ISO-8601 ts,
8 GPUs x 40 fields per second), pandas reads it with `parse_dates=["ts"]`, and the bench binary's
`--time-file` mode streams it once through ReadDcgmCsv (parsing every timestamp and value too).
The best of a few runs of each is kept; prints MB/s (wall and CPU time) for both and the ratios
(goal: >= 10x). CPU time is the fairer figure on a loaded machine.

Usage: /usr/bin/python3 bench/pandas_compare.py [--bench PATH] [--rows N] [--wide] [--repeat K]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_bench(explicit):
    if explicit:
        return explicit
    for d in ("build-prom-rel", "build-release", "build", "build-prom"):
        p = os.path.join(ROOT, d, "dcgm_text_bench")
        if os.access(p, os.X_OK):
            return p
    sys.exit("dcgm_text_bench not found; build it (Release) or pass --bench PATH")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", help="path of the dcgm_text_bench binary")
    ap.add_argument("--rows", type=int, default=500_000, help="CSV rows (default 5e5, ~41 MB)")
    ap.add_argument("--wide", action="store_true", help="wide form (rows = GPU rows of 40 fields)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each reader; the best is kept")
    args = ap.parse_args()

    try:
        import pandas as pd  # noqa: F401
    except ImportError as e:  # pandas is optional: say so and succeed
        print(f"pandas is not available ({e}); skipping the comparison")
        return 0

    bench = find_bench(args.bench)
    with tempfile.TemporaryDirectory(prefix="dcgm_pandas_") as tmp:
        path = os.path.join(tmp, "dcgm.csv")
        kind = "csv-wide" if args.wide else "csv"
        subprocess.run([bench, f"--dump-{kind}={path}:{args.rows}"], check=True)
        size = os.path.getsize(path)
        mb = size / 1e6

        # Ours: the streaming reader over the file (open + read + parse), one core.
        ours, ours_cpu = [], []
        samples = 0
        for _ in range(args.repeat):
            out = subprocess.run([bench, f"--time-file={path}"], check=True, capture_output=True, text=True)
            r = json.loads(out.stdout)
            if r["rejected"]:
                sys.exit(f"our reader rejected {r['rejected']} rows")
            ours.append(r["seconds"])
            ours_cpu.append(r["cpu_seconds"])
            samples = r["samples"]

        # pandas: the C parser, ts parsed as datetimes (one core: pandas does not parallelise it).
        theirs, theirs_cpu = [], []
        rows = 0
        for _ in range(args.repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            df = pd.read_csv(path, parse_dates=["ts"])
            theirs.append(time.perf_counter() - t0)
            theirs_cpu.append(time.process_time() - c0)
            rows = len(df)
            if not pd.api.types.is_datetime64_any_dtype(df["ts"]):
                sys.exit("pandas did not parse ts as datetimes")
            del df

        t_ours, t_pd = min(ours), min(theirs)
        c_ours, c_pd = min(ours_cpu), min(theirs_cpu)
        print(f"file: {kind}, {args.rows} rows, {mb:.1f} MB; ours {samples} samples, pandas {rows} rows")
        print("                        wall s    MB/s   |  CPU s    MB/s")
        print(f"toposcope ReadDcgmCsv : {t_ours:7.3f} {mb / t_ours:7.1f}   | {c_ours:6.3f} {mb / max(c_ours, 1e-9):7.1f}")
        print(f"pandas.read_csv       : {t_pd:7.3f} {mb / t_pd:7.1f}   | {c_pd:6.3f} {mb / max(c_pd, 1e-9):7.1f}"
              f"   (pandas {pd.__version__}, parse_dates=['ts'])")
        ratio = t_pd / t_ours
        cpu_ratio = c_pd / max(c_ours, 1e-9)
        verdict = "meets" if ratio >= 10 else "below"
        print(f"ratio (pandas / ours): wall {ratio:.1f}x, CPU {cpu_ratio:.1f}x  ({verdict} the 10x goal)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
