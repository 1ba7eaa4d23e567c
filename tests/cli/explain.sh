#!/usr/bin/env bash
# explain end to end: a simulated fat-tree with one node fault and the simulator's telemetry and
# fabric faults is explained without --out (the stragglers need the merged events: explain merges
# them in memory); the tree names the injected PCIe or NVLink fault, the straggler and the
# congested switch with their next checks; --json prints result.json's "hypotheses" object, which
# analyze writes too and score reads (top-1 / top-3); analyze's summary points at explain. A clean
# cluster and real node files raise no fault above 0.5. Bad input: no inputs (exit 2), a missing
# path (exit 3), nothing readable (exit 3).
set -euo pipefail
bin=$1
fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" simulate --arch fat-tree --hosts 16 --seed 2 --faults 1 --no-vary --naming plain --out "$tmp/data" > /dev/null \
  || fail "simulate"
"$bin" explain "$tmp/data" > "$tmp/explain.txt" || fail "explain"
grep -q "symptom(s); highest fault probability" "$tmp/explain.txt" || { cat "$tmp/explain.txt"; fail "header"; }
grep -q "next: " "$tmp/explain.txt" || fail "no next check"
"$bin" explain "$tmp/data" --symptoms 100 > "$tmp/all.txt" || fail "explain --symptoms"
grep -Eq "(pcie_downtrain|nvlink_lanes_down)$" "$tmp/all.txt" || { cat "$tmp/all.txt"; fail "node fault not named"; }
grep -q "late_rank node" "$tmp/all.txt" || { cat "$tmp/all.txt"; fail "no late rank without --out"; }
grep -q "congested_switch" "$tmp/all.txt" || fail "congested switch not named"
"$bin" explain "$tmp/data" --json > "$tmp/h.json" || fail "explain --json"
"$bin" analyze "$tmp/data" --out "$tmp/out" --timeline > "$tmp/summary.txt" || fail "analyze"
grep -q "^hypotheses: .*toposcope explain" "$tmp/summary.txt" || fail "summary pointer"
"$bin" score --truth "$tmp/data/truth.json" --result "$tmp/out/result.json" > "$tmp/score.json" || fail "score"
/usr/bin/python3 - "$tmp/h.json" "$tmp/out/result.json" "$tmp/score.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["hypotheses"]
r = json.load(open(sys.argv[2]))["hypotheses"]
s = json.load(open(sys.argv[3]))["hypotheses"]
assert h["symptoms"] == r["symptoms"], "explain --json and result.json differ"
for sym in h["symptoms"]:
    p = [x["probability"] for x in sym["hypotheses"]]
    assert p == sorted(p, reverse=True), sym
    assert abs(sum(p) - 1) < 0.01, sym
    assert any(x["kind"] == "noise" for x in sym["hypotheses"]), sym
    assert sym["next_check"], sym
assert len(h["model"]["priors"]) > 0 and len(h["model"]["likelihoods"]) > 0
assert s["root_causes"] >= 8, s
assert s["top1_accuracy"] >= 0.7 and s["top3_accuracy"] >= 0.7, s
assert s["clean_max_probability"] is None, s
PY

# Real node files: no fault above 0.5.
"$bin" explain "$fixtures/nvidia_smi_topo" > "$tmp/real.txt" || fail "explain real"
grep -q "no symptom" "$tmp/real.txt" || { cat "$tmp/real.txt"; fail "real files raised a symptom"; }

expect_rc() {
  local want=$1; shift
  set +e; "$@" > "$tmp/stdout" 2> "$tmp/stderr"; local rc=$?; set -e
  [ "$rc" = "$want" ] || { cat "$tmp/stderr"; fail "$* exited $rc, not $want"; }
}
expect_rc 2 "$bin" explain
expect_rc 3 "$bin" explain "$tmp/missing"
grep -q "missing" "$tmp/stderr" || fail "missing-path message"
mkdir -p "$tmp/garbage/host1"
head -c 2048 /dev/urandom > "$tmp/garbage/host1/noise.bin"
expect_rc 3 "$bin" explain "$tmp/garbage"
echo "explain: ok"
