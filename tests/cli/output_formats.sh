#!/usr/bin/env bash
# analyze --format text|json|csv and explain --format: text is the summary; json is result.json
# byte for byte (the file --out writes); csv is a header and one row per finding, every row with
# the header's five cells, and the degraded links of the input among them.
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$bin" simulate --hosts 4 --seed 3 --no-rdma --no-telemetry --out "$tmp/sim" > /dev/null
data="$tmp/sim/data"
[ -d "$data" ] || data="$tmp/sim"

"$bin" analyze "$data" --out "$tmp/out" --quiet
"$bin" analyze "$data" --format json > "$tmp/stdout.json"
cmp "$tmp/stdout.json" "$tmp/out/result.json" || fail "--format json differs from result.json"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="toposcope.result/1"' \
  "$tmp/stdout.json" || fail "--format json is not result.json"

"$bin" analyze "$data" --format text > "$tmp/text.txt"
"$bin" analyze "$data" > "$tmp/default.txt"
cmp "$tmp/text.txt" "$tmp/default.txt" || fail "--format text is not the default summary"
grep -q "GPU" "$tmp/text.txt" || fail "the summary names no GPU"

"$bin" analyze "$data" --format csv > "$tmp/findings.csv"
head -1 "$tmp/findings.csv" | grep -qx "kind,severity,host,where,detail" || fail "csv header: $(head -1 "$tmp/findings.csv")"
/usr/bin/python3 - "$tmp/findings.csv" "$tmp/stdout.json" <<'PY' || fail "csv rows"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert all(len(r) == 5 for r in rows), [r for r in rows if len(r) != 5]
body = rows[1:]
assert body, "no finding rows"
assert all(r[1] in ("error", "warning", "info") for r in body), body
result = json.load(open(sys.argv[2]))
degraded = [l for l in result.get("links", []) if l.get("degraded")]
csv_degraded = [r for r in body if r[0] == "degraded_link"]
assert len(csv_degraded) == len(degraded), (len(csv_degraded), len(degraded))
PY
# Same inputs, same bytes.
"$bin" analyze "$data" --format csv | cmp - "$tmp/findings.csv" || fail "csv is not deterministic"

"$bin" explain "$data" --format json > "$tmp/explain.json"
"$bin" explain "$data" --json | cmp - "$tmp/explain.json" || fail "explain --format json differs from --json"
"$bin" explain "$data" --format text | cmp - <("$bin" explain "$data") || fail "explain --format text is not the default"
if "$bin" analyze "$data" --format xml > /dev/null 2>&1; then fail "--format xml accepted"; fi
echo "output_formats: ok"
