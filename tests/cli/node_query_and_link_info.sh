#!/usr/bin/env bash
# `toposcope analyze DIR` on real `nvidia-smi -q` and iblinkinfo outputs laid out as an operator
# collects them (one directory per host, the fabric's file beside them), plus a copy of each with a
# damaged line: both formats are detected by content, every input's counts balance (accepted +
# rejected = read, in passes/load.json and as records/rejected in result.json), the GPUs' own limits
# are in gpu_limits[], and the fabric (leaves, links with width/speed/state, down ports) comes from
# iblinkinfo alone.
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
real="$root/testdata/real"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/in/gpu-a" "$tmp/in/gpu-b" "$tmp/in/gpu-c" "$tmp/in/fabric"
cp "$real/nvidia_smi_q/h100_80gb_hbm3_x8_driver565_tlimit_nvidia_smi_q.txt" "$tmp/in/gpu-a/nvidia-smi-q.txt"
cp "$real/nvidia_smi_q/h800_driver525_nvidia_smi_q.txt" "$tmp/in/gpu-b/nvidia-smi-q.txt"
# A damaged copy of the A100 output: one temperature that is not `<number> C`.
sed '0,/GPU Slowdown Temp                 : 89 C/s//GPU Slowdown Temp                 : hot/' \
  "$real/nvidia_smi_q/a100_sxm4_80gb_x4_driver555_nvidia_smi_q.txt" > "$tmp/in/gpu-c/nvidia-smi-q.txt"
ib="$real/iblinkinfo/qdr_connectx3_infiniscale4_18port_down_polling_tsinghua_dbx1000_readme_excerpt.txt"
{ echo "[root@sm01 ~]# iblinkinfo"; cat "$ib"; } > "$tmp/in/fabric/iblinkinfo.txt"
"$bin" analyze "$tmp/in" --out "$tmp/res" --dump-passes > "$tmp/an.log" 2>&1 || { cat "$tmp/an.log"; fail "analyze"; }
grep -q "fabric: 1 switches (1 leaves, 0 spines), 8 adapters, 8 hosts, 9 links (iblinkinfo), 9 ports down" "$tmp/an.log" ||
  { cat "$tmp/an.log"; fail "fabric summary line"; }
/usr/bin/python3 - "$tmp/res/result.json" "$tmp/res/passes/load.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
load = json.load(open(sys.argv[2]))
ds = load.get("output", load)
ins = {i["path"].split("/in/")[1]: i for i in r["inputs"]}
fmt = {k: v["format"] for k, v in ins.items()}
assert fmt == {"gpu-a/nvidia-smi-q.txt": "nvidia-smi-q", "gpu-b/nvidia-smi-q.txt": "nvidia-smi-q",
               "gpu-c/nvidia-smi-q.txt": "nvidia-smi-q", "fabric/iblinkinfo.txt": "iblinkinfo"}, fmt
assert not any(i["skipped"] for i in r["inputs"]), r["inputs"]
assert ins["gpu-c/nvidia-smi-q.txt"]["rejected"] == 1, ins["gpu-c/nvidia-smi-q.txt"]
assert ins["fabric/iblinkinfo.txt"]["records"] == 36 and ins["fabric/iblinkinfo.txt"]["rejected"] == 0
assert ins["gpu-a/nvidia-smi-q.txt"]["host"] == "gpu-a"
# accepted + rejected = read, per input, in the dataset dump; result.json says the same records.
dumped = {i["path"].split("/in/")[1]: i for i in ds["inputs"]}
for k, i in dumped.items():
    assert i["accepted"] + i["rejected"] == i["records"], i
    assert (i["records"], i["rejected"]) == (ins[k]["records"], ins[k]["rejected"]), (i, ins[k])
assert r["diagnostics"]["rejected"] == sum(i["rejected"] for i in r["inputs"]), r["diagnostics"]
lim = r["gpu_limits"]
a = [g for g in lim if g["host"] == "gpu-a"]
assert len(a) == 8 and all(g["form"] == "tlimit" and g["matched_by"] == "position" for g in a), a
assert (a[0]["max_operating_c"], a[0]["slowdown_c"], a[0]["shutdown_c"]) == (87, 89, 95), a[0]
assert a[6]["slowdown_c"] == 85, a[6]
b = [g for g in lim if g["host"] == "gpu-b"]
assert len(b) == 1 and b[0]["gpu"] == 0 and b[0]["matched_by"] == "selected_index" and b[0]["form"] == "absolute", b
c = [g for g in lim if g["host"] == "gpu-c"]
assert len(c) == 4 and c[0]["slowdown_c"] is None and c[1]["slowdown_c"] == 89, c
f = r["fabric"]
assert f["source"] == "iblinkinfo", f["source"]
assert len(f["leaves"]) == 1 and len(f["leaves"][0]["hosts"]) == 8, f["leaves"]
assert len(f["links"]) == 9 and all((l["width"], l["speed"], l["state"], l["tier"]) == ("4x", "QDR", "Active", "host-leaf")
                                    for l in f["links"]), f["links"]
assert len(f["down_ports"]) == 9 and {d["phys_state"] for d in f["down_ports"]} == {"Polling"}, f["down_ports"]
assert f["findings"] == [] and f["link_mismatches"] == [] and f["unresolved_peers"] == 0, f
PY
echo ok
