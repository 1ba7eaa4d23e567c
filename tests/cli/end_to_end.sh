#!/usr/bin/env bash
# The CLI end to end: demo, simulate -> analyze -> score, subcommands, exit codes, determinism.
set -euo pipefail
bin=$1
fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The fixed configuration (--no-vary): its thresholds include the NVLink parts (thermal fault,
# traffic matrix) that a drawn node-type mix without NVLink hosts lacks; the varied configurations
# are scored by tests/experiments/varied_ground_truth_test.cc.
"$bin" demo --no-vary --out "$tmp/demo" > "$tmp/demo.log"
grep -q '^  islands .*ari ' "$tmp/demo.log" || fail "demo printed no scores"
[ "$(wc -l < "$tmp/demo.log")" -le 120 ] || fail "demo printed $(wc -l < "$tmp/demo.log") lines"
/usr/bin/python3 - "$tmp/demo/score.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["islands"]["ari"] == 1.0, s
assert s["links"]["type_accuracy"] >= 0.995, s
assert s["links"]["degraded"]["precision"] >= 0.99, s
assert s["links"]["degraded"]["recall"] >= 0.99, s
assert s["links"]["degraded"]["true_positives"] > 0, s
c = s["clocks"]
assert c["hosts_best_worse_than_quadratic"] == 0, c
assert c["best"]["mean_abs_error_us"] * 2.5 <= c["quadratic"]["mean_abs_error_us"], c
for kind in ("thermal_link_downspeed", "straggler", "clock_step"):
    d = s["detection"][kind]
    assert d["precision"] == 1.0 and d["recall"] == 1.0, (kind, d)
f = s["flows"]
assert f["recall"] == 1.0 and f["src_qp_accuracy"] >= 0.99, f
assert s["rings"]["exact_fraction"] == 1.0 and s["rings"]["flows_host_cycle_fraction"] == 1.0, s["rings"]
b = s["entropy"]["backbone"]
assert b["precision"] >= 0.9 and b["recall"] >= 0.9, b
assert s["entropy"]["modes"]["accuracy"] >= 0.8, s["entropy"]["modes"]
assert s["patterns"]["accuracy"] >= 0.99, s["patterns"]
for k in ("bottleneck", "redundant_hop"):
    assert s["paths"][k]["precision"] == 1.0 and s["paths"][k]["recall"] == 1.0, s["paths"]
assert s["fabric"]["leaf_accuracy"] == 1.0, s["fabric"]
t = s["tomography"]
assert t["identifiable"] >= 0.9 * t["truth_links"] and t["median_rel_error"] <= 0.05, t
assert s["fabric"]["source"] == "probes" and s["fabric"]["pod_accuracy"] == 1.0, s["fabric"]
assert s["architecture"]["correct"] == 1, s["architecture"]
ac = s["architecture_comparison"]
assert ac["correct"] == 3 and ac["total"] == 3, ac
tm = s["traffic_matrix"]
assert tm["pairs_scored"] > 0 and tm["pairs_missing"] == 0, tm
assert tm["median_rel_error"] <= 0.1 and tm["coverage"] >= 0.9, tm
PY
grep -q 'SwitchName=leaf-00 Nodes=' "$tmp/demo/analysis/topology.conf" || fail "no Slurm topology.conf"
grep -q 'claimed' "$tmp/demo/architectures.txt" || fail "no architecture comparison"
"$bin" analyze "$tmp/demo/analysis/topology.conf" "$tmp/demo/analysis/topology.yaml" --out "$tmp/slurm" > /dev/null \
  || fail "the Slurm files written do not read back"
"$bin" identify "$tmp/demo/data" > "$tmp/identify.txt" || fail "identify"
grep -q '^architecture: fat-tree' "$tmp/identify.txt" || fail "identify: $(head -1 "$tmp/identify.txt")"
"$bin" identify "$tmp/demo/data" --json | grep -q '"avg_allreduce_hops"' || fail "identify --json"

# The real DGX H100 SuperPOD fabric: probes over its switches, leaves recovered from RTTs alone.
"$bin" simulate --fabric-ibnet "$fixtures/ibnetdiscover/topograph_ndr_dgx_h100_superpod_40switch_582ca.out" \
  --probes-per-pair 8 --out "$tmp/superpod" > /dev/null
"$bin" analyze "$tmp/superpod" --out "$tmp/superpod-r" > /dev/null 2>&1
"$bin" score --truth "$tmp/superpod/truth.json" --result "$tmp/superpod-r/result.json" > "$tmp/superpod-score.json"
/usr/bin/python3 - "$tmp/superpod-score.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["fabric"]["hosts"] > 500 and s["fabric"]["leaf_accuracy"] >= 0.99, s["fabric"]
assert s["tomography"]["median_rel_error"] <= 0.05, s["tomography"]
assert s["architecture"]["result"] == "fat-tree" and s["architecture"]["scored"] is False, s["architecture"]
PY
grep -q '^0x[0-9a-f]\{16\} [0-9]\+ [0-9]\+$' "$tmp/demo/analysis/opensm-hop-weights.txt" || fail "no OpenSM hop weights"
/usr/bin/python3 - "$tmp/demo/analysis/timeline.json" "$tmp/demo/analysis/result.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
n = sum(1 for e in t["traceEvents"] if e.get("ph") != "M")
assert r["timeline"]["events_in"] == r["timeline"]["events_out"] == n, (r["timeline"]["events_in"], n)
PY

"$bin" simulate --arch hhre --seed 9 --hosts 6 --out "$tmp/a" > /dev/null
"$bin" simulate --arch hhre --seed 9 --hosts 6 --out "$tmp/b" > /dev/null
diff -r "$tmp/a" "$tmp/b" > /dev/null || fail "simulate is not deterministic"
# Variation is the default: the seed draws the configuration (truth.json "variation"); --no-vary
# keeps the fixed one.
"$bin" simulate --seed 4 --hosts 4 --no-rdma --no-fabric --out "$tmp/v" > "$tmp/v.log"
grep -q '(drawn)' "$tmp/v.log" || fail "simulate does not vary by default"
grep -q '"variation"' "$tmp/v/truth.json" || fail "no variation in truth.json by default"
"$bin" simulate --seed 4 --hosts 4 --no-rdma --no-fabric --no-vary --out "$tmp/f" > "$tmp/f.log"
! grep -q '(drawn)' "$tmp/f.log" || fail "--no-vary still draws"
! grep -q '"variation"' "$tmp/f/truth.json" || fail "--no-vary wrote a variation"
"$bin" analyze "$tmp/a" --out "$tmp/ra" --timeline > /dev/null
"$bin" analyze "$tmp/b" --out "$tmp/rb" --timeline > /dev/null
sed 's#'"$tmp"'/r\?a#X#g' "$tmp/ra/result.json" > "$tmp/ra.norm"
sed 's#'"$tmp"'/r\?b#X#g' "$tmp/rb/result.json" > "$tmp/rb.norm"
cmp "$tmp/ra.norm" "$tmp/rb.norm" || fail "analyze is not deterministic"
cmp "$tmp/ra/timeline.json" "$tmp/rb/timeline.json" || fail "the merged timeline is not deterministic"
grep -q '"schema": "toposcope.result/1"' "$tmp/ra/result.json" || fail "no schema"
"$bin" score --truth "$tmp/a/truth.json" --result "$tmp/ra/result.json" > "$tmp/score.json"
grep -q type_accuracy "$tmp/score.json" || fail "score"
"$bin" links "$tmp/a" > "$tmp/links.json"
grep -q '"links"' "$tmp/links.json" || fail "links subcommand"
"$bin" islands "$tmp/a" > "$tmp/islands.json"
grep -q '"islands"' "$tmp/islands.json" || fail "islands subcommand"

# Every real node-level fixture is read.
"$bin" analyze "$fixtures/nvidia_smi_topo" "$fixtures/nccl_topo_xml" "$fixtures/nccl_graph_xml" \
  "$fixtures/cuda_p2p" "$fixtures/nvbandwidth" --out "$tmp/real" > "$tmp/real.log"
/usr/bin/python3 - "$tmp/real/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["inputs"]) == 17, len(r["inputs"])
for i in r["inputs"]:
    assert not i["skipped"], i
    assert i["rejected"] == 0, i
    assert i["records"] > 0, i
PY

# Exit codes: usage 2, missing input 3.
set +e
"$bin" analyze > /dev/null 2>&1; [ $? -eq 2 ] || fail "usage exit code"
"$bin" analyze /nonexistent > /dev/null 2>&1; [ $? -eq 3 ] || fail "missing input exit code"
"$bin" score --truth /nonexistent --result /nonexistent > /dev/null 2>&1; [ $? -eq 3 ] || fail "score missing"
set -e
echo "end_to_end: ok"
