// Tests of the path analysis: the seed's node entropy, bottlenecks at choice points and redundant
// hops on synthetic two-level fat-trees (ECMP by a flow hash): a balanced fabric yields no finding,
// a congested spine that absorbs a leaf's uplinks is a bottleneck, and a route that detours through
// another leaf is a redundant hop.
#include "toposcope/analysis/fabric/path_entropy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "toposcope/base/time.h"

namespace toposcope::analysis {
namespace path_entropy_test {

using formats::PathProbe;

struct FatTree {
  int leaves, spines, hosts_per_leaf;
  std::string Host(int leaf, int h) const { return "h" + std::to_string(leaf) + "-" + std::to_string(h); }
  static std::string Leaf(int l) { return "leaf" + std::to_string(l); }
  static std::string Spine(int s) { return "spine" + std::to_string(s); }
};

PathProbe Probe(const std::string& src, const std::string& dst, std::vector<std::string> hops) {
  PathProbe p;
  p.ts_ns = 0;
  p.src = src;
  p.dst = dst;
  p.hops = std::move(hops);
  p.rtt_us = 3.0 + static_cast<double>(p.hops.size());
  return p;
}

// Every host pair, `flows` probes each (different 5-tuples), spine chosen by a hash; `route`
// may override the hop list.
template <class Route>
std::vector<PathProbe> Probes(const FatTree& ft, int flows, uint64_t seed, Route route) {
  std::mt19937_64 rng(seed);
  std::vector<PathProbe> out;
  for (int sl = 0; sl < ft.leaves; ++sl) {
    for (int sh = 0; sh < ft.hosts_per_leaf; ++sh) {
      for (int dl = 0; dl < ft.leaves; ++dl) {
        for (int dh = 0; dh < ft.hosts_per_leaf; ++dh) {
          if (sl == dl && sh == dh) continue;
          for (int f = 0; f < flows; ++f) {
            const std::string src = ft.Host(sl, sh), dst = ft.Host(dl, dh);
            std::vector<std::string> hops;
            if (sl == dl) {
              hops = {FatTree::Leaf(sl)};
            } else {
              const int spine = static_cast<int>(rng() % static_cast<uint64_t>(ft.spines));
              hops = {FatTree::Leaf(sl), FatTree::Spine(spine), FatTree::Leaf(dl)};
            }
            route(sl, dl, rng, hops);
            hops.push_back(dst);  // traceroute-like: the destination answers last
            out.push_back(Probe(src, dst, hops));
          }
        }
      }
    }
  }
  return out;
}

TEST(PathEntropy, SeedNodeEntropy) {
  EXPECT_EQ(SeedNodeEntropyBits({}), 0.0);
  EXPECT_EQ(SeedNodeEntropyBits({{"a", "b"}}), 0.0);              // no intermediate hop
  EXPECT_EQ(SeedNodeEntropyBits({{"a", "x", "b"}, {"a", "x", "c"}}), 0.0);
  EXPECT_DOUBLE_EQ(SeedNodeEntropyBits({{"a", "x", "b"}, {"a", "y", "b"}}), 1.0);
  EXPECT_DOUBLE_EQ(SeedNodeEntropyBits({{"a", "x", "*", "b"}, {"a", "y", "b"}}), 1.0);  // * skipped
  // {x:2, y:1, z:1}: 1.5 bits.
  EXPECT_DOUBLE_EQ(SeedNodeEntropyBits({{"s", "x", "y", "d"}, {"s", "x", "z", "d"}}), 1.5);
}

TEST(PathEntropy, BalancedFabricHasNoFinding) {
  const FatTree ft{8, 4, 4};
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const auto probes = Probes(ft, 2, seed, [](int, int, std::mt19937_64&, std::vector<std::string>&) {});
    const PathReport r = AnalyzePaths(probes);
    EXPECT_EQ(r.paths, static_cast<int64_t>(probes.size()));
    EXPECT_TRUE(r.bottlenecks.empty()) << r.bottlenecks[0].node << ": " << r.bottlenecks[0].evidence;
    EXPECT_TRUE(r.redundant_hops.empty()) << r.redundant_hops[0].node << ": " << r.redundant_hops[0].evidence;
    EXPECT_EQ(r.detour_probes, 0);
    EXPECT_EQ(r.choice_points, 8 * 7);  // every ordered leaf pair
    EXPECT_GT(r.overall_entropy, 3.0);
  }
  // Two spines only: more chance of a skewed split, still no false finding.
  const FatTree two{16, 2, 3};
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const auto probes = Probes(two, 2, seed, [](int, int, std::mt19937_64&, std::vector<std::string>&) {});
    const PathReport r = AnalyzePaths(probes);
    EXPECT_TRUE(r.bottlenecks.empty()) << r.bottlenecks[0].evidence;
    EXPECT_TRUE(r.redundant_hops.empty());
  }
}

