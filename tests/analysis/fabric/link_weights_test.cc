// Cable latencies from path probes (route grouping, robust RTT, tomography) and their OpenSM hop
// weights.
#include "toposcope/analysis/fabric/link_weights.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>
#include <map>

#include "toposcope/base/rng.h"
#include "toposcope/report/export/opensm_export.h"

namespace toposcope::analysis {
namespace link_weights_test {

// A 3-leaf, 2-spine fat-tree with 3 hosts per leaf and known per-crossing cable latencies (µs).
// (With 2 leaves the two cables of a spine would always be crossed together: not identifiable.)
struct SmallFabric {
  static constexpr int kHosts = 9;
  std::map<std::string, double> latency;
  std::vector<std::string> hosts = {"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"};
  std::string Leaf(int h) const { return h < 3 ? "leafA" : (h < 6 ? "leafB" : "leafC"); }

  SmallFabric() {
    Rng rng(3);
    for (int h = 0; h < kHosts; ++h) latency[CableId(hosts[h], Leaf(h))] = 0.6 + 0.2 * rng.Uniform();
    for (const char* leaf : {"leafA", "leafB", "leafC"}) {
      for (const char* spine : {"spine0", "spine1"}) latency[CableId(leaf, spine)] = 0.4 + 0.3 * rng.Uniform();
    }
    latency[CableId("leafB", "spine1")] = 1.9;  // a degraded cable
  }

