#!/usr/bin/env bash
# A P2P-only dataset (no nvidia-smi topo, no NCCL topology XML): the simulator writes the P2P
# report alone for the a100-nvswitch-p2p and pcie-bridge-p2p node types, with NVLink lanes down.
# The analysis finds the links from physics: every pair of a switched host is NVSWITCH (a GPU that
# lost most of its lanes included, even below what PCIe carries), the bridged pairs are NVLINK and
# the other pairs PCIe, one NVSwitch island per switched host; the degraded links are the truth's.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$bin" simulate --seed 11 --hosts 4 --faults 6 --node-types a100-nvswitch-p2p,pcie-bridge-p2p \
  --no-telemetry --no-rdma --no-fabric --out "$tmp/sim" > "$tmp/sim.log" || { cat "$tmp/sim.log"; fail "simulate"; }
hosts=$(/usr/bin/python3 -c 'import json,sys; print(" ".join(h["name"] for h in json.load(open(sys.argv[1]))["hosts"]))' "$tmp/sim/truth.json")
[ "$(echo $hosts | wc -w)" -eq 4 ] || fail "truth names $hosts"
for h in $hosts; do
  [ "$(ls "$tmp/sim/$h" | wc -l)" -eq 1 ] || { ls "$tmp/sim/$h"; fail "$h holds more than its P2P report"; }
done
"$bin" analyze "$tmp/sim" --out "$tmp/res" > "$tmp/an.log" || { cat "$tmp/an.log"; fail "analyze"; }
"$bin" score --truth "$tmp/sim/truth.json" --result "$tmp/res/result.json" > "$tmp/score.json"
/usr/bin/python3 - "$tmp/sim/truth.json" "$tmp/res/result.json" "$tmp/score.json" <<'PY'
import json, sys
truth, result, score = (json.load(open(p)) for p in sys.argv[1:4])
types = {h["name"]: h["node_type"] for h in truth["hosts"]}
assert sorted(set(types.values())) == ["a100-nvswitch-p2p", "pcie-bridge-p2p"], types
links = result["links"]
assert all(l["type_source"] == "bandwidth" for l in links), "nothing declares the links"
for l in links:
    host = l["a"].split("/")[0]
    if types[host] == "a100-nvswitch-p2p":
        assert l["type"] == "NVSWITCH", l
tlinks = {(t["a"], t["b"]): t for t in truth["links"]}
for l in links:
    t = tlinks[(l["a"], l["b"])]
    nv = t["type"] in ("NVLINK", "NVSWITCH")
    assert (l["type"] in ("NVLINK", "NVSWITCH")) == nv, (l, t)
    assert l["degraded"] == t["degraded"], (l, t)
islands = [i for i in result["islands"] if types[i["host"]] == "a100-nvswitch-p2p"]
assert len(islands) == 2 and all(len(i["members"]) == 8 and i["kind"] == "nvswitch" for i in islands), islands
s = score["links"]
assert s["degraded"]["recall"] == 1.0 and s["degraded"]["precision"] == 1.0, s
assert score["islands"]["ari"] == 1.0, score["islands"]
print("ok", s["degraded"], sum(t["degraded"] for t in truth["links"]))
PY
