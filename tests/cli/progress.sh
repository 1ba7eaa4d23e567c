#!/usr/bin/env bash
# The progress line: on a terminal (faked with `script`) analyze draws files read / total, bytes and
# the pass running, then the output file being written and its bytes, on stderr with carriage
# returns; piped, or with --quiet, nothing of it is printed.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v script > /dev/null || { echo "progress: skipped (no script from util-linux)"; exit 0; }
"$bin" simulate --hosts 4 --seed 2 --no-rdma --out "$tmp/sim" > /dev/null
# On a terminal: stdout goes to a file, stderr stays on the pseudo-terminal script records.
script -qec "$bin analyze $tmp/sim --out $tmp/o1 > $tmp/tty-stdout.txt" "$tmp/tty.log" > /dev/null
# A carriage return that does not end a line (the terminal turns every newline into \r\n).
/usr/bin/python3 -c 'import re,sys; sys.exit(0 if re.search(rb"\r(?!\n)", open(sys.argv[1],"rb").read()) else 1)' \
  "$tmp/tty.log" || fail "the line is not redrawn in place (no bare carriage return)"
grep -Eq '[0-9]+/[0-9]+ files, [0-9.]+ [kMG]?B of [0-9.]+ [kMG]?B' "$tmp/tty.log" || fail "no files/bytes count: $(tr '\r' '\n' < "$tmp/tty.log" | head -5)"
grep -q "load" "$tmp/tty.log" || fail "the load pass is not named"
grep -q "links" "$tmp/tty.log" || fail "the links pass is not named"
grep -Eq 'writing result.json, [0-9.]+ [kMG]?B' "$tmp/tty.log" || fail "the writing of result.json is not shown"
grep -q "writing topology.json" "$tmp/tty.log" || fail "the writing of topology.json is not shown"
grep -q "wrote $tmp/o1/result.json" "$tmp/tty-stdout.txt" || fail "the summary is missing"
if grep -q $'\r' "$tmp/tty-stdout.txt"; then fail "the progress line went to stdout"; fi
# --quiet on a terminal: no progress.
script -qec "$bin analyze $tmp/sim --out $tmp/o2 --quiet" "$tmp/quiet.log" > /dev/null
if grep -q "files," "$tmp/quiet.log"; then fail "--quiet draws the progress line"; fi
# Piped: nothing on stderr.
"$bin" analyze "$tmp/sim" --out "$tmp/o3" > /dev/null 2> "$tmp/piped-err.txt"
if grep -q "files,\|\[ *[0-9]*/[0-9]*\]" "$tmp/piped-err.txt"; then fail "progress printed when piped"; fi
if grep -q $'\r' "$tmp/piped-err.txt"; then fail "a carriage return when piped"; fi
cmp "$tmp/o1/result.json" "$tmp/o3/result.json" || fail "the progress line changed result.json"
echo "progress: ok"
