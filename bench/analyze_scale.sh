#!/usr/bin/env bash
# Whole-process cost of `toposcope analyze` by cluster size: simulates each size once (kept under
# WORK), analyses it with /usr/bin/time and prints wall, CPU-s per host, peak memory per host and
# the three passes that took the most CPU (passes.json).
#   bench/analyze_scale.sh [BIN] [WORK] [HOSTS...]     default: build/toposcope /tmp/toposcope-scale 16 256 2048 12500
# 12,500 hosts need about 13 GB of disk for the dataset.
set -euo pipefail
bin=${1:-build/toposcope}
work=${2:-/tmp/toposcope-scale}
shift 2 || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(16 256 2048 12500)
mkdir -p "$work"
printf "%8s %10s %10s %12s %10s %12s  %s\n" hosts wall_s cpu_s cpu_s/host peak_MB MB/host "top passes (CPU s)"
for n in "${sizes[@]}"; do
  data="$work/sim-$n"
  if [ ! -f "$data/truth.json" ]; then
    "$bin" simulate --hosts "$n" --seed 1 --out "$data" --quiet > /dev/null
  fi
  out="$work/out-$n"
  rm -rf "$out"
  /usr/bin/time -f "%e %U %S %M" -o "$work/time-$n" "$bin" analyze "$data" --out "$out" -q
  read -r wall user sys rss_kb < "$work/time-$n"
  /usr/bin/python3 - "$n" "$wall" "$user" "$sys" "$rss_kb" "$out/passes.json" <<'PY'
import json, sys
n, wall, user, sys_s, rss_kb, passes = sys.argv[1:]
n = int(n); cpu = float(user) + float(sys_s); mb = int(rss_kb) / 1024
p = sorted(json.load(open(passes))["passes"], key=lambda p: -p["cpu_s"])[:3]
top = ", ".join(f"{x['name']} {x['cpu_s']:.1f}" for x in p)
print(f"{n:8d} {float(wall):10.1f} {cpu:10.1f} {cpu / n:12.4f} {mb:10.0f} {mb / n:12.3f}  {top}")
PY
done
