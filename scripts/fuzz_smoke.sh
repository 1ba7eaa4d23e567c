#!/usr/bin/env bash
# Builds every libFuzzer target with clang (ASan + UBSan) and runs each briefly, seeded with the
# real fixtures. Fails when a target crashes. FUZZ_SECONDS sets the time per target (default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
secs=${FUZZ_SECONDS:-10}
build=${TOPOSCOPE_FUZZ_BUILD_DIR:-build-fuzz}
fixtures=${TOPOSCOPE_FIXTURES:-$root/../shared/fixtures/real}
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTOPOSCOPE_FUZZ=ON >/dev/null
fi
targets=()
for f in fuzz/*_fuzz.cc; do targets+=("$(basename "$f" .cc)"); done
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" mutation_property

# Seed corpora: the real fixtures of each reader's kind plus our own testdata.
seed_dirs() {
  case "$1" in
    nvsmi_topo_fuzz) echo "$fixtures/nvidia_smi_topo" ;;
    nccl_topo_xml_fuzz) echo "$fixtures/nccl_topo_xml" ;;
    nccl_graph_xml_fuzz) echo "$fixtures/nccl_graph_xml" ;;
    p2p_bandwidth_latency_fuzz) echo "$fixtures/cuda_p2p" ;;
    nvbandwidth_fuzz) echo "$fixtures/nvbandwidth" ;;
    p2p_csv_fuzz) echo "$root/testdata/p2p" ;;
    chrome_trace_fuzz) echo "$fixtures/kineto_trace $fixtures/nccl_inspector" ;;
    nccl_inspector_fuzz) echo "$fixtures/nccl_inspector" ;;
    event_jsonl_fuzz) echo "$fixtures/nccl_inspector" ;;
    dcgm_dmon_fuzz) echo "$fixtures/dcgmi_dmon $root/testdata/dcgm" ;;
    dcgm_exporter_config_fuzz) echo "$fixtures/dcgm_exporter" ;;
    prometheus_text_fuzz) echo "$fixtures/dcgm_exporter $fixtures/nccl_inspector $root/testdata/prom" ;;
    dcgm_csv_fuzz) echo "$root/testdata/prom" ;;
    chrony_fuzz) echo "$fixtures/chrony" ;;
    linuxptp_fuzz) echo "$fixtures/linuxptp" ;;
    sync_csv_fuzz) echo "$root/testdata/sync" ;;
    roce_packet_fuzz) echo "$root/testdata/pcap/frames" ;;
    pcap_capture_fuzz) echo "$fixtures/pcap/derived $root/testdata/pcap" ;;
    nccl_log_fuzz) echo "$fixtures/nccl_debug_log $root/testdata/nccl_log" ;;
    rdma_tools_fuzz) echo "$fixtures/rdma_tools $root/testdata/rdma_tools" ;;
    inventory_csv_fuzz) echo "$root/testdata/inventory" ;;
    ibnetdiscover_fuzz) echo "$fixtures/ibnetdiscover $root/testdata/ibnetdiscover" ;;
    slurm_topology_fuzz) echo "$fixtures/slurm_topology $root/testdata/slurm_topology" ;;
    topograph_model_fuzz) echo "$fixtures/topograph_models" ;;
    qp_state_log_fuzz) echo "$root/testdata/qp_state" ;;
    path_probe_fuzz) echo "$root/testdata/path_probe" ;;
    load_fuzz) echo "$fixtures/nvidia_smi_topo $fixtures/nvbandwidth $fixtures/nccl_topo_xml $fixtures/nccl_graph_xml $fixtures/cuda_p2p" ;;
    *) echo "" ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  corpus=$(mktemp -d)
  for d in $(seed_dirs "$t"); do
    [ -d "$d" ] && cp "$d"/* "$corpus"/ 2>/dev/null || true
  done
  [ -d "testdata/fuzz/$t" ] && cp testdata/fuzz/"$t"/* "$corpus"/ 2>/dev/null || true
  [ -d "fuzz/corpus/$t" ] && cp fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null || true
  echo "fuzz: $t for ${secs}s"
  if ! "$build/$t" -max_total_time="$secs" -rss_limit_mb=2048 -max_len=65536 -print_final_stats=0 \
      -artifact_prefix="$build/$t-" "$corpus" >"$build/$t.log" 2>&1; then
    echo "fuzz: $t FAILED"; tail -30 "$build/$t.log"; status=1
  else
    grep -E "^#[0-9]+.*(DONE|pulse)" "$build/$t.log" | tail -1 || true
  fi
  rm -rf "$corpus"
done
# The mutation property test: mutants of every real fixture through the loader's reader table
# (MUTATION_SECONDS, default 80: about 90 s with its start).
mutation_secs=${MUTATION_SECONDS:-80}
echo "mutation: mutants of $fixtures for ${mutation_secs}s"
if ! UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$build/mutation_property" --budget-s "$mutation_secs" --work "$build/mutation" "$fixtures" \
    >"$build/mutation.log" 2>&1; then
  echo "mutation: FAILED (the mutant: $build/mutation/current.txt)"; grep -v "^FAIL" "$build/mutation.log" | tail -30
  grep "^FAIL" "$build/mutation.log" | head -20; status=1
else
  tail -2 "$build/mutation.log"
fi
if [ $status -eq 0 ]; then echo "fuzz: ${#targets[@]} passed, 0 failed"; fi
exit $status
