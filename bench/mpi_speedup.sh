#!/usr/bin/env bash
# `analyze` of one dataset without MPI and under mpirun with 1 and 2 ranks (`--threads 1`: each rank
# reads with one thread; rank 0 runs the passes and outputs with one thread per rank on its machine,
# so 1 rank uses one core and 2 ranks both), in one run: wall times, the 2-rank speed-up over 1
# rank, where one more 2-rank run's load went (each rank's phases), and whether result.json is the
# same.
# Each is run ROUNDS times (default 3), the four interleaved, and the best wall is kept: a shared
# virtual machine's memory bandwidth alone varies by a quarter from minute to minute.
#   bench/mpi_speedup.sh [BIN] [DATASET] [HOSTS] [ROUNDS]   default: build/toposcope /tmp/toposcope-scale/sim-2048 2048 3
set -euo pipefail
bin=${1:-build/toposcope}
data=${2:-/tmp/toposcope-scale/sim-2048}
hosts=${3:-2048}
rounds=${4:-3}
[ -f "$data/truth.json" ] || "$bin" simulate --hosts "$hosts" --seed 1 --out "$data" --quiet > /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # name, command...  (keeps the best wall in $tmp/$name.time)
  local name=$1
  shift
  rm -rf "$tmp/$name"
  /usr/bin/time -f "%e %M" -o "$tmp/$name.try" "$@" --out "$tmp/$name" -q
  if [ ! -f "$tmp/$name.time" ] || [ "$(echo "$(cut -d' ' -f1 "$tmp/$name.try") < $(cut -d' ' -f1 "$tmp/$name.time")" | bc)" = 1 ]; then
    mv "$tmp/$name.try" "$tmp/$name.time"
  fi
}
for ((i = 0; i < rounds; i++)); do
  run "plain (every core)" "$bin" analyze "$data"
  run "plain --threads 1" "$bin" analyze "$data" --threads 1
  run "mpirun -np 1 (--threads 1)" mpirun -np 1 "$bin" analyze "$data" --threads 1
  run "mpirun -np 2 (--threads 1)" mpirun -np 2 "$bin" analyze "$data" --threads 1
done
for name in "plain (every core)" "plain --threads 1" "mpirun -np 1 (--threads 1)" "mpirun -np 2 (--threads 1)"; do
  read -r wall rss < "$tmp/$name.time"
  printf "%-28s %8.2f s  peak %6.0f MB (rank 0), best of %d\n" "$name" "$wall" "$((rss / 1024))" "$rounds"
done
w1=$(cut -d' ' -f1 "$tmp/mpirun -np 1 (--threads 1).time")
w2=$(cut -d' ' -f1 "$tmp/mpirun -np 2 (--threads 1).time")
echo "speed-up, 2 ranks over 1: $(echo "scale=2; $w1 / $w2" | bc)x"
# Where a 2-rank run's load goes, rank by rank (dist/mpi_load's TOPOSCOPE_MPI_TIMES).
TOPOSCOPE_MPI_TIMES=1 mpirun -np 2 -x TOPOSCOPE_MPI_TIMES "$bin" analyze "$data" --threads 1 --out "$tmp/timed" -q \
  2>&1 | grep '^mpi rank' | sort || true
for name in "plain --threads 1" "mpirun -np 1 (--threads 1)" "mpirun -np 2 (--threads 1)"; do
  cmp -s "$tmp/plain (every core)/result.json" "$tmp/$name/result.json" && echo "result.json identical: $name" \
    || echo "result.json DIFFERS: $name"
done
