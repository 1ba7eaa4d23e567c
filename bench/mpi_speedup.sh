#!/usr/bin/env bash
# `analyze` of one dataset without MPI and under mpirun with 1 and 2 ranks (one thread per rank),
# in one run: wall times, the 2-rank speed-up over 1 rank, and whether result.json is the same.
#   bench/mpi_speedup.sh [BIN] [DATASET] [HOSTS]   default: build/toposcope /tmp/toposcope-scale/sim-2048 2048
set -euo pipefail
bin=${1:-build/toposcope}
data=${2:-/tmp/toposcope-scale/sim-2048}
hosts=${3:-2048}
[ -f "$data/truth.json" ] || "$bin" simulate --hosts "$hosts" --seed 1 --out "$data" --quiet > /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # name, command...
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$tmp/$name.time" "$@" --out "$tmp/$name" -q
  read -r wall rss < "$tmp/$name.time"
  printf "%-28s %8.1f s  peak %6.0f MB (rank 0)\n" "$name" "$wall" "$((rss / 1024))"
}
run "plain (every core)" "$bin" analyze "$data"
run "plain --threads 1" "$bin" analyze "$data" --threads 1
run "mpirun -np 1 (1 thread)" mpirun -np 1 "$bin" analyze "$data" --threads 1
run "mpirun -np 2 (1 thread each)" mpirun -np 2 "$bin" analyze "$data" --threads 1
w1=$(cut -d' ' -f1 "$tmp/mpirun -np 1 (1 thread).time")
w2=$(cut -d' ' -f1 "$tmp/mpirun -np 2 (1 thread each).time")
echo "speed-up, 2 ranks over 1: $(echo "scale=2; $w1 / $w2" | bc)x"
for name in "plain --threads 1" "mpirun -np 1 (1 thread)" "mpirun -np 2 (1 thread each)"; do
  cmp -s "$tmp/plain (every core)/result.json" "$tmp/$name/result.json" && echo "result.json identical: $name" \
    || echo "result.json DIFFERS: $name"
done
