#!/usr/bin/env bash
# Builds every libFuzzer target with clang (ASan + UBSan) and runs each briefly, seeded with the
# real fixtures. Fails when a target crashes. Each target runs a fixed number of inputs (FUZZ_RUNS,
# default 1000; ten times that for the fast decoders), so that a run is the same run on any machine;
# FUZZ_SECONDS (default 40) only caps a target that is slower than expected.
# (scripts/check_clang.py checks that the whole library and the CLI compile with clang as well.)
# Inputs stay small so that executions stay fast (the fuzz build is -O1 for the same reason): FUZZ_MAX_LEN
# (default 4096 bytes, as in scripts/fuzz_long.sh and the kept corpus) bounds what libFuzzer
# generates, and each seed file is cut to its head of that many bytes (at a line end when there is one).
# The targets and the mutation test run FUZZ_JOBS at a time (default: one per core).
# -entropic=0: libFuzzer's entropic scheduler spent most of each execution updating its feature
# frequencies in these large instrumented binaries (1.2-3.3x fewer executions per CPU second, and
# no more coverage, in 30 s runs of four targets); a fixed-length run gains nothing from it.
# A fixed -seed and a fixed run count keep the run repeatable: what passes here passes in CI;
# scripts/fuzz_long.sh is where new inputs are searched for.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
secs=${FUZZ_SECONDS:-40}
runs=${FUZZ_RUNS:-1000}
max_len=${FUZZ_MAX_LEN:-4096}
build=${TOPOSCOPE_FUZZ_BUILD_DIR:-build-fuzz}
fixtures=${TOPOSCOPE_FIXTURES:-$root/../shared/fixtures/real}
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTOPOSCOPE_FUZZ=ON \
    -DTOPOSCOPE_WERROR=ON >/dev/null
elif ! grep -q "^TOPOSCOPE_WERROR:BOOL=ON" "$build/CMakeCache.txt"; then
  cmake -S . -B "$build" -DTOPOSCOPE_WERROR=ON >/dev/null
