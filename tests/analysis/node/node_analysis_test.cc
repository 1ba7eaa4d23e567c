// Unit tests of analysis/: bandwidth classification, degraded links, islands, confidence bounds,
// on hand-built datasets (the simulator's ground-truth tests live in tests/sim/).
#include <gtest/gtest.h>

#include <cmath>

#include "toposcope/analysis/analyze.h"
#include "toposcope/analysis/node/confidence.h"
#include "toposcope/analysis/node/islands.h"
#include "toposcope/analysis/node/links.h"

namespace toposcope::analysis {
namespace {

void Measure(model::HostEvidence& h, int a, int b, double gbps) {
  h.gpus[a].index = a;
  h.gpus[b].index = b;
  auto& m = h.measured[model::MakePair(a, b)];
  m.samples_gbps.push_back(gbps);
  m.samples_gbps.push_back(gbps);
}

void Declare(model::HostEvidence& h, int a, int b, LinkClass c) {
  h.nvsmi_links[model::MakePair(a, b)] = {c, "topo.txt"};
}

const LinkReport* Find(const std::vector<LinkReport>& links, const std::string& a, const std::string& b) {
  for (const auto& l : links) {
    if (l.a == a && l.b == b) return &l;
  }
  return nullptr;
}

TEST(Classify, SeedAndModernThresholds) {
  const Thresholds seed = SeedThresholds();
  EXPECT_EQ(BandwidthClassName(ClassifyBandwidth(24.8, seed)), "nvlink");   // the seed's example row 0<->1
  EXPECT_EQ(BandwidthClassName(ClassifyBandwidth(1.9, seed)), "pcie_cpu");  // the seed's example row 0<->4
  EXPECT_EQ(BandwidthClassName(ClassifyBandwidth(6.0, seed)), "pcie_switch");
  const Thresholds modern = ModernThresholds();
  EXPECT_EQ(BandwidthClassName(ClassifyBandwidth(375, modern)), "nvlink");      // NV18 through NVSwitch
  EXPECT_EQ(BandwidthClassName(ClassifyBandwidth(54, modern)), "pcie_switch");  // PCIe Gen5 P2P is not NVLink
  EXPECT_EQ(BandwidthClassName(ClassifyBandwidth(14.6, modern)), "pcie_cpu");
  EXPECT_EQ(BandwidthClassName(ClassifyBandwidth(NAN, modern)), "");
}

TEST(Classify, PresetNamesParseBack) {
  for (ThresholdPreset p : {ThresholdPreset::kModern, ThresholdPreset::kSeed}) {
    EXPECT_EQ(ParseThresholdPreset(ThresholdPresetName(p)), p);
    EXPECT_EQ(PresetThresholds(p).preset, p);
  }
  EXPECT_EQ(ThresholdPresetName(SeedThresholds().preset), "seed");
  EXPECT_EQ(PresetThresholds(ThresholdPreset::kSeed).nvlink_min_gbps, 12.0);
  EXPECT_FALSE(ParseThresholdPreset("bogus").has_value());
  EXPECT_FALSE(ParseThresholdPreset("Seed").has_value());
}

model::Dataset NvswitchHost(int degraded_gpu, int degraded_lanes) {
  model::Dataset ds;
  auto& h = ds.Host("n1");
  for (int a = 0; a < 8; ++a) {
    for (int b = a + 1; b < 8; ++b) {
      const bool hit = a == degraded_gpu || b == degraded_gpu;
      const int lanes = hit ? degraded_lanes : 18;
      Declare(h, a, b, {LinkType::kNvlink, lanes});
      Measure(h, a, b, 20.8 * lanes * (1.0 + 0.01 * ((a * 7 + b) % 5 - 2)));
    }
  }
  return ds;
}

TEST(Links, FindsTheGpuThatLostLanes) {
  const model::Dataset ds = NvswitchHost(5, 9);
  const auto links = AnalyzeLinks(ds, ModernThresholds(), stats::NoiseModel{});
  ASSERT_EQ(links.size(), 28U);
  int degraded = 0;
  for (const auto& l : links) {
    EXPECT_EQ(l.type, LinkType::kNvswitch) << "an 8-GPU NV18 full mesh can only be NVSwitch";
    const bool hit = l.a == "n1/gpu5" || l.b == "n1/gpu5";
    EXPECT_EQ(l.degraded, hit) << l.a << " " << l.b << " " << l.evidence;
    if (hit) {
      EXPECT_EQ(l.expected_lanes, 18);
      EXPECT_GT(l.confidence, 0.95);
      EXPECT_NEAR(l.expected_gbps, 18 * 20.8, 10);
    }
    degraded += l.degraded ? 1 : 0;
  }
  EXPECT_EQ(degraded, 7);
}

TEST(Links, BandwidthDropWithoutDeclaredChangeIsFlagged) {
  model::Dataset ds;
  auto& h = ds.Host("p");
  // PCIe-only: PIX pairs (0,1),(2,3); SYS others; GPU 3's link trained down to a quarter.
  for (int a = 0; a < 4; ++a) {
    for (int b = a + 1; b < 4; ++b) {
      const bool pix = (a / 2) == (b / 2);
      Declare(h, a, b, {pix ? LinkType::kPix : LinkType::kSys, 0});
      double bw = pix ? 24.6 : 14.7;
      if (a == 3 || b == 3) bw = std::min(bw, 6.2);
      Measure(h, a, b, bw);
    }
  }
  const auto links = AnalyzeLinks(ds, ModernThresholds(), stats::NoiseModel{});
  const LinkReport* l23 = Find(links, "p/gpu2", "p/gpu3");
  ASSERT_NE(l23, nullptr);
  // Only two PIX links on this host: the reference is the fleet (which is this host too).
  const LinkReport* l13 = Find(links, "p/gpu1", "p/gpu3");
  ASSERT_NE(l13, nullptr);
  EXPECT_TRUE(l13->degraded) << l13->evidence;
  const LinkReport* l02 = Find(links, "p/gpu0", "p/gpu2");
  ASSERT_NE(l02, nullptr);
  EXPECT_FALSE(l02->degraded) << l02->evidence;
  EXPECT_GT(l02->confidence, 0.9);
}

TEST(Links, UndeclaredPairsAreClassedByBandwidth) {
  model::Dataset ds;
  auto& h = ds.Host("x");
  Measure(h, 0, 1, 240);
  Measure(h, 0, 2, 20);
  Measure(h, 1, 2, 20);
  const auto links = AnalyzeLinks(ds, ModernThresholds(), stats::NoiseModel{});
  EXPECT_EQ(Find(links, "x/gpu0", "x/gpu1")->type, LinkType::kNvlink);
  EXPECT_EQ(LinkTypeSourceName(Find(links, "x/gpu0", "x/gpu1")->type_source), "bandwidth");
  EXPECT_EQ(Find(links, "x/gpu0", "x/gpu2")->type, LinkType::kPix);
}

TEST(Islands, BridgePairsNvswitchAndPcieSingletons) {
  model::Dataset ds;
  auto& bridge = ds.Host("b");
  for (int a = 0; a < 8; ++a) {
    for (int b = a + 1; b < 8; ++b) {
      const bool pair = a / 2 == b / 2;
      Declare(bridge, a, b, pair ? LinkClass{LinkType::kNvlink, 12} : LinkClass{LinkType::kSys, 0});
      Measure(bridge, a, b, pair ? 240 : 15 + (a + b) % 3);
    }
  }
  auto& pcie = ds.Host("p");
  for (int a = 0; a < 4; ++a) {
    for (int b = a + 1; b < 4; ++b) Measure(pcie, a, b, a / 2 == b / 2 ? 24.6 : 14.7);
  }
  model::Dataset sw = NvswitchHost(2, 6);
  ds.hosts["s"] = sw.hosts.at("n1");
  ds.hosts["s"].host = "s";
  const Thresholds t = ModernThresholds();
  const auto links = AnalyzeLinks(ds, t, stats::NoiseModel{});
  const IslandOutput out = AnalyzeIslands(ds, links, t);
  int nvlink = 0, nvswitch = 0, single = 0;
  for (const auto& i : out.islands) {
    if (i.kind == IslandKind::kNvlink) {
      ++nvlink;
      EXPECT_EQ(i.members.size(), 2U);
      ASSERT_EQ(i.agrees_with.size(), 1U);
      EXPECT_TRUE(i.agrees_with[0].second);
    }
    if (i.kind == IslandKind::kNvswitch) {
      ++nvswitch;
      EXPECT_EQ(i.members.size(), 8U) << "a GPU with lanes down stays in its NVSwitch island";
    }
    if (i.kind == IslandKind::kPcie) ++single;
    EXPECT_EQ(IslandMethodName(i.method), "spectral");
  }
  EXPECT_EQ(nvlink, 4);
  EXPECT_EQ(nvswitch, 1);
  EXPECT_EQ(single, 4);
  EXPECT_EQ(out.gpus.size(), 20U);
}

TEST(Islands, DeclaredComponentsWhenNothingIsMeasured) {
  model::Dataset ds;
  auto& h = ds.Host("d");
  for (int a = 0; a < 4; ++a) {
    h.gpus[a].index = a;
    for (int b = a + 1; b < 4; ++b) {
      Declare(h, a, b, a / 2 == b / 2 ? LinkClass{LinkType::kNvlink, 4} : LinkClass{LinkType::kNode, 0});
    }
  }
  const auto links = AnalyzeLinks(ds, ModernThresholds(), stats::NoiseModel{});
  const IslandOutput out = AnalyzeIslands(ds, links, ModernThresholds());
  ASSERT_EQ(out.islands.size(), 2U);
  EXPECT_EQ(IslandMethodName(out.islands[0].method), "declared");
  EXPECT_EQ(out.islands[0].members, (std::vector<std::string>{"d/gpu0", "d/gpu1"}));
}

TEST(Confidence, ErrorShrinksWithLongerSamplingAndHopsGrow) {
  const ConfidenceReport r = AnalyzeConfidence({}, stats::NoiseModel{});
  ASSERT_GE(r.sampling.size(), 4U);
  for (size_t i = 1; i < r.sampling.size(); ++i) {
    EXPECT_LE(r.sampling[i].per_hop_error, r.sampling[i - 1].per_hop_error + 1e-9);
    EXPECT_GE(r.sampling[i].max_hops, r.sampling[i - 1].max_hops);
  }
  for (const auto& row : r.sampling) {
    // max_hops is the largest h with 1 - h * eps >= delta_min.
    EXPECT_GE(1.0 - row.max_hops * row.per_hop_error, r.delta_min - 1e-9);
    EXPECT_LT(1.0 - (row.max_hops + 1) * row.per_hop_error, r.delta_min);
  }
  LinkReport l;
  l.a = "h/gpu0";
  l.b = "h/gpu1";
  l.type = LinkType::kSys;
  const ConfidenceReport p = AnalyzeConfidence({l}, stats::NoiseModel{});
  ASSERT_EQ(p.paths.size(), 1U);
  EXPECT_EQ(p.paths[0].hops.size(), 5U);
  EXPECT_LT(p.paths[0].delta, 1.0);
}

}  // namespace
}  // namespace toposcope::analysis