  // Probes of every ordered pair over every spine; `queue` adds non-negative noise to all but the
  // first probe of each route.
  std::vector<formats::PathProbe> Probes(int per_route, double queue_us) const {
    std::vector<formats::PathProbe> out;
    Rng rng(11);
    for (int a = 0; a < kHosts; ++a) {
      for (int b = 0; b < kHosts; ++b) {
        if (a == b) continue;
        std::vector<std::vector<std::string>> routes;
        if (Leaf(a) == Leaf(b)) {
          routes.push_back({Leaf(a)});
        } else {
          for (const char* spine : {"spine0", "spine1"}) routes.push_back({Leaf(a), spine, Leaf(b)});
        }
        for (const auto& hops : routes) {
          std::vector<std::string> nodes = {hosts[a]};
          nodes.insert(nodes.end(), hops.begin(), hops.end());
          nodes.push_back(hosts[b]);
          double rtt = 0;
          for (size_t i = 0; i + 1 < nodes.size(); ++i) rtt += 2 * latency.at(CableId(nodes[i], nodes[i + 1]));
          for (int k = 0; k < per_route; ++k) {
            formats::PathProbe p;
            p.src = hosts[a];
            p.dst = hosts[b];
            p.hops = hops;
            p.rtt_us = rtt + (k == 0 ? 0.0 : queue_us * rng.Uniform());
            out.push_back(p);
          }
        }
      }
    }
    return out;
  }
};

TEST(LinkWeights, RecoversEveryCableFromTheMinimumOfEachRoute) {
  const SmallFabric f;
  const LinkWeightReport r = AnalyzeLinkWeights(f.Probes(5, 3.0), FabricReport{});
  ASSERT_TRUE(r.present);
  EXPECT_EQ(r.probes_unusable, 0);
  EXPECT_EQ(r.routes, 3 * 3 + 27 * 2);  // each endpoint pair once: same-leaf 1 route, else 2
  ASSERT_EQ(r.tomography.links.size(), f.latency.size());
  for (const auto& l : r.tomography.links) {
    ASSERT_TRUE(l.identifiable) << l.link << " " << l.reason;
    EXPECT_NEAR(l.latency_us, f.latency.at(l.link), 1e-6) << l.link;
  }
  // The degraded cable is the heaviest: it gets the top of the [0.1, 5] range.
  for (const auto& l : r.tomography.links) {
    if (l.link == CableId("leafB", "spine1")) {
      EXPECT_NEAR(l.weight, 5.0, 1e-9);
    }
  }
  EXPECT_TRUE(r.hop_weights.empty());  // no fabric: nothing to name the ports
  EXPECT_EQ(r.cables_unmapped, static_cast<int64_t>(f.latency.size()));
}

TEST(LinkWeights, MedianIsBiasedByQueueingWhereTheMinimumIsNot) {
  const SmallFabric f;
  LinkWeightOptions median;
  median.rtt_statistic = RttStatistic::kMedian;
  const LinkWeightReport rmin = AnalyzeLinkWeights(f.Probes(5, 3.0), FabricReport{});
  const LinkWeightReport rmed = AnalyzeLinkWeights(f.Probes(5, 3.0), FabricReport{}, median);
  EXPECT_EQ(RttStatisticName(rmed.rtt_statistic), "median");
  double err_min = 0, err_med = 0;
  for (size_t i = 0; i < rmin.tomography.links.size(); ++i) {
    const double truth = f.latency.at(rmin.tomography.links[i].link);
    err_min += std::abs(rmin.tomography.links[i].latency_us - truth);
    err_med += std::abs(rmed.tomography.links[i].latency_us - truth);
  }
  EXPECT_LT(err_min, 1e-5);
  EXPECT_GT(err_med, 0.5);
}

// Every probe queues a little at every switch it crosses, out and back, as an idle fabric does:
// mostly nothing, now and then more (Lomax, tail index 1.6, scale `jitter_us`). Same-leaf routes get 16 probes (8 each way); ECMP leaves
// each route across the spines 2 (one each way), whose minimum stays well above its floor.
std::vector<formats::PathProbe> JitteredProbes(const SmallFabric& f, double jitter_us) {
  std::vector<formats::PathProbe> out;
  std::map<std::string, int> seen;
  Rng rng(29);
  for (formats::PathProbe p : f.Probes(8, 0.0)) {
    if (p.hops.size() > 1 && seen[p.src + ">" + p.dst + ">" + p.hops[1]]++ > 0) continue;
    for (size_t k = 0; k < 2 * p.hops.size(); ++k) {
      p.rtt_us += jitter_us * (std::pow(1.0 - rng.Uniform(), -1.0 / 1.6) - 1.0);
    }
    out.push_back(p);
  }
  return out;
}

// Mean absolute error of the leaf-spine cables (those only routes across leaves cross).
double SpineCableError(const SmallFabric& f, const LinkWeightReport& r) {
  double err = 0;
  int n = 0;
  for (const auto& l : r.tomography.links) {
    if (l.link.find("spine") == std::string::npos) continue;
    err += std::abs(l.latency_us - f.latency.at(l.link));
    ++n;
  }
  return n > 0 ? err / static_cast<double>(n) : NAN;
}

TEST(LinkWeights, RoutesOnOneSwitchPathPoolTheirProbes) {
  const SmallFabric f;
  const std::vector<formats::PathProbe> probes = JitteredProbes(f, 0.03);
  LinkWeightOptions own;
  own.pool_switch_paths = false;
  const LinkWeightReport alone = AnalyzeLinkWeights(probes, FabricReport{}, own);
  const LinkWeightReport pooled = AnalyzeLinkWeights(probes, FabricReport{});
  EXPECT_EQ(alone.routes_pooled, 0);
  // Routes across leaves (27 endpoint pairs over 2 spines) share 6 switch paths; most find a lower
  // floor among the others' probes. Same-leaf routes cross one switch and keep their own minimum.
  EXPECT_GT(pooled.routes_pooled, 27);
  EXPECT_LE(pooled.routes_pooled, 54);
  EXPECT_NE(pooled.tomography.method.find("switch paths pooled"), std::string::npos);
  for (const auto& l : pooled.tomography.links) ASSERT_TRUE(l.identifiable) << l.link << " " << l.reason;
  const double err_alone = SpineCableError(f, alone);
  const double err_pooled = SpineCableError(f, pooled);
  EXPECT_GT(err_alone, 0.025);
  EXPECT_LT(err_pooled, 0.6 * err_alone) << err_pooled << " vs " << err_alone;
  // Other statistics are left as they are.
  LinkWeightOptions median;
  median.rtt_statistic = RttStatistic::kMedian;
  EXPECT_EQ(AnalyzeLinkWeights(probes, FabricReport{}, median).routes_pooled, 0);
}

TEST(LinkWeights, RttStatisticNamesParseBack) {
  for (RttStatistic st : {RttStatistic::kMin, RttStatistic::kEndpoint, RttStatistic::kMedian}) {
    EXPECT_EQ(ParseRttStatistic(RttStatisticName(st)), st);
  }
  EXPECT_EQ(RttStatisticName(LinkWeightOptions{}.rtt_statistic), "min");
  EXPECT_FALSE(ParseRttStatistic("max").has_value());
  EXPECT_FALSE(ParseRttStatistic("").has_value());
}

TEST(LinkWeights, QueueSpreadFlagsCablesBehindQueueing) {
  const SmallFabric f;
  const LinkWeightReport quiet = AnalyzeLinkWeights(f.Probes(4, 0.0), FabricReport{});
  const LinkWeightReport busy = AnalyzeLinkWeights(f.Probes(4, 6.0), FabricReport{});
  ASSERT_EQ(quiet.queue_spread_us.size(), quiet.tomography.links.size());
  ASSERT_EQ(busy.queue_spread_us.size(), busy.tomography.links.size());
  for (double s : quiet.queue_spread_us) EXPECT_NEAR(s, 0.0, 1e-9);
  for (double s : busy.queue_spread_us) EXPECT_GT(s, 0.5);
  EXPECT_EQ(quiet.links_queueing, 0);
  EXPECT_GT(busy.links_queueing, 0);
  // One probe on a route: no spread to measure.
  formats::PathProbe p;
  p.src = "h0";
  p.dst = "h1";
  p.hops = {"leafA"};
  p.rtt_us = 2.8;
  const LinkWeightReport single = AnalyzeLinkWeights({p}, FabricReport{});
  ASSERT_EQ(single.queue_spread_us.size(), 2u);
  for (double s : single.queue_spread_us) EXPECT_TRUE(std::isnan(s));
}

// A congested spine queues every probe through it, the fastest too: its routes' minimum is an upper
// bound. Those routes are solved after the others, so the queueing stays on the congested spine's
// own cables (flagged by their queue spread) instead of spreading over every cable of the fabric.
TEST(LinkWeights, CongestedSwitchQueueingStaysOnItsOwnCables) {
  const SmallFabric f;
  std::vector<formats::PathProbe> probes = f.Probes(8, 0.03);
  Rng rng(5);
  for (formats::PathProbe& p : probes) {
    if (std::find(p.hops.begin(), p.hops.end(), "spine1") != p.hops.end()) p.rtt_us += 0.4 + 3.0 * rng.Uniform();
  }
  const LinkWeightReport r = AnalyzeLinkWeights(probes, FabricReport{});
  EXPECT_EQ(r.routes_queueing, 27);  // every cross-leaf endpoint pair has one route over spine1
  ASSERT_EQ(r.tomography.links.size(), f.latency.size());
  int flagged = 0;
  for (size_t i = 0; i < r.tomography.links.size(); ++i) {
    const LinkWeight& l = r.tomography.links[i];
    ASSERT_TRUE(l.identifiable) << l.link << " " << l.reason;
    if (l.link.find("spine1") == std::string::npos) {
      EXPECT_NEAR(l.latency_us, f.latency.at(l.link), 1e-6) << l.link;
    } else {
      EXPECT_GT(l.latency_us, f.latency.at(l.link)) << l.link;  // an upper bound
      flagged += r.queue_spread_us[i] > l.latency_us ? 1 : 0;
    }
  }
  EXPECT_GE(flagged, 2);  // (the degraded leafB--spine1, 1.9 us, is above its queue spread)
  EXPECT_EQ(r.links_queueing, flagged);
  EXPECT_NE(r.tomography.method.find("queueing routes solved second"), std::string::npos);
  // Without a congested switch nothing is set aside.
  EXPECT_EQ(AnalyzeLinkWeights(f.Probes(8, 0.03), FabricReport{}).routes_queueing, 0);
}

TEST(LinkWeights, UnusableProbesAreCountedNotUsed) {
  const SmallFabric f;
  std::vector<formats::PathProbe> probes = f.Probes(1, 0);
  const auto good = static_cast<int64_t>(probes.size());
  formats::PathProbe silent = probes[0];
  silent.hops = {"leafA", std::string(formats::kUnknownHop)};
  formats::PathProbe no_rtt = probes[0];
  no_rtt.rtt_us = NAN;
  formats::PathProbe loop = probes[0];
  loop.hops = {"leafA", "spine0", "leafA"};
  formats::PathProbe self = probes[0];
  self.dst = self.src;
  for (const auto& p : {silent, no_rtt, loop, self}) probes.push_back(p);
  const LinkWeightReport r = AnalyzeLinkWeights(probes, FabricReport{});
  EXPECT_EQ(r.probes, good + 4);
  EXPECT_EQ(r.probes_unusable, 4);
  EXPECT_EQ(r.probes_used, good);
}

TEST(LinkWeights, EndpointsRepeatedInTheHopListAreNotCablesToThemselves) {
  formats::PathProbe p;
  p.src = "h0";
  p.dst = "h1";
  p.hops = {"h0", "leafA", "h1"};  // traceroute-style: the destination answers as the last hop
  p.rtt_us = 2.8;
  const LinkWeightReport r = AnalyzeLinkWeights({p}, FabricReport{});
  EXPECT_EQ(r.probes_unusable, 0);
  ASSERT_EQ(r.tomography.links.size(), 2u);
  EXPECT_EQ(r.tomography.links[0].link, "h0--leafA");
  EXPECT_EQ(r.tomography.links[1].link, "h1--leafA");
}

TEST(LinkWeights, HopWeightsNameBothSwitchEndsOfACableAndTheSwitchEndOfAHostCable) {
  const SmallFabric f;
  FabricReport fabric;
  fabric.present = true;
  auto sw = [](const std::string& id, const std::string& desc, const std::string& guid) {
    FabricSwitch s;
    s.id = id;
    s.desc = desc;
    s.port_guid = guid;
    return s;
  };
  FabricSwitch spine0 = sw("S-0", "spine0", "0000000000000010");
  FabricSwitch spine1 = sw("S-1", "spine1", "0000000000000011");
  fabric.switches = {spine0, spine1};
  const char* ids[] = {"S-a", "S-b", "S-c"};
  const char* names[] = {"leafA", "leafB", "leafC"};
  const char* guids[] = {"00000000000000aa", "00000000000000bb", "00000000000000cc"};
  for (int l = 0; l < 3; ++l) {
    FabricSwitch leaf = sw(ids[l], names[l], guids[l]);
    for (int k = 0; k < 3; ++k) leaf.ports.push_back({k + 1, "H-" + std::to_string(3 * l + k), 1, 400});
    leaf.ports.push_back({4, "S-0", l + 1, 400});
    leaf.ports.push_back({5, "S-1", l + 1, 400});
    fabric.switches[0].ports.push_back({l + 1, ids[l], 4, 400});
    fabric.switches[1].ports.push_back({l + 1, ids[l], 5, 400});
    fabric.switches.push_back(leaf);
  }
  for (int h = 0; h < SmallFabric::kHosts; ++h) {
    FabricCa ca;
    ca.id = "H-" + std::to_string(h);
    ca.host = f.hosts[h];
    ca.device = "mlx5_0";
    fabric.cas.push_back(ca);
  }
  const LinkWeightReport r = AnalyzeLinkWeights(f.Probes(2, 0.5), fabric);
  EXPECT_EQ(r.cables_mapped, static_cast<int64_t>(f.latency.size()));
  EXPECT_EQ(r.cables_unmapped, 0);
  // 9 host cables (switch end only) + 6 leaf-spine cables x 2 ends.
  ASSERT_EQ(r.hop_weights.size(), 21u);
  std::map<std::pair<std::string, int>, int> w;
  for (const auto& h : r.hop_weights) w[{h.port_guid, h.port}] = h.weight;
  EXPECT_EQ(w.at({"0x00000000000000bb", 5}), 50);  // the degraded leafB--spine1, leaf end
  EXPECT_EQ(w.at({"0x0000000000000011", 2}), 50);  // and its spine end
  for (const auto& [key, weight] : w) EXPECT_GE(weight, 1);
  const std::string text = report::WriteOpenSmHopWeights(r.hop_weights);
  EXPECT_NE(text.find("0x00000000000000bb 5 50\n"), std::string::npos) << text;
}

// An all-pairs RTT matrix with no hop lists: routed by the leaf levels (leaves inferred or from a
// dump); with every uplink of a leaf equally fast the level model is exact.
TEST(LinkWeights, ProbesWithoutHopsAreRoutedByLeafLevels) {
  SmallFabric f;
  for (const char* leaf : {"leafA", "leafB", "leafC"}) {
    f.latency[CableId(leaf, "spine1")] = f.latency[CableId(leaf, "spine0")];
  }
  std::vector<formats::PathProbe> probes = f.Probes(3, 2.0);
  for (auto& p : probes) p.hops.clear();
  LeafInference inferred;
  for (int l = 0; l < 3; ++l) {
    InferredLeaf leaf;
    leaf.name = std::string("leaf") + static_cast<char>('A' + l);
    for (int k = 0; k < 3; ++k) leaf.hosts.push_back(f.hosts[static_cast<size_t>(3 * l + k)]);
    inferred.leaves.push_back(leaf);
  }
  const LinkWeightReport none = AnalyzeLinkWeights(probes, FabricReport{});
  EXPECT_EQ(none.probes_unusable, none.probes);  // nothing places the endpoints
  const LinkWeightReport r = AnalyzeLinkWeights(probes, FabricReport{}, {}, &inferred);
  EXPECT_EQ(LevelSourceName(r.level_source), "inferred");
  EXPECT_EQ(r.probes_by_level, r.probes);
  EXPECT_EQ(r.probes_unusable, 0);
  ASSERT_EQ(r.tomography.links.size(), 9u + 3u);  // host cables + one uplink level per leaf
  for (const auto& l : r.tomography.links) {
    ASSERT_TRUE(l.identifiable) << l.link << " " << l.reason;
    const size_t cut = l.link.find("--");
    const std::string a = l.link.substr(0, cut), b = l.link.substr(cut + 2);
    const double want = a == kSpineLevel ? f.latency.at(CableId(b, "spine0")) : f.latency.at(l.link);
    EXPECT_NEAR(l.latency_us, want, 1e-6) << l.link;
  }
}

// The leaves of a fabric graph: `level_source` names the tools the graph came from.
TEST(LinkWeights, LevelSourceNamesTheFabricsTools) {
  SmallFabric f;
  std::vector<formats::PathProbe> probes = f.Probes(3, 2.0);
  for (auto& p : probes) p.hops.clear();
  FabricReport fabric;
  fabric.present = true;
  for (int l = 0; l < 3; ++l) {
    FabricLeaf leaf;
    leaf.switch_id = std::string("S-") + static_cast<char>('a' + l);
    leaf.desc = std::string("leaf") + static_cast<char>('A' + l);
    for (int k = 0; k < 3; ++k) leaf.hosts.push_back(f.hosts[static_cast<size_t>(3 * l + k)]);
    fabric.leaves.push_back(leaf);
  }
  for (const char* tools : {"ibnetdiscover", "iblinkinfo", "ibnetdiscover+iblinkinfo"}) {
    fabric.source_tools = tools;
    const LinkWeightReport r = AnalyzeLinkWeights(probes, fabric);
    EXPECT_EQ(LevelSourceName(r.level_source), tools);
    EXPECT_EQ(r.probes_by_level, r.probes);
  }
}

TEST(LinkWeights, NoProbesNoReport) {
  const LinkWeightReport r = AnalyzeLinkWeights({}, FabricReport{});
  EXPECT_FALSE(r.present);
  EXPECT_TRUE(r.tomography.links.empty());
}

}  // namespace link_weights_test
}  // namespace toposcope::analysis
