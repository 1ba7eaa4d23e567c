// Checks analysis/tomography against the seed's dense numpy formula (MISSION.md §4.2):
//   W = np.diag(1.0/(rtt_obs+1e-6)); w = np.linalg.solve(A.T @ W @ A, A.T @ W @ rtt_obs)
// run through /usr/bin/python3 on small full-rank cases; our sparse LSQR latencies must agree
// before normalisation to ~1e-6 relative, and the [0.1, 5.0] min-max normalisation after.
// Skipped when python3 or numpy is missing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "toposcope/analysis/fabric/tomography.h"
#include "toposcope/base/rng.h"

namespace toposcope::analysis {
namespace tomography_numpy_test {

bool HaveNumpy() {
  return std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
}

// Random paths over `links` link ids, 2..5 links per path, some crossed twice.
std::vector<TomographyPath> RandomPaths(int nlinks, int npaths, uint64_t seed,
                                        std::map<std::string, double>& truth) {
  Rng rng(seed);
  std::vector<std::string> ids;
  for (int j = 0; j < nlinks; ++j) {
    ids.push_back("link" + std::to_string(j));
    truth[ids.back()] = rng.Uniform(0.1, 1.5);
  }
  std::vector<TomographyPath> out;
  for (int i = 0; i < npaths; ++i) {
    TomographyPath p;
    const int len = 2 + static_cast<int>(rng.Below(4));
    for (int k = 0; k < len; ++k) p.links.push_back(ids[rng.Below(ids.size())]);
    if (i < nlinks) p.links.push_back(ids[i]);  // every link covered
    for (const auto& l : p.links) p.rtt_us += truth[l];
    p.rtt_us *= 1.0 + 0.03 * rng.Normal();  // noise, so the weighting matters
    out.push_back(p);
  }
  return out;
}

void CompareWithNumpy(const std::vector<TomographyPath>& paths, bool seed_weighting) {
  TomographyOptions opt;
  opt.seed_weighting = seed_weighting;
  const TomographyResult r = SolveTomography(paths, opt);
  ASSERT_EQ(r.rank_deficiency, 0) << r.method;
  std::map<std::string, int> col;
  for (size_t j = 0; j < r.links.size(); ++j) col[r.links[j].link] = static_cast<int>(j);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("toposcope_tomo_np_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream a(dir / "A.txt"), b(dir / "r.txt");
    a.precision(17);
    b.precision(17);
    for (const auto& p : paths) {
      std::vector<int> row(r.links.size(), 0);
      for (const auto& l : p.links) ++row[col.at(l)];
      for (size_t j = 0; j < row.size(); ++j) a << (j ? " " : "") << row[j];
      a << "\n";
      b << p.rtt_us << "\n";
    }
    std::ofstream py(dir / "seed.py");
    py << "import numpy as np, sys\n"
          "A = np.loadtxt(sys.argv[1], ndmin=2); rtt_obs = np.loadtxt(sys.argv[2], ndmin=1)\n";
    if (seed_weighting)
      py << "W = np.diag(1.0/(rtt_obs+1e-6))\n";
    else
      py << "W = np.eye(len(rtt_obs))\n";
    py << "w = np.linalg.solve(A.T @ W @ A, A.T @ W @ rtt_obs)\n"
          "n = 0.1 + (w - w.min()) / (w.max() - w.min()) * (5.0 - 0.1)\n"
          "for x, y in zip(w, n): print(repr(float(x)), repr(float(y)))\n";
  }
  const std::string cmd = "/usr/bin/python3 " + (dir / "seed.py").string() + " " +
                          (dir / "A.txt").string() + " " + (dir / "r.txt").string() + " > " +
                          (dir / "out.txt").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(dir / "out.txt");
  double worst = 0;
  for (size_t j = 0; j < r.links.size(); ++j) {
    double w = 0, n = 0;
    ASSERT_TRUE(in >> w >> n) << "numpy printed too few values";
    const double rel = std::abs(r.links[j].latency_us - w) / std::max(std::abs(w), 1e-12);
    worst = std::max(worst, rel);
    EXPECT_LT(rel, 1e-6) << r.links[j].link << ": ours " << r.links[j].latency_us << " numpy " << w;
    EXPECT_NEAR(r.links[j].weight, n, 1e-5) << r.links[j].link;
  }
  std::printf("numpy agreement (%lld paths, %lld links, seed_weighting=%d): worst rel diff %.2e\n",
              static_cast<long long>(r.paths), static_cast<long long>(r.link_count),
              seed_weighting, worst);
  std::filesystem::remove_all(dir);
}

TEST(TomographyNumpy, MatchesSeedDenseFormula) {
  if (!HaveNumpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy not available";
  for (uint64_t seed : {1, 2, 3}) {
    std::map<std::string, double> truth;
    const auto paths = RandomPaths(12 + 8 * static_cast<int>(seed), 60 * static_cast<int>(seed), seed, truth);
    CompareWithNumpy(paths, true);
    CompareWithNumpy(paths, false);
  }
}

TEST(TomographyNumpy, MatchesOnAFatTree) {
  if (!HaveNumpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy not available";
  // Leaf/spine, one id per cable (see tomography_test.cc), realistic µs latencies, 2 % noise.
  Rng rng(9);
  std::map<std::string, double> truth;
  auto host = [](int l, int k) { return "h" + std::to_string(l) + "." + std::to_string(k); };
  auto up = [](int l, int s) { return "l" + std::to_string(l) + "-s" + std::to_string(s); };
  for (int l = 0; l < 4; ++l) {
    for (int k = 0; k < 3; ++k) truth[host(l, k)] = rng.Uniform(0.6, 1.2);
    for (int s = 0; s < 3; ++s) truth[up(l, s)] = rng.Uniform(0.15, 0.45);
  }
  std::vector<TomographyPath> paths;
  for (int i = 0; i < 300; ++i) {
    const int la = static_cast<int>(rng.Below(4)), lb = static_cast<int>(rng.Below(4));
    const int ka = static_cast<int>(rng.Below(3)), kb = (ka + 1 + static_cast<int>(rng.Below(2))) % 3;
    const int s1 = static_cast<int>(rng.Below(3)), s2 = static_cast<int>(rng.Below(3));
    TomographyPath p;
    if (la == lb)
      p.links = {host(la, ka), host(lb, kb), host(lb, kb), host(la, ka)};
    else
      p.links = {host(la, ka), up(la, s1), up(lb, s1), host(lb, kb),
                 host(lb, kb), up(lb, s2), up(la, s2), host(la, ka)};
    for (const auto& l : p.links) p.rtt_us += truth[l];
    p.rtt_us *= 1.0 + 0.02 * rng.Normal();
    paths.push_back(p);
  }
  CompareWithNumpy(paths, true);
}

}  // namespace tomography_numpy_test
}  // namespace toposcope::analysis
