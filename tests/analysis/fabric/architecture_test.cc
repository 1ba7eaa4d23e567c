// Architecture identification on real ibnetdiscover dumps (golden, with the evidence) and on
// small hand-built probe sets; the metrics' definitions on inputs with known answers.
#include "toposcope/analysis/fabric/architecture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "toposcope/analysis/fabric/fabric.h"
#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/formats/fabric/path_probe.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {
namespace architecture_test {

const std::string kReal = "/work/shared/fixtures/real/ibnetdiscover/";

FabricReport LoadFabric(const std::string& file) {
  model::Dataset ds;
  auto text = ReadFileText(kReal + file);
  EXPECT_TRUE(text.ok()) << file;
  if (!text.ok()) return {};
  Diagnostics diag;
  auto fab = formats::ParseIbnetdiscover(*text, file, diag);
  EXPECT_TRUE(fab.ok()) << file;
  if (!fab.ok()) return {};
  ds.fabrics.push_back(std::move(*fab));
  return AnalyzeFabric(ds);
}

std::string Dump(const ArchitectureReport& r) {
  std::string s = std::string(ArchClassName(r.arch_class)) + " (" +
                  std::string(GraphSourceName(r.graph_source)) + ", confidence " +
                  std::to_string(r.confidence) + ")\n";
  for (const auto& e : r.evidence) s += "  " + e + "\n";
  return s;
}

bool HasEvidence(const ArchitectureReport& r, const std::string& needle) {
  for (const auto& e : r.evidence) {
    if (e.find(needle) != std::string::npos) return true;
  }
  return false;
}

formats::PathProbe P(const std::string& src, const std::string& dst, std::vector<std::string> hops,
                     double rtt_us = 5.0, int64_t ts_ns = 0) {
  formats::PathProbe p;
  p.src = src;
  p.dst = dst;
  p.hops = std::move(hops);
  p.rtt_us = rtt_us;
  p.ts_ns = ts_ns;
  return p;
}

// --- Real dumps -----------------------------------------------------------------------------

TEST(ArchitectureReal, NdrSuperPodIsATwoTierFatTree) {
  const FabricReport f = LoadFabric("topograph_ndr_dgx_h100_superpod_40switch_582ca.out");
  ASSERT_TRUE(f.present);
  ArchitectureInputs in;
  in.fabric = &f;
  const ArchitectureReport r = IdentifyArchitecture(in);
  std::printf("%s", Dump(r).c_str());
  EXPECT_EQ(ArchClassName(r.arch_class), "fat-tree") << Dump(r);
  EXPECT_EQ(GraphSourceName(r.graph_source), "fabric");
  // 31 leaves (IBLEAF-*) and 9 spines (IBSPINE-*); SHARP aggregation nodes are not endpoints.
  EXPECT_EQ(r.switches, 40);
  EXPECT_EQ(r.host_switches, 31);
  EXPECT_EQ(r.core_switches, 9);
  EXPECT_EQ(r.hc_links, 269);
  EXPECT_EQ(r.tiers, 2);
  EXPECT_EQ(r.hh_links, 0);
  EXPECT_EQ(r.cc_links, 0);
  EXPECT_GT(r.host_switches, r.core_switches);
  EXPECT_TRUE(r.layered);
  EXPECT_GE(r.confidence, 0.99);
  EXPECT_TRUE(HasEvidence(r, "layered Clos, 2 tiers")) << Dump(r);
  // The hosts named by their adapters ("a08-p1-dgx-04-c17 mlx5_5") give a default ring whose hops
  // come from the switch graph (no probes).
  EXPECT_EQ(RingOrderName(r.ring_order), "topology_order");
  EXPECT_GT(r.ring_pairs_graph, 0);
  EXPECT_EQ(r.ring_pairs_probed, 0);
  EXPECT_TRUE(std::isnan(r.jitter_us));
  EXPECT_TRUE(std::isnan(r.entropy_stability));
}

TEST(ArchitectureReal, QdrFabric) {
  const FabricReport f = LoadFabric("psmn_x5_qdr_11switch_89ca.topofile");
  ASSERT_TRUE(f.present);
  ArchitectureInputs in;
  in.fabric = &f;
  const ArchitectureReport r = IdentifyArchitecture(in);
  std::printf("%s", Dump(r).c_str());
  // What it says: a fat-tree (Clos) with 3 BFS levels, 6 / 4 / 1 switches: 6 leaves holding the
  // 89 adapters (vendor descriptions, no host names: hosts named by GUID), 4 spines each linking
  // every leaf but one (22 of 24 leaf--spine pairs), and one host-less switch (4036-86A2) above
  // them linking 2 of the 4 spines. No leaf--leaf link and no link within or skipping a level, so
  // it is layered; the lone top switch is most likely a leaf whose adapters were down when the
  // dump was taken (its 2 uplinks mirror leaf 0B50's 2), which the structure alone cannot tell
  // from a partial third tier.
  EXPECT_EQ(r.switches, 11);
  EXPECT_EQ(ArchClassName(r.arch_class), "fat-tree") << Dump(r);
  EXPECT_EQ(r.host_switches, 6);
  EXPECT_EQ(r.core_switches, 5);
  EXPECT_EQ(r.endpoints, 89);
  EXPECT_EQ(r.hh_links, 0);
  EXPECT_EQ(r.hc_links, 22);
  EXPECT_EQ(r.cc_links, 2);
  EXPECT_TRUE(r.layered);
  EXPECT_EQ(r.tiers, 3);
  EXPECT_TRUE(HasEvidence(r, "switches per level 6/4/1")) << Dump(r);
  EXPECT_TRUE(HasEvidence(r, "22 of 24 possible")) << Dump(r);
  // The adapters name no host, so each is a host named by its GUID (analysis/fabric/fabric.h): the
  // default ring runs over the 89 of them in topology order, leaf by leaf.
  EXPECT_EQ(RingOrderName(r.ring_order), "topology_order");
  EXPECT_EQ(r.ring_pairs_graph, 89);
  EXPECT_NEAR(r.avg_allreduce_hops, 2.135, 0.001);
}

TEST(ArchitectureReal, IsolatedHcaIsUnknown) {
  const FabricReport f = LoadFabric("topograph_gb200_isolated_hca_no_links.out");
  ArchitectureInputs in;
  in.fabric = &f;
  const ArchitectureReport r = IdentifyArchitecture(in);
  EXPECT_EQ(ArchClassName(r.arch_class), "unknown");
  EXPECT_EQ(r.confidence, 0);
  EXPECT_FALSE(r.evidence.empty());
  EXPECT_TRUE(std::isnan(r.avg_allreduce_hops));
}

TEST(Architecture, NothingGivenIsUnknownWithEvidence) {
  const ArchitectureReport r = IdentifyArchitecture({});
  EXPECT_EQ(ArchClassName(r.arch_class), "unknown");
  EXPECT_EQ(GraphSourceName(r.graph_source), "none");
  EXPECT_TRUE(HasEvidence(r, "no switch graph"));
  EXPECT_TRUE(std::isnan(r.avg_allreduce_hops));
  EXPECT_TRUE(std::isnan(r.jitter_us));
  EXPECT_TRUE(std::isnan(r.entropy_stability));
}

// --- Hand-built probe graphs ----------------------------------------------------------------

// Every ordered pair of hosts, routed by `route(src_host, dst_host)` -> hops.
template <class Route>
std::vector<formats::PathProbe> AllPairs(const std::vector<std::string>& hosts, Route route) {
  std::vector<formats::PathProbe> v;
  for (const auto& a : hosts) {
    for (const auto& b : hosts) {
      if (a != b) v.push_back(P(a, b, route(a, b)));
    }
  }
  return v;
}

TEST(Architecture, ProbesFatTree) {
  // 4 leaves x 2 hosts, 2 spines; leaf of host i = i / 2; spine chosen by (i + j) % 2.
  std::vector<std::string> hosts;
  for (int i = 0; i < 8; ++i) hosts.push_back("h" + std::to_string(i));
  auto leaf = [](const std::string& h) { return "leaf" + std::to_string((h[1] - '0') / 2); };
  const auto probes = AllPairs(hosts, [&](const std::string& a, const std::string& b) {
    if (leaf(a) == leaf(b)) return std::vector<std::string>{leaf(a)};
    const int s = ((a[1] - '0') + (b[1] - '0')) % 2;
    return std::vector<std::string>{leaf(a), "spine" + std::to_string(s), leaf(b)};
  });
  ArchitectureInputs in;
  in.probes = &probes;
  const auto r = IdentifyArchitecture(in);
  EXPECT_EQ(ArchClassName(r.arch_class), "fat-tree") << Dump(r);
  EXPECT_EQ(r.host_switches, 4);
  EXPECT_EQ(r.core_switches, 2);
  EXPECT_EQ(r.tiers, 2);
  EXPECT_NEAR(r.confidence, 1.0, 1e-9);  // all checks hold, no rival class, every leaf seen linked
  // Default ring h0..h7: 4 in-leaf pairs (2 links) and 4 cross-leaf pairs (4 links).
  EXPECT_EQ(RingOrderName(r.ring_order), "topology_order");
  EXPECT_EQ(r.ring_pairs, 8);
  EXPECT_EQ(r.ring_pairs_probed, 8);
  EXPECT_DOUBLE_EQ(r.avg_allreduce_hops, 3.0);
}

TEST(Architecture, ProbesRingsWithCoresAreHhre) {
  // 2 rings of 4 racks (one host each), each ring to its core, cores linked.
  std::vector<std::string> hosts;
  for (int i = 0; i < 8; ++i) hosts.push_back("h" + std::to_string(i));
  auto rack = [](int i) { return "rack" + std::to_string(i); };
  const auto probes = AllPairs(hosts, [&](const std::string& a, const std::string& b) {
    const int i = a[1] - '0', j = b[1] - '0';
    if (i / 4 == j / 4) {  // same ring: along the ring, forward
      std::vector<std::string> hops{rack(i)};
      int k = i;
      while (k != j) {
        k = (k / 4) * 4 + (k % 4 + 1) % 4;
        hops.push_back(rack(k));
      }
      return hops;
    }
    return std::vector<std::string>{rack(i), "core" + std::to_string(i / 4), "core" + std::to_string(j / 4), rack(j)};
  });
  ArchitectureInputs in;
  in.probes = &probes;
  const auto r = IdentifyArchitecture(in);
  EXPECT_EQ(ArchClassName(r.arch_class), "hhre") << Dump(r);
  EXPECT_EQ(r.ring_lengths, (std::vector<int>{4, 4}));
  EXPECT_TRUE(r.cores_complete);
  EXPECT_EQ(r.core_switches, 2);
}

// The confidence follows the evidence: a leaf whose host was never probed beyond it shows no link
// (3 of 4 leaves seen, 4 of 5 fat-tree checks hold: 0.8 x 0.75), and a ring whose core no probe
// crossed rests on 1 of hhre's 4 checks (it holds: 1 x sqrt(1/4)).
TEST(Architecture, ConfidenceFollowsTheEvidence) {
  std::vector<std::string> hosts;
  for (int i = 0; i < 8; ++i) hosts.push_back("h" + std::to_string(i));
  auto leaf = [](const std::string& h) { return "leaf" + std::to_string((h[1] - '0') / 2); };
  std::vector<formats::PathProbe> probes;
  for (const auto& a : hosts) {
    for (const auto& b : hosts) {
      if (a == b) continue;
      if (leaf(a) == leaf(b)) {
        probes.push_back(P(a, b, {leaf(a)}));
      } else if (leaf(a) != "leaf3" && leaf(b) != "leaf3") {
        const int sp = ((a[1] - '0') + (b[1] - '0')) % 2;
        probes.push_back(P(a, b, {leaf(a), "spine" + std::to_string(sp), leaf(b)}));
      }
    }
  }
  ArchitectureInputs in;
  in.probes = &probes;
  const auto r = IdentifyArchitecture(in);
  EXPECT_EQ(ArchClassName(r.arch_class), "fat-tree") << Dump(r);
  EXPECT_NEAR(r.confidence, 0.8 * 0.75, 1e-9) << Dump(r);

  const std::vector<std::string> ring{"h0", "h1", "h2", "h3"};
  const auto ring_probes = AllPairs(ring, [&](const std::string& a, const std::string& b) {
    int i = a[1] - '0';
    const int j = b[1] - '0';
    std::vector<std::string> hops{"rack" + std::to_string(i)};
    while (i != j) {
      i = (i + 1) % 4;
      hops.push_back("rack" + std::to_string(i));
    }
    return hops;
  });
  ArchitectureInputs rin;
  rin.probes = &ring_probes;
  const auto rr = IdentifyArchitecture(rin);
  EXPECT_EQ(ArchClassName(rr.arch_class), "hhre") << Dump(rr);
  EXPECT_NEAR(rr.confidence, 0.5, 1e-9) << Dump(rr);
  EXPECT_TRUE(HasEvidence(rr, "hhre: unobserved - every rack links a core")) << Dump(rr);
}

TEST(Architecture, SingleRingWithoutCoreSeenIsHhreAtLowerConfidence) {
  std::vector<std::string> hosts{"h0", "h1", "h2", "h3"};
  const auto probes = AllPairs(hosts, [&](const std::string& a, const std::string& b) {
    int i = a[1] - '0';
    const int j = b[1] - '0';
    std::vector<std::string> hops{"rack" + std::to_string(i)};
    while (i != j) {
      i = (i + 1) % 4;
      hops.push_back("rack" + std::to_string(i));
    }
    return hops;
  });
  ArchitectureInputs in;
  in.probes = &probes;
  const auto r = IdentifyArchitecture(in);
  EXPECT_EQ(ArchClassName(r.arch_class), "hhre") << Dump(r);
  EXPECT_LT(r.confidence, 0.6);
  EXPECT_TRUE(HasEvidence(r, "no core switch seen"));
}

TEST(Architecture, ProbesCliquesWithGlobalLinksAreDragonfly) {
  // 3 groups of 3 routers (one host each), groups fully meshed inside; group g's router 0 links
  // router 1 of group g+1 (mod 3).
  std::vector<std::string> hosts;
  for (int i = 0; i < 9; ++i) hosts.push_back("h" + std::to_string(i));
  auto r_of = [](int i) { return "g" + std::to_string(i / 3) + "r" + std::to_string(i % 3); };
  const auto probes = AllPairs(hosts, [&](const std::string& a, const std::string& b) {
    const int i = a[1] - '0', j = b[1] - '0';
    const int gi = i / 3, gj = j / 3;
    if (gi == gj) {
      if (i == j) return std::vector<std::string>{r_of(i)};
      return std::vector<std::string>{r_of(i), r_of(j)};
    }
    // Global link between gi and gj: from (g, r0) to (g+1, r1).
    int x, y;  // router indices of the global link's ends in gi and gj
    if ((gi + 1) % 3 == gj) {
      x = gi * 3 + 0;
      y = gj * 3 + 1;
    } else {
      x = gi * 3 + 1;
      y = gj * 3 + 0;
    }
    std::vector<std::string> hops{r_of(i)};
    if (x != i) hops.push_back(r_of(x));
    hops.push_back(r_of(y));
    if (y != j) hops.push_back(r_of(j));
    return hops;
  });
  ArchitectureInputs in;
  in.probes = &probes;
  const auto r = IdentifyArchitecture(in);
  EXPECT_EQ(ArchClassName(r.arch_class), "dragonfly") << Dump(r);
  EXPECT_EQ(r.group_sizes, (std::vector<int>{3, 3, 3}));
  EXPECT_EQ(r.core_switches, 0);
}

TEST(Architecture, MeshIsUnknown) {
  // A 3x3 grid of switches, one host each: no host-less tier, no cliques, degrees up to 4.
  std::vector<std::string> hosts;
  for (int i = 0; i < 9; ++i) hosts.push_back("h" + std::to_string(i));
  auto sw = [](int x, int y) { return "s" + std::to_string(x) + std::to_string(y); };
  const auto probes = AllPairs(hosts, [&](const std::string& a, const std::string& b) {
    const int i = a[1] - '0', j = b[1] - '0';
    int x = i % 3, y = i / 3;
    const int tx = j % 3, ty = j / 3;
    std::vector<std::string> hops{sw(x, y)};
    while (x != tx) {
      x += tx > x ? 1 : -1;
      hops.push_back(sw(x, y));
    }
    while (y != ty) {
      y += ty > y ? 1 : -1;
      hops.push_back(sw(x, y));
    }
    return hops;
  });
  ArchitectureInputs in;
  in.probes = &probes;
  const auto r = IdentifyArchitecture(in);
  EXPECT_EQ(ArchClassName(r.arch_class), "unknown") << Dump(r);
  EXPECT_EQ(r.confidence, 0);
}

// --- Metrics --------------------------------------------------------------------------------

TEST(ArchitectureMetrics, GivenRingUsesProbesThenTheGraph) {
  // a -- s1 -- b; b -- s1 -- s2 -- c; c is probed only from b. Ring a, c, b: (a,c) unprobed -> graph
  // a-s1-s2-c = 3 links; (c,b) probed 3 links; (b,a) probed 2 links.
  std::vector<formats::PathProbe> probes{P("a", "b", {"s1"}), P("b", "c", {"s1", "s2"}), P("c", "b", {"s2", "s1"})};
  ArchitectureInputs in;
  in.probes = &probes;
  in.rings = {{"a", "c", "b"}};
  in.ring_source = RingOrder::kNcclLog;
  const auto r = IdentifyArchitecture(in);
  EXPECT_EQ(RingOrderName(r.ring_order), "nccl_log");
  EXPECT_EQ(r.ring_pairs, 3);
  EXPECT_EQ(r.ring_pairs_probed, 2);
  EXPECT_EQ(r.ring_pairs_graph, 1);
  EXPECT_EQ(r.ring_pairs_unreachable, 0);
  EXPECT_DOUBLE_EQ(r.avg_allreduce_hops, (3 + 3 + 2) / 3.0);
  EXPECT_DOUBLE_EQ(r.mean_pair_hops, (2 + 3) / 2.0);
}

TEST(ArchitectureMetrics, HostPairLinksCountsAsTheRingPairs) {
  // The same inputs as above: every pair as avg_allreduce_hops counts it (probes, else the graph),
  // symmetric, 0 on the diagonal, NaN for a host neither knows.
  std::vector<formats::PathProbe> probes{P("a", "b", {"s1"}), P("b", "c", {"s1", "s2"}), P("c", "b", {"s2", "s1"})};
  ArchitectureInputs in;
  in.probes = &probes;
  const std::vector<std::string> hosts{"a", "b", "c", "zz"};
  const std::vector<double> m = HostPairLinks(in, hosts);
  ASSERT_EQ(m.size(), 16u);
  EXPECT_DOUBLE_EQ(m[0 * 4 + 1], 2);  // a-b probed
  EXPECT_DOUBLE_EQ(m[1 * 4 + 2], 3);  // b-c probed
  EXPECT_DOUBLE_EQ(m[0 * 4 + 2], 3);  // a-c from the graph
  EXPECT_DOUBLE_EQ(m[2 * 4 + 0], 3);
  EXPECT_DOUBLE_EQ(m[1 * 4 + 1], 0);
  EXPECT_TRUE(std::isnan(m[0 * 4 + 3]));
  in.rings = {{"a", "c", "b"}};
  EXPECT_DOUBLE_EQ(IdentifyArchitecture(in).avg_allreduce_hops, (m[0 * 4 + 2] + m[2 * 4 + 1] + m[1 * 4 + 0]) / 3);
}

TEST(ArchitectureMetrics, RingsOfNoNamedSourceAreGiven) {
  std::vector<formats::PathProbe> probes{P("a", "b", {"s1"})};
  ArchitectureInputs in;
  in.probes = &probes;
  in.rings = {{"a", "b"}};
  in.ring_source = RingOrder::kNone;
  EXPECT_EQ(RingOrderName(IdentifyArchitecture(in).ring_order), "given");
}

TEST(ArchitectureMetrics, UnknownRingHostIsUnreachable) {
  std::vector<formats::PathProbe> probes{P("a", "b", {"s1"})};
  ArchitectureInputs in;
  in.probes = &probes;
  in.rings = {{"a", "b", "zz"}};
  const auto r = IdentifyArchitecture(in);
  EXPECT_EQ(r.ring_pairs, 3);
  EXPECT_EQ(r.ring_pairs_probed, 1);
  EXPECT_EQ(r.ring_pairs_unreachable, 2);
  EXPECT_DOUBLE_EQ(r.avg_allreduce_hops, 2.0);
}

TEST(ArchitectureMetrics, JitterIsTheWorstClassHalfSpreadWithoutOutliers) {
  // Class 2 links: pairs with RTT 5 + {-0.1 .. +0.1} uniform; class 3 links: 7 + {-0.5 .. +0.5};
  // plus 1 % outliers of +100 us that must not count.
  std::vector<formats::PathProbe> probes;
  int n = 0;
  for (int pair = 0; pair < 20; ++pair) {
    const std::string a = "a" + std::to_string(pair), b = "b" + std::to_string(pair);
    for (int k = 0; k < 11; ++k) {
      const double f = (k - 5) / 5.0;  // -1 .. 1
      const bool outlier = (++n % 100) == 0;
      if (pair < 10) {
        probes.push_back(P(a, b, {"s" + std::to_string(pair)}, 5.0 + 0.1 * f + (outlier ? 100 : 0)));
      } else {
        probes.push_back(P(a, b, {"x" + std::to_string(pair), "y" + std::to_string(pair)},
                           7.0 + 0.5 * f + (outlier ? 100 : 0)));
      }
    }
  }
  ArchitectureInputs in;
  in.probes = &probes;
  const auto r = IdentifyArchitecture(in);
  ASSERT_EQ(r.jitter_classes.size(), 2u) << Dump(r);
  EXPECT_EQ(r.jitter_classes[0].links, 2);
  EXPECT_EQ(r.jitter_classes[1].links, 3);
  EXPECT_EQ(r.jitter_links, 3);
  EXPECT_EQ(r.jitter_pairs, 20);
  // The residuals are the 11 evenly spaced values -A..A per pair; Q(0.99)-Q(0.01) of the
  // pooled kept values is 2A x 0.98 + interpolation: within [0.9 A, A].
  EXPECT_GT(r.jitter_us, 0.45);
  EXPECT_LE(r.jitter_us, 0.5 + 1e-9);
  EXPECT_GT(r.jitter_classes[0].half_spread_us, 0.09);
  EXPECT_LE(r.jitter_classes[0].half_spread_us, 0.1 + 1e-9);
  int64_t dropped = 0;
  for (const auto& c : r.jitter_classes) dropped += c.dropped;
  EXPECT_EQ(dropped, 2);
}

TEST(ArchitectureMetrics, EntropyStabilityIsTheCvOverWindows) {
  // Window 0 (t in [0, 10)): paths through s1 and s2 equally -> 1 bit. Window 1 ([10, 20]): only
  // s1 -> 0 bits. Mean 0.5, population std 0.5 -> CV 1.
  std::vector<formats::PathProbe> probes;
  for (int k = 0; k < 20; ++k) probes.push_back(P("a", "b", {k % 2 ? "s1" : "s2"}, 5, k / 2));
  for (int k = 0; k < 20; ++k) probes.push_back(P("a", "b", {"s1"}, 5, 10 + k * 10 / 19));
  ArchitectureInputs in;
  in.probes = &probes;
  ArchitectureOptions opt;
  opt.entropy_windows = 2;
  opt.min_window_probes = 5;
  const auto r = IdentifyArchitecture(in, opt);
  ASSERT_EQ(r.entropy_windows, 2);
  EXPECT_DOUBLE_EQ(r.window_entropy_bits[0], 1.0);
  EXPECT_DOUBLE_EQ(r.window_entropy_bits[1], 0.0);
  EXPECT_DOUBLE_EQ(r.entropy_stability, 1.0);
  // Constant entropy over time: CV 0.
  std::vector<formats::PathProbe> flat;
  for (int k = 0; k < 40; ++k) flat.push_back(P("a", "b", {k % 2 ? "s1" : "s2"}, 5, k));
  in.probes = &flat;
  const auto f = IdentifyArchitecture(in, opt);
  EXPECT_DOUBLE_EQ(f.entropy_stability, 0.0);
  // No timestamps: no windows.
  std::vector<formats::PathProbe> untimed{P("a", "b", {"s1"}, 5, kNoTime), P("a", "b", {"s2"}, 5, kNoTime)};
  in.probes = &untimed;
  const auto u = IdentifyArchitecture(in, opt);
  EXPECT_EQ(u.entropy_windows, 0);
  EXPECT_TRUE(std::isnan(u.entropy_stability));
}

TEST(ArchitectureMetrics, RingHostOrdersTakesDistinctLogCycles) {
  RingReport rr;
  RingView a;
  a.source = RingSource::kNcclLog;
  a.hosts = {"n1", "n2", "n3"};
  RingView b = a;
  b.hosts = {"n2", "n3", "n1"};  // the same cycle rotated
  RingView c = a;
  c.source = RingSource::kFlows;
  c.hosts = {"n3", "n2", "n1"};
  RingView d = a;
  d.hosts = {"n1"};
  rr.rings = {a, b, c, d};
  const auto orders = RingHostOrders(rr);
  ASSERT_EQ(orders.size(), 1u);
  EXPECT_EQ(orders[0], a.hosts);
}


// The ring without NCCL logs follows the topology, never the host names: the same fat-tree (4
// leaves x 4 hosts, 2 spines) named leaf by leaf and named so that name order interleaves the
// leaves gives the same hops, 12 in-leaf pairs (2 links) and 4 leaf-to-leaf pairs (4 links).
TEST(Architecture, RingWithoutLogsDoesNotFollowNames) {
  auto hops_for = [](const std::vector<std::string>& names, auto leaf_of) {
    const auto probes = AllPairs(names, [&](const std::string& a, const std::string& b) {
      const std::string la = leaf_of(a), lb = leaf_of(b);
      if (la == lb) return std::vector<std::string>{la};
      return std::vector<std::string>{la, a < b ? "spine-x" : "spine-y", lb};
    });
    ArchitectureInputs in;
    in.probes = &probes;
    return IdentifyArchitecture(in);
  };
  std::vector<std::string> names;
  std::map<std::string, int> index;
  for (int i = 0; i < 16; ++i) {
    const std::string n = "gpu-r" + std::to_string(i % 4) + "-n" + std::to_string(10 + i / 4);
    names.push_back(n);
    index[n] = i;
  }
  // Leaf by leaf: host i on leaf i / 4 (name order visits each leaf's hosts together) ...
  const auto grouped = hops_for(names, [&](const std::string& h) { return "sw-" + std::to_string(index[h] / 4); });
  // ... and interleaved: host i on leaf i % 4 (name order jumps leaf to leaf at every step).
  const auto interleaved = hops_for(names, [&](const std::string& h) { return "sw-" + std::to_string(index[h] % 4); });
  for (const auto* r : {&grouped, &interleaved}) {
    EXPECT_EQ(RingOrderName(r->ring_order), "topology_order") << Dump(*r);
    EXPECT_EQ(r->ring_pairs, 16);
    EXPECT_DOUBLE_EQ(r->avg_allreduce_hops, (12 * 2 + 4 * 4) / 16.0) << Dump(*r);
  }
}

TEST(Architecture, RingIsUnknownWithoutGraphOrLogs) {
  ArchitectureInputs in;
  const auto r = IdentifyArchitecture(in);
  EXPECT_EQ(RingOrderName(r.ring_order), "none");
  EXPECT_TRUE(std::isnan(r.avg_allreduce_hops));
  EXPECT_TRUE(HasEvidence(r, "avg_allreduce_hops: unknown")) << Dump(r);
}

}  // namespace architecture_test
}  // namespace toposcope::analysis
