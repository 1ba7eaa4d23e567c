#!/usr/bin/env bash
# probe p2p and collect end to end, against the fake libcudart / libnvidia-ml built with the tests
# (TOPOSCOPE_FAKES, set by CMake): the probe writes DIR/<host>/p2pBandwidthLatencyTest.txt and
# p2p_matrix.csv, which `analyze` reads as one measurement of that host (the NVLink-like pairs
# come out as NVLink, the staged pair slowest); collect writes dmon text that `analyze` reads as
# DCGM samples, and ends with dmon's stop message on SIGINT. Bad input: no runtime (exit 3), a
# device that does not exist (exit 2), an output that cannot be written (exit 5).
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
fakes=${TOPOSCOPE_FAKES:?TOPOSCOPE_FAKES names the folder of the fake libraries}
export FAKE_CUDA_DEVICES=4 FAKE_CUDA_LINKS="0-1:300,2-3:300" FAKE_CUDA_NO_PEER="0-3"

"$bin" probe p2p --cudart "$fakes/libcudart.so" --host gpu-node-7 --size-mib 32 --out "$tmp/data" \
  > "$tmp/probe.txt" || { cat "$tmp/probe.txt"; fail "probe"; }
grep -q "wrote .*gpu-node-7/p2p_matrix.csv" "$tmp/probe.txt" || fail "summary names the files"
grep -q "^Device: 3, Fake GPU 3" "$tmp/data/gpu-node-7/p2pBandwidthLatencyTest.txt" || fail "text layout"
grep -q "^src,dst,bandwidth_gbps" "$tmp/data/gpu-node-7/p2p_matrix.csv" || fail "csv header"
# Without --out the CUDA sample's text goes to stdout.
"$bin" probe p2p --cudart "$fakes/libcudart.so" --size-mib 1 --no-latency > "$tmp/stdout.txt" 2> /dev/null
grep -q "Unidirectional P2P=Enabled Bandwidth" "$tmp/stdout.txt" || fail "text on stdout"

FAKE_NVML_GPM=1 "$bin" collect --nvml "$fakes/libnvidia-ml.so.1" --hz 50 --iterations 5 \
  --out "$tmp/data/gpu-node-7/dcgmi_dmon.txt" 2> "$tmp/collect.txt" || { cat "$tmp/collect.txt"; fail "collect"; }
grep -q "5 iterations, 10 rows" "$tmp/collect.txt" || { cat "$tmp/collect.txt"; fail "collect summary"; }
grep -q "SMACT" "$tmp/data/gpu-node-7/dcgmi_dmon.txt" || fail "dmon header"

"$bin" analyze "$tmp/data" --out "$tmp/out" > /dev/null || fail "analyze"
/usr/bin/python3 - "$tmp/out/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
links = [l for l in r["links"] if l["a"].startswith("gpu-node-7/")]
assert len(links) == 6, r["links"][:3]
def link(a, b):
    for l in links:
        if {l["a"], l["b"]} == {"gpu-node-7/gpu%d" % a, "gpu-node-7/gpu%d" % b}:
            return l
    raise AssertionError((a, b))
assert link(0, 1)["type"] == "NVLINK", link(0, 1)
assert link(2, 3)["type"] == "NVLINK", link(2, 3)
assert link(1, 2)["type"] != "NVLINK", link(1, 2)
assert link(0, 3)["bandwidth_gbps"] < link(1, 2)["bandwidth_gbps"], (link(0, 3), link(1, 2))
formats = sorted(i["format"] for i in r["inputs"])
assert formats == ["dcgmi-dmon", "p2p-csv", "p2pBandwidthLatencyTest"], formats
PY

# SIGINT: the collector finishes its iteration and writes dmon's stop message.
"$bin" collect --nvml "$fakes/libnvidia-ml.so.1" --hz 20 --out "$tmp/sig.txt" 2> /dev/null &
pid=$!
sleep 0.6
kill -INT $pid
wait $pid || fail "collect after SIGINT exits 0"
tail -1 "$tmp/sig.txt" | grep -q "dmon was stopped due to receiving a signal" || fail "stop message"

set +e
"$bin" probe p2p --cudart /nonexistent/libcudart.so > /dev/null 2> "$tmp/err.txt"; rc=$?
[ $rc = 3 ] || fail "missing runtime: exit $rc"
grep -q "cannot load the CUDA runtime" "$tmp/err.txt" || fail "missing runtime message"
"$bin" probe p2p --cudart "$fakes/libcudart.so" --devices 9 > /dev/null 2> "$tmp/err.txt"; rc=$?
[ $rc = 2 ] || fail "bad device: exit $rc"
"$bin" collect --nvml "$fakes/libnvidia-ml.so.1" --iterations 1 --out /proc/no/such/file > /dev/null 2>&1; rc=$?
[ $rc = 5 ] || fail "unwritable output: exit $rc"
FAKE_NVML_FAIL=nvmlInit_v2 "$bin" collect --nvml "$fakes/libnvidia-ml.so.1" --iterations 1 > /dev/null 2> "$tmp/err.txt"; rc=$?
[ $rc = 3 ] || fail "NVML init failure: exit $rc"
grep -q "Driver Not Loaded" "$tmp/err.txt" || fail "NVML message"
set -e
echo OK
