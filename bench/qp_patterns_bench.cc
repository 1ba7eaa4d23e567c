// bench/qp_patterns_bench: the QP-pattern analysis at scale. k-means (k-means++, 8 restarts) on
// 1M QP-window feature vectors (state entropy, ERR->RESET count, re-creations; z-scored) as the
// seed's per-window clustering would run it; the accumulator's Add throughput (records/s) and its
// Finish (windows -> features -> synchrony -> per-QP k-means -> scopes) over a synthetic log of
// AllReduce and pipeline QPs; and the path analysis over a fat-tree's probes.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "toposcope/analysis/fabric/path_entropy.h"
#include "toposcope/analysis/traffic/qp_patterns.h"
#include "toposcope/base/rng.h"
#include "toposcope/stats/kmeans.h"

namespace {

using toposcope::Rng;
using toposcope::analysis::QpPatternAccumulator;
using toposcope::formats::QpState;
using toposcope::formats::QpStateRecord;

// `n` windows of 3 features from three well-separated groups with noise.
Eigen::MatrixXd WindowFeatures(int64_t n) {
  Rng rng(1);
  Eigen::MatrixXd x(n, 3);
  const double centers[3][3] = {{2.32, 1.0, 1.0}, {1.5, 0.2, 0.3}, {0.9, 0.0, 0.0}};
  for (int64_t i = 0; i < n; ++i) {
    const int g = static_cast<int>(rng.Below(3));
    for (int d = 0; d < 3; ++d) x(i, d) = centers[g][d] + 0.2 * (rng.Uniform() - 0.5);
  }
  return x;
}

void BM_KMeansWindows(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Eigen::MatrixXd x = WindowFeatures(n);
  for (auto _ : state) {
    auto r = toposcope::stats::KMeans(x, 3, 1);
    benchmark::DoNotOptimize(r.inertia);
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["windows"] = static_cast<double>(n);
}
BENCHMARK(BM_KMeansWindows)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

// A log of `qps` QPs (half AllReduce batches, half staggered pipeline), `rounds` re-creations each,
// 5 transitions per re-creation: qps * rounds QP-windows.
std::vector<QpStateRecord> Log(int qps, int rounds) {
  std::vector<QpStateRecord> out;
  out.reserve(static_cast<size_t>(qps) * rounds * 5);
  const QpState from[5] = {QpState::kRts, QpState::kErr, QpState::kReset, QpState::kInit, QpState::kRtr};
  const QpState to[5] = {QpState::kErr, QpState::kReset, QpState::kInit, QpState::kRtr, QpState::kRts};
  const int64_t period = 200'000'000;
  for (int r = 0; r < rounds; ++r) {
    for (int q = 0; q < qps; ++q) {
      const bool ar = q % 2 == 0;
      const int64_t t = r * period + (ar ? 0 : (period * (q % 16)) / 16);
      for (int k = 0; k < 5; ++k) {
        QpStateRecord rec;
        rec.ts_ns = t + k * 20'000;
        rec.host = "host" + std::to_string(q / 8);
        rec.qp = static_cast<uint32_t>(q);
        rec.job = ar ? "ar" : "pp";
        rec.from = from[k];
        rec.to = to[k];
        out.push_back(std::move(rec));
      }
    }
  }
  return out;
}

void BM_AccumulatorAdd(benchmark::State& state) {
  const auto log = Log(1000, 100);
  for (auto _ : state) {
    QpPatternAccumulator acc;
    for (const auto& r : log) acc.Add(r);
    benchmark::DoNotOptimize(&acc);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(log.size()));
}
BENCHMARK(BM_AccumulatorAdd)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_AccumulatorFinish(benchmark::State& state) {
  const int qps = static_cast<int>(state.range(0));
  const auto log = Log(qps, 1'000'000 / qps);
  for (auto _ : state) {
    state.PauseTiming();
    QpPatternAccumulator acc;
    for (const auto& r : log) acc.Add(r);
    state.ResumeTiming();
    auto res = acc.Finish();
    benchmark::DoNotOptimize(res.windows);
    state.counters["windows"] = static_cast<double>(res.windows);
  }
}
BENCHMARK(BM_AccumulatorFinish)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_AnalyzePaths(benchmark::State& state) {
  // 32 leaves x 8 spines x 8 hosts per leaf, one probe per ordered host pair.
  Rng rng(2);
  std::vector<toposcope::formats::PathProbe> probes;
  for (int s = 0; s < 256; ++s) {
    for (int d = 0; d < 256; ++d) {
      if (s == d) continue;
      toposcope::formats::PathProbe p;
      p.src = "h" + std::to_string(s);
      p.dst = "h" + std::to_string(d);
      const int sl = s / 8, dl = d / 8;
      p.hops = {"leaf" + std::to_string(sl)};
      if (sl != dl) {
        p.hops.push_back("spine" + std::to_string(rng.Below(8)));
        p.hops.push_back("leaf" + std::to_string(dl));
      }
      probes.push_back(std::move(p));
    }
  }
  for (auto _ : state) {
    auto r = toposcope::analysis::AnalyzePaths(probes);
    benchmark::DoNotOptimize(r.overall_entropy);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(probes.size()));
}
BENCHMARK(BM_AnalyzePaths)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
