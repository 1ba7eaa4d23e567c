#!/usr/bin/env bash
# plan-ring end to end: a simulated fat-tree is analysed and planned into one directory; the plan
# writes the hostfile, torchrun_hosts, slurm_hostfile, nccl_graph.xml and ring_plan.json with no more
# hops than the host-name order, and `score` adds ring_plan.hops_before / hops_after and the edges
# on the simulator's degraded link (none after). A real ibnetdiscover dump alone plans too. Bad
# input: no inputs (exit 2), no topology (exit 3), one host (exit 3), a missing path (exit 3).
set -euo pipefail
bin=$1
fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" simulate --arch fat-tree --hosts 24 --seed 4 --no-telemetry --no-rdma --out "$tmp/data" > /dev/null || fail "simulate"
"$bin" analyze "$tmp/data" --out "$tmp/out" > /dev/null || fail "analyze"
"$bin" plan-ring "$tmp/data" --out "$tmp/out" > "$tmp/summary.txt" || fail "plan-ring"
grep -q "hops per AllReduce" "$tmp/summary.txt" || { cat "$tmp/summary.txt"; fail "summary"; }
for f in hostfile torchrun_hosts slurm_hostfile nccl_graph.xml ring_plan.json; do
  [ -s "$tmp/out/$f" ] || fail "no $f"
done
[ "$(wc -l < "$tmp/out/hostfile")" = 24 ] || fail "hostfile lines"
grep -q '^<graphs version="1">' "$tmp/out/nccl_graph.xml" || fail "graph xml"
"$bin" score --truth "$tmp/data/truth.json" --result "$tmp/out/result.json" > "$tmp/score.json" || fail "score"
/usr/bin/python3 - "$tmp/score.json" "$tmp/out/ring_plan.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["ring_plan"]
p = json.load(open(sys.argv[2]))
assert s["hops_after"] <= s["hops_before"], s
assert s["hops_after"] == p["hops_after"] and s["hops_before"] == p["hops_before"], (s, p)
assert s["inter_leaf_after"] <= s["inter_leaf_before"], s
assert s["degraded_edges_after"] == 0, s
assert sorted(p["order"]) == sorted(p["default_order"]) and p["default_order"] == sorted(p["default_order"]), p
PY

# A real fabric dump alone (no probes): hops and leaves from the dump.
"$bin" plan-ring "$fixtures/ibnetdiscover/psmn_x5_qdr_11switch_89ca.topofile" --out "$tmp/real" > /dev/null \
  || fail "real dump"
/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p["hosts"] == 89 and p["hops_after"] <= p["hops_before"], p["hops_after"]' \
  "$tmp/real/ring_plan.json" || fail "real dump plan"

expect_rc() {
  local want=$1; shift
  set +e; "$@" > "$tmp/stdout" 2> "$tmp/stderr"; local rc=$?; set -e
  [ "$rc" = "$want" ] || { cat "$tmp/stderr"; fail "$* exited $rc, not $want"; }
}
expect_rc 2 "$bin" plan-ring --out "$tmp/x"
expect_rc 3 "$bin" plan-ring "$fixtures/nvidia_smi_topo" --out "$tmp/x"
grep -q "no topology found" "$tmp/stderr" || fail "no-topology message"
"$bin" simulate --hosts 1 --no-telemetry --no-rdma --out "$tmp/one" > /dev/null
expect_rc 3 "$bin" plan-ring "$tmp/one" --out "$tmp/x"
grep -q "a ring needs at least two" "$tmp/stderr" || fail "one-host message"
expect_rc 3 "$bin" plan-ring "$tmp/does-not-exist" --out "$tmp/x"
echo "plan_ring: ok"