fi
targets=()
for f in fuzz/*_fuzz.cc; do targets+=("$(basename "$f" .cc)"); done
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" mutation_property

# Copies seed file $1 into directory $2, cut to its first $max_len bytes (at the last line end in
# them when there is one): libFuzzer would cut it anyway, and small seeds keep executions fast.
add_seed() {
  local f=$1 dir=$2
  [ -f "$f" ] || return 0
  local out="$dir/$(basename "$f")"
  if [ "$(stat -c %s "$f")" -le "$max_len" ]; then cp "$f" "$out"; return 0; fi
  head -c "$max_len" "$f" > "$out"
  /usr/bin/python3 - "$out" <<'PY'
import sys
p = sys.argv[1]
b = open(p, "rb").read()
cut = b.rfind(b"\n")
if cut > 0:
    open(p, "wb").write(b[: cut + 1])
PY
}

# Seed corpora: the real fixtures of each reader's kind plus our own testdata.
seed_dirs() {
  case "$1" in
    nvsmi_topo_fuzz) echo "$fixtures/nvidia_smi_topo $root/testdata/real/nvidia_smi_topo" ;;
    nvsmi_query_fuzz) echo "$root/testdata/real/nvidia_smi_q" ;;
    nccl_topo_xml_fuzz) echo "$fixtures/nccl_topo_xml" ;;
    nccl_graph_xml_fuzz) echo "$fixtures/nccl_graph_xml" ;;
    p2p_bandwidth_latency_fuzz) echo "$fixtures/cuda_p2p $root/testdata/real/cuda_p2p" ;;
    nvbandwidth_fuzz) echo "$fixtures/nvbandwidth $root/testdata/real/nvbandwidth" ;;
    p2p_csv_fuzz) echo "$root/testdata/p2p" ;;
    chrome_trace_fuzz) echo "$fixtures/kineto_trace $fixtures/nccl_inspector" ;;
    nccl_inspector_fuzz) echo "$fixtures/nccl_inspector" ;;
    event_jsonl_fuzz) echo "$fixtures/nccl_inspector" ;;
    dcgm_dmon_fuzz) echo "$fixtures/dcgmi_dmon $root/testdata/dcgm" ;;
    dcgm_exporter_config_fuzz) echo "$fixtures/dcgm_exporter" ;;
    prometheus_text_fuzz) echo "$fixtures/dcgm_exporter $fixtures/nccl_inspector $root/testdata/prom" ;;
    prometheus_query_fuzz) echo "$root/testdata/prom/query_range" ;;
    dcgm_csv_fuzz) echo "$root/testdata/prom" ;;
    chrony_fuzz) echo "$fixtures/chrony" ;;
    linuxptp_fuzz) echo "$fixtures/linuxptp" ;;
    sync_csv_fuzz) echo "$root/testdata/sync" ;;
    roce_packet_fuzz) echo "$root/testdata/pcap/frames" ;;
    pcap_capture_fuzz) echo "$fixtures/pcap/derived $root/testdata/pcap" ;;
    nccl_log_fuzz) echo "$fixtures/nccl_debug_log $root/testdata/nccl_log $root/testdata/real/nccl_log" ;;
    nccl_tests_fuzz) echo "$fixtures/nccl_tests $root/testdata/real/nccl_tests" ;;
    rdma_tools_fuzz) echo "$fixtures/rdma_tools $root/testdata/rdma_tools" ;;
    inventory_csv_fuzz) echo "$root/testdata/inventory" ;;
    ibnetdiscover_fuzz) echo "$fixtures/ibnetdiscover $root/testdata/ibnetdiscover" ;;
    iblinkinfo_fuzz) echo "$root/testdata/real/iblinkinfo" ;;
    perfquery_fuzz) echo "$root/testdata/real/perfquery $root/testdata/perfquery" ;;
    ibqueryerrors_fuzz) echo "$root/testdata/real/ibqueryerrors" ;;
    dcgm_discovery_fuzz) echo "$root/testdata/real/dcgmi_discovery" ;;
    slurm_topology_fuzz) echo "$fixtures/slurm_topology $root/testdata/slurm_topology" ;;
    topograph_model_fuzz) echo "$fixtures/topograph_models" ;;
    qp_state_log_fuzz) echo "$root/testdata/qp_state" ;;
    path_probe_fuzz) echo "$root/testdata/path_probe" ;;
    load_fuzz) echo "$fixtures/nvidia_smi_topo $fixtures/nvbandwidth $fixtures/nccl_topo_xml $fixtures/nccl_graph_xml $fixtures/cuda_p2p" ;;
    *) echo "" ;;
  esac
}

# Inputs per target: the fast binary decoders get ten times the default.
runs_for() {
  case "$1" in
    roce_packet_fuzz|pcap_capture_fuzz|nccl_graph_xml_fuzz|sync_csv_fuzz) echo $((runs * 10)) ;;
    *) echo "$runs" ;;
  esac
}

# One target: seeds cut into a fresh corpus, a fixed number of inputs; writes $build/$t.result (the
# summary line, or the failure and the log's tail) and fails when the target fails.
run_target() {
  local t=$1 corpus n d f
  corpus=$(mktemp -d)
  for d in $(seed_dirs "$t") "testdata/fuzz/$t" "fuzz/corpus/$t"; do
    [ -d "$d" ] || continue
    for f in "$d"/*; do add_seed "$f" "$corpus"; done
  done
  n=$(runs_for "$t")
  # UBSan halts on its first report (by default it prints and goes on, and the run would pass).
  if ! UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$build/$t" -seed=1 -runs="$n" -max_total_time="$secs" -rss_limit_mb=2048 -max_len="$max_len" -entropic=0 \
      -print_final_stats=0 -artifact_prefix="$build/$t-" "$corpus" >"$build/$t.log" 2>&1; then
    { echo "fuzz: $t for $n inputs FAILED"; tail -30 "$build/$t.log"; } >"$build/$t.result"
    rm -rf "$corpus"; return 1
  fi
  { echo "fuzz: $t for $n inputs"; grep -E "^#[0-9]+.*(DONE|pulse)" "$build/$t.log" | tail -1 || true; } >"$build/$t.result"
  rm -rf "$corpus"
}

# The mutation property test: a fixed number of mutants of every real fixture through the loader's
# reader table (MUTANTS, default 4000), capped by MUTATION_SECONDS (default 150) on a slow machine.
# The mutants are written to memory (/dev/shm) when there is one; a failing one is copied to
# $build/mutation.
run_mutation() {
  local work=$build/mutation rc=0
  if [ -d /dev/shm ] && [ -w /dev/shm ]; then work=$(mktemp -d /dev/shm/toposcope-mutation-XXXXXX); fi
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$build/mutation_property" --mutants "$mutants" \
      --budget-s "$mutation_secs" --work "$work" "$fixtures" "$root/testdata/real/perfquery" "$root/testdata/real/ibqueryerrors" >"$build/mutation.log" 2>&1 || rc=1
  if [ "$work" != "$build/mutation" ]; then
    if [ $rc -ne 0 ]; then rm -rf "$build/mutation"; mkdir -p "$build/mutation"; cp -r "$work"/. "$build/mutation"/; fi
    rm -rf "$work"
  fi
  if [ $rc -ne 0 ]; then
    { echo "mutation: FAILED (the mutant: $build/mutation/current.txt)"; grep -v "^FAIL" "$build/mutation.log" | tail -30
      grep "^FAIL" "$build/mutation.log" | head -20; } >"$build/mutation.result"
    return 1
  fi
  { echo "mutation: $mutants mutants of $fixtures"; tail -2 "$build/mutation.log"; } >"$build/mutation.result"
}

# The targets and the mutation test run FUZZ_JOBS at a time (default: one per core), the mutation
# test (the longest) first; the results are printed in order at the end.
mutants=${MUTANTS:-4000}
mutation_secs=${MUTATION_SECONDS:-150}
jobs=${FUZZ_JOBS:-$(nproc)}
status=0
running=0
for t in mutation "${targets[@]}"; do
  rm -f "$build/$t.result"
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  if [ "$t" = mutation ]; then run_mutation & else run_target "$t" & fi
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
for t in "${targets[@]}" mutation; do cat "$build/$t.result" 2>/dev/null || { echo "fuzz: $t gave no result"; status=1; }; done
if [ $status -eq 0 ]; then echo "fuzz: ${#targets[@]} passed, 0 failed"; fi
exit $status
