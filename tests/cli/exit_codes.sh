#!/usr/bin/env bash
# Every exit code of the CLI, from the kind of each error: 0 ok, 1 records rejected under --strict,
# 2 usage, 3 unreadable input, 4 internal error or an output that cannot be written.
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
# 4: an output that cannot be written (a regular file where a directory must go)
expect 4 "analyze into a file" -- "$bin" analyze "$topo" --out "$tmp/a-file/out"
expect 4 "simulate into a file" -- "$bin" simulate --hosts 2 --no-telemetry --no-rdma --no-fabric --out "$tmp/a-file/sim"
expect 4 "demo into a file" -- "$bin" demo --hosts 2 --out "$tmp/a-file/demo"
if [ "$failures" -ne 0 ]; then
  echo "exit_codes: $failures failure(s)"
  exit 1
fi
echo "exit_codes: ok"
