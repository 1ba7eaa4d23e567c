// bench/timesync_bench: clock-model fitting (none, linear, the seed's quadratic, robust) at scale:
// one host with 10,000 sync points, and clusters of 100 / 1,000 / 10,000 hosts x 10,000 points
// each. Hosts are independent: the cluster benchmark fits them in parallel (TBB, all cores), each
// host's points generated, fitted and dropped in turn, so memory stays that of a few hosts' points.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "toposcope/analysis/time/timesync.h"
#include "toposcope/base/rng.h"

#include <tbb/parallel_for.h>

namespace {

using toposcope::Rng;
using toposcope::analysis::SyncSample;

std::vector<SyncSample> HostSamples(uint64_t host, int n) {
  Rng r(Rng::Mix(7, host));
  std::vector<SyncSample> s;
  s.reserve(static_cast<size_t>(n));
  const int64_t t0 = 1700000000LL * 1000000000LL;
  double off = r.Uniform(-50e3, 50e3), freq = r.Uniform(-1, 1);
  for (int i = 0; i < n; ++i) {
    freq += r.Normal() * 0.002;
    off += freq * 1e3;  // 1 s between points, ppm -> ns
    SyncSample x;
    x.ref_ns = t0 + static_cast<int64_t>(i) * 1000000000LL;
    double meas = off + r.Normal() * 200;
    if (r.Uniform() < 0.02) meas += r.Uniform(0, 50e3);
    x.local_ns = x.ref_ns + static_cast<int64_t>(std::llround(meas));
    s.push_back(x);
  }
  return s;
}

void BM_FitHost(benchmark::State& state) {
  const auto samples = HostSamples(1, static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto fit = toposcope::analysis::FitHostClock("h", samples);
    benchmark::DoNotOptimize(fit.models.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_FitHost)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_FitCluster(benchmark::State& state) {
  const int hosts = static_cast<int>(state.range(0));
  for (auto _ : state) {
    tbb::parallel_for(0, hosts, [](int h) {
      auto fit = toposcope::analysis::FitHostClock("h", HostSamples(static_cast<uint64_t>(h), 10000));
      benchmark::DoNotOptimize(fit.models.data());
    });
  }
  state.SetItemsProcessed(state.iterations() * hosts * 10000);
}
BENCHMARK(BM_FitCluster)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
