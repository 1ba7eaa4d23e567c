// Unit tests of analysis/: bandwidth classification, degraded links, islands, confidence bounds,
// on hand-built datasets (the simulator's ground-truth tests live in tests/sim/).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "toposcope/analysis/analyze.h"
#include "toposcope/analysis/node/gpu_design.h"
#include "toposcope/analysis/node/confidence.h"
#include "toposcope/analysis/node/islands.h"
#include "toposcope/analysis/node/links.h"
#include "toposcope/base/rng.h"
#include "toposcope/formats/node/nvsmi_topo.h"
#include "toposcope/formats/node/p2p_matrix.h"

namespace toposcope::analysis {
namespace node_analysis_test {

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

// --- Physics: PCIe ceilings, islands, design lanes, staged copies ---------------------------------

TEST(Classify, PairBandwidthFollowsThePcieGenerationsCeiling) {
  const Thresholds modern = ModernThresholds();
  const double gen4 = PcieTheoreticalGbps(4, 16);
  // 26 GB/s between two Gen4 GPUs through the CPU (nvbandwidth #50, RTX A6000) is PCIe, and bandwidth
  // cannot say it is a PCIe switch; the threshold-only class called it one.
  EXPECT_EQ(BandwidthClassName(ClassifyBandwidth(26.3, modern)), "pcie_switch");
  EXPECT_EQ(BandwidthClassName(ClassifyPairBandwidth(26.3, gen4, modern)), "pcie");
  EXPECT_EQ(BandwidthClassName(ClassifyPairBandwidth(14.6, gen4, modern)), "pcie");
  // Above what Gen3 x16 carries (15.75 GB/s): one V100 NVLink (~24 GB/s), whatever the thresholds say.
  EXPECT_EQ(BandwidthClassName(ClassifyPairBandwidth(24.0, PcieTheoreticalGbps(3, 16), modern)), "nvlink");
  EXPECT_EQ(BandwidthClassName(ClassifyPairBandwidth(24.0, NAN, modern)), "pcie_switch");  // unknown: thresholds
  EXPECT_EQ(BandwidthClassName(ClassifyPairBandwidth(NAN, gen4, modern)), "");
}

TEST(Links, RtxA6000ThroughTheCpuIsPcieNotASwitch) {
  // nvbandwidth #50's matrix (6x RTX A6000, memcpy read CE): {0,1,2} and {3,4,5} at 26.3, across at ~22.
  model::Dataset ds;
  auto& h = ds.Host("a6000");
  for (int a = 0; a < 6; ++a) {
    for (int b = a + 1; b < 6; ++b) Measure(h, a, b, a / 3 == b / 3 ? 26.34 : 22.2);
  }
  for (int g = 0; g < 6; ++g) h.gpus[g].model = "NVIDIA RTX A6000";
  const auto links = AnalyzeLinks(ds, ModernThresholds(), stats::NoiseModel{});
  ASSERT_EQ(links.size(), 15U);
  for (const auto& l : links) {
    EXPECT_EQ(BandwidthClassName(l.bandwidth_class), "pcie") << l.a << " " << l.b;
    EXPECT_FALSE(IsNvlinkFamily(l.type)) << l.a << " " << l.b;
    EXPECT_NE(l.type, LinkType::kPix) << l.a << " " << l.b;
    EXPECT_FALSE(l.degraded) << l.evidence;
  }
}

// An 8-GPU A100 SXM host measured only (P2P matrix, no nvidia-smi, no NCCL XML): every pair through
// NVSwitch at ~276 GB/s except (2,5), whose NVLink copies at `slow_gbps`.
model::Dataset P2pOnlyA100(double slow_gbps) {
  model::Dataset ds;
  auto& h = ds.Host("a");
  for (int a = 0; a < 8; ++a) {
    for (int b = a + 1; b < 8; ++b) {
      Measure(h, a, b, a == 2 && b == 5 ? slow_gbps : 276.0 * (1.0 + 0.01 * ((a * 7 + b) % 5 - 2)));
    }
  }
  for (int g = 0; g < 8; ++g) h.gpus[g].model = "NVIDIA A100-SXM4-80GB";
  return ds;
}

TEST(Links, SlowPairInsideAnNvlinkIslandIsADegradedNvlinkNotPcie) {
  const model::Dataset ds = P2pOnlyA100(20.0);  // below Gen4 x16's 31.5 GB/s
  const Thresholds t = ModernThresholds();
  const auto links = AnalyzeLinks(ds, t, stats::NoiseModel{});
  const LinkReport* slow = Find(links, "a/gpu2", "a/gpu5");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->type, LinkType::kNvswitch) << slow->evidence;  // 7 peers x 12 links > 12: NVSwitch
  EXPECT_TRUE(slow->degraded) << slow->evidence;
  EXPECT_NE(slow->evidence.find("degraded or narrower NVLink"), std::string::npos) << slow->evidence;
  int degraded = 0;
  for (const auto& l : links) {
    EXPECT_EQ(l.type, LinkType::kNvswitch) << l.a << " " << l.b;
    degraded += l.degraded ? 1 : 0;
  }
  EXPECT_EQ(degraded, 1);
  const IslandOutput out = AnalyzeIslands(ds, links, t);
  ASSERT_EQ(out.islands.size(), 1U);
  EXPECT_EQ(out.islands[0].members.size(), 8U);
  EXPECT_EQ(out.islands[0].kind, IslandKind::kNvswitch);
  // 45 GB/s is above the old 18 GB/s line but below the 60 GB/s NVLink threshold: PCIe before.
  const auto mid = AnalyzeLinks(P2pOnlyA100(45.0), t, stats::NoiseModel{});
  EXPECT_EQ(Find(mid, "a/gpu2", "a/gpu5")->type, LinkType::kNvswitch);
  EXPECT_TRUE(Find(mid, "a/gpu2", "a/gpu5")->degraded);
}

// The DGX-1 V100 hybrid cube-mesh: 16 NVLink pairs, 8 with one link and 8 with two, 6 links per GPU
// (NVIDIA's DGX-1 page; the per-GPU targets and counts of NCCL's XML in NVIDIA/nccl issue #671).
const std::vector<std::tuple<int, int, int>> kDgx1Wiring = {
    {0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 3, 1}, {1, 5, 2}, {2, 3, 2},
    {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1}, {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2}};

int Dgx1Lanes(int a, int b) {
  for (const auto& [x, y, lanes] : kDgx1Wiring) {
    if ((x == a && y == b) || (x == b && y == a)) return lanes;
  }
  return 0;
}

TEST(Links, Dgx1HybridCubeMeshNv1LinksAreNotDegraded) {
  for (const bool with_model : {false, true}) {
    model::Dataset ds;
    auto& h = ds.Host("dgx1");
    for (int a = 0; a < 8; ++a) {
      for (int b = a + 1; b < 8; ++b) {
        const int lanes = Dgx1Lanes(a, b);
        Declare(h, a, b, lanes > 0 ? LinkClass{LinkType::kNvlink, lanes} : LinkClass{LinkType::kSys, 0});
      }
      if (with_model) h.gpus[a].model = "Tesla V100-SXM2-32GB";
    }
    const auto links = AnalyzeLinks(ds, ModernThresholds(), stats::NoiseModel{});
    for (const auto& l : links) {
      EXPECT_FALSE(l.degraded) << with_model << " " << l.a << " " << l.b << " " << l.evidence;
      if (l.lanes > 0) {
        EXPECT_EQ(l.type, LinkType::kNvlink) << "a cube mesh is direct NVLink";
        EXPECT_EQ(l.expected_lanes, l.lanes);
      }
    }
    // One link of the NV2 pair (0,3) down: that pair, and only it, is degraded.
    Declare(h, 0, 3, {LinkType::kNvlink, 1});
    const auto hurt = AnalyzeLinks(ds, ModernThresholds(), stats::NoiseModel{});
    for (const auto& l : hurt) {
      const bool pair03 = l.a == "dgx1/gpu0" && l.b == "dgx1/gpu3";
      EXPECT_EQ(l.degraded, pair03) << with_model << " " << l.a << " " << l.b << " " << l.evidence;
      if (pair03) {
        EXPECT_EQ(l.expected_lanes, 2);
      }
    }
  }
}

TEST(Links, Dgx1MeasuredOnlyIsDirectNvlinkAboveGen3AndWholeByDesign) {
  model::Dataset ds;
  auto& h = ds.Host("v");
  // V100 P2P: ~24 GB/s per NVLink (Dell C4130 manual: 47.9 GB/s over two links), ~10 GB/s over PCIe.
  for (int a = 0; a < 8; ++a) {
    for (int b = a + 1; b < 8; ++b) {
      const int lanes = Dgx1Lanes(a, b);
      Measure(h, a, b, lanes > 0 ? 23.95 * lanes * (1.0 + 0.005 * ((a + b) % 3 - 1)) : 9.8);
    }
    h.gpus[a].model = "Tesla V100-SXM2-16GB";
  }
  const Thresholds t = ModernThresholds();
  const auto links = AnalyzeLinks(ds, t, stats::NoiseModel{});
  int nvlink = 0;
  for (const auto& l : links) {
    const int lanes = Dgx1Lanes(l.a.back() - '0', l.b.back() - '0');
    EXPECT_EQ(IsNvlinkFamily(l.type), lanes > 0) << l.a << " " << l.b << " " << l.evidence;
    if (lanes > 0) {
      ++nvlink;
      EXPECT_EQ(l.type, LinkType::kNvlink) << "6 links per GPU suffice: direct, not NVSwitch";
      EXPECT_NE(l.evidence.find("above the 15.8 GB/s its PCIe links can carry"), std::string::npos) << l.evidence;
    }
    EXPECT_FALSE(l.degraded) << l.a << " " << l.b << " " << l.evidence;
  }
  EXPECT_EQ(nvlink, 16);
  // The pair (0,4) loses one of its two links: only it is degraded.
  h.measured[model::MakePair(0, 4)].samples_gbps = {24.0, 24.0};
  const auto hurt = AnalyzeLinks(ds, t, stats::NoiseModel{});
  for (const auto& l : hurt) {
    EXPECT_EQ(l.degraded, l.a == "v/gpu0" && l.b == "v/gpu4") << l.a << " " << l.b << " " << l.evidence;
  }
}

// The text of a file under testdata/real/.
std::string ReadRealFile(const std::string& rel) {
  const std::string path = std::string(TOPOSCOPE_TESTDATA) + "/real/" + rel;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A data set holding one real `nvidia-smi topo -m` file of testdata/real/ as host `host`.
model::Dataset RealNvsmiTopoDataset(const std::string& rel, const std::string& host) {
  model::Dataset ds;
  ReadCounts counts;
  const std::string path = std::string(TOPOSCOPE_TESTDATA) + "/real/" + rel;
  auto topo = formats::ParseNvsmiTopo(ReadRealFile(rel), path, ds.diag, counts);
  EXPECT_TRUE(topo.ok());
  EXPECT_TRUE(counts.Balanced());
  if (topo.ok()) model::AddNvsmiTopo(ds, host, path, *topo);
  return ds;
}

TEST(Links, RealDgx1ClassCubeMeshMatrixHasNoDegradedLink) {
  // nvidia-smi topo -m of an 8x V100-SXM2 host (Oneflow-Inc/DLPerf reports, testdata/real PROVENANCE.md):
  // NV1 and NV2 pairs by design. No pair is a false alarm, and the wiring is the published one.
  const model::Dataset ds = RealNvsmiTopoDataset(
      "nvidia_smi_topo/dgx1_class_8x_v100_sxm2_nv1_nv2_cube_mesh_mlx5_oneflow_dlperf_report.txt", "v100");
  ASSERT_EQ(ds.hosts.count("v100"), 1U);
  EXPECT_EQ(ds.hosts.at("v100").nics.size(), 1U);
  const auto links = AnalyzeLinks(ds, ModernThresholds(), stats::NoiseModel{});
  int nv1 = 0;
  int nv2 = 0;
  for (const auto& l : links) {
    EXPECT_FALSE(l.degraded) << l.a << " " << l.b << " " << l.evidence;
    if (l.lanes == 0) continue;
    EXPECT_EQ(l.type, LinkType::kNvlink) << l.a << " " << l.b;
    EXPECT_EQ(l.expected_lanes, l.lanes) << l.a << " " << l.b;
    const int a = l.a.back() - '0';
    const int b = l.b.back() - '0';
    EXPECT_EQ(l.lanes, Dgx1Lanes(a, b)) << l.a << " " << l.b;
    (l.lanes == 1 ? nv1 : nv2) += 1;
  }
  EXPECT_EQ(nv1, 8);
  EXPECT_EQ(nv2, 8);
  const IslandOutput out = AnalyzeIslands(ds, links, ModernThresholds());
  ASSERT_EQ(out.islands.size(), 1U);
  EXPECT_EQ(out.islands[0].members.size(), 8U);
  EXPECT_EQ(out.islands[0].kind, IslandKind::kNvlink);
}

TEST(Links, PartialDgx2MatrixIsNvswitchFromTheLaneCount) {
  // nvidia-smi topo -m of a DGX-2 cut after GPU4's row (NVIDIA/nccl-tests issue #78): the declared
  // pairs are not a full mesh, but a GPU with NV6 to 15 peers can only be switched.
  const model::Dataset ds =
      RealNvsmiTopoDataset("nvidia_smi_topo/dgx2_v100_16gpu_nv6_mlx5_cols_nccl_tests_issue78_excerpt.txt", "dgx2");
  ASSERT_EQ(ds.hosts.count("dgx2"), 1U);
  EXPECT_EQ(ds.hosts.at("dgx2").nics.size(), 10U);
  const auto links = AnalyzeLinks(ds, ModernThresholds(), stats::NoiseModel{});
  int nv = 0;
  for (const auto& l : links) {
    if (l.lanes == 0) continue;
    ++nv;
    EXPECT_EQ(l.type, LinkType::kNvswitch) << l.a << " " << l.b;
    EXPECT_FALSE(l.degraded) << l.evidence;
  }
  EXPECT_EQ(nv, 15 + 14 + 13 + 12 + 11);
  const IslandOutput out = AnalyzeIslands(ds, links, ModernThresholds());
  ASSERT_EQ(out.islands.size(), 1U);
  EXPECT_EQ(out.islands[0].members.size(), 16U);
  EXPECT_EQ(out.islands[0].kind, IslandKind::kNvswitch);
}

TEST(Links, P2pEnabledSlowerThanStagedCopiesIsAFinding) {
  // p2pBandwidthLatencyTest from NVIDIA/nccl issue #814: P2P writes at ~10 GB/s, staged copies at ~22.
  const std::string rel = "cuda_p2p/p2p_enabled_slower_than_disabled_6gpu_nccl_issue814_excerpt.txt";
  const std::string path = std::string(TOPOSCOPE_TESTDATA) + "/real/" + rel;
  model::Dataset ds;
  ReadCounts counts;
  auto report = formats::ParseP2pBandwidthLatencyTest(ReadRealFile(rel), path, ds.diag, counts);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(counts.Balanced());
  model::AddP2pReport(ds, "h", path, *report);
  const auto links = AnalyzeLinks(ds, ModernThresholds(), stats::NoiseModel{});
  ASSERT_EQ(links.size(), 15U);
  for (const auto& l : links) {
    EXPECT_TRUE(l.degraded) << l.a << " " << l.b << " " << l.evidence;
    EXPECT_NE(l.evidence.find("slower than staged (P2P=Disabled) ones"), std::string::npos) << l.evidence;
    EXPECT_LT(l.bandwidth_gbps, 11.0);  // the P2P=Enabled mean, staged copies kept aside
  }
  const LinkReport* l01 = Find(links, "h/gpu0", "h/gpu1");
  EXPECT_NE(l01->evidence.find("at 20.2 GB/s"), std::string::npos) << l01->evidence;
}

TEST(Links, NvidiaSmiP2pStatusGivesGpusAndPairs) {
  // `nvidia-smi topo -p2p rw` on two RTX 5090 (club-3090 issue #1229): GNS both ways.
  const std::string path = std::string(TOPOSCOPE_TESTDATA) +
                           "/real/nvidia_smi_topo/nvsmi_topo_p2p_rw_2x_rtx5090_gns_dr_legend_club3090_issue1229.txt";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  model::Dataset ds;
  ReadCounts counts;
  auto topo = formats::ParseNvsmiTopo(text.str(), path, ds.diag, counts);
  ASSERT_TRUE(topo.ok());
  model::AddNvsmiTopo(ds, "rtx", path, *topo);
  const auto& h = ds.hosts.at("rtx");
  EXPECT_EQ(h.gpus.size(), 2U);
  EXPECT_EQ(h.p2p_status.at(model::MakePair(0, 1)), "GNS");
  EXPECT_TRUE(h.nvsmi_links.empty());
  const auto links = AnalyzeLinks(ds, ModernThresholds(), stats::NoiseModel{});
  ASSERT_EQ(links.size(), 1U);
  EXPECT_NE(links[0].evidence.find("nvidia-smi topo -p2p: GNS"), std::string::npos) << links[0].evidence;
  const IslandOutput out = AnalyzeIslands(ds, links, ModernThresholds());
  EXPECT_EQ(out.gpus.size(), 2U);
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

// `hosts` hosts of 8 GPUs measured pair by pair (both directions) at 200 GB/s under `noise`, named
// with `prefix`.
model::Dataset NoisyMatrix(const stats::NoiseModel& noise, int hosts, const std::string& prefix = "node") {
  model::Dataset ds;
  Rng rng(4242);
  for (int k = 0; k < hosts; ++k) {
    model::HostEvidence& h = ds.Host(prefix + std::to_string(k));
    for (int a = 0; a < 8; ++a) {
      for (int b = a + 1; b < 8; ++b) {
        h.gpus[a].index = a;
        h.gpus[b].index = b;
        auto& m = h.measured[model::MakePair(a, b)];
        for (int d = 0; d < 2; ++d) m.samples_gbps.push_back(200.0 * (1.0 + noise.Sample(rng)));
      }
    }
  }
  return ds;
}

// The noise is fitted to the repeated measurements: it follows the data (a noisier fleet gets a
// wider error bound), says how many residuals it saw, and does not depend on the host names.
TEST(Confidence, NoiseIsFittedToTheRepeatedMeasurements) {
  stats::NoiseModel quiet{1.7, 0.0, 0.01, 0};
  stats::NoiseModel loud{1.7, 0.0, 0.04, 0};
  const model::Dataset ds_quiet = NoisyMatrix(quiet, 8);
  const NoiseFit fq = MeasuredNoise(ds_quiet, ModernThresholds(), stats::NoiseModel{});
  ASSERT_TRUE(fq.fitted) << fq.note;
  EXPECT_EQ(fq.samples, 8 * 28 * 2);
  EXPECT_EQ(fq.source, "p2p_bandwidth_repeats");
  EXPECT_NEAR(fq.model.alpha, 1.7, 0.3);
  EXPECT_NEAR(fq.model.scale / 0.01, 1.0, 0.3);
  const NoiseFit fl = MeasuredNoise(NoisyMatrix(loud, 8), ModernThresholds(), stats::NoiseModel{});
  ASSERT_TRUE(fl.fitted);
  EXPECT_NEAR(fl.model.scale / 0.04, 1.0, 0.3);
  const ConfidenceReport rq = AnalyzeConfidence({}, fq);
  const ConfidenceReport rl = AnalyzeConfidence({}, fl);
  ASSERT_FALSE(rq.sampling.empty());
  EXPECT_LT(rq.sampling[0].per_hop_error, rl.sampling[0].per_hop_error);
  EXPECT_GT(rq.sampling[0].max_hops, rl.sampling[0].max_hops);
  EXPECT_TRUE(rq.noise_fitted);
  EXPECT_EQ(rq.noise_samples, 448);
  // Deterministic, and free of the host names.
  const NoiseFit renamed = MeasuredNoise(NoisyMatrix(quiet, 8, "other-"), ModernThresholds(), stats::NoiseModel{});
  EXPECT_EQ(renamed.seed, fq.seed);
  const ConfidenceReport again = AnalyzeConfidence({}, renamed);
  for (size_t i = 0; i < rq.sampling.size(); ++i) EXPECT_EQ(again.sampling[i].per_hop_error, rq.sampling[i].per_hop_error);
}

// Two GPUs measured once each way cannot support a fit: the prior is kept, and the report says so.
TEST(Confidence, PriorWhenTheDataCannotSupportAFit) {
  model::Dataset ds;
  Measure(ds.Host("h"), 0, 1, 20.0);
  const NoiseFit f = MeasuredNoise(ds, ModernThresholds(), stats::NoiseModel{});
  EXPECT_FALSE(f.fitted);
  EXPECT_EQ(f.source, "prior");
  EXPECT_NE(f.note.find("fewer than"), std::string::npos) << f.note;
  EXPECT_DOUBLE_EQ(f.model.alpha, stats::NoiseModel{}.alpha);
  const ConfidenceReport r = AnalyzeConfidence({}, f);
  const ConfidenceReport prior = AnalyzeConfidence({}, stats::NoiseModel{});
  EXPECT_FALSE(r.noise_fitted);
  for (size_t i = 0; i < r.sampling.size(); ++i) EXPECT_EQ(r.sampling[i].per_hop_error, prior.sampling[i].per_hop_error);
}

}  // namespace node_analysis_test
}  // namespace toposcope::analysis
