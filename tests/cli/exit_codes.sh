#!/usr/bin/env bash
# Every exit code of the CLI, from the kind of each error: 0 ok, 1 records rejected under --strict,
# 2 usage, 3 unreadable input, 4 internal error, 5 an output that cannot be written.
set -uo pipefail
bin=$1
fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
expect() {  # expect CODE DESCRIPTION -- COMMAND...
  local want=$1 what=$2
  shift 3
  "$@" > "$tmp/out.log" 2> "$tmp/err.log"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, want $want: $*"
    sed 's/^/    /' "$tmp/err.log" | tail -5
    failures=$((failures + 1))
  fi
}
topo="$fixtures/nvidia_smi_topo"
mkdir -p "$tmp/bad/host1" "$tmp/garbage/host1"
printf 'src,dst,bandwidth_gbps\n0,1,12.5\n1,0,abc\n' > "$tmp/bad/host1/p2p.csv"
head -c 2048 /dev/urandom > "$tmp/garbage/host1/noise.bin"
printf '{"schema": "toposcope.truth/1", "hosts": ' > "$tmp/cut-truth.json"
printf '{"schema": "toposcope.truth/1", "hosts": 7}' > "$tmp/wrong-truth.json"
: > "$tmp/a-file"

# 0: ok
expect 0 "analyze real files" -- "$bin" analyze "$topo"
expect 0 "list the passes" -- "$bin" passes
expect 0 "help" -- "$bin" --help
# 1: records rejected under --strict
expect 0 "rejected records without --strict" -- "$bin" analyze "$tmp/bad"
expect 1 "rejected records with --strict" -- "$bin" analyze "$tmp/bad" --strict
# 2: usage
expect 2 "no subcommand" -- "$bin"
expect 2 "unknown subcommand" -- "$bin" analyse "$topo"
grep -q "unknown subcommand 'analyse' (did you mean 'analyze'?)" "$tmp/err.log" || {
  echo "FAIL: a misspelt subcommand does not name the nearest one:"; cat "$tmp/err.log"; failures=$((failures + 1)); }
expect 2 "unknown subcommand, nothing near" -- "$bin" frobnicate
if grep -q "did you mean" "$tmp/err.log" || ! grep -q "unknown subcommand 'frobnicate'" "$tmp/err.log"; then
  echo "FAIL: a word near no subcommand:"; cat "$tmp/err.log"; failures=$((failures + 1))
fi
expect 2 "no inputs" -- "$bin" analyze
expect 2 "unknown flag" -- "$bin" analyze "$topo" --no-such-flag
expect 2 "unknown option value" -- "$bin" analyze "$topo" --thresholds bogus
expect 2 "unknown pass" -- "$bin" analyze "$topo" --only nosuchpass --out "$tmp/o1"
expect 2 "pass dumps without --out" -- "$bin" analyze "$topo" --dump-passes
expect 2 "simulator option out of range" -- "$bin" simulate --hosts 0 --out "$tmp/s0"
expect 2 "unknown architecture" -- "$bin" simulate --arch torus --out "$tmp/s1"
expect 2 "score without --truth" -- "$bin" score --result x.json
# 3: unreadable input
expect 3 "missing input" -- "$bin" analyze /nonexistent
expect 3 "nothing readable" -- "$bin" analyze "$tmp/garbage"
expect 3 "not a dump directory" -- "$bin" analyze --from-dump "$tmp/garbage" --out "$tmp/o2"
expect 3 "missing truth" -- "$bin" score --truth /nonexistent --result /nonexistent
expect 3 "truncated truth.json" -- "$bin" score --truth "$tmp/cut-truth.json" --result "$tmp/cut-truth.json"
expect 3 "identify without a fabric" -- "$bin" identify "$topo"
# 5: an output that cannot be written (a regular file where a directory must go, a directory that
# cannot be created), said with the path and the reason before any work is done
expect 5 "analyze into a file" -- "$bin" analyze "$topo" --out "$tmp/a-file/out"
grep -q "cannot write to $tmp/a-file/out: $tmp/a-file is a file, not a directory" "$tmp/err.log" || {
  echo "FAIL: the message does not name the file in the way:"; cat "$tmp/err.log"; failures=$((failures + 1)); }
expect 5 "analyze --out naming a file" -- "$bin" analyze "$topo" --out "$tmp/a-file"
grep -q "cannot write to $tmp/a-file: it is a file, not a directory" "$tmp/err.log" || {
  echo "FAIL: --out naming a file:"; cat "$tmp/err.log"; failures=$((failures + 1)); }
expect 5 "analyze into /proc" -- "$bin" analyze "$topo" --out /proc/toposcope-out
grep -q "cannot write to /proc/toposcope-out: cannot create the directory" "$tmp/err.log" || {
  echo "FAIL: an uncreatable directory:"; cat "$tmp/err.log"; failures=$((failures + 1)); }
if grep -q "internal error" "$tmp/err.log"; then echo "FAIL: an unwritable --out reads as an internal error"; failures=$((failures + 1)); fi
if [ "$(id -u)" -ne 0 ]; then  # root writes into a read-only directory
  mkdir -p "$tmp/read-only" && chmod 555 "$tmp/read-only"
  expect 5 "analyze into a read-only directory" -- "$bin" analyze "$topo" --out "$tmp/read-only/out"
  chmod 755 "$tmp/read-only"
fi
expect 5 "simulate into a file" -- "$bin" simulate --hosts 2 --no-telemetry --no-rdma --no-fabric --out "$tmp/a-file/sim"
expect 5 "demo into a file" -- "$bin" demo --hosts 2 --out "$tmp/a-file/demo"
expect 5 "plan-ring into a file" -- "$bin" plan-ring "$topo" --out "$tmp/a-file/ring"
if [ "$failures" -ne 0 ]; then
  echo "exit_codes: $failures failure(s)"
  exit 1
fi
echo "exit_codes: ok"
