// bench/islands_bench: island inference (spectral clustering of a P2P bandwidth graph) at 8,
// 1,024 and 16,384 GPUs.
//
// The affinity is built like a real cluster's measured P2P bandwidth: nodes of 8 GPUs; most
// nodes are NVSwitch (~370 GB/s between every pair, +-5 % deterministic noise), every fourth
// node (when there is more than one) has NVLink bridges (~100 GB/s within pairs {0,1},{2,3},..,
// ~25 GB/s PCIe otherwise). No edges between nodes, except at >= 16,384 GPUs, where ~1 % of the
// nodes get one weak 1 GB/s edge to another node. The true islands are the NVSwitch nodes and
// the bridge pairs. Each bandwidth goes through the analysis's island affinity (a soft step at the
// NVLink threshold, analysis::IslandAffinity), exactly as `toposcope analyze` feeds the clustering.
//
// Extra flags, handled before Google Benchmark sees argv (then the program exits):
//   --dump-matrix=N:path  the N-GPU affinity as a CSV edge list "i,j,w" (i < j, one line each)
//   --dump-truth=N:path   the true island of each GPU, one label per line
//   --dump-labels=N:path  SpectralClusterSparse's labels (default options), one per line
#include <benchmark/benchmark.h>

#include <Eigen/Sparse>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/analysis/node/islands.h"
#include "toposcope/analysis/node/links.h"
#include "toposcope/base/rng.h"
#include "toposcope/stats/ari.h"
#include "toposcope/stats/spectral.h"

namespace {

using toposcope::Rng;
namespace stats = toposcope::stats;

constexpr double kNvSwitch = 370.0;  // GB/s
constexpr double kBridge = 100.0;
constexpr double kPcie = 25.0;
constexpr double kCrossNode = 1.0;

struct Cluster {
  Eigen::SparseMatrix<double> affinity;
  std::vector<int> truth;  // island per GPU
};

Cluster BuildCluster(int n_gpus) {
  const int nodes = (n_gpus + 7) / 8;
  std::vector<Eigen::Triplet<double>> t;
  Cluster c;
  c.truth.assign(static_cast<size_t>(n_gpus), 0);
  const toposcope::analysis::Thresholds thresholds = toposcope::analysis::ModernThresholds();
  auto add = [&](int a, int b, double bandwidth_gbps) {
    const double w = toposcope::analysis::IslandAffinity(bandwidth_gbps, thresholds);
    t.emplace_back(a, b, w);
    t.emplace_back(b, a, w);
  };
  int island = 0;
  for (int node = 0; node < nodes; ++node) {
    Rng rng(Rng::Mix(2024, static_cast<uint64_t>(node)));
    const int first = node * 8;
    const int size = std::min(8, n_gpus - first);
    const bool bridged = nodes > 1 && node % 4 == 3;
    for (int i = 0; i < size; ++i) {
      c.truth[static_cast<size_t>(first + i)] = bridged ? island + i / 2 : island;
      for (int j = i + 1; j < size; ++j) {
        const double base = !bridged ? kNvSwitch : (i / 2 == j / 2 ? kBridge : kPcie);
        add(first + i, first + j, base * rng.Uniform(0.95, 1.05));
      }
    }
    island += bridged ? (size + 1) / 2 : 1;
  }
  if (n_gpus >= 16384) {
    Rng rng(99);
    for (int node = 0; node < nodes; ++node) {
      if (rng.Below(100) != 0) continue;
      int other = static_cast<int>(rng.Below(static_cast<uint64_t>(nodes - 1)));
      if (other >= node) ++other;
      const int a = node * 8 + static_cast<int>(rng.Below(8));
      const int b = other * 8 + static_cast<int>(rng.Below(8));
      if (a < n_gpus && b < n_gpus) add(a, b, kCrossNode);
    }
  }
  c.affinity.resize(n_gpus, n_gpus);
  c.affinity.setFromTriplets(t.begin(), t.end());
  return c;
}

void BM_SpectralClusterSparse(benchmark::State& state) {
  const Cluster c = BuildCluster(static_cast<int>(state.range(0)));
  stats::SpectralResult r;
  for (auto _ : state) {
    r = stats::SpectralClusterSparse(c.affinity);
    benchmark::DoNotOptimize(r.labels.data());
  }
  state.counters["k"] = r.k;
  state.counters["ari"] = stats::AdjustedRandIndex(r.labels, c.truth);
}
BENCHMARK(BM_SpectralClusterSparse)->Arg(8)->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond);

void BM_SpectralClusterDense(benchmark::State& state) {
  const Cluster c = BuildCluster(static_cast<int>(state.range(0)));
  const Eigen::MatrixXd dense(c.affinity);
  stats::SpectralResult r;
  for (auto _ : state) {
    r = stats::SpectralClusterDense(dense);
    benchmark::DoNotOptimize(r.labels.data());
  }
  state.counters["k"] = r.k;
  state.counters["ari"] = stats::AdjustedRandIndex(r.labels, c.truth);
}
BENCHMARK(BM_SpectralClusterDense)->Arg(8)->Unit(benchmark::kMillisecond);

bool WriteLines(const std::string& path, const std::vector<int>& v) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  for (int x : v) std::fprintf(f, "%d\n", x);
  return std::fclose(f) == 0;
}

bool WriteEdges(const std::string& path, const Eigen::SparseMatrix<double>& w) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  for (int j = 0; j < w.outerSize(); ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(w, j); it; ++it) {
      if (it.row() < j) std::fprintf(f, "%lld,%d,%.17g\n", static_cast<long long>(it.row()), j, it.value());
    }
  }
  return std::fclose(f) == 0;
}

// Handles one --dump-*=N:path flag; returns false (with a message) on error.
bool Dump(std::string_view kind, std::string_view spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos) {
    std::fprintf(stderr, "expected N:path, got '%.*s'\n", static_cast<int>(spec.size()), spec.data());
    return false;
  }
  const int n = std::atoi(std::string(spec.substr(0, colon)).c_str());
  const std::string path(spec.substr(colon + 1));
  if (n <= 0 || path.empty()) {
    std::fprintf(stderr, "bad N or path in '%.*s'\n", static_cast<int>(spec.size()), spec.data());
    return false;
  }
  const Cluster c = BuildCluster(n);
  bool ok = false;
  if (kind == "matrix") ok = WriteEdges(path, c.affinity);
  if (kind == "truth") ok = WriteLines(path, c.truth);
  if (kind == "labels") ok = WriteLines(path, stats::SpectralClusterSparse(c.affinity).labels);
  if (!ok) std::fprintf(stderr, "cannot write %s\n", path.c_str());
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  bool dumped = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    for (const std::string_view kind : {"matrix", "truth", "labels"}) {
      const std::string prefix = "--dump-" + std::string(kind) + "=";
      if (arg.substr(0, prefix.size()) == prefix) {
        if (!Dump(kind, arg.substr(prefix.size()))) return 2;
        dumped = true;
      }
    }
  }
  if (dumped) return 0;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
