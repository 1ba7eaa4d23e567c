#!/usr/bin/env bash
# Long libFuzzer runs, off CI: runs each target (all, or those named) for SECONDS (default 3600) with
# clang ASan + UBSan, seeded with the real fixtures, our testdata and the kept corpus, then merges
# what adds coverage into fuzz/corpus/<target>/ (files up to FUZZ_MAX_BYTES, default 4096, only).
# Commit fuzz/corpus/ afterwards; scripts/fuzz_smoke.sh seeds from it.
#   scripts/fuzz_long.sh [SECONDS] [TARGET...]      e.g. scripts/fuzz_long.sh 7200 chrony_fuzz
# Aim for >= 10^7 executions per target: the run prints each target's execution count.
# FUZZ_JOBS runs that many fuzzing processes per target (default 1); FUZZ_RSS_MB caps memory (2048).
# Inputs are at most FUZZ_MAX_BYTES long, in the run as in the kept corpus: each seed is cut to its
# head of that many bytes (at a line end when there is one). Whole fixtures of up to 1 MB as seeds
# and -max_len=65536 made the text readers run at tens of executions per second.
# FUZZ_FLAGS adds libFuzzer flags to each run (e.g. -entropic=0: several times more executions per
# second for some targets, see scripts/fuzz_smoke.sh).
# FUZZ_DEADLINE (a date(1) time such as 02:50) ends every run by then: a target that would start
# with under three minutes left is skipped, and each run is cut to the time left less two minutes
# for its merge.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
secs=${1:-3600}
shift || true
build=${TOPOSCOPE_FUZZ_BUILD_DIR:-build-fuzz}
fixtures=${TOPOSCOPE_FIXTURES:-$root/../shared/fixtures/real}
max_bytes=${FUZZ_MAX_BYTES:-4096}
jobs=${FUZZ_JOBS:-1}
rss=${FUZZ_RSS_MB:-2048}
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTOPOSCOPE_FUZZ=ON >/dev/null
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in fuzz/*_fuzz.cc; do targets+=("$(basename "$f" .cc)"); done
fi
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
deadline=""
[ -n "${FUZZ_DEADLINE:-}" ] && deadline=$(date -d "$FUZZ_DEADLINE" +%s)

# Copies every file under the directories $2... (up to 1 MB, no .md) into directory $1 as a seed,
# cut to its first $max_bytes bytes (at the last line end in them when there is one).
cut_seeds() {
  /usr/bin/python3 - "$max_bytes" "$@" <<'PY'
import hashlib, os, sys
max_bytes, out, dirs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
for d in dirs:
    for base, _, names in os.walk(d):
        for n in names:
            f = os.path.join(base, n)
            if n.endswith(".md") or not os.path.isfile(f) or os.path.getsize(f) > (1 << 20):
                continue
            b = open(f, "rb").read(max_bytes)
            cut = b.rfind(b"\n")
            if os.path.getsize(f) > max_bytes and cut > 0:
                b = b[: cut + 1]
            open(os.path.join(out, "seed-" + hashlib.md5(f.encode()).hexdigest()[:16]), "wb").write(b)
PY
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
  if ! "$build/$t" -max_total_time="$t_secs" -rss_limit_mb="$rss" -max_len="$max_bytes" -print_final_stats=1 \
      ${FUZZ_FLAGS:-} "${parallel[@]}" -artifact_prefix="$build/$t-" "$run" >"$log" 2>&1; then
    echo "fuzz_long: $t FAILED (artifacts: $build/$t-*)"; tail -30 "$log"; status=1
  fi
  execs=$({ cat "$log"; cat fuzz-*.log 2>/dev/null || true; } |
    awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}')
  echo "fuzz_long: $t executed $execs units"
  rm -f fuzz-*.log
  # Small files only, then keep what adds coverage to the kept corpus.
  find "$run" -type f -size +"${max_bytes}"c -delete
  before=$(find "$keep" -type f | wc -l)
  "$build/$t" -merge=1 -rss_limit_mb="$rss" -max_len="$max_bytes" "$keep" "$run" >"$build/$t.merge.log" 2>&1 ||
    { echo "fuzz_long: $t merge failed"; tail -10 "$build/$t.merge.log"; status=1; }
  find "$keep" -type f -size +"${max_bytes}"c -delete
  after=$(find "$keep" -type f | wc -l)
  echo "fuzz_long: $t corpus $before -> $after files in $keep"
  rm -rf "$run"
done
exit $status
