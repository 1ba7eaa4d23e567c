#!/usr/bin/env bash
# Every subcommand's --help: the defaults of its options, an Examples section and the exit codes,
# and only its own flags (analyze's --format and --dot are not offered by links or topo).
set -uo pipefail
bin=$1
fail() { echo "FAIL: $*"; exit 1; }
subs=$("$bin" --help | awk '/^Subcommands:/{on=1; next} on && !NF {exit} on {print $1}')
[ -n "$subs" ] || fail "toposcope --help lists no subcommand"
for s in $subs; do
  h=$("$bin" "$s" --help) || fail "$s --help exits non-zero"
  grep -q "^Exit codes: 0 ok" <<< "$h" || fail "$s --help has no exit codes"
  grep -q "^Examples:" <<< "$h" || fail "$s --help has no examples"
  grep -q "^  toposcope $s" <<< "$h" || fail "$s --help: the examples do not run $s"
done
h=$("$bin" analyze --help)
grep -Eq -- "--thresholds TEXT:\{modern,seed\}=modern" <<< "$h" || fail "analyze --help shows no default of --thresholds: $h"
grep -Eq -- "--sampling-period-ms FLOAT=100" <<< "$h" || fail "analyze --help shows no default of --sampling-period-ms"
grep -Eq -- "--format TEXT:\{text,json,csv\}=text" <<< "$h" || fail "analyze --help shows no --format default"
grep -q -- "--dot" <<< "$h" || fail "analyze --help has no --dot"
if grep -q -- "=\[\]\|=-1" <<< "$h"; then fail "analyze --help shows an empty or unset default"; fi
for s in links topo explain; do
  h=$("$bin" "$s" --help)
  if grep -Eq -- "^ +(--dot|--dump-passes|--timeline|--format TEXT:\{text,json,csv\})" <<< "$h"; then fail "$s --help offers analyze's output flags"; fi
done
h=$("$bin" simulate --help)  # read whole: grep -q closing the pipe early fails it under pipefail
grep -Eq -- "--hosts INT:.*=[0-9]+" <<< "$h" || fail "simulate --help shows no default of --hosts"
echo "help: ok"
