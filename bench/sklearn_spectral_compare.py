#!/usr/bin/python3
"""Compare toposcope's SpectralClusterSparse with scikit-learn's SpectralClustering.

For each size N the islands_bench binary dumps the N-GPU P2P bandwidth affinity (CSV edge list),
the true islands and our labels; scikit-learn is then timed on the same matrix, given the true
number of clusters (our side chooses k itself by the eigengap). Our time comes from the Google
Benchmark run of BM_SpectralClusterSparse/N.

Usage: /usr/bin/python3 bench/sklearn_spectral_compare.py [--bench PATH] [--large]
"""

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import SpectralClustering
from sklearn.metrics import adjusted_rand_score

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_bench(explicit):
    if explicit:
        return explicit
    for d in ("build-stats", "build", "build-release"):
        p = os.path.join(ROOT, d, "islands_bench")
        if os.access(p, os.X_OK):
            return p
    sys.exit("islands_bench not found; build it or pass --bench PATH")


def dump(bench, n, tmp):
    paths = {k: os.path.join(tmp, f"{k}_{n}.txt") for k in ("matrix", "truth", "labels")}
    args = [bench] + [f"--dump-{k}={n}:{p}" for k, p in paths.items()]
    subprocess.run(args, check=True)
    edges = np.loadtxt(paths["matrix"], delimiter=",", ndmin=2)
    truth = np.loadtxt(paths["truth"], dtype=int, ndmin=1)
    ours = np.loadtxt(paths["labels"], dtype=int, ndmin=1)
    i = edges[:, 0].astype(int)
    j = edges[:, 1].astype(int)
    w = edges[:, 2]
    a = sp.coo_matrix((np.concatenate([w, w]), (np.concatenate([i, j]), np.concatenate([j, i]))),
                      shape=(n, n)).tocsr()
    return a, truth, ours


def time_ours_ms(bench, n, min_time):
    out = subprocess.run([bench, f"--benchmark_filter=^BM_SpectralClusterSparse/{n}$",
                          "--benchmark_format=json", f"--benchmark_min_time={min_time}"],
                         check=True, capture_output=True, text=True).stdout
    b = json.loads(out)["benchmarks"][0]
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
    return b["real_time"] * scale, b["cpu_time"] * scale


def _fit(a, k, repeats, conn):
    best = float("inf")
    labels = None
    for _ in range(repeats):
        model = SpectralClustering(n_clusters=k, affinity="precomputed", assign_labels="kmeans",
                                   random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Graph is not fully connected"
            t0 = time.perf_counter()
            model.fit(a)
            best = min(best, (time.perf_counter() - t0) * 1e3)
        labels = model.labels_
    conn.send((best, labels))
    conn.close()


def time_sklearn_ms(a, k, repeats, timeout_s):
    """Best fit time in ms and the labels; (None, None) when it runs past timeout_s."""
    recv, send = multiprocessing.Pipe(duplex=False)
    proc = multiprocessing.Process(target=_fit, args=(a, k, repeats, send))
    proc.start()
    send.close()
    if recv.poll(timeout_s):
        result = recv.recv()
        proc.join()
        return result
    proc.terminate()
    proc.join()
    return None, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", help="path to the islands_bench binary")
    ap.add_argument("--large", action="store_true", help="also N = 16384 (sklearn is slow there)")
    ap.add_argument("--min-time", type=float, default=0.2, help="benchmark_min_time, seconds")
    ap.add_argument("--sklearn-timeout", type=float, default=300,
                    help="give up on one sklearn fit after this many seconds")
    args = ap.parse_args()
    bench = find_bench(args.bench)
    sizes = [8, 1024] + ([16384] if args.large else [])

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            a, truth, ours = dump(bench, n, tmp)
            k_true = len(np.unique(truth))
            ours_ms, ours_cpu_ms = time_ours_ms(bench, n, args.min_time)
            sk_ms, sk_labels = time_sklearn_ms(a, k_true, 3 if n <= 8 else 1, args.sklearn_timeout)
            ari_sk = None if sk_labels is None else adjusted_rand_score(truth, sk_labels)
            rows.append((n, k_true, len(np.unique(ours)), ours_ms, ours_cpu_ms, sk_ms,
                         adjusted_rand_score(truth, ours), ari_sk))
            print(f"done N={n}", file=sys.stderr, flush=True)

    print(f"{'N':>6} {'k_true':>6} {'k_ours':>6} {'ours ms':>10} {'ours cpu':>10} {'sklearn ms':>11} "
          f"{'sk/ours':>8} {'ARI ours':>9} {'ARI sk':>7}")
    for n, kt, ko, o, oc, s, ari_o, ari_s in rows:
        if s is None:  # sklearn timed out
            sk = f">{args.sklearn_timeout * 1e3:.0f}"
            print(f"{n:>6} {kt:>6} {ko:>6} {o:>10.3f} {oc:>10.3f} {sk:>11} {'-':>8} "
                  f"{ari_o:>9.4f} {'-':>7}")
            continue
        print(f"{n:>6} {kt:>6} {ko:>6} {o:>10.3f} {oc:>10.3f} {s:>11.1f} {s / o:>8.0f} "
              f"{ari_o:>9.4f} {ari_s:>7.4f}")
    print("(sklearn is given k_true; ours picks k by the eigengap. Ratio uses wall times.)")


if __name__ == "__main__":
    main()
