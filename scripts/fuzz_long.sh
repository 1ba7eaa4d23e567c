#!/usr/bin/env bash
# Long libFuzzer runs, off CI: runs each target (all, or those named) for SECONDS (default 3600),
# seeded with the kept corpus, the real fixtures and our testdata, then merges what adds coverage
# into fuzz/corpus/<target>/ (files up to FUZZ_MAX_BYTES, default 4096, only; the fewest that cover
# every edge covered so far).
# Commit fuzz/corpus/ afterwards; scripts/fuzz_smoke.sh seeds from it.
#   scripts/fuzz_long.sh [SECONDS] [TARGET...]      e.g. scripts/fuzz_long.sh 7200 chrony_fuzz
# Aim for >= 10^7 executions per target, summed over runs: each run appends its count to
# fuzz/corpus/LEDGER.tsv (date, target, build, executions, CPU seconds, corpus files), and
# scripts/fuzz_ledger.py sums it per target. A later run resumes from the kept corpus.
# The search build (FUZZ_SANITIZERS=0, the default) is libFuzzer alone at -O2 in build-fuzz-fast:
# several times more executions per CPU second than under ASan + UBSan. Every input it keeps is then
# replayed once under ASan + UBSan (build-fuzz, as in CI), so a memory error it could not see still
# fails the run. FUZZ_SANITIZERS=1 searches under the sanitizers directly (build-fuzz).
# FUZZ_JOBS runs that many fuzzing processes per target (default 1); FUZZ_RSS_MB caps memory (2048).
# Inputs are at most FUZZ_MAX_BYTES long, in the run as in the kept corpus: each seed is cut to its
# head of that many bytes (at a line end when there is one). Whole fixtures of up to 1 MB as seeds
# and -max_len=65536 made the text readers run at tens of executions per second.
# FUZZ_FLAGS adds libFuzzer flags to each run (default -entropic=0: several times more executions
# per second for some targets, see scripts/fuzz_smoke.sh).
# FUZZ_DEADLINE (a date(1) time such as 02:50) ends every run by then: a target that would start
# with under three minutes left is skipped, and each run is cut to the time left less two minutes
# for its merge and replay.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
secs=${1:-3600}
shift || true
asan_build=${TOPOSCOPE_FUZZ_BUILD_DIR:-build-fuzz}
sanitizers=${FUZZ_SANITIZERS:-0}
if [ "$sanitizers" = 1 ]; then build=$asan_build; else build=${TOPOSCOPE_FUZZ_FAST_BUILD_DIR:-build-fuzz-fast}; fi
flags=${FUZZ_FLAGS:--entropic=0}
ledger=fuzz/corpus/LEDGER.tsv
fixtures=${TOPOSCOPE_FIXTURES:-$root/../shared/fixtures/real}
max_bytes=${FUZZ_MAX_BYTES:-4096}
replay=${FUZZ_REPLAY:-1}
jobs=${FUZZ_JOBS:-1}
rss=${FUZZ_RSS_MB:-2048}
configure() {  # $1 build dir, $2 ON/OFF sanitizers
  if [ ! -f "$1/build.ninja" ]; then
    CC=clang CXX=clang++ cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTOPOSCOPE_FUZZ=ON \
      -DTOPOSCOPE_FUZZ_SANITIZERS="$2" >/dev/null
  fi
}
[ "$replay" = 0 ] && [ "$sanitizers" = 0 ] || configure "$asan_build" ON
configure "$build" "$([ "$sanitizers" = 1 ] && echo ON || echo OFF)"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in fuzz/*_fuzz.cc; do targets+=("$(basename "$f" .cc)"); done
fi
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
[ "$build" = "$asan_build" ] || [ "$replay" = 0 ] || cmake --build "$asan_build" -j "$(nproc)" --target "${targets[@]}"
[ -f "$ledger" ] || printf 'date\ttarget\tbuild\texecutions\tcpu_seconds\tcorpus_files\n' > "$ledger"
deadline=""
[ -n "${FUZZ_DEADLINE:-}" ] && deadline=$(date -d "$FUZZ_DEADLINE" +%s)

# Copies every file under the directories $2... into directory $1 as a seed, cut to its first
# $max_bytes bytes (scripts/fuzz_seeds.py).
cut_seeds() {
  /usr/bin/python3 scripts/fuzz_seeds.py "$max_bytes" "$@"
}

status=0
for t in "${targets[@]}"; do
  keep="fuzz/corpus/$t"
  mkdir -p "$keep"
  run=$(mktemp -d)
  # Seeds: the kept corpus, every real fixture and our testdata (what does not fit the target adds
  # no coverage and is dropped by the merge).
  cp "$keep"/* "$run"/ 2>/dev/null || true
  cut_seeds "$run" "$fixtures" "$root/testdata"
  t_secs=$secs
  if [ -n "$deadline" ]; then
    left=$((deadline - $(date +%s)))
    if [ "$left" -lt 180 ]; then echo "fuzz_long: $t skipped (deadline)"; rm -rf "$run"; continue; fi
    [ "$left" -lt $((t_secs + 120)) ] && t_secs=$((left - 120))
  fi
  echo "fuzz_long: $t for ${t_secs}s ($jobs job(s))"
  log="$build/$t.long.log"
  parallel=()
  [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
  cpu0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
  if ! "$build/$t" -max_total_time="$t_secs" -rss_limit_mb="$rss" -max_len="$max_bytes" -print_final_stats=1 \
      $flags "${parallel[@]}" -artifact_prefix="$build/$t-" "$run" >"$log" 2>&1; then
    echo "fuzz_long: $t FAILED (artifacts: $build/$t-*)"; tail -30 "$log"; status=1
  fi
  cpu_s=$(awk -v c0="$cpu0" -v hz="$(getconf CLK_TCK)" '{printf "%.0f", ($14 + $15 + $16 + $17 - c0) / hz}' /proc/$$/stat)
  execs=$({ cat "$log"; cat fuzz-*.log 2>/dev/null || true; } |
    awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}')
  echo "fuzz_long: $t executed $execs units in ${cpu_s} CPU-s"
  rm -f fuzz-*.log
  # Small files only, then the kept corpus becomes the fewest inputs, of the old corpus and the run's,
  # that cover every edge either covered (-use_counters=0: hit counts would keep thousands of inputs
  # per target, megabytes in the repository, for the same edges).
  find "$run" -type f -size +"${max_bytes}"c -delete
  before=$(find "$keep" -type f | wc -l)
  merged=$(mktemp -d)
  if "$build/$t" -merge=1 -use_counters=0 -rss_limit_mb="$rss" -max_len="$max_bytes" "$merged" "$keep" "$run" \
      >"$build/$t.merge.log" 2>&1; then
    rm -rf "$keep" && mkdir -p "$keep" && cp "$merged"/* "$keep"/ 2>/dev/null || true
  else
    echo "fuzz_long: $t merge failed"; tail -10 "$build/$t.merge.log"; status=1
  fi
  rm -rf "$merged"
  find "$keep" -type f -size +"${max_bytes}"c -delete
  after=$(find "$keep" -type f | wc -l)
  echo "fuzz_long: $t corpus $before -> $after files in $keep"
  # Every kept input once more under ASan + UBSan (what the search build could not see).
  if [ "$build" != "$asan_build" ] && [ "$replay" != 0 ]; then
    if ! UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$asan_build/$t" -runs=0 -rss_limit_mb="$rss" \
        -max_len="$max_bytes" -artifact_prefix="$asan_build/$t-" "$keep" >"$asan_build/$t.replay.log" 2>&1; then
      echo "fuzz_long: $t FAILED replaying the corpus under the sanitizers"; tail -30 "$asan_build/$t.replay.log"
      status=1
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$t" \
    "$([ "$build" = "$asan_build" ] && echo asan+ubsan || echo plain-O2)" "$execs" "$cpu_s" "$after" >> "$ledger"
  rm -rf "$run"
done
exit $status
