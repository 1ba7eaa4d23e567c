#!/usr/bin/env bash
# find-slow-nodes end to end: the simulated search prints {"runs", "found", "truth"} with every slow
# node found within 2 k log2 N + 4 runs; the directory protocol (plan-NNN.sh written, result-NNN.txt
# read, re-entrant) reaches the simulation's answer from the same result files; evidence from a
# dataset (--from) is read; a garbled result names its file and line (exit 3); a request without
# --results or --simulate is a usage error (exit 2), a missing hosts file an input error (exit 3).
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" find-slow-nodes --simulate --hosts-count 256 --slow 3 --seed 7 --json > "$tmp/sim.json" || fail "simulate"
/usr/bin/python3 - "$tmp/sim.json" <<'PY'
import json, math, sys
j = json.load(open(sys.argv[1]))
assert j["state"] == "done", j["state"]
assert j["found"] == j["truth"] and len(j["truth"]) == 3, (j["found"], j["truth"])
assert j["runs"] <= 2 * 3 * math.log2(256) + 4, j["runs"]
assert j["runs"] < j["pairwise_runs"], j
assert 0.9 < j["confidence"] <= 1, j["confidence"]
assert all(r["verdict"] in ("healthy", "slow", "borderline") for r in j["run_log"]), j["run_log"]
PY

for i in $(seq 1 24); do echo "gpu-node-$i slots=8"; done > "$tmp/hosts.txt"
"$bin" find-slow-nodes --simulate --slow 2 --seed 3 --hosts "$tmp/hosts.txt" --results "$tmp/sim" --json \
  > "$tmp/sim2.json" || fail "simulate into a directory"
[ -f "$tmp/sim/answer.json" ] && [ -x "$tmp/sim/plan-001.sh" ] || fail "simulation wrote no plan or answer"
grep -q "mpirun -np 24 -H .* all_reduce_perf -b 8 -e 8G -f 2 -g 1 > result-001.txt.tmp 2>&1 && mv result-001.txt.tmp result-001.txt" \
  "$tmp/sim/plan-001.sh" || { cat "$tmp/sim/plan-001.sh"; fail "plan-001.sh"; }
for round in $(seq 1 40); do
  "$bin" find-slow-nodes --hosts "$tmp/hosts.txt" --results "$tmp/field" --json > "$tmp/field.json" \
    || fail "field invocation $round"
  state=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["state"])' "$tmp/field.json")
  [ "$state" = done ] && break
  for r in $(/usr/bin/python3 -c 'import json,sys; print(" ".join(p["result"] for p in json.load(open(sys.argv[1]))["pending"]))' "$tmp/field.json"); do
    cp "$tmp/sim/$r" "$tmp/field/$r"
  done
done
/usr/bin/python3 - "$tmp/sim2.json" "$tmp/field.json" <<'PY'
import json, sys
sim, field = (json.load(open(p)) for p in sys.argv[1:3])
assert field["state"] == "done", field["state"]
assert field["found"] == sim["found"] == sim["truth"], (field["found"], sim["found"], sim["truth"])
assert field["runs"] == sim["runs"], (field["runs"], sim["runs"])
assert "truth" not in field
PY
"$bin" find-slow-nodes --hosts "$tmp/hosts.txt" --results "$tmp/field" | grep -q "^slow nodes: " || fail "text answer"

# A garbled result file: exit 3, the file and line named.
mkdir "$tmp/bad"
"$bin" find-slow-nodes --hosts "$tmp/hosts.txt" --results "$tmp/bad" > /dev/null || fail "first plan"
sed 's/^\( *8589934592 *[0-9]*\) /\1x/' "$tmp/sim/result-001.txt" > "$tmp/bad/result-001.txt"
set +e
"$bin" find-slow-nodes --hosts "$tmp/hosts.txt" --results "$tmp/bad" > "$tmp/bad.out" 2> "$tmp/bad.err"
rc=$?
set -e
[ "$rc" -eq 3 ] || { cat "$tmp/bad.err"; fail "garbled result: exit $rc, not 3"; }
line=$(grep -n '^ *8589934592' "$tmp/bad/result-001.txt" | cut -d: -f1)
grep -q "result-001.txt:$line: error: run 1: garbled nccl-tests line" "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "message"; }

# Evidence from a dataset.
"$bin" simulate --seed 5 --hosts 4 --no-rdma --no-fabric --out "$tmp/ds" > /dev/null || fail "simulate dataset"
/usr/bin/python3 -c 'import json,sys; print("\n".join(h["name"] for h in json.load(open(sys.argv[1]))["hosts"]))' \
  "$tmp/ds/truth.json" > "$tmp/ds_hosts.txt"
"$bin" find-slow-nodes --hosts "$tmp/ds_hosts.txt" --from "$tmp/ds" --results "$tmp/dsruns" --json > "$tmp/ds.json" \
  || fail "--from"
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["state"]=="waiting" and len(j["pending"])==2, j' \
  "$tmp/ds.json"

set +e
"$bin" find-slow-nodes --hosts "$tmp/hosts.txt" > /dev/null 2>&1
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "no --results: exit $rc, not 2"
set +e
"$bin" find-slow-nodes --hosts "$tmp/nosuch.txt" --results "$tmp/x" > /dev/null 2> "$tmp/nosuch.err"
rc=$?
set -e
[ "$rc" -eq 3 ] || fail "missing hosts file: exit $rc, not 3"
grep -q "nosuch.txt" "$tmp/nosuch.err" || { cat "$tmp/nosuch.err"; fail "missing hosts file not named"; }
echo ok
