#!/usr/bin/env bash
# Source-QP pairing with several QPs per NIC pair (NCCL_IB_QPS_PER_CONNECTION 2, 4, 8): the
# simulator gives every QP its own UDP source port, random initial PSNs and coalesced ACKs; the
# analyzer pairs flows from the captures alone (the rdma res snapshots are removed) at >= 0.99.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for q in 2 4 8; do
  d="$tmp/q$q"
  "$bin" simulate --hosts 8 --seed $((20 + q)) --qps-per-connection "$q" --no-fabric --no-telemetry \
    --rdma-window-ms 5 --out "$d/sim" > /dev/null || fail "simulate q=$q"
  find "$d/sim" -name rdma-res-qp.txt -delete
  "$bin" analyze "$d/sim" --out "$d/res" > /dev/null 2>&1 || fail "analyze q=$q"
  "$bin" score --truth "$d/sim/truth.json" --result "$d/res/result.json" > "$d/score.json" || fail "score q=$q"
  /usr/bin/python3 - "$d/score.json" "$q" <<'PY' || fail "scores q=$q"
import json, sys
f = json.load(open(sys.argv[1]))["flows"]
q = sys.argv[2]
m = f["multi_qp"]
assert f["recall"] >= 0.99, f  # a READ begun before the window shows only its responses
assert m["found"] > 0 and m["src_qp_accuracy"] >= 0.99, (q, m)
assert f["src_qp_accuracy"] >= 0.99, (q, f)
psn = f["by_method"]["reverse_psn"]
assert psn["accuracy"] >= 0.99 and psn["proposed"] >= 0.99 * f["found"], (q, psn)
PY
done
echo ok
