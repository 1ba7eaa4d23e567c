#!/usr/bin/env bash
# Executions per CPU second of every libFuzzer target (or those named), in one or two fuzz builds
# side by side: the sanitizer build CI runs (build-fuzz) and the plain -O2 build the long runs search
# with (build-fuzz-fast), with the ratio. Each target runs SECONDS (default 20) from one fixed seed on
# a copy of its kept corpus (fuzz/corpus/<target>/, else the heads of the real fixtures and
# testdata cut to 4096 bytes), with the flags of scripts/fuzz_long.sh; CPU time is the process's
# own (user + system), so a busy machine slows the wall clock, not the figure.
#   bench/fuzz_speed.sh [SECONDS] [TARGET...]
# Builds neither: run scripts/fuzz_smoke.sh (build-fuzz) and scripts/fuzz_long.sh 0 (both) first.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
secs=${1:-20}
shift || true
fixtures=${TOPOSCOPE_FIXTURES:-$root/../shared/fixtures/real}
builds=()
for b in build-fuzz build-fuzz-fast; do [ -d "$b" ] && builds+=("$b"); done
[ ${#builds[@]} -gt 0 ] || { echo "fuzz_speed: no fuzz build (build-fuzz, build-fuzz-fast)" >&2; exit 2; }
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in fuzz/*_fuzz.cc; do targets+=("$(basename "$f" .cc)"); done
fi

seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
/usr/bin/python3 scripts/fuzz_seeds.py 4096 "$seeds" "$fixtures" "$root/testdata"

# One run: prints "executions cpu_seconds".
measure() {
  local bin=$1 t=$2 corpus log
  corpus=$(mktemp -d)
  if [ -d "fuzz/corpus/$t" ]; then cp fuzz/corpus/"$t"/* "$corpus"/; else cp "$seeds"/* "$corpus"/; fi
  log=$(mktemp)
  /usr/bin/time -f "cpu %U %S" "$bin" -seed=1 -max_total_time="$secs" -max_len=4096 -entropic=0 \
    -rss_limit_mb=2048 -print_final_stats=1 "$corpus" >"$log" 2>&1 || true
  awk '/stat::number_of_executed_units/ {n = $2} /^cpu / {c = $2 + $3} END {printf "%d %.2f\n", n, c}' "$log"
  rm -rf "$corpus" "$log"
}

printf '%-30s' target
for b in "${builds[@]}"; do printf '%18s' "$b"; done
[ ${#builds[@]} -eq 2 ] && printf '%8s' ratio
printf '\n'
for t in "${targets[@]}"; do
  printf '%-30s' "$t"
  rates=()
  for b in "${builds[@]}"; do
    if [ ! -x "$b/$t" ]; then printf '%18s' "-"; rates+=(0); continue; fi
    read -r n c < <(measure "$b/$t" "$t")
    r=$(awk -v n="$n" -v c="$c" 'BEGIN {printf "%.0f", (c > 0 ? n / c : 0)}')
    printf '%18s' "$r/CPU-s"
    rates+=("$r")
  done
  if [ ${#builds[@]} -eq 2 ]; then
    awk -v a="${rates[0]}" -v b="${rates[1]}" 'BEGIN {if (a > 0) printf("%7.1fx", b / a); else printf("%8s", "-")}'
  fi
  printf '\n'
done
