// Leaf/spine inference from RTT probes (analysis/leaf_inference): InferLeaves on synthetic probe
// sets shaped like the simulator's — fat-tree leaves of 4 hosts, pods of 4 leaves, per-host NIC
// offsets (one slow host), per-switch latency spread, Lomax-like queueing and 0.6 % outliers —
// with every host probing 64 peers (its leaf mates plus a deterministic sample) 8 times. Sizes:
// 128 and 512 hosts (512 x 64 x 8 = 262,144 probes, the figure). Counters: probes/s and
// the leaf accuracy reached (1 = every host's leaf-mate set right).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "toposcope/analysis/fabric/leaf_inference.h"
#include "toposcope/base/rng.h"
#include "toposcope/base/text.h"
#include "toposcope/report/score/grouping.h"

namespace {

using toposcope::Rng;
using toposcope::StringPrintf;
using toposcope::analysis::InferLeaves;
using toposcope::analysis::InferredLeaf;
using toposcope::analysis::LeafInference;
using toposcope::report::GroupingAccuracy;
using toposcope::formats::PathProbe;

struct Set {
  std::vector<PathProbe> probes;
  std::vector<std::vector<std::string>> leaves;
  std::vector<std::string> hosts;
};

Set Build(int hosts, int peers, int per_pair) {
  Set s;
  Rng rng(0x1EAF);
  const int per_leaf = 4, leaves_per_pod = 4;
  const int n_leaves = (hosts + per_leaf - 1) / per_leaf;
  std::vector<double> nic(static_cast<size_t>(hosts)), leaf_sw(static_cast<size_t>(n_leaves));
  for (double& v : nic) v = rng.Uniform(0.6, 0.8);
  nic[7] += 1.2;  // a slow host
  for (double& v : leaf_sw) v = rng.Uniform(0.6, 1.0);
  for (int h = 0; h < hosts; ++h) {
    s.hosts.push_back(StringPrintf("node%03d", h + 1));
    if (h % per_leaf == 0) s.leaves.emplace_back();
    s.leaves.back().push_back(s.hosts.back());
  }
  for (int a = 0; a < hosts; ++a) {
    std::vector<int> list, others;
    for (int b = 0; b < hosts; ++b) {
      if (b == a) continue;
      (b / per_leaf == a / per_leaf ? list : others).push_back(b);
    }
    while (static_cast<int>(list.size()) < peers && !others.empty()) {
      const size_t k = static_cast<size_t>(rng.NextU64() % others.size());
      list.push_back(others[k]);
      others[k] = others.back();
      others.pop_back();
    }
    std::sort(list.begin(), list.end());
    for (int b : list) {
      const int la = a / per_leaf, lb = b / per_leaf;
      double base = nic[static_cast<size_t>(a)] + nic[static_cast<size_t>(b)] + leaf_sw[static_cast<size_t>(la)];
      if (la != lb) {
        base += leaf_sw[static_cast<size_t>(lb)] + (la / leaves_per_pod == lb / leaves_per_pod ? 1.6 : 3.4);
      }
      for (int k = 0; k < per_pair; ++k) {
        PathProbe p;
        p.ts_ns = 1714564800LL * 1000000000LL + static_cast<int64_t>(a) * 1000000 + k;
        p.src = s.hosts[static_cast<size_t>(a)];
        p.dst = s.hosts[static_cast<size_t>(b)];
        double rtt = base + 0.02 * std::pow(1.0 - rng.Uniform(), -1.0 / 1.6) - 0.02;
        if (rng.Uniform() < 0.006) rtt += rng.Uniform(15, 250);
        p.rtt_us = rtt;
        s.probes.push_back(std::move(p));
      }
    }
  }
  return s;
}

void BM_InferLeaves(benchmark::State& state) {
  const Set s = Build(static_cast<int>(state.range(0)), 64, 8);
  LeafInference inf;
  for (auto _ : state) {
    inf = InferLeaves(s.probes);
    benchmark::DoNotOptimize(inf.leaves.data());
  }
  std::vector<std::vector<std::string>> got;
  for (const InferredLeaf& l : inf.leaves) got.push_back(l.hosts);
  state.counters["probes"] = static_cast<double>(s.probes.size());
  state.counters["probes_per_s"] =
      benchmark::Counter(static_cast<double>(s.probes.size()) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  state.counters["leaf_accuracy"] = GroupingAccuracy(got, s.leaves, s.hosts);
  state.counters["pods"] = static_cast<double>(inf.pods.size());
}
BENCHMARK(BM_InferLeaves)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
