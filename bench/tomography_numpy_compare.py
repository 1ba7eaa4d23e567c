#!/usr/bin/env python3
"""Side by side: the seed's dense numpy tomography formula (MISSION.md §4.2)

    W = np.diag(1.0/(rtt_obs+1e-6)); w = np.linalg.solve(A.T @ W @ A, A.T @ W @ rtt_obs)

against our sparse LSQR (build/tomography_bench), on the same two-level leaf/spine fat-tree
construction (16 leaves x 8 spines x 16 hosts = 384 cable links; 1 in 8 probes intra-leaf, ECMP
spines out and back, 1 % RTT noise) at the sizes the dense formula can hold: W alone is an m x m
dense matrix (m = paths), 8*m^2 bytes — 0.8 GB at 10k paths, 80 GB at 100k, 8 TB at 1M.
Prints both times and the ratio (numpy / ours). Both sides solve the same estimator; the
numerical agreement itself is tested in tests/analysis/tomography_numpy_test.cc.

usage: tomography_numpy_compare.py [--bench build-rel/tomography_bench] [--sizes 2000,5000,10000]
"""
import argparse
import json
import subprocess
import sys
import time

import numpy as np

LEAVES, SPINES, HOSTS = 16, 8, 16


def make_problem(m, seed=2024):
    rng = np.random.default_rng(seed)
    host_lat = rng.uniform(0.6, 1.2, LEAVES * HOSTS)
    up_lat = rng.uniform(0.15, 0.45, LEAVES * SPINES)
    n = LEAVES * HOSTS + LEAVES * SPINES
    A = np.zeros((m, n))
    rtt = np.zeros(m)
    for i in range(m):
        la = rng.integers(LEAVES)
        lb = la if i % 8 == 0 else rng.integers(LEAVES)
        ka, kb = rng.integers(HOSTS), rng.integers(HOSTS)
        if la == lb and ka == kb:
            kb = (kb + 1) % HOSTS
        ha, hb = la * HOSTS + ka, lb * HOSTS + kb
        A[i, ha] += 2
        A[i, hb] += 2
        if la != lb:
            so, sb = rng.integers(SPINES), rng.integers(SPINES)
            for l, s in ((la, so), (lb, so), (lb, sb), (la, sb)):
                A[i, LEAVES * HOSTS + l * SPINES + s] += 1
        truth = np.concatenate([host_lat, up_lat])
        rtt[i] = A[i] @ truth
    rtt *= 1.0 + 0.01 * rng.standard_normal(m)
    return A, rtt


def seed_invert_weights(A, rtt_obs):
    W = np.diag(1.0 / (rtt_obs + 1e-6))
    return np.linalg.solve(A.T @ W @ A, A.T @ W @ rtt_obs)


def ours_ms(bench, m):
    if not bench:
        return None
    flt = f"BM_Tomography/{m}/{LEAVES}/{SPINES}/{HOSTS}$"
    out = subprocess.run([bench, f"--benchmark_filter={flt}", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True).stdout
    runs = json.loads(out)["benchmarks"]
    return runs[0]["real_time"] if runs else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default="")
    ap.add_argument("--sizes", default="2000,5000,10000")
    args = ap.parse_args()
    print(f"{'paths':>8} {'links':>6} {'numpy ms':>10} {'W bytes':>10} {'ours ms':>9} {'ratio':>8}")
    for m in (int(s) for s in args.sizes.split(",")):
        A, rtt = make_problem(m)
        t0 = time.perf_counter()
        w = seed_invert_weights(A, rtt)
        t_np = (time.perf_counter() - t0) * 1e3
        assert np.all(np.isfinite(w))
        t_ours = ours_ms(args.bench, m)
        ratio = f"{t_np / t_ours:8.1f}x" if t_ours else "     n/a"
        ours = f"{t_ours:9.2f}" if t_ours else "      n/a"
        print(f"{m:>8} {A.shape[1]:>6} {t_np:10.1f} {8 * m * m / 1e9:9.2f}G {ours} {ratio}")
        sys.stdout.flush()
    print("beyond ~20k paths the seed's W = np.diag(...) no longer fits in memory "
          "(8*m^2 bytes); ours runs 1M paths (see tomography_bench).")


if __name__ == "__main__":
    main()
