#!/usr/bin/python3
"""Fabric inference accuracy over latencies we did not choose (not run in CI).

For each architecture (fat-tree, dragonfly, hhre), seed and per-switch latency shift, simulates a
cluster with the fabric faults on (congested switch included) at the CLI's default probe count,
analyses it and scores it, then prints the pod accuracy and the tomography median relative error
per run and their worst and median over the seeds.

    /usr/bin/python3 bench/fabric_accuracy.py --bin build/toposcope [--hosts 16 64] [--seeds 1-5]
        [--shifts -0.1 0 0.1] [--json out.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def seeds_of(text):
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def run_one(binary, arch, hosts, seed, shift, work):
    sim = os.path.join(work, "sim")
    res = os.path.join(work, "res")
    subprocess.run([binary, "simulate", "--arch", arch, "--hosts", str(hosts), "--seed", str(seed),
                    "--no-telemetry", "--no-rdma", "--switch-latency-shift-us", str(shift), "--out", sim],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run([binary, "analyze", sim, "--out", res], check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([binary, "score", "--truth", os.path.join(sim, "truth.json"),
                          "--result", os.path.join(res, "result.json")],
                         check=True, capture_output=True, text=True).stdout
    score = json.loads(out)
    fab = score.get("fabric", {})
    tomo = score.get("tomography", {})
    subprocess.run(["rm", "-rf", sim, res], check=True)
    return {"arch": arch, "hosts": hosts, "seed": seed, "shift_us": shift,
            "leaf_accuracy": fab.get("leaf_accuracy"), "pod_accuracy": fab.get("pod_accuracy"),
            "tomo_median_rel_error": tomo.get("median_rel_error")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/toposcope")
    ap.add_argument("--archs", nargs="+", default=["fat-tree", "dragonfly", "hhre"])
    ap.add_argument("--hosts", nargs="+", type=int, default=[16, 64])
    ap.add_argument("--seeds", default="1-5")
    ap.add_argument("--shifts", nargs="+", type=float, default=[-0.1, 0.0, 0.1])
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="fabric-accuracy-") as work:
        for hosts in a.hosts:
            for arch in a.archs:
                for shift in a.shifts:
                    for seed in seeds_of(a.seeds):
                        r = run_one(a.bin, arch, hosts, seed, shift, work)
                        rows.append(r)
                        print("%-9s hosts %3d shift %+.2f seed %d: leaf %s pod %s tomo %s" %
                              (arch, hosts, shift, seed, r["leaf_accuracy"], r["pod_accuracy"],
                               r["tomo_median_rel_error"]), flush=True)
    print("\nsummary (over seeds): pod accuracy min / median, tomography median rel. error median / max")
    keys = sorted({(r["hosts"], r["arch"], r["shift_us"]) for r in rows})
    for k in keys:
        sel = [r for r in rows if (r["hosts"], r["arch"], r["shift_us"]) == k]
        pods = [r["pod_accuracy"] for r in sel if r["pod_accuracy"] is not None]
        tomo = [r["tomo_median_rel_error"] for r in sel if r["tomo_median_rel_error"] is not None]
        print("%-9s hosts %3d shift %+.2f: pod %s / %s   tomo %s / %s" % (
            k[1], k[0], k[2], "%.3f" % min(pods) if pods else "-",
            "%.3f" % statistics.median(pods) if pods else "-",
            "%.4f" % statistics.median(tomo) if tomo else "-", "%.4f" % max(tomo) if tomo else "-"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
