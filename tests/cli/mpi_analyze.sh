#!/usr/bin/env bash
# analyze under OpenMPI on loopback (oversubscribed): 1, 2 and 4 ranks each read a shard of the
# inputs, rank 0 merges them, and result.json is byte-identical to a run without MPI and to the
# one-thread run; the other ranks write nothing; TOPOSCOPE_MPI_TIMES=1 prints each rank's phases;
# --from-dump under mpirun is refused with a usage error; a missing path, or ranks renamed by hand in
# the environment, fail on every rank without a hang; ranks bound to cores or not give the same bytes. Skipped (77) where mpirun is missing or the binary was built without MPI.
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v mpirun > /dev/null || { echo "SKIP: mpirun not installed"; exit 77; }
ldd "$bin" | grep -q libmpi || { echo "SKIP: toposcope built without MPI"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Loopback only: no probing of other interfaces.
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo

# Telemetry, clocks, traffic, RDMA captures and the fabric: every kind of input a shard can hold.
"$bin" simulate --hosts 12 --seed 7 --out "$tmp/data" > /dev/null
"$bin" analyze "$tmp/data" --out "$tmp/plain" -q || fail "analyze without MPI"
"$bin" analyze "$tmp/data" --out "$tmp/one-thread" --threads 1 -q || fail "analyze --threads 1"
cmp -s "$tmp/plain/result.json" "$tmp/one-thread/result.json" || fail "--threads 1 changed result.json"
for np in 1 2 4; do
  mpirun -np "$np" "$bin" analyze "$tmp/data" --out "$tmp/np$np" -q > "$tmp/np$np.txt" 2>&1 \
    || fail "mpirun -np $np: $(tail -5 "$tmp/np$np.txt")"
  cmp -s "$tmp/plain/result.json" "$tmp/np$np/result.json" || fail "result.json with $np ranks differs from one process"
  cmp -s "$tmp/plain/topology.json" "$tmp/np$np/topology.json" || fail "topology.json with $np ranks differs"
done
# The inputs' accounting (read = accepted + rejected per file) is the same list in the same order.
/usr/bin/python3 - "$tmp/plain/result.json" "$tmp/np4/result.json" <<'PY' || fail "inputs differ under 4 ranks"
import json, sys
a, b = (json.load(open(p))["inputs"] for p in sys.argv[1:])
assert a == b and len(a) > 12, (len(a), len(b))
PY
# A summary on stdout comes from rank 0 alone.
mpirun -np 2 "$bin" analyze "$tmp/data" --out "$tmp/np2b" > "$tmp/summary.txt" 2>&1 || fail "mpirun -np 2 with a summary"
[ "$(grep -c 'wrote .*/result.json' "$tmp/summary.txt")" = 1 ] || fail "more than one rank reported: $(cat "$tmp/summary.txt")"
# TOPOSCOPE_MPI_TIMES=1: one line per rank on where its load went, and the same result.json.
TOPOSCOPE_MPI_TIMES=1 mpirun -np 2 -x TOPOSCOPE_MPI_TIMES "$bin" analyze "$tmp/data" --out "$tmp/np2t" -q \
  > "$tmp/times.txt" 2>&1 || fail "mpirun -np 2 with TOPOSCOPE_MPI_TIMES: $(tail -5 "$tmp/times.txt")"
grep -q '^mpi rank 1: read its shard [0-9.]* s packed [0-9.]* s ([0-9]* MiB) sent [0-9.]* s$' "$tmp/times.txt" \
  || fail "no times from rank 1: $(cat "$tmp/times.txt")"
grep -q '^mpi rank 0: waited for and received rank 1 .* unpacked .* then waited for its own shard [0-9.]* s (read in [0-9.]* s) merged [0-9.]* s$' \
  "$tmp/times.txt" || fail "no times from rank 0: $(cat "$tmp/times.txt")"
cmp -s "$tmp/plain/result.json" "$tmp/np2t/result.json" || fail "result.json with the times differs"
# Under mpirun only paths are read: --from-dump is a usage error (exit 2) on every rank.
set +e
mpirun -np 2 "$bin" analyze --from-dump "$tmp/plain" --out "$tmp/x" -q > "$tmp/usage.txt" 2>&1
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "--from-dump under mpirun was accepted"
grep -q "under mpirun, analyze reads files and directories" "$tmp/usage.txt" || fail "no usage message: $(cat "$tmp/usage.txt")"
# A path that does not exist fails on every rank alike, and no rank is left waiting for another.
set +e
timeout 120 mpirun -np 2 "$bin" analyze "$tmp/no-such-dir" --out "$tmp/y" -q > "$tmp/missing.txt" 2>&1
rc=$?
set -e
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "a missing path under mpirun: exit $rc: $(cat "$tmp/missing.txt")"
grep -q "no-such-dir" "$tmp/missing.txt" || fail "no message names the missing path: $(cat "$tmp/missing.txt")"
# An environment that names the ranks otherwise than MPI does (changed by hand) fails on every rank,
# saying so, instead of reading the wrong shards.
set +e
timeout 120 mpirun -np 2 sh -c 'OMPI_COMM_WORLD_RANK=$((1 - OMPI_COMM_WORLD_RANK)) exec "$0" "$@"' \
  "$bin" analyze "$tmp/data" --out "$tmp/swapped" -q > "$tmp/swapped.txt" 2>&1
rc=$?
set -e
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "ranks renamed by hand: exit $rc: $(cat "$tmp/swapped.txt")"
[ "$(grep -c "the launcher's environment and MPI disagree on the ranks" "$tmp/swapped.txt")" = 2 ] \
  || fail "not every rank said the ranks disagree: $(cat "$tmp/swapped.txt")"
[ ! -f "$tmp/swapped/result.json" ] || fail "a result.json was written from the wrong shards"
# Each rank bound to its own core (Open MPI's default for two ranks) or to none: the same bytes.
for bind in core none; do
  mpirun --bind-to "$bind" -np 2 "$bin" analyze "$tmp/data" --out "$tmp/bind-$bind" --threads 1 -q \
    > "$tmp/bind.txt" 2>&1 || fail "mpirun --bind-to $bind: $(tail -5 "$tmp/bind.txt")"
  cmp -s "$tmp/plain/result.json" "$tmp/bind-$bind/result.json" || fail "result.json with --bind-to $bind differs"
done
echo "mpi_analyze: ok"
