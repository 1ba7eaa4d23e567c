#!/usr/bin/env bash
# The merged timeline in both formats (analyze --timeline): timeline.json keeps one track per device,
# rank and stream, a counter track per GPU, host-scoped flow ids and timestamps relative to a stated
# origin; timeline.pftrace (native Perfetto protobuf) decodes with protoc against the subset schema
# in docs/perfetto, holds every event (slice begins = ends = X events, every counter sample), and is
# at least 10x smaller than the JSON; both are deterministic.
set -euo pipefail
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v protoc > /dev/null || { echo "SKIP: protoc (Debian protobuf-compiler) not installed"; exit 77; }

"$bin" simulate --seed 3 --hosts 4 --no-vary --out "$tmp/d" > /dev/null
"$bin" analyze "$tmp/d" --out "$tmp/r" --timeline > /dev/null 2>&1
"$bin" analyze "$tmp/d" --out "$tmp/r2" --timeline > /dev/null 2>&1
cmp "$tmp/r/timeline.pftrace" "$tmp/r2/timeline.pftrace" || fail "timeline.pftrace is not deterministic"
protoc --decode=perfetto.protos.Trace --proto_path="$src/docs/perfetto" toposcope_trace.proto \
  < "$tmp/r/timeline.pftrace" > "$tmp/decoded.txt" || fail "protoc cannot decode timeline.pftrace"
/usr/bin/python3 - "$tmp/r/timeline.json" "$tmp/decoded.txt" "$tmp/r/timeline.pftrace" <<'PY'
import json, os, re, sys
t = json.load(open(sys.argv[1]))
dec = open(sys.argv[2]).read()
ev = t["traceEvents"]
# JSON: origin and relative timestamps (exact in a double: below 2^53 ns worth of microseconds).
assert t["baseTimeNanoseconds"] % 1_000_000_000 == 0, t["baseTimeNanoseconds"]
ts = [e["ts"] for e in ev if "ts" in e]
assert ts and min(ts) >= 0 and max(ts) < 1e12, (min(ts), max(ts))
names = {e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
assert any(" rank " in n for n in names), sorted(names)[:10]
# No two slices overlap partially on one track (tracks per rank and stream).
by_track = {}
for e in ev:
    if e.get("ph") == "X":
        by_track.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
bad = 0
for spans in by_track.values():
    spans.sort()
    stack = []
    for s, en in spans:
        while stack and stack[-1] <= s:
            stack.pop()
        if stack and en > stack[-1] + 1e-3:
            bad += 1
        stack.append(en)
assert bad == 0, f"{bad} partially overlapping slices on one track"
counters = [e for e in ev if e.get("ph") == "C"]
assert counters and all(e["name"].startswith(("gpu", "nic", "cpu", "host")) or " " in e["name"] for e in counters)
per_pid = {}
for e in counters:
    per_pid.setdefault(e["pid"], set()).add(e["name"].split(" ")[0])
assert any(len(v) > 1 for v in per_pid.values()), "counters are not per GPU"
# Protobuf: every event is there.
n_x = sum(1 for e in ev if e.get("ph") == "X")
n_b = dec.count("type: TYPE_SLICE_BEGIN")
n_e = dec.count("type: TYPE_SLICE_END")
b_phase = sum(1 for e in ev if e.get("ph") == "B")
assert n_b == n_x + b_phase and n_e == n_b, (n_x, b_phase, n_b, n_e)
samples = sum(len(re.findall(r"^\s+" + k + ":", dec, re.M)) for k in
              ("counter_value", "double_counter_value", "extra_counter_values", "extra_double_counter_values"))
assert samples == len(counters), (samples, len(counters))
assert dec.count("track_descriptor {") > 0 and "clock_snapshot" in dec and "interned_data" in dec
ratio = os.path.getsize(sys.argv[1]) / os.path.getsize(sys.argv[3])
print(f"timeline.json {os.path.getsize(sys.argv[1])} bytes, timeline.pftrace {os.path.getsize(sys.argv[3])} bytes: {ratio:.1f}x smaller")
assert ratio >= 10, ratio
PY
