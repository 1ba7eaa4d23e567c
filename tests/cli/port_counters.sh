#!/usr/bin/env bash
# Port counters end to end: a simulated fat-tree (fabric faults on, no telemetry or RDMA: seconds)
# carries perfquery reads of its switch ports; analyze reads them (format perfquery), result.json's
# port_counters names the truth's flapping cable from LinkDownedCounter on both ends, the summary
# has its line, and explain ranks flapping_link first on that cable with perfquery commands on its
# LIDs and ports. The real perfquery and ibqueryerrors outputs read with the fabric-less LIDs kept
# as `lid N`; a bad counter line is rejected with its file and line.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
real=$here/../../testdata/real

"$bin" simulate --arch fat-tree --hosts 16 --seed 1 --faults 0 --no-telemetry --no-rdma --no-vary --naming plain \
  --out "$tmp/data" > /dev/null || fail "simulate"
[ -f "$tmp/data/perfquery-start.txt" ] && [ -f "$tmp/data/perfquery-end.txt" ] || fail "no perfquery reads written"
if grep -qiE "flap|degrad|congest" "$tmp/data/perfquery-end.txt"; then fail "a fault is named in the counters"; fi
"$bin" analyze "$tmp/data" --out "$tmp/out" > "$tmp/summary.txt" || fail "analyze"
grep -q "^port counters (" "$tmp/summary.txt" || { cat "$tmp/summary.txt"; fail "summary line"; }
"$bin" explain "$tmp/data" --symptoms 100 > "$tmp/explain.txt" || fail "explain"
/usr/bin/python3 - "$tmp/data/truth.json" "$tmp/out/result.json" "$tmp/explain.txt" <<'PY'
import json, sys
truth = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
flap = [f["element"] for f in truth["fabric"]["faults"] if f["kind"] == "flapping_link"][0]
pc = r["port_counters"]
assert pc["unmapped_lids"] == 0, pc["unmapped_lids"]
downed = {f["cable"] for f in pc["findings"] if f["kind"] == "link_downed"}
assert downed == {flap}, (downed, flap)
sym = [s for s in r["hypotheses"]["symptoms"] if s["entity"] == flap]
assert sym and sym[0]["hypotheses"][0]["kind"] == "flapping_link", sym
assert "perfquery -x " in sym[0]["hypotheses"][0]["next_check"], sym[0]["hypotheses"][0]["next_check"]
assert flap in text
PY

# Real outputs alone: read, nothing rejected but the cut line of the netdata excerpt.
mkdir -p "$tmp/real"
cp "$real"/perfquery/* "$real"/ibqueryerrors/* "$tmp/real/"
"$bin" analyze "$tmp/real" --out "$tmp/rout" > "$tmp/rsum.txt" 2> "$tmp/rerr.txt" || fail "analyze real outputs"
/usr/bin/python3 - "$tmp/rout/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
pc = r["port_counters"]
nodes = {p["node"] for p in pc["ports"]}
assert "lid 10" in nodes and "lid 21" in nodes and "lid 5" in nodes, nodes
assert "MF0;ys23ib4:SX6036/U1" in nodes and "hxa-su1-leaf-r1" in nodes, nodes
assert r["diagnostics"]["rejected"] == 1, r["diagnostics"]
PY

# A bad counter value: rejected with its file and line.
mkdir -p "$tmp/bad"
printf '# Port counters: Lid 3 port 7\nLinkDownedCounter:...............x\nSymbolErrorCounter:..............0\n' > "$tmp/bad/p.txt"
"$bin" analyze "$tmp/bad" --out "$tmp/bout" > /dev/null 2>&1 || fail "analyze bad"
grep -q "p.txt:2: .*LinkDownedCounter.*not a number" "$tmp/bout/result.json" || { grep -A3 kept "$tmp/bout/result.json"; fail "file and line"; }
echo "port counters: ok"
