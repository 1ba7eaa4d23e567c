#!/usr/bin/env bash
# Invalid UTF-8 in input lines (bytes 0xff 0xfe, a lone continuation byte, a cut multi-byte
# sequence) never makes a JSON output fail: result.json, passes.json and the pass dumps stay valid
# JSON, the bad bytes become U+FFFD, and the run exits 0 (1 under --strict with rejected records).
set -euo pipefail
bin=$1
fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
d="$tmp/in/host1"
mkdir -p "$d"
# An NCCL log whose rejected lines carry invalid UTF-8 (they reach the kept diagnostics' raw text).
log="$fixtures/nccl_debug_log/nccl2.26.2_2node16gpu_h100_ib_rings_trees_excerpt.log"
{ head -n 20 "$log"; printf 'node1:1:2 [0] NCCL INFO Channel 00/02 :    0 \xff\xfe  1\n';
  printf 'node1:1:2 [0] NCCL INFO Ring 00 : 3 -> \x80\xc3\n'; tail -n +21 "$log"; } > "$d/nccl.log"
# An nvidia-smi topo matrix with a bad cell holding invalid UTF-8.
sed '0,/NV8/s//NV\xff\xfe/' "$fixtures/nvidia_smi_topo/a800_8gpu_nv8_4nic_driver525.txt" > "$d/topo.txt"
grep -q $'\xff\xfe' "$d/nccl.log" && grep -q $'\xff\xfe' "$d/topo.txt" || fail "test inputs lack the bad bytes"
set +e
"$bin" analyze "$tmp/in" --out "$tmp/out" --dump-passes > "$tmp/log" 2> "$tmp/err"
code=$?
set -e
[ $code -eq 0 ] || { cat "$tmp/log" "$tmp/err"; fail "analyze exited $code"; }
/usr/bin/python3 - "$tmp/out" <<'PY'
import glob, json, sys
out = sys.argv[1]
for path in [out + "/result.json", out + "/passes.json"] + sorted(glob.glob(out + "/passes/*.json")):
    raw = open(path, "rb").read()
    raw.decode("utf-8")  # strict: raises on any invalid byte
    json.loads(raw)
r = json.load(open(out + "/result.json"))
by = {i["path"].rsplit("/", 1)[1]: i for i in r["inputs"]}
for name in ["nccl.log", "topo.txt"]:
    assert not by[name]["skipped"] and by[name]["rejected"] > 0, by[name]
kept = [k for k in r["diagnostics"]["kept"] if "nccl.log" in k or "topo.txt" in k]
assert any("\ufffd" in k for k in kept if "nccl.log" in k), kept
assert any("\ufffd" in k for k in kept if "topo.txt" in k), kept
PY
# The dumps load back: result.json from the dumps is byte-identical.
"$bin" analyze --from-dump "$tmp/out" --out "$tmp/again" > /dev/null 2> "$tmp/err2" || { cat "$tmp/err2"; fail "--from-dump"; }
cmp -s "$tmp/out/result.json" "$tmp/again/result.json" || fail "result.json from the dumps differs"
# --strict: exit 1 for the rejected records, never 4.
set +e
"$bin" analyze "$tmp/in" --strict --out "$tmp/strict" > /dev/null 2>&1; code=$?
set -e
[ $code -eq 1 ] || fail "--strict exit code $code"
echo "invalid_utf8: ok"
