#!/usr/bin/env python3
"""Measures `toposcope find-slow-nodes --simulate`: runs used against N and k over seeds, against a
disjoint-pair sweep and the bound 2 k log2 N + 4. Prints the markdown table of docs/find_slow_nodes.md.

usage: bench/find_slow_nodes_table.py build/toposcope [--seeds 20] [--hosts 64,256,1024,4096] [--k 1,2,3,4]
                                     [--hinted 0]
"""
import argparse
import json
import math
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("toposcope")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--hosts", default="64,256,1024,4096")
    ap.add_argument("--k", default="1,2,3,4")
    ap.add_argument("--hinted", type=int, default=0, help="slow nodes passive evidence names (prior 1/2)")
    a = ap.parse_args()
    print("| N | k | runs mean | runs max | bound 2k log2 N + 4 | within bound | all found, none wrong | "
          "min confidence | disjoint-pair sweep | all pairs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    bad = 0
    for n in [int(x) for x in a.hosts.split(",")]:
        for k in [int(x) for x in a.k.split(",")]:
            runs, ok_found, within, conf, pair = [], 0, 0, [], []
            for seed in range(1, a.seeds + 1):
                out = subprocess.run([a.toposcope, "find-slow-nodes", "--simulate", "--hosts-count", str(n),
                                      "--slow", str(k), "--seed", str(seed), "--hinted", str(min(a.hinted, k)),
                                      "--json"], check=True, capture_output=True, text=True).stdout
                j = json.loads(out)
                runs.append(j["runs"])
                ok_found += j["found"] == j["truth"]
                within += j["runs"] <= j["bound_runs"]
                conf.append(j["confidence"])
                pair.append(j["pairwise_runs"])
            bound = 2 * k * math.log2(n) + 4
            bad += (ok_found != a.seeds) + (within != a.seeds)
            print(f"| {n} | {k} | {sum(runs) / len(runs):.1f} | {max(runs)} | {bound:.0f} | {within}/{a.seeds} | "
                  f"{ok_found}/{a.seeds} | {min(conf):.3f} | {sum(pair) / len(pair):.0f} | {n * (n - 1) // 2} |")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
