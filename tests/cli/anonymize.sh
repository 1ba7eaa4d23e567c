#!/usr/bin/env bash
# `toposcope anonymize` end to end: a simulated dataset renamed with its jobs blanked keeps no old
# name in any file or file name, writes rename_map.json, still scores against its renamed truth
# with the same figures, and fails with the documented exit codes (2: --out inside the dataset,
# 3: no dataset).
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" simulate --hosts 4 --seed 5 --naming plain --no-telemetry --out "$tmp/data" > /dev/null || fail "simulate"
"$bin" anonymize "$tmp/data" --out "$tmp/anon" --seed 3 --blank-jobs > "$tmp/out.log" || fail "anonymize"
grep -q "renamed 4 hosts" "$tmp/out.log" || fail "summary: $(cat "$tmp/out.log")"
[ -f "$tmp/anon/rename_map.json" ] || fail "no rename_map.json"
grep -q '"style": "dgx"' "$tmp/anon/rename_map.json" || fail "seed 3 should choose the dgx style"
# No old name left, in contents (rename_map.json aside) or in file names.
if grep -rlE 'node00[1-4]|leaf00|spine0[01]' "$tmp/anon" | grep -v rename_map.json; then fail "old names left"; fi
if find "$tmp/anon" | grep -E 'node00|leaf0'; then fail "old names in file names"; fi
# Job cells blanked.
if grep -rh ',job[0-9]' "$tmp/anon" --include=qp-states.csv | head -1 | grep -q .; then fail "job cells left"; fi
# The same figures after renaming (host names aside).
"$bin" analyze "$tmp/data" --out "$tmp/r1" > /dev/null 2>&1 || fail "analyze original"
"$bin" analyze "$tmp/anon" --out "$tmp/r2" > /dev/null 2>&1 || fail "analyze renamed"
"$bin" score --truth "$tmp/data/truth.json" --result "$tmp/r1/result.json" > "$tmp/s1.json" || fail "score original"
"$bin" score --truth "$tmp/anon/truth.json" --result "$tmp/r2/result.json" > "$tmp/s2.json" || fail "score renamed"
diff <(grep -v '"host"' "$tmp/s1.json" | grep -E '[0-9]') <(grep -v '"host"' "$tmp/s2.json" | grep -E '[0-9]') ||
  fail "scores differ after renaming"
# Exit codes.
"$bin" anonymize "$tmp/data" --out "$tmp/data/inside" > /dev/null 2>&1
[ $? -eq 2 ] || fail "--out inside the dataset should exit 2"
"$bin" anonymize "$tmp/nope" --out "$tmp/x" > /dev/null 2> "$tmp/err.log"
[ $? -eq 3 ] || fail "a missing dataset should exit 3"
grep -q nope "$tmp/err.log" || fail "the error should name the path: $(cat "$tmp/err.log")"
echo "ok"
