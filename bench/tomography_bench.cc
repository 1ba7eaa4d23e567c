// bench/tomography_bench: network tomography (analysis/tomography, LSQR on W^½A plus the
// identifiability probe) on a two-level leaf/spine fat-tree — 512 leaves × 128 spines × 64 hosts
// per leaf = 65,536 leaf–spine cables + 32,768 host cables = 98,304 links — at 10k, 100k and 1M
// path RTTs (1 % noise, ECMP spines drawn independently out and back, one id per cable). Reports
// wall time, solver iterations, identifiable links, median relative error on identifiable links
// and the process's peak RSS (getrusage; includes the input paths). Small configurations match
// bench/tomography_numpy_compare.py, which times the seed's dense numpy formula beside these.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "toposcope/analysis/fabric/tomography.h"
#include "toposcope/base/rng.h"

namespace {

using toposcope::Rng;
using toposcope::analysis::SolveTomography;
using toposcope::analysis::TomographyOptions;
using toposcope::analysis::TomographyPath;

struct Problem {
  std::vector<TomographyPath> paths;
  std::vector<double> truth;        // per link index
  std::map<std::string, int> ids;   // link id → index (for the error figure)
};

std::string Host(int l, int k) { return "h" + std::to_string(l) + "." + std::to_string(k); }
std::string Up(int l, int s) { return "l" + std::to_string(l) + "-s" + std::to_string(s); }

std::unique_ptr<Problem> Make(int npaths, int leaves, int spines, int hosts) {
  auto p = std::make_unique<Problem>();
  Rng rng(2024);
  std::vector<double> host_lat(static_cast<size_t>(leaves) * hosts),
      up_lat(static_cast<size_t>(leaves) * spines);
  for (auto& v : host_lat) v = rng.Uniform(0.6, 1.2);  // HCA + cable + leaf port, µs
  for (auto& v : up_lat) v = rng.Uniform(0.15, 0.45);  // switch + cable, µs
  for (int l = 0; l < leaves; ++l) {
    for (int k = 0; k < hosts; ++k) {
      p->ids[Host(l, k)] = static_cast<int>(p->truth.size());
      p->truth.push_back(host_lat[l * hosts + k]);
    }
    for (int s = 0; s < spines; ++s) {
      p->ids[Up(l, s)] = static_cast<int>(p->truth.size());
      p->truth.push_back(up_lat[l * spines + s]);
    }
  }
  p->paths.reserve(npaths);
  for (int i = 0; i < npaths; ++i) {
    const int la = static_cast<int>(rng.Below(leaves));
    // 1 in 8 probes stays inside a leaf (pins the host cables), the rest cross the spines
    const int lb = (i % 8 == 0) ? la : static_cast<int>(rng.Below(leaves));
    const int ka = static_cast<int>(rng.Below(hosts));
    int kb = static_cast<int>(rng.Below(hosts));
    if (la == lb && ka == kb) kb = (kb + 1) % hosts;
    TomographyPath t;
    t.src = Host(la, ka);
    t.dst = Host(lb, kb);
    const double ha = host_lat[la * hosts + ka], hb = host_lat[lb * hosts + kb];
    if (la == lb) {
      t.links = {t.src, t.dst, t.dst, t.src};
      t.rtt_us = 2 * (ha + hb);
    } else {
      const int so = static_cast<int>(rng.Below(spines)), sb = static_cast<int>(rng.Below(spines));
      t.links = {t.src, Up(la, so), Up(lb, so), t.dst, t.dst, Up(lb, sb), Up(la, sb), t.src};
      t.rtt_us = 2 * (ha + hb) + up_lat[la * spines + so] + up_lat[lb * spines + so] +
                 up_lat[lb * spines + sb] + up_lat[la * spines + sb];
    }
    t.rtt_us *= 1.0 + 0.01 * rng.Normal();
    p->paths.push_back(std::move(t));
  }
  return p;
}

double PeakRssMb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

void BM_Tomography(benchmark::State& state) {
  const int npaths = static_cast<int>(state.range(0)), leaves = static_cast<int>(state.range(1)),
            spines = static_cast<int>(state.range(2)), hosts = static_cast<int>(state.range(3));
  const auto prob = Make(npaths, leaves, spines, hosts);
  TomographyOptions opt;
  toposcope::analysis::TomographyResult r;
  for (auto _ : state) {
    r = SolveTomography(prob->paths, opt);
    benchmark::DoNotOptimize(r.links.data());
  }
  std::vector<double> rel;
  for (const auto& l : r.links)
    if (l.identifiable) {
      const double t = prob->truth[prob->ids.at(l.link)];
      rel.push_back(std::abs(l.latency_us - t) / t);
    }
  double median = std::nan("");
  if (!rel.empty()) {
    std::nth_element(rel.begin(), rel.begin() + rel.size() / 2, rel.end());
    median = rel[rel.size() / 2];
  }
  state.counters["links"] = static_cast<double>(r.link_count);
  state.counters["identifiable"] = static_cast<double>(rel.size());
  state.counters["rank_def"] = r.rank_deficiency;
  state.counters["iters"] = r.iterations;
  state.counters["rel_resid"] = r.relative_residual;
  state.counters["median_rel_err"] = median;
  state.counters["peak_rss_MB"] = PeakRssMb();
  state.SetLabel(r.method);
}

// Small sizes (the numpy comparison): 16 leaves × 8 spines × 16 hosts = 384 links.
BENCHMARK(BM_Tomography)->Args({2000, 16, 8, 16})->Args({5000, 16, 8, 16})
    ->Args({10000, 16, 8, 16})->Unit(benchmark::kMillisecond);
// The sizes on ~100k links.
BENCHMARK(BM_Tomography)->Args({10000, 512, 128, 64})->Args({100000, 512, 128, 64})
    ->Args({1000000, 512, 128, 64})->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
