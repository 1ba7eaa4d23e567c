#!/usr/bin/env bash
# analyze --dot DIR: fabric.dot (spines, leaves, hosts, cables; degraded and congested marked) and one
# <host>.dot per host; every file parses with Graphviz (`dot -Tsvg`) without a warning.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$bin" simulate --hosts 8 --seed 4 --no-rdma --out "$tmp/sim" > /dev/null
"$bin" analyze "$tmp/sim" --dot "$tmp/dot" --quiet
[ -f "$tmp/dot/fabric.dot" ] || fail "no fabric.dot"
hosts=$(ls "$tmp/dot" | grep -vx fabric.dot | wc -l)
[ "$hosts" -eq 8 ] || fail "$hosts host graphs, want 8: $(ls "$tmp/dot")"
grep -q "spine" "$tmp/dot/fabric.dot" || fail "fabric.dot has no spine"
grep -q "leaf" "$tmp/dot/fabric.dot" || fail "fabric.dot has no leaf"
grep -q 'shape=ellipse' "$tmp/dot/fabric.dot" || fail "fabric.dot has no host"
grep -q -- ' -- ' "$tmp/dot/fabric.dot" || fail "fabric.dot has no cable"
grep -hq 'NV[0-9]' "$tmp/dot"/*.dot || fail "no host graph has an NVLink edge"
# The simulator's degraded GPU link is drawn red and dashed in its host's graph.
grep -lq 'degraded", color=red, style=dashed' "$tmp/dot"/*.dot || fail "no degraded link marked"
# Same inputs, same bytes.
"$bin" analyze "$tmp/sim" --dot "$tmp/dot2" --quiet
diff -r "$tmp/dot" "$tmp/dot2" > /dev/null || fail "the DOT files are not deterministic"
command -v dot > /dev/null || fail "Graphviz's dot is not installed (scripts/setup.sh installs graphviz)"
for f in "$tmp/dot"/*.dot; do
  dot -Tsvg "$f" -o "$f.svg" 2> "$tmp/dot.err" || fail "dot cannot parse $(basename "$f"): $(cat "$tmp/dot.err")"
  grep -q "<svg" "$f.svg" || fail "no SVG from $(basename "$f")"
  if [ -s "$tmp/dot.err" ]; then fail "dot warns on $(basename "$f"): $(cat "$tmp/dot.err")"; fi
done
echo "dot: ok"
