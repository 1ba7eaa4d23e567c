// Benchmarks of the fabric analyses that have no bench of their own: the GPU-pair traffic matrix
// (DCGM per-GPU NVLink counters + ring orders; bootstrap error bars) per host count, and
// architecture identification on the real NDR DGX H100 SuperPOD ibnetdiscover dump.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "toposcope/analysis/fabric/architecture.h"
#include "toposcope/analysis/fabric/fabric.h"
#include "toposcope/analysis/traffic/traffic_matrix.h"
#include "toposcope/base/names.h"
#include "toposcope/base/rng.h"
#include "toposcope/model/dataset.h"

namespace {

using namespace toposcope;

constexpr int kGpus = 8;

// One channel's ring over a host's GPUs in `order`, then a GPU of the next host.
analysis::RingView Ring(int channel, const std::string& host, const std::string& next,
                        const std::vector<int>& order) {
  analysis::RingView v;
  v.source = analysis::RingSource::kNcclLog;
  v.channel = channel;
  v.comm = "0xbench";
  for (int g : order) {
    v.ranks.push_back(g);
    v.gpus.push_back(GpuName(host, g));
  }
  v.ranks.push_back(100);
  v.gpus.push_back(GpuName(next, 0));
  return v;
}

// `hosts` NVSwitch hosts with two ring channels each and `samples` DCGM samples per GPU and field.
struct TrafficInput {
  model::Dataset ds;
  analysis::RingReport rings;
};

TrafficInput MakeTrafficInput(int hosts, int samples) {
  TrafficInput in;
  Rng rng(5);
  for (int h = 0; h < hosts; ++h) {
    const std::string host = "node" + std::to_string(1000 + h);
    const std::string next = "node" + std::to_string(1000 + (h + 1) % hosts);
    in.rings.rings.push_back(Ring(0, host, next, {0, 7, 6, 5, 4, 3, 2, 1}));
    in.rings.rings.push_back(Ring(1, host, next, {4, 3, 2, 1, 0, 7, 6, 5}));
    for (int i = 0; i < samples; ++i) {
      const int64_t ts = 1'000'000'000LL + int64_t{i} * 100'000'000LL;
      for (int g = 0; g < kGpus; ++g) {
        const double rate = (g == 1 || g == 5 ? 1.0 : 2.0) * 1e10;
        for (int f = 0; f < 2; ++f) {
          model::DcgmPoint p;
          p.host = host;
          p.gpu = g;
          p.field_id = f == 0 ? 1011 : 1012;
          p.field = f == 0 ? "DCGM_FI_PROF_NVLINK_TX_BYTES" : "DCGM_FI_PROF_NVLINK_RX_BYTES";
          p.ts_ns = ts;
          p.value = rate * (1.0 + 0.03 * (2 * rng.Uniform() - 1));
          in.ds.dcgm.Add(p);
        }
      }
    }
  }
  return in;
}

void BM_TrafficMatrix(benchmark::State& state) {
  const int hosts = static_cast<int>(state.range(0));
  const TrafficInput in = MakeTrafficInput(hosts, 400);
  int estimable = 0;
  for (auto _ : state) {
    const analysis::TrafficMatrixReport r = analysis::EstimateTrafficMatrix(in.ds, in.rings);
    estimable = r.hosts_estimable;
    benchmark::DoNotOptimize(r.hosts.data());
  }
  state.counters["hosts_estimable"] = estimable;
  state.counters["hosts_per_s"] = benchmark::Counter(static_cast<double>(hosts), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_TrafficMatrix)->Arg(1)->Arg(16)->Arg(128)->Unit(benchmark::kMillisecond);

void BM_IdentifySuperPod(benchmark::State& state) {
  const std::string path = std::string(TOPOSCOPE_FIXTURES) +
                           "/ibnetdiscover/topograph_ndr_dgx_h100_superpod_40switch_582ca.out";
  auto ds = model::LoadPaths({path}, {});
  if (!ds.ok() || ds->fabrics.empty()) {
    state.SkipWithError("SuperPOD dump not found");
    return;
  }
  const analysis::FabricReport fabric = analysis::AnalyzeFabric(*ds);
  std::string cls;
  for (auto _ : state) {
    analysis::ArchitectureInputs ai;
    ai.fabric = &fabric;
    const analysis::ArchitectureReport r = analysis::IdentifyArchitecture(ai);
    cls = analysis::ArchClassName(r.arch_class);
    benchmark::DoNotOptimize(r.evidence.data());
  }
  state.SetLabel(cls);
}
BENCHMARK(BM_IdentifySuperPod)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
