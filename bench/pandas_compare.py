#!/usr/bin/python3
"""Compare toposcope's DCGM text readers with pandas.read_csv on the same file, one core each.

--format csv (the default): dcgm_text_bench dumps a synthetic long-form DCGM CSV
(`ts,host,gpu,field,value`, ISO-8601 ts, 8 GPUs x 40 fields per second), pandas reads it with
`parse_dates=["ts"]`, and the bench binary's `--time-file` mode streams it once through ReadDcgmCsv
(parsing every timestamp and value too).

--format dmon: dcgm_dmon_bench dumps synthetic `dcgmi dmon` text (DCGM 3.x layout: 8 GPUs x 20
fields per iteration, `#Entity` + `ID` header lines repeated every 14 iterations, integers, `%.3f`
doubles and `N/A`), its `--time-dmon` mode streams it once through ReadDmon (every value parsed),
and pandas reads it with its C whitespace parser (`delim_whitespace=True`, or `sep=r"\\s+"` on
pandas >= 2.2, the same path):
`#Entity` lines skipped as comments, the two-word entity (`GPU 0`) as two named columns, `N/A` read
as NaN (a default NA string), then the `ID` lines (one word each, padded with NaN) dropped. Both sides parse
every numeric value; the script checks that both kept the same rows and that the sums of all values
agree.

The best of a few runs of each is kept; prints MB/s (wall and CPU time) for both and the ratios
(goal: >= 10x). CPU time is the fairer figure on a loaded machine.

Usage: /usr/bin/python3 bench/pandas_compare.py [--format csv|dmon] [--size-mb MB | --rows N]
           [--bench PATH] [--wide] [--repeat K]
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# dmon fields as dcgm_dmon_bench writes them.
DMON_FIELDS = ["NVLTX", "NVLRX", "PCITX", "PCIRX", "NVL0T", "NVL0R", "NVL1T", "NVL1R", "NVL2T",
               "NVL2R", "NVL3T", "NVL3R", "GPUTL", "TMPTR", "POWER", "SMACT", "SMOCC", "TENSO",
               "DRAMA", "FBUSD"]


def find_bench(explicit, name):
    if explicit:
        return explicit
    for d in ("build-prom-rel", "build-release", "build", "build-prom"):
        p = os.path.join(ROOT, d, name)
        if os.access(p, os.X_OK):
            return p
    sys.exit(f"{name} not found; build it (Release) or pass --bench PATH")


def dump(bench, flag, path, n):
    subprocess.run([bench, f"{flag}={path}:{n}"], check=True)
    return os.path.getsize(path)


def units_for_size(bench, flag, tmp, size_mb):
    """Rows (CSV) or iterations (dmon) that make about size_mb MB, from a small calibration dump."""
    probe = os.path.join(tmp, "probe")
    n0 = 20_000
    per_unit = dump(bench, flag, probe, n0) / n0
    os.remove(probe)
    return max(1, int(round(size_mb * 1e6 / per_unit)))


def time_ours(bench, flag, path, repeat):
    walls, cpus, last = [], [], None
    for _ in range(repeat):
        out = subprocess.run([bench, f"{flag}={path}"], check=True, capture_output=True, text=True)
        last = json.loads(out.stdout)
        if last["rejected"]:
            sys.exit(f"our reader rejected {last['rejected']} records")
        walls.append(last["seconds"])
        cpus.append(last["cpu_seconds"])
    return min(walls), min(cpus), last


def time_pandas(read, repeat):
    walls, cpus, last = [], [], None
    for _ in range(repeat):
        last = None  # the previous frame is freed before the next read
        t0, c0 = time.perf_counter(), time.process_time()
        last = read()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return min(walls), min(cpus), last


def dmon_whitespace(pd):
    """The C parser's whitespace splitting: delim_whitespace=True (its fastest spelling here), or
    sep=r"\s+" (the same path) on pandas >= 2.2, which deprecates the flag."""
    major, minor = (int(x) for x in pd.__version__.split(".")[:2])
    return {"sep": r"\s+"} if (major, minor) >= (2, 2) else {"delim_whitespace": True}


def read_dmon_pandas(pd, path):
    df = pd.read_csv(path, engine="c", header=None, names=["entity", "id"] + DMON_FIELDS, comment="#",
                     **dmon_whitespace(pd))
    return df[df["entity"] != "ID"]


def report(label_ours, label_pd, mb, t_ours, c_ours, t_pd, c_pd, pd_note):
    print("                          wall s    MB/s   |  CPU s    MB/s")
    print(f"{label_ours:<24}: {t_ours:7.3f} {mb / t_ours:7.1f}   | {c_ours:6.3f} {mb / max(c_ours, 1e-9):7.1f}")
    print(f"{label_pd:<24}: {t_pd:7.3f} {mb / t_pd:7.1f}   | {c_pd:6.3f} {mb / max(c_pd, 1e-9):7.1f}"
          f"   ({pd_note})")
    ratio = t_pd / t_ours
    cpu_ratio = c_pd / max(c_ours, 1e-9)
    verdict = "meets" if ratio >= 10 else "below"
    print(f"ratio (pandas / ours): wall {ratio:.1f}x, CPU {cpu_ratio:.1f}x  ({verdict} the 10x goal)")


def run_csv(pd, args, tmp):
    bench = find_bench(args.bench, "dcgm_text_bench")
    kind = "csv-wide" if args.wide else "csv"
    flag = f"--dump-{kind}"
    rows = args.rows if args.rows else (units_for_size(bench, flag, tmp, args.size_mb) if args.size_mb else 500_000)
    path = os.path.join(tmp, "dcgm.csv")
    mb = dump(bench, flag, path, rows) / 1e6

    # Ours: the streaming reader over the file (open + read + parse), one core.
    t_ours, c_ours, r = time_ours(bench, "--time-file", path, args.repeat)

    # pandas: the C parser, ts parsed as datetimes (one core: pandas does not parallelise it).
    def read():
        df = pd.read_csv(path, parse_dates=["ts"])
        if not pd.api.types.is_datetime64_any_dtype(df["ts"]):
            sys.exit("pandas did not parse ts as datetimes")
        return df
    t_pd, c_pd, df = time_pandas(read, args.repeat)

    print(f"file: {kind}, {rows} rows, {mb:.1f} MB; ours {r['samples']} samples, pandas {len(df)} rows")
    report("toposcope ReadDcgmCsv", "pandas.read_csv", mb, t_ours, c_ours, t_pd, c_pd,
           f"pandas {pd.__version__}, parse_dates=['ts']")


def run_dmon(pd, args, tmp):
    bench = find_bench(args.bench, "dcgm_dmon_bench")
    flag = "--dump-dmon"
    iterations = args.rows if args.rows else (units_for_size(bench, flag, tmp, args.size_mb) if args.size_mb else 50_000)
    path = os.path.join(tmp, "dmon.txt")
    mb = dump(bench, flag, path, iterations) / 1e6

    t_ours, c_ours, r = time_ours(bench, "--time-dmon", path, args.repeat)
    t_pd, c_pd, df = time_pandas(lambda: read_dmon_pandas(pd, path), args.repeat)

    values = df[DMON_FIELDS]
    if len(df) != r["rows"] or values.shape[1] * len(df) != r["values"]:
        sys.exit(f"row counts differ: ours {r['rows']} rows, pandas {len(df)}")
    unparsed = [c for c in DMON_FIELDS if not pd.api.types.is_numeric_dtype(values[c])]
    if unparsed:
        sys.exit(f"pandas left value columns unparsed: {unparsed}")
    pd_sum = float(values.sum().sum())
    if not math.isclose(pd_sum, r["sum"], rel_tol=1e-9):
        sys.exit(f"value sums differ: ours {r['sum']!r}, pandas {pd_sum!r}")
    print(f"file: dmon, {iterations} iterations, {mb:.1f} MB; ours {r['rows']} rows / {r['values']} values, "
          f"pandas {len(df)} rows; value sums agree")
    report("toposcope ReadDmon", "pandas.read_csv", mb, t_ours, c_ours, t_pd, c_pd,
           f"pandas {pd.__version__}, {dmon_whitespace(pd)}, engine='c', comment='#'")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--format", choices=("csv", "dmon"), default="csv", help="which reader (default csv)")
    ap.add_argument("--bench", help="path of the bench binary (dcgm_text_bench / dcgm_dmon_bench)")
    ap.add_argument("--rows", type=int, help="CSV rows (default 5e5, ~41 MB) or dmon iterations (default 5e4)")
    ap.add_argument("--size-mb", type=float, help="file size in MB instead of --rows (e.g. 200)")
    ap.add_argument("--wide", action="store_true", help="CSV wide form (rows = GPU rows of 40 fields)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each reader; the best is kept")
    args = ap.parse_args()

    try:
        import pandas as pd
    except ImportError as e:  # pandas is optional: say so and succeed
        print(f"pandas is not available ({e}); skipping the comparison")
        return 0

    with tempfile.TemporaryDirectory(prefix="dcgm_pandas_") as tmp:
        (run_dmon if args.format == "dmon" else run_csv)(pd, args, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