TEST(PathEntropy, CongestedSpineIsABottleneck) {
  const FatTree ft{8, 4, 4};
  // Leaves 0 and 1 send 95 % of their uplink traffic to spine2 (its ECMP group collapsed).
  const auto probes = Probes(ft, 2, 3, [](int sl, int dl, std::mt19937_64& rng, std::vector<std::string>& hops) {
    if (sl == dl || sl > 1) return;
    if (rng() % 100 < 95) hops[1] = FatTree::Spine(2);
  });
  const PathReport r = AnalyzePaths(probes);
  ASSERT_EQ(r.bottlenecks.size(), 1u);
  const PathFinding& b = r.bottlenecks[0];
  EXPECT_EQ(b.node, "spine2");
  EXPECT_EQ(PathFindingKindName(b.kind), "bottleneck");
  EXPECT_LT(b.entropy, 0.8);
  EXPECT_GT(b.reuse_rate, 0.9);
  EXPECT_EQ(b.paths, 2 * 7 * 4 * 4 * 2);  // both leaves x 7 other leaves x 16 host pairs x 2 flows
  EXPECT_NE(b.evidence.find("alternatives"), std::string::npos);
  EXPECT_TRUE(r.redundant_hops.empty());
}

TEST(PathEntropy, DetourIsARedundantHop) {
  const FatTree ft{8, 4, 4};
  // Traffic from leaf4 to leaf5 goes leaf4 -> spine0 -> leaf6 -> spine1 -> leaf5 (2 extra links).
  const auto probes = Probes(ft, 2, 4, [](int sl, int dl, std::mt19937_64&, std::vector<std::string>& hops) {
    if (sl == 4 && dl == 5) hops = {"leaf4", "spine0", "leaf6", "spine1", "leaf5"};
  });
  const PathReport r = AnalyzePaths(probes);
  ASSERT_EQ(r.redundant_hops.size(), 1u);
  const PathFinding& f = r.redundant_hops[0];
  EXPECT_EQ(f.node, "leaf6");
  EXPECT_EQ(PathFindingKindName(f.kind), "redundant_hop");
  EXPECT_EQ(f.extra_hops, 2);
  EXPECT_DOUBLE_EQ(f.reuse_rate, 1.0);
  EXPECT_EQ(f.paths, 4 * 4 * 2);
  EXPECT_EQ(r.detour_probes, 32);
  EXPECT_NE(f.evidence.find("shortest known path (4 links)"), std::string::npos) << f.evidence;
  EXPECT_TRUE(r.bottlenecks.empty()) << r.bottlenecks[0].evidence;  // detours are not choice evidence
}

TEST(PathEntropy, PartialDetourBelowReuseIsNotReported) {
  const FatTree ft{8, 4, 4};
  // Only half of leaf4 -> leaf5 probes detour: reuse 50 % < 75 %.
  const auto probes = Probes(ft, 4, 5, [](int sl, int dl, std::mt19937_64& rng, std::vector<std::string>& hops) {
    if (sl == 4 && dl == 5 && rng() % 2 == 0) hops = {"leaf4", "spine0", "leaf6", "spine1", "leaf5"};
  });
  const PathReport r = AnalyzePaths(probes);
  EXPECT_TRUE(r.redundant_hops.empty());
  EXPECT_GT(r.detour_probes, 0);
}

TEST(PathEntropy, KnownLinksShortenTheReference) {
  // Only detours observed: the direct link a-b is known from the fabric, so x is redundant.
  std::vector<PathProbe> probes;
  for (int i = 0; i < 10; ++i) probes.push_back(Probe("s", "d", {"a", "x", "y", "b"}));
  EXPECT_TRUE(AnalyzePaths(probes).redundant_hops.empty());
  PathOptions opt;
  opt.known_links = {{"a", "b"}};
  const PathReport r = AnalyzePaths(probes, opt);
  ASSERT_EQ(r.redundant_hops.size(), 2u);
  EXPECT_EQ(r.redundant_hops[0].node, "x");
  EXPECT_EQ(r.redundant_hops[1].node, "y");
  EXPECT_EQ(r.redundant_hops[0].extra_hops, 2);
}

TEST(PathEntropy, DegenerateInputs) {
  EXPECT_EQ(AnalyzePaths({}).paths, 0);
  std::vector<PathProbe> probes = {Probe("", "d", {"*", "*", "d"}), Probe("s", "d", {}), Probe("s", "", {"a"})};
  const PathReport r = AnalyzePaths(probes);
  EXPECT_EQ(r.paths, 2);  // no dst: skipped
  EXPECT_EQ(r.overall_entropy, 0.0);
  EXPECT_TRUE(r.bottlenecks.empty());
  EXPECT_TRUE(r.redundant_hops.empty());
}

}  // namespace path_entropy_test
}  // namespace toposcope::analysis
