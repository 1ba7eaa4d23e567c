#!/usr/bin/env bash
# The named passes from the command line: --dump-passes writes every pass's output, --from-dump
# reads them back (the whole result is byte-identical), --only runs one pass from the dumps of what
# it needs (its output is byte-identical too), --verbose and passes.json measure every pass.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" simulate --hosts 4 --seed 3 --out "$tmp/data" > /dev/null
"$bin" analyze "$tmp/data" --out "$tmp/a" --dump-passes --timeline --verbose > "$tmp/a.log" 2> "$tmp/a.err"
grep -q '^total' "$tmp/a.err" || fail "--verbose printed no pass table"
for p in $("$bin" passes | awk '/^  [a-z_]+ /{print $1}'); do
  [ -s "$tmp/a/passes/$p.json" ] || fail "no dump of pass $p"
done
/usr/bin/python3 - "$tmp/a/passes.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["schema"] == "toposcope.passes/1", p
names = [x["name"] for x in p["passes"]]
assert names[0] == "load" and "architecture" in names and "timeline" in names, names
for x in p["passes"]:
    for k in ("wall_s", "cpu_s", "peak_rss_mb", "records_in", "records_out"):
        assert k in x, (k, x)
    assert x["source"] == "run", x
PY
grep -q '"passes"' "$tmp/a/result.json" && fail "pass timings leaked into result.json"

# The whole analysis from the dumps alone: the same result.json, byte for byte.
"$bin" analyze --from-dump "$tmp/a" --out "$tmp/b" --timeline > /dev/null
cmp "$tmp/a/result.json" "$tmp/b/result.json" || fail "result.json from the dumps differs"
cmp "$tmp/a/topology.json" "$tmp/b/topology.json" || fail "topology.json from the dumps differs"

# One pass from the dumps of what it needs, the raw inputs moved away.
mv "$tmp/data" "$tmp/data-away"
for p in architecture link_weights leaves islands confidence telemetry traffic_matrix; do
  "$bin" analyze --from-dump "$tmp/a" --only "$p" --out "$tmp/only-$p" > /dev/null
  cmp "$tmp/a/passes/$p.json" "$tmp/only-$p/passes/$p.json" || fail "pass $p alone differs"
  [ -e "$tmp/only-$p/result.json" ] && fail "a partial run wrote result.json"
done
echo "pipeline_dumps: ok"
