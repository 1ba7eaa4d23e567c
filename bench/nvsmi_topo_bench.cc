// Reader throughput of the `nvidia-smi topo` matrix on a synthetic 72-GPU + 18-NIC output written
// by WriteNvsmiTopo, and on the real A800 fixture.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

#include "toposcope/formats/node/nvsmi_topo.h"

namespace toposcope::formats {
namespace {

// `prefix` followed by the number `n` (appending: avoids GCC 12's -Wrestrict false positive).
std::string Cat(std::string prefix, int n) {
  prefix.append(std::to_string(n));
  return prefix;
}

// A topo matrix of `gpus` GPUs (NVLink between all) and `nics` NICs, 8 GPUs per NUMA node.
NvsmiTopo SyntheticTopo(int gpus, int nics) {
  NvsmiTopo t;
  t.kind = NvsmiMatrixKind::kTopo;
  const int n = gpus + nics;
  for (int i = 0; i < n; ++i) {
    NvsmiDevice d;
    d.has_row = true;
    if (i < gpus) {
      d.label = Cat("GPU", i);
      d.gpu_index = i;
      d.numa_affinity = i / 8;
      d.cpu_affinity = Cat(Cat("", i / 8 * 16) + "-", i / 8 * 16 + 15);
    } else {
      d.kind = NvsmiDeviceKind::kNic;
      d.label = Cat("NIC", i - gpus);
      d.nic_device = Cat("mlx5_", i - gpus);
    }
    t.devices.push_back(d);
  }
  // The NUMA node of a device: GPUs by index, NICs spread over the GPU nodes.
  auto node = [&](int i) { return i < gpus ? i / 8 : (i - gpus) % ((gpus + 7) / 8); };
  for (int r = 0; r < n; ++r) {
    std::vector<std::string>& row = t.cells.emplace_back();
    for (int c = 0; c < n; ++c) {
      if (r == c) {
        row.emplace_back("X");
      } else if (r < gpus && c < gpus) {
        row.emplace_back("NV18");
      } else {
        row.emplace_back(node(r) == node(c) ? "NODE" : "SYS");
      }
    }
  }
  return t;
}

void BM_ParseSynthetic72Gpu18Nic(benchmark::State& state) {
  const std::string text = WriteNvsmiTopo(SyntheticTopo(72, 18));
  for (auto _ : state) {
    Diagnostics diag;
    ReadCounts counts;
    auto topo = ParseNvsmiTopo(text, "bench", diag, counts);
    if (!topo.ok() || counts.accepted != 90) {
      state.SkipWithError("the synthetic matrix did not parse cleanly");
      break;
    }
    benchmark::DoNotOptimize(topo);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseSynthetic72Gpu18Nic);

void BM_ParseA800Fixture(benchmark::State& state) {
  std::ifstream in(std::string(TOPOSCOPE_FIXTURES) + "/nvidia_smi_topo/a800_8gpu_nv8_4nic_driver525.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  for (auto _ : state) {
    Diagnostics diag;
    ReadCounts counts;
    auto topo = ParseNvsmiTopo(text, "bench", diag, counts);
    benchmark::DoNotOptimize(topo);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseA800Fixture);

void BM_WriteSynthetic72Gpu18Nic(benchmark::State& state) {
  const NvsmiTopo topo = SyntheticTopo(72, 18);
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = WriteNvsmiTopo(topo);
    bytes += text.size();
    benchmark::DoNotOptimize(text);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_WriteSynthetic72Gpu18Nic);

}  // namespace
}  // namespace toposcope::formats

BENCHMARK_MAIN();
