#!/usr/bin/env bash
# train-barrier end to end: a short run (4 worker processes, small model) writes barrier.json and
# barrier.txt with the three runs, each compressed run within 1 % of the synchronous loss and with
# fewer bytes, corrupted gradients caught by their digests (fallbacks counted, same loss), the seed's
# figures only as a claim; the latency measured from a simulated HHRE cluster's probes (its pods are
# the regions); bad options (exit 2) and a probe set with one pod (exit 3).
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

small=(--steps 30 --features 4096 --scale-workers 64)
"$bin" train-barrier "${small[@]}" --corrupt-every 5 --out "$tmp/run" > "$tmp/table.txt" || fail "train-barrier"
grep -q "asynchronous, 4-bit" "$tmp/table.txt" || fail "table rows"
grep -q "^Claim (the seed's table, not measured here): 482 -> 317 ms" "$tmp/table.txt" || fail "claim line"
cmp -s "$tmp/table.txt" "$tmp/run/barrier.txt" || fail "barrier.txt differs from the printed table"
/usr/bin/python3 - "$tmp/run/barrier.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
runs = j["runs"]
assert [r["codec"] for r in runs] == ["full", "q4", "topk"], runs
sync = runs[0]["measured"]
assert sync["digest_mismatches"] == 0 and sync["max_staleness_steps"] == 0, sync
for r in runs[1:]:
    m = r["measured"]
    assert abs(m["loss_gap"]) < 0.01, (r["name"], m["loss_gap"])
    assert m["bytes_total"] < sync["bytes_total"], r["name"]
    assert m["max_staleness_steps"] == 1, m
    assert r["trigger"]["asynchronous"], r["trigger"]
    assert r["simulated_at_scale"]["workers"] == 64
    assert len(m["loss"]) == 30 and len(m["iteration_ms"]) == 30
assert runs[1]["measured"]["digest_mismatches"] > 0
assert runs[1]["measured"]["digest_mismatches"] == runs[1]["measured"]["full_fallbacks"]
assert not runs[0]["trigger"]["asynchronous"]
assert "claim" in j and j["setup"]["latency_source"] == "option"
PY

# The latency from probes: an HHRE cluster of two rings (32 hosts) with a cross-AZ-like RTT (250 µs
# added to every probe).
"$bin" simulate --arch hhre --hosts 32 --probe-extra-rtt-us 250 --probes-per-pair 1 --out "$tmp/sim" > /dev/null 2>&1 \
  || fail "simulate"
"$bin" train-barrier --latency-from "$tmp/sim" --steps 5 --features 1024 --scale-workers 0 --json > "$tmp/m.json" \
  || fail "train-barrier --latency-from"
/usr/bin/python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["setup"]
assert s["latency_source"].startswith("measured: median RTT"), s
assert 120 < s["cross_region"]["latency_us"] < 200, s
' "$tmp/m.json" || fail "measured latency"

# Bad options: exit 2. One pod in the probes: exit 3.
set +e
"$bin" train-barrier --workers 1 > /dev/null 2>&1; [ $? -eq 2 ] || fail "--workers 1 must exit 2"
"$bin" train-barrier --topk 0 > /dev/null 2>&1; [ $? -eq 2 ] || fail "--topk 0 must exit 2"
set -e
mkdir -p "$tmp/one/h1" "$tmp/one/h2"
printf 'ts_ns,src,dst,hops,rtt_us\n1714564800000000000,h1,h2,leaf00,3.1\n' > "$tmp/one/h1/probes.csv"
printf 'ts_ns,src,dst,hops,rtt_us\n1714564800000000000,h2,h1,leaf00,3.0\n' > "$tmp/one/h2/probes.csv"
set +e
"$bin" train-barrier --latency-from "$tmp/one" --steps 3 > /dev/null 2> "$tmp/err.txt"; rc=$?
set -e
[ $rc -eq 3 ] || { cat "$tmp/err.txt"; fail "one pod must exit 3, got $rc"; }
grep -q "pod" "$tmp/err.txt" || fail "error names the pods"
echo ok
