#!/usr/bin/env bash
# toposcope topo HOST PATH...: the host's links as reconstructed, as an nvidia-smi topo -m matrix,
# compared with golden files: a real DGX A100 (all NV12), a real two-socket five-GPU box (PCIe
# only), and a simulated host with a degraded NVLink (marked *); an unknown host is a usage error
# naming the hosts there are.
set -uo pipefail
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
golden="$root/tests/cli/golden"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
topo="$root/testdata/real/nvidia_smi_topo"
check() {  # check GOLDEN HOST PATH...
  local name=$1
  shift
  "$bin" topo "$@" > "$tmp/$name" 2> "$tmp/err" || fail "topo $*: exit $? $(cat "$tmp/err")"
  if [ -n "${UPDATE_GOLDEN:-}" ]; then cp "$tmp/$name" "$golden/$name"; fi
  diff -u "$golden/$name" "$tmp/$name" || fail "topo $* differs from $name"
}
mkdir -p "$tmp/in/dgx" "$tmp/in/box5"
cp "$topo/dgx_a100_nv12_nic0_nic11_no_nic_legend_nccl_issue1505_excerpt.txt" "$tmp/in/dgx/nvidia-smi-topo.txt"
cp "$topo/five_gpu_sys_phb_node_gpu_numa_id_club3090_issue46_excerpt.txt" "$tmp/in/box5/nvidia-smi-topo.txt"
check topo_dgx_a100.txt dgx "$tmp/in"
check topo_five_gpu_pcie.txt box5 "$tmp/in"
"$bin" simulate --hosts 4 --seed 1 --no-rdma --no-fabric --out "$tmp/sim" > /dev/null || fail "simulate"
"$bin" analyze "$tmp/sim" --format json --quiet > "$tmp/result.json" || fail "analyze"
# A host the analyzer found a degraded GPU link on, and the pair.
read -r host a b < <(/usr/bin/python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
for l in r.get("links", []):
    if l.get("degraded"):
        h, ga = l["a"].rsplit("/gpu", 1)
        print(h, ga, l["b"].rsplit("/gpu", 1)[1]); break' "$tmp/result.json")
[ -n "${host:-}" ] || fail "the analyzer found no degraded link in the simulated cluster"
"$bin" topo "$host" "$tmp/sim" > "$tmp/sim.txt" || fail "topo of a simulated host"
# Row GPU<a>, column of GPU<b>: the cell ends in '*'.
/usr/bin/python3 - "$tmp/sim.txt" "$a" "$b" <<'PY' || fail "the degraded link GPU$a-GPU$b of $host is not marked: $(cat "$tmp/sim.txt")"
import sys
lines = open(sys.argv[1]).read().splitlines()
a, b = sys.argv[2], sys.argv[3]
header = lines[2].split()
row = next(l.split() for l in lines[3:] if l.startswith("GPU" + a + " "))
cell = row[1 + header.index("GPU" + b)]
assert cell.endswith("*"), cell
PY
grep -q "^Degraded links:" "$tmp/sim.txt" || fail "no list of degraded links"
grep -q "^  GPU$a-GPU$b: " "$tmp/sim.txt" || fail "GPU$a-GPU$b is not listed as degraded"
"$bin" topo nosuchhost "$tmp/in" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "unknown host: exit $rc, want 2"
grep -q "no GPU of host 'nosuchhost'.*box5, dgx" "$tmp/err" || fail "unknown host message: $(cat "$tmp/err")"
echo "topo: ok"
