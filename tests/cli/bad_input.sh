#!/usr/bin/env bash
# Bad input never crashes the CLI: empty, truncated, binary, wrong format, huge numbers, NaN,
# duplicate rows. Each gives a diagnostic or a skip reason, and counts add up.
set -euo pipefail
bin=$1
fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
d="$tmp/in/host1"
mkdir -p "$d"
: > "$d/empty.txt"
head -c 4096 /dev/urandom > "$d/garbage.bin"
head -c 700 "$fixtures/nccl_topo_xml/ibm_vpc_gx3d_h100_8gpu_8nic_nccl2.22.3.xml" > "$d/truncated.xml"
head -n 5 "$fixtures/nvidia_smi_topo/a800_8gpu_nv8_4nic_driver525.txt" > "$d/partial-topo.txt"
sed 's/NV8/NVx/' "$fixtures/nvidia_smi_topo/a800_8gpu_nv8_4nic_driver525.txt" > "$d/bad-cells-topo.txt"
{ cat "$fixtures/nvidia_smi_topo/rtx2080ti_x2_pix_driver550.txt"; } > "$d/dup-topo.txt"
sed -i '3a GPU1    PIX      X      24-47,72-95     1               N/A' "$d/dup-topo.txt"
sed '0,/26.34/s//nan/; 0,/22.64/s//1e999/' "$fixtures/nvbandwidth/nvbandwidth_issue50_v0.8_6x_rtx_a6000_pcie_d2d_memcpy_read_ce.txt" > "$d/nan-nvbandwidth.txt"
printf 'src,dst,bandwidth_gbps\n0,1,12.5\n1,0,abc\n0,2,-4\n0,3,99999999\n' > "$d/p2p.csv"
printf '<graphs version="1"><graph id="0" pattern="4"><channel><gpu dev="zz"/></channel></graph></graphs>' > "$d/graph.xml"
printf '{"schema": "toposcope.truth/1"}' > "$d/truth.json"
gzip -c "$fixtures/nvidia_smi_topo/dgx_a100_8gpu_nv12_12nic_mlx5_rows.txt" | head -c 300 > "$d/cut.txt.gz"
testdata="$(cd "$(dirname "$0")/../../testdata" && pwd)"
cp "$testdata/pcap/broken_tail_usec.pcap" "$d/broken.pcap"   # breaks off mid-record
printf '\xd4\xc3\xb2\xa1\x02\x00' > "$d/short.pcap"        # pcap magic, then nothing
printf 'node1:1:2 [0] NCCL INFO Channel 00/02 :    0   x   1\nnode1:1:2 [0] NCCL INFO Ring 00 : 3 -> 0\n' > "$d/nccl.log"
set +e
"$bin" analyze "$tmp/in" --out "$tmp/out" > "$tmp/log" 2> "$tmp/err"
code=$?
set -e
[ $code -eq 0 ] || { cat "$tmp/log" "$tmp/err"; fail "analyze exited $code"; }
/usr/bin/python3 - "$tmp/out/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
by = {i["path"].rsplit("/", 1)[1]: i for i in r["inputs"]}
for name in ["empty.txt", "garbage.bin", "truth.json", "cut.txt.gz"]:
    assert by[name]["skipped"] and by[name]["skip_reason"], by[name]
# A topology dump cut short keeps what it holds, with one record saying where it stops.
assert not by["truncated.xml"]["skipped"] and by["truncated.xml"]["rejected"] == 1, by["truncated.xml"]
assert any("truncated.xml:" in k and "stops at byte offset" in k for k in r["diagnostics"]["kept"]), r["diagnostics"]
for name in ["short.pcap"]:  # refused at load with libpcap's reason: nothing read, nothing rejected
    assert by[name]["skipped"] and by[name]["records"] == 0 and by[name]["rejected"] == 0, by[name]
    assert "not a pcap or pcapng capture" in by[name]["skip_reason"], by[name]
assert any("broken.pcap@byte" in k for k in r["diagnostics"]["kept"]), r["diagnostics"]["kept"]
for name in ["bad-cells-topo.txt", "dup-topo.txt", "nan-nvbandwidth.txt", "p2p.csv", "graph.xml", "broken.pcap", "nccl.log"]:
    assert not by[name]["skipped"], by[name]
    assert by[name]["rejected"] > 0, by[name]
kept = r["diagnostics"]["kept"]
assert any("dup-topo.txt" in k for k in kept), kept
assert r["diagnostics"]["rejected"] == sum(i["rejected"] for i in r["inputs"]), r["diagnostics"]
PY
# --strict turns rejected records into exit code 1.
set +e
"$bin" analyze "$tmp/in" --strict > /dev/null 2>&1; [ $? -eq 1 ] || fail "--strict exit code"
set -e
echo "bad_input: ok"
