#!/usr/bin/env bash
# ps-sim end to end: a small real instance (6 node processes on loopback, node 0 killed with SIGKILL
# mid-run) prints exactly the documented JSON with no lost and no doubled update, a measured
# failover time and a sparse overhead below the full one; the table names the article's figures
# only as a claim; the simulation at 1,024 nodes with crashes; RTTs measured from probes; bad
# options exit 2, too few probed hosts exit 3.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" ps-sim --real 6 --real-steps 30 --json > "$tmp/real.json" || fail "ps-sim --real 6"
/usr/bin/python3 - "$tmp/real.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert sorted(j) == ["duplicate_updates", "full", "lost_updates", "sparse"], j
for g in ("full", "sparse"):
    assert sorted(j[g]) == ["failover_ms", "overhead_mb_s"], j[g]
    assert j[g]["failover_ms"] > 0, j
assert j["lost_updates"] == 0 and j["duplicate_updates"] == 0, j
assert j["sparse"]["overhead_mb_s"] < j["full"]["overhead_mb_s"], j
PY

"$bin" ps-sim --nodes 1024 --steps 6 --crashes 3 > "$tmp/table.txt" || fail "ps-sim simulation"
grep -q "simulated: 1024 nodes" "$tmp/table.txt" || fail "table head"
grep -q "^  sparse " "$tmp/table.txt" || fail "sparse row"
grep -q "^  Claim (the article's figures, not measured here): overhead 12.8 -> 3.2 MB/s" "$tmp/table.txt" || fail "claim line"
"$bin" ps-sim --nodes 1024 --steps 6 --crashes 3 --json > "$tmp/sim.json" || fail "ps-sim --json"
/usr/bin/python3 - "$tmp/sim.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["lost_updates"] == 0 and j["duplicate_updates"] == 0, j
assert 0 < j["sparse"]["failover_ms"] < j["full"]["failover_ms"], j
assert j["sparse"]["overhead_mb_s"] * 20 < j["full"]["overhead_mb_s"], j
PY

# RTTs measured from a simulated cluster's probes (each pair's median), the first 32 hosts by name.
"$bin" simulate --arch hhre --hosts 32 --probes-per-pair 1 --out "$tmp/sim" > /dev/null 2>&1 || fail "simulate"
"$bin" ps-sim --nodes 32 --crashes 2 --latency-from "$tmp/sim" > "$tmp/probes.txt" || fail "ps-sim --latency-from"
grep -q "RTTs measured: median probe RTT of each pair of 32 hosts" "$tmp/probes.txt" || fail "latency source"
grep -Eq "^  sparse +128 .* 0 +0$" "$tmp/probes.txt" || fail "sparse row with probes: $(cat "$tmp/probes.txt")"

set +e
"$bin" ps-sim --nodes 64 --latency-from "$tmp/sim" > /dev/null 2> "$tmp/err.txt"; rc=$?
[ $rc -eq 3 ] || fail "64 nodes from 32 hosts' probes must exit 3, got $rc"
grep -q "32 host" "$tmp/err.txt" || fail "the error names the hosts: $(cat "$tmp/err.txt")"
"$bin" ps-sim --real 2 > /dev/null 2>&1; [ $? -eq 2 ] || fail "--real 2 must exit 2"
"$bin" ps-sim --nodes 4 > /dev/null 2>&1; [ $? -eq 2 ] || fail "--nodes 4 must exit 2"
set -e
echo ok
