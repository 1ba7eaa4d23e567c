// Tests of the simulator's first part: node-type physics, cluster and fault generation, the
// per-host files (read back through the formats readers) and truth.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/names.h"
#include "toposcope/formats/nccl/nccl_xml.h"
#include "toposcope/formats/node/nvsmi_topo.h"
#include "toposcope/formats/node/p2p_matrix.h"
#include "toposcope/sim/cluster.h"
#include "toposcope/sim/fabric_sim.h"
#include "toposcope/sim/node_types.h"
#include "toposcope/sim/rdma_traffic.h"
#include "toposcope/sim/simulate.h"
#include "toposcope/sim/writers.h"
#include "toposcope/stats/alpha_stable.h"
#include "temp_dir.h"

namespace toposcope::sim {
namespace sim_test {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ReadAll(const std::string& path) {
  Result<std::string> text = ReadFileText(path);
  EXPECT_TRUE(text.ok()) << path;
  return text.ok() ? *text : std::string();
}

std::vector<std::string> ListFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---- Node types and physics ----

TEST(NodeTypes, RegistryHasTheFourTypes) {
  for (const char* name : {"h100-nvswitch", "a100-nvswitch", "pcie-bridge", "pcie-only"}) {
    const NodeType* t = FindNodeType(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->GpuCount(), 8);
    EXPECT_EQ(t->sockets, 2);
    for (const auto& g : t->gpus) EXPECT_LT(g.pcie_switch, static_cast<int>(t->pcie_switches.size()));
    for (const auto& n : t->nics) EXPECT_LT(n.pcie_switch, static_cast<int>(t->pcie_switches.size()));
  }
  EXPECT_EQ(FindNodeType("v100-cube"), nullptr);
  EXPECT_EQ(FindNodeType("h100-nvswitch")->DesignNvswitchLanes(), 18);
  EXPECT_EQ(FindNodeType("a100-nvswitch")->DesignNvswitchLanes(), 12);
}

TEST(NodeTypes, PcieBandwidthModel) {
  EXPECT_NEAR(PcieLinkGbps(4, 16), 16.0 * 16 * 128 / 130 / 8 * 0.85, 1e-9);
  EXPECT_NEAR(PcieLinkGbps(5, 16), 2 * PcieLinkGbps(4, 16), 1e-9);
  EXPECT_NEAR(PcieLinkGbps(1, 16), 2.5 * 16 * 0.8 / 8 * 0.85, 1e-9);
  EXPECT_NEAR(PcieLinkGbps(2, 16), 2 * PcieLinkGbps(1, 16), 1e-9);
  EXPECT_EQ(PcieLinkGbps(9, 16), 0.0);
  // DOMAIN.md §1.3: Gen4 P2P same switch ~24-26, via CPU ~20-22, cross-socket ~14-15 GB/s.
  const double gen4 = PcieLinkGbps(4, 16);
  EXPECT_GT(gen4 * PciePathFactor(LinkType::kPix), 24.0);
  EXPECT_LT(gen4 * PciePathFactor(LinkType::kPix), 26.0);
  EXPECT_GT(gen4 * PciePathFactor(LinkType::kNode), 20.0);
  EXPECT_LT(gen4 * PciePathFactor(LinkType::kNode), 22.0);
  EXPECT_GT(gen4 * PciePathFactor(LinkType::kSys), 14.0);
  EXPECT_LT(gen4 * PciePathFactor(LinkType::kSys), 15.0);
  EXPECT_EQ(PcieSpeedText(5), "32.0 GT/s PCIe");
  EXPECT_EQ(PcieSpeedText(1), "2.5 GT/s PCIe");
}

TEST(NodeTypes, PcieRelations) {
  const NodeType& h100 = *FindNodeType("h100-nvswitch");
  // GPU - own NIC PIX, same socket NODE, other socket SYS.
  EXPECT_EQ(PcieRelation(h100, h100.gpus[0].pcie_switch, h100.nics[0].pcie_switch), LinkType::kPix);
  EXPECT_EQ(PcieRelation(h100, h100.gpus[0].pcie_switch, h100.nics[3].pcie_switch), LinkType::kNode);
  EXPECT_EQ(PcieRelation(h100, h100.gpus[0].pcie_switch, h100.nics[4].pcie_switch), LinkType::kSys);
  const NodeType& a100 = *FindNodeType("a100-nvswitch");
  EXPECT_EQ(PcieRelation(a100, a100.gpus[0].pcie_switch, a100.nics[0].pcie_switch), LinkType::kPxb);
  EXPECT_EQ(PcieRelation(a100, a100.gpus[0].pcie_switch, a100.nics[1].pcie_switch), LinkType::kPxb);
  EXPECT_EQ(PcieRelation(a100, a100.gpus[0].pcie_switch, a100.nics[2].pcie_switch), LinkType::kNode);
  EXPECT_EQ(PcieRelation(a100, a100.gpus[0].pcie_switch, a100.nics[7].pcie_switch), LinkType::kSys);
  const NodeType& pcie = *FindNodeType("pcie-only");
  EXPECT_EQ(PcieRelation(pcie, pcie.gpus[0].pcie_switch, pcie.gpus[1].pcie_switch), LinkType::kPix);
  EXPECT_EQ(PcieRelation(pcie, pcie.gpus[0].pcie_switch, pcie.gpus[2].pcie_switch), LinkType::kNode);
  EXPECT_EQ(PcieRelation(pcie, pcie.gpus[0].pcie_switch, pcie.gpus[4].pcie_switch), LinkType::kSys);
}

TEST(NodeTypes, BusIdsUniquePerHost) {
  for (const auto& t : NodeTypes()) {
    const BusLayout b = AssignBusNumbers(t);
    std::set<int> all;
    size_t count = 0;
    for (const auto* v : {&b.pcie_switches, &b.gpus, &b.nics, &b.nvswitches}) {
      for (int bus : *v) {
        EXPECT_GT(bus, 0) << t.name;
        EXPECT_LT(bus, 0x100) << t.name;
        all.insert(bus);
        ++count;
      }
    }
    EXPECT_EQ(all.size(), count) << t.name;
  }
  EXPECT_EQ(BusIdNccl(0xab), "0000:ab:00.0");
  EXPECT_EQ(BusIdNvbandwidth(0x0c), "00000000:0c:00");
  EXPECT_EQ(BusIdShort(0x0c), "c");
}

TEST(NodeTypes, CpuAffinity) {
  const NodeType& h100 = *FindNodeType("h100-nvswitch");
  EXPECT_EQ(CpuListOfSocket(h100, 0), "0-47,96-143");
  EXPECT_EQ(CpuListOfSocket(h100, 1), "48-95,144-191");
  // 192 CPUs = 6 groups of 32; socket 0 holds CPUs 0-47 and 96-143.
  EXPECT_EQ(CpuMaskOfSocket(h100, 0), "00000000,0000ffff,ffffffff,00000000,0000ffff,ffffffff");
  EXPECT_EQ(CpuMaskOfSocket(h100, 1), "ffffffff,ffff0000,00000000,ffffffff,ffff0000,00000000");
}

TEST(Cluster, HealthyPairBandwidths) {
  SimOptions o;
  o.hosts = 4;
  o.faults = 0;
  Result<Cluster> c = BuildCluster(o);
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  std::map<std::string, std::map<LinkType, std::pair<double, double>>> range;  // type -> link -> min,max
  for (const auto& h : c->hosts) {
    for (const auto& l : HostLinks(h)) {
      auto& r = range[h.type->name].try_emplace(l.type, 1e9, 0.0).first->second;
      r.first = std::min(r.first, l.bandwidth_gbps);
      r.second = std::max(r.second, l.bandwidth_gbps);
      EXPECT_FALSE(l.degraded);
      EXPECT_EQ(l.bandwidth_gbps, l.healthy_gbps);
    }
  }
  EXPECT_NEAR(range["h100-nvswitch"][LinkType::kNvswitch].first, 374.4, 0.01);
  EXPECT_EQ(range["h100-nvswitch"].size(), 1u);
  EXPECT_NEAR(range["a100-nvswitch"][LinkType::kNvswitch].second, 276.0, 0.01);
  EXPECT_NEAR(range["pcie-bridge"][LinkType::kNvlink].first, 240.0, 0.01);
  EXPECT_NEAR(range["pcie-bridge"][LinkType::kNode].first, PcieLinkGbps(4, 16) * 0.78, 1e-9);
  EXPECT_NEAR(range["pcie-bridge"][LinkType::kSys].first, PcieLinkGbps(4, 16) * 0.55, 1e-9);
  EXPECT_EQ(range["pcie-bridge"].count(LinkType::kPix), 0u);  // bridge partners share the switch
  EXPECT_NEAR(range["pcie-only"][LinkType::kPix].first, PcieLinkGbps(4, 16) * 0.92, 1e-9);
}

// The kind of BuildCluster's error on `o` (kInternal when it does not fail).
ErrorKind BuildErrorKind(const SimOptions& o) {
  Result<Cluster> c = BuildCluster(o);
  return c.ok() ? ErrorKind::kInternal : c.error().kind;
}

TEST(Cluster, RejectsBadOptions) {
  SimOptions o;
  EXPECT_FALSE(ParseArch("torus").has_value());
  o.arch = Arch::kImported;  // not one BuildCluster builds
  EXPECT_EQ(BuildErrorKind(o), ErrorKind::kUsage);
  o.arch = static_cast<Arch>(99);  // no architecture at all
  EXPECT_EQ(BuildErrorKind(o), ErrorKind::kUsage);
  o = SimOptions{};
  o.hosts = 0;
  EXPECT_EQ(BuildErrorKind(o), ErrorKind::kUsage);
  o = SimOptions{};
  o.faults = -1;
  EXPECT_EQ(BuildErrorKind(o), ErrorKind::kUsage);
  o = SimOptions{};
  o.node_types = {"h100-nvswitch", "nope"};
  Result<Cluster> c = BuildCluster(o);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("nope"), std::string::npos);
  EXPECT_EQ(c.error().kind, ErrorKind::kUsage);
  o = SimOptions{};
  o.noise.alpha = 3.0;
  EXPECT_EQ(BuildErrorKind(o), ErrorKind::kUsage);
  Result<SimSummary> no_dir = Simulate(SimOptions{}, "");
  ASSERT_FALSE(no_dir.ok());
  EXPECT_EQ(no_dir.error().kind, ErrorKind::kUsage);
}

TEST(Cluster, ArchNamesParseBack) {
  for (Arch a : {Arch::kFatTree, Arch::kDragonfly, Arch::kHhre, Arch::kImported})
    EXPECT_EQ(ParseArch(ArchName(a)), a);
  EXPECT_EQ(ArchName(SimOptions{}.arch), "fat-tree");
  EXPECT_FALSE(ParseArch("Fat-Tree").has_value());
}

TEST(Simulate, OptionErrorsAreUsageAndWriteErrorsOutput) {
  SimOptions o;
  o.hosts = 2;
  o.with_telemetry = true;
  o.duration_s = 5;  // below 10 s
  TempDir dir("kinds");
  Result<SimSummary> bad = Simulate(o, dir.str());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kUsage);
  o = SimOptions{};
  o.hosts = 2;
  o.with_rdma = true;
  o.nccl_channels = 0;
  bad = Simulate(o, dir.str());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kUsage);
  o = SimOptions{};
  o.hosts = 2;
  o.with_fabric = true;
  o.probes_per_pair = 0;
  bad = Simulate(o, dir.str());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kUsage);
  const std::string file = dir.str() + "/a-file";
  ASSERT_TRUE(WriteFileText(file, "").ok());
  o = SimOptions{};
  o.hosts = 2;
  bad = Simulate(o, file + "/sim");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kOutput);
}

TEST(Cluster, NodeTypeMixAndToolsAlternate) {
  SimOptions o;
  o.hosts = 16;
  Result<Cluster> c = BuildCluster(o);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->hosts.size(), 16u);
  EXPECT_EQ(c->hosts[0].name, "node001");
  EXPECT_EQ(c->hosts[15].name, "node016");
  std::map<std::string, std::set<P2pToolKind>> tools;
  int nvbw = 0;
  for (const auto& h : c->hosts) {
    tools[h.type->name].insert(h.p2p_tool);
    nvbw += h.p2p_tool == P2pToolKind::kNvbandwidth;
  }
  EXPECT_EQ(nvbw, 8);
  ASSERT_EQ(tools.size(), 4u);
  for (const auto& [type, kinds] : tools) EXPECT_EQ(kinds.size(), 2u) << type;

  o.node_types = {"pcie-only"};
  o.hosts = 6;
  c = BuildCluster(o);
  ASSERT_TRUE(c.ok());
  nvbw = 0;
  for (const auto& h : c->hosts) {
    EXPECT_EQ(h.type->name, "pcie-only");
    nvbw += h.p2p_tool == P2pToolKind::kNvbandwidth;
  }
  EXPECT_EQ(nvbw, 3);
}

TEST(Cluster, FaultsDeterministicAndEligible) {
  for (uint64_t seed : {1ULL, 2ULL, 3ULL, 99ULL}) {
    SimOptions o;
    o.seed = seed;
    Result<Cluster> c = BuildCluster(o);
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c->faults.size(), 4u);
    int lanes = 0;
    int pcie = 0;
    std::set<int> hosts;
    for (const auto& f : c->faults) {
      const HostModel& h = c->hosts[static_cast<size_t>(f.host)];
      EXPECT_TRUE(hosts.insert(f.host).second) << "one fault per host";
      if (f.kind == NodeFaultKind::kNvlinkLanesDown) {
        ++lanes;
        EXPECT_TRUE(h.type->HasNvlink());
        EXPECT_EQ(f.gpus.size(), h.type->nvswitch_lanes.empty() ? 2u : 1u);
      } else {
        ASSERT_EQ(NodeFaultKindName(f.kind), "pcie_downtrain");
        ++pcie;
        EXPECT_TRUE(h.type->name == "pcie-bridge" || h.type->name == "pcie-only");
        const GpuState& g = h.gpus[static_cast<size_t>(f.gpus[0])];
        EXPECT_TRUE(g.pcie_width == 4 || g.pcie_gen == 1);
      }
    }
    EXPECT_EQ(lanes, 2);
    EXPECT_EQ(pcie, 2);
    Result<Cluster> again = BuildCluster(o);
    ASSERT_TRUE(again.ok());
    for (size_t i = 0; i < c->faults.size(); ++i) {
      EXPECT_EQ(c->faults[i].host, again->faults[i].host);
      EXPECT_EQ(c->faults[i].gpus, again->faults[i].gpus);
      EXPECT_EQ(c->faults[i].detail, again->faults[i].detail);
    }
  }
  // More faults than hosts: capped at one per host.
  SimOptions o;
  o.hosts = 3;
  o.faults = 10;
  Result<Cluster> c = BuildCluster(o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->faults.size(), 3u);
  // Only NVSwitch hosts: every fault falls back to nvlink_lanes_down.
  o.node_types = {"h100-nvswitch"};
  o.hosts = 8;
  o.faults = 4;
  c = BuildCluster(o);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->faults.size(), 4u);
  for (const auto& f : c->faults) EXPECT_EQ(NodeFaultKindName(f.kind), "nvlink_lanes_down");
}

TEST(Cluster, FabricGrouping) {
  SimOptions o;
  o.hosts = 16;
  Result<Cluster> c = BuildCluster(o);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->fabric.leaves.size(), 4u);
  EXPECT_EQ(c->fabric.leaves[0].name, "leaf00");
  EXPECT_EQ(c->fabric.leaves[0].members.size(), 4u);
  EXPECT_EQ(c->fabric.spines.size(), 2u);
  EXPECT_EQ(c->hosts[5].leaf, "leaf01");

  o.arch = Arch::kDragonfly;
  c = BuildCluster(o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->fabric.leaves.size(), 8u);  // routers of 2 hosts
  ASSERT_EQ(c->fabric.groups.size(), 2u);  // 4 routers per group
  EXPECT_EQ(c->fabric.groups[1].members.size(), 4u);
  EXPECT_TRUE(c->fabric.spines.empty());
  EXPECT_EQ(c->hosts[3].leaf, "g00r1");

  o.arch = Arch::kHhre;
  o.hosts = 20;
  c = BuildCluster(o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->fabric.leaves.size(), 5u);  // racks
  ASSERT_EQ(c->fabric.rings.size(), 2u);
  EXPECT_EQ(c->fabric.rings[0].members.size(), 4u);
  EXPECT_EQ(c->fabric.rings[1].members, std::vector<std::string>{"rack04"});
  EXPECT_EQ(c->fabric.spines.size(), 2u);
}

// ---- Output files ----

TEST(Simulate, SameSeedByteIdenticalOutput) {
  TempDir a("det_a");
  TempDir b("det_b");
  TempDir d("det_d");
  SimOptions o;
  o.seed = 42;
  o.hosts = 8;
  Result<SimSummary> sa = Simulate(o, a.str());
  Result<SimSummary> sb = Simulate(o, b.str());
  ASSERT_TRUE(sa.ok()) << sa.error().ToString();
  ASSERT_TRUE(sb.ok());
  EXPECT_EQ(sa->files_written, 8 * 3 + 1);
  const auto files_a = ListFiles(a.str());
  const auto files_b = ListFiles(b.str());
  ASSERT_EQ(files_a, files_b);
  ASSERT_EQ(files_a.size(), 25u);
  for (const auto& f : files_a) EXPECT_EQ(ReadAll(a.str() + "/" + f), ReadAll(b.str() + "/" + f)) << f;

  o.seed = 43;
  ASSERT_TRUE(Simulate(o, d.str()).ok());
  int differing = 0;
  for (const auto& f : files_a) differing += ReadAll(a.str() + "/" + f) != ReadAll(d.str() + "/" + f);
  EXPECT_GT(differing, 0);
}

TEST(Simulate, SummaryListsHostsFilesFaults) {
  TempDir dir("summary");
  SimOptions o;
  o.hosts = 5;
  o.arch = Arch::kHhre;
  Result<SimSummary> s = Simulate(o, dir.str());
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->hosts.size(), 5u);
  EXPECT_EQ(s->hosts[0].files[0], "node001/nvidia-smi-topo.txt");
  EXPECT_EQ(s->hosts[0].files[2], "node001/nvbandwidth.txt");
  EXPECT_EQ(s->hosts[1].files[2], "node002/p2pBandwidthLatencyTest.txt");
  EXPECT_EQ(s->hosts[0].leaf, "rack00");
  EXPECT_EQ(s->faults.size(), 4u);
  EXPECT_EQ(s->faults_requested, 4);
  EXPECT_TRUE(fs::exists(s->truth_path));
  for (const auto& h : s->hosts) {
    for (const auto& f : h.files) EXPECT_TRUE(fs::exists(dir.str() + "/" + f)) << f;
  }
}

TEST(Simulate, SummaryText) {
  SimSummary s;
  s.out_dir = "/tmp/out";
  s.arch = Arch::kFatTree;
  s.seed = 3;
  s.hosts = {{"node001", "h100-nvswitch", "leaf00", {}},
             {"node002", "a100-nvswitch", "leaf00", {}},
             {"node003", "h100-nvswitch", "leaf00", {}}};
  s.faults = {{NodeFaultKind::kNvlinkLanesDown, "node003", {"node003/gpu5"}, "9 of 18 lanes down"}};
  s.faults_requested = 2;
  s.truth_path = "/tmp/out/truth.json";
  s.files_written = 10;
  EXPECT_EQ(SimSummaryText(s),
            "simulated 3 hosts (fat-tree, seed 3), 10 files in /tmp/out\n"
            "  1 x a100-nvswitch\n"
            "  2 x h100-nvswitch\n"
            "injected faults: 1 of 2 requested\n"
            "  nvlink_lanes_down on node003: node003/gpu5 (9 of 18 lanes down)\n"
            "ground truth: /tmp/out/truth.json (read only by `toposcope score`)\n");
}

TEST(Simulate, ScaleLimitsDropRdmaAndFabricOnLargeClusters) {
  SimOptions o;
  o.with_rdma = true;
  o.with_fabric = true;
  o.with_telemetry = true;
  o.hosts = kMaxFabricHosts;
  SimOptions l = WithScaleLimits(o);
  EXPECT_TRUE(l.with_rdma);
  EXPECT_TRUE(l.with_fabric);
  o.hosts = kMaxFabricHosts + 1;
  l = WithScaleLimits(o);
  EXPECT_TRUE(l.with_rdma);
  EXPECT_FALSE(l.with_fabric);
  EXPECT_TRUE(l.with_telemetry);
  EXPECT_EQ(l.hosts, o.hosts);
  o.hosts = kMaxRdmaHosts;
  EXPECT_TRUE(WithScaleLimits(o).with_rdma);
  o.hosts = kMaxRdmaHosts + 1;
  l = WithScaleLimits(o);
  EXPECT_FALSE(l.with_rdma);
  EXPECT_FALSE(l.with_fabric);
  // Parts that were off stay off.
  o.hosts = 4;
  o.with_rdma = false;
  o.with_fabric = false;
  l = WithScaleLimits(o);
  EXPECT_FALSE(l.with_rdma);
  EXPECT_FALSE(l.with_fabric);
  EXPECT_EQ(kMaxRdmaHosts, 1024);
  EXPECT_EQ(kMaxFabricHosts, 512);
}

json LoadTruth(const std::string& dir) {
  const std::string text = ReadAll(dir + "/truth.json");
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded());
  return j;
}

TEST(Truth, Invariants) {
  TempDir dir("truth");
  SimOptions o;
  o.seed = 7;
  o.hosts = 16;
  o.faults = 8;
  ASSERT_TRUE(Simulate(o, dir.str()).ok());
  const json t = LoadTruth(dir.str());
  EXPECT_TRUE(ReadAll(dir.str() + "/truth.json").starts_with("{\n  \"schema\": \"toposcope.truth/1\",\n"));
  EXPECT_EQ(t["schema"], "toposcope.truth/1");
  EXPECT_EQ(t["seed"], 7);
  EXPECT_EQ(t["arch"], "fat-tree");
  ASSERT_EQ(t["hosts"].size(), 16u);
  ASSERT_EQ(t["gpus"].size(), 128u);
  std::map<std::string, std::string> host_type;
  for (const auto& h : t["hosts"]) {
    host_type[h["name"]] = h["node_type"];
    EXPECT_EQ(h["files"].size(), 3u);
    EXPECT_FALSE(h["leaf"].get<std::string>().empty());
  }

  // Every GPU pair of every host exactly once, a < b.
  std::set<std::pair<std::string, std::string>> pairs;
  std::map<std::string, std::vector<const json*>> links_of_gpu;
  for (const auto& l : t["links"]) {
    const auto a = ParseGpuName(l["a"].get<std::string>());
    const auto b = ParseGpuName(l["b"].get<std::string>());
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->host, b->host);
    EXPECT_LT(a->index, b->index);
    EXPECT_TRUE(pairs.insert({l["a"].get<std::string>(), l["b"].get<std::string>()}).second);
    links_of_gpu[l["a"]].push_back(&l);
    links_of_gpu[l["b"]].push_back(&l);
    // degraded <=> lanes < design_lanes or bandwidth < 0.8 x healthy.
    const bool rule = l["lanes"].get<int>() < l["design_lanes"].get<int>() ||
                      l["bandwidth_gbps"].get<double>() < 0.8 * l["healthy_gbps"].get<double>();
    EXPECT_EQ(l["degraded"].get<bool>(), rule) << l.dump();
    EXPECT_EQ(l["degraded"].get<bool>(), !l["fault"].get<std::string>().empty()) << l.dump();
    const std::string type = l["type"];
    if (type == "NVLINK" || type == "NVSWITCH") {
      EXPECT_GT(l["design_lanes"].get<int>(), 0);
    } else {
      EXPECT_EQ(l["lanes"], 0);
      EXPECT_EQ(l["design_lanes"], 0);
    }
  }
  EXPECT_EQ(pairs.size(), 16u * 28u);

  // Each fault's links are degraded and carry its kind.
  ASSERT_EQ(t["faults"].size(), 8u);
  for (const auto& f : t["faults"]) {
    const std::string kind = f["kind"];
    const std::string host = f["host"];
    int affected = 0;
    for (const auto& g : f["gpus"]) {
      for (const json* l : links_of_gpu[g.get<std::string>()]) {
        const std::string type = (*l)["type"];
        const bool should = kind == "pcie_downtrain"           ? type != "NVLINK"
                            : host_type[host] == "pcie-bridge" ? type == "NVLINK"
                                                               : true;
        if (!should) continue;
        ++affected;
        EXPECT_TRUE((*l)["degraded"].get<bool>()) << l->dump();
        EXPECT_EQ((*l)["fault"], kind) << l->dump();
      }
    }
    EXPECT_GT(affected, 0) << f.dump();
  }
  // No degraded link outside the faults' GPUs.
  std::set<std::string> fault_gpus;
  for (const auto& f : t["faults"]) {
    for (const auto& g : f["gpus"]) fault_gpus.insert(g);
  }
  for (const auto& l : t["links"]) {
    if (l["degraded"].get<bool>()) {
      EXPECT_TRUE(fault_gpus.count(l["a"]) || fault_gpus.count(l["b"])) << l.dump();
    }
  }

  // Islands per node type.
  std::map<std::string, std::vector<const json*>> islands_of_host;
  std::map<std::string, std::string> island_of_gpu;
  for (const auto& g : t["gpus"]) island_of_gpu[g["id"]] = g["island"];
  for (const auto& i : t["islands"]) {
    const auto first = ParseGpuName(i["members"][0].get<std::string>());
    ASSERT_TRUE(first);
    islands_of_host[first->host].push_back(&i);
    for (const auto& m : i["members"]) EXPECT_EQ(island_of_gpu[m], i["id"]);
  }
  for (const auto& [host, type] : host_type) {
    const auto& isl = islands_of_host[host];
    if (type == "h100-nvswitch" || type == "a100-nvswitch") {
      ASSERT_EQ(isl.size(), 1u) << host;
      EXPECT_EQ((*isl[0])["kind"], "nvswitch");
      EXPECT_EQ((*isl[0])["members"].size(), 8u);
    } else if (type == "pcie-bridge") {
      ASSERT_EQ(isl.size(), 4u) << host;
      for (const json* i : isl) {
        EXPECT_EQ((*i)["kind"], "nvlink");
        EXPECT_EQ((*i)["members"].size(), 2u);
      }
    } else {
      ASSERT_EQ(isl.size(), 8u) << host;
      for (const json* i : isl) {
        EXPECT_EQ((*i)["kind"], "pcie");
        EXPECT_EQ((*i)["members"].size(), 1u);
      }
    }
  }
  // Fabric: leaves cover every host once.
  std::set<std::string> in_leaves;
  for (const auto& leaf : t["fabric"]["leaves"]) {
    for (const auto& h : leaf["hosts"]) EXPECT_TRUE(in_leaves.insert(h).second);
  }
  EXPECT_EQ(in_leaves.size(), 16u);
}

// ---- The files read back through the formats readers ----

TEST(Files, ParseBackWithoutRejects) {
  TempDir dir("parse");
  SimOptions o;
  o.seed = 11;
  o.hosts = 8;
  o.faults = 6;
  Result<SimSummary> s = Simulate(o, dir.str());
  ASSERT_TRUE(s.ok());
  const json truth = LoadTruth(dir.str());
  std::map<std::pair<std::string, std::string>, const json*> truth_link;
  for (const auto& l : truth["links"]) truth_link[{l["a"], l["b"]}] = &l;
  Result<Cluster> cluster = BuildCluster(o);
  ASSERT_TRUE(cluster.ok());

  for (const auto& h : s->hosts) {
    const HostModel& model = cluster->hosts[static_cast<size_t>(&h - s->hosts.data())];
    const NodeType& type = *model.type;
    // nvidia-smi topo -m
    {
      const std::string path = dir.str() + "/" + h.files[0];
      Diagnostics diag;
      ReadCounts counts;
      Result<formats::NvsmiTopo> topo = formats::ParseNvsmiTopo(ReadAll(path), path, diag, counts);
      ASSERT_TRUE(topo.ok()) << topo.error().ToString();
      EXPECT_EQ(counts.rejected, 0) << path;
      EXPECT_EQ(diag.rejected_total(), 0) << path;
      EXPECT_TRUE(counts.Balanced());
      ASSERT_EQ(topo->devices.size(), 8u + type.nics.size());
      EXPECT_EQ(topo->devices[8].nic_device, "mlx5_0");
      EXPECT_EQ(topo->devices[0].cpu_affinity, CpuListOfSocket(type, 0));
      EXPECT_EQ(topo->devices[7].numa_affinity, 1);
      EXPECT_EQ(topo->devices[0].gpu_numa_id, -1);
      for (int a = 0; a < 8; ++a) {
        for (int b = a + 1; b < 8; ++b) {
          const json& l = *truth_link.at({GpuName(h.name, a), GpuName(h.name, b)});
          const auto cell = ParseNvsmiCell(topo->cells[static_cast<size_t>(a)][static_cast<size_t>(b)]);
          ASSERT_TRUE(cell.has_value());
          EXPECT_EQ(topo->cells[static_cast<size_t>(a)][static_cast<size_t>(b)],
                    topo->cells[static_cast<size_t>(b)][static_cast<size_t>(a)]);
          if (l["design_lanes"].get<int>() > 0) {
            EXPECT_EQ(cell->type, LinkType::kNvlink);
            EXPECT_EQ(cell->lanes, l["lanes"].get<int>());
          } else {
            EXPECT_EQ(std::string(LinkTypeName(cell->type)), l["type"].get<std::string>());
          }
        }
      }
    }
    // NCCL topology XML
    {
      const std::string path = dir.str() + "/" + h.files[1];
      Diagnostics diag;
      ReadCounts counts;
      Result<formats::NcclTopo> topo = formats::ParseNcclTopoXml(ReadAll(path), path, diag, counts);
      ASSERT_TRUE(topo.ok()) << topo.error().ToString();
      EXPECT_EQ(counts.rejected, 0) << path;
      EXPECT_TRUE(counts.Balanced());
      EXPECT_EQ(topo->version, 1);
      ASSERT_EQ(topo->cpus.size(), 2u);
      ASSERT_EQ(topo->gpus.size(), 8u);
      ASSERT_EQ(topo->nics.size(), type.nics.size());
      std::set<std::string> bus_ids;
      for (const auto& p : topo->pcis) EXPECT_TRUE(bus_ids.insert(p.bus_id).second) << p.bus_id;
      for (const auto& g : topo->gpus) {
        ASSERT_GE(g.dev, 0);
        const GpuState& st = model.gpus[static_cast<size_t>(g.dev)];
        EXPECT_EQ(g.sm, type.sm);
        EXPECT_EQ(g.link_width, st.pcie_width);
        EXPECT_EQ(g.link_speed, PcieSpeedText(st.pcie_gen));
        EXPECT_EQ(g.numa_id, type.GpuSocket(g.dev));
        int lanes = 0;
        for (const auto& nv : g.nvlinks) {
          lanes += nv.count;
          EXPECT_EQ(nv.tclass, type.nvswitch_lanes.empty() ? "0x030200" : "0x068000");
        }
        int expected = 0;
        for (int v : st.nvswitch_lanes) expected += v;
        for (size_t b = 0; b < type.bridges.size(); ++b) {
          if (type.bridges[b].gpu_a == g.dev || type.bridges[b].gpu_b == g.dev)
            expected += model.bridge_lanes[b];
        }
        EXPECT_EQ(lanes, expected) << path << " gpu " << g.dev;
      }
      for (const auto& n : topo->nics) {
        EXPECT_EQ(n.speed_mbps, type.nics[static_cast<size_t>(n.dev)].speed_gbps * 1000.0);
        EXPECT_EQ(n.name, type.nics[static_cast<size_t>(n.dev)].device);
      }
    }
    // P2P measurement
    {
      const std::string path = dir.str() + "/" + h.files[2];
      Diagnostics diag;
      ReadCounts counts;
      const bool nvbw = h.files[2].ends_with(kNvbandwidthFile);
      Result<formats::P2pReport> rep =
          nvbw ? formats::ParseNvbandwidth(ReadAll(path), path, diag, counts)
               : formats::ParseP2pBandwidthLatencyTest(ReadAll(path), path, diag, counts);
      ASSERT_TRUE(rep.ok()) << rep.error().ToString();
      EXPECT_EQ(counts.rejected, 0) << path;
      EXPECT_TRUE(counts.Balanced());
      ASSERT_EQ(rep->devices.size(), 8u);
      EXPECT_EQ(rep->devices[0].name, type.gpu_model);
      if (nvbw) {
        EXPECT_EQ(rep->hostname, h.name);
        EXPECT_EQ(rep->version, "v0.8");
        ASSERT_EQ(rep->matrices.size(), 1u);
        EXPECT_EQ(rep->matrices[0].testcase, "device_to_device_memcpy_write_ce");
        EXPECT_TRUE(std::isnan(rep->matrices[0].values[0][0]));
        EXPECT_FALSE(std::isnan(rep->matrices[0].sum));
      } else {
        ASSERT_EQ(rep->matrices.size(), 5u);
        EXPECT_EQ(rep->matrices[0].quantity, formats::P2pQuantity::kConnectivity);
        EXPECT_EQ(rep->matrices[1].quantity, formats::P2pQuantity::kBandwidthUnidirGbps);
        EXPECT_EQ(rep->matrices[2].quantity, formats::P2pQuantity::kBandwidthBidirGbps);
        EXPECT_EQ(rep->matrices[3].quantity, formats::P2pQuantity::kLatencyUs);
        EXPECT_FALSE(rep->matrices[4].gpu_to_gpu);
      }
    }
  }
}

// ---- Noise ----

TEST(Noise, MeasuredErrorsFollowTheModel) {
  TempDir dir("noise");
  SimOptions o;
  o.seed = 5;
  o.hosts = 48;
  o.faults = 0;
  ASSERT_TRUE(Simulate(o, dir.str()).ok());
  Result<Cluster> cluster = BuildCluster(o);
  ASSERT_TRUE(cluster.ok());
  std::vector<double> rel;
  std::vector<double> bidir_rel;
  for (const auto& h : cluster->hosts) {
    std::vector<std::vector<double>> truth(8, std::vector<double>(8, 0.0));
    for (const auto& l : HostLinks(h)) {
      truth[static_cast<size_t>(l.a)][static_cast<size_t>(l.b)] = l.bandwidth_gbps;
      truth[static_cast<size_t>(l.b)][static_cast<size_t>(l.a)] = l.bandwidth_gbps;
    }
    const std::string file = HostFiles(h)[2];
    const std::string path = dir.str() + "/" + file;
    Diagnostics diag;
    ReadCounts counts;
    const bool nvbw = h.p2p_tool == P2pToolKind::kNvbandwidth;
    Result<formats::P2pReport> rep =
        nvbw ? formats::ParseNvbandwidth(ReadAll(path), path, diag, counts)
             : formats::ParseP2pBandwidthLatencyTest(ReadAll(path), path, diag, counts);
    ASSERT_TRUE(rep.ok());
    const formats::P2pMatrix& uni = rep->matrices[nvbw ? 0 : 1];
    for (size_t r = 0; r < 8; ++r) {
      for (size_t c = 0; c < 8; ++c) {
        if (r == c) continue;
        rel.push_back(uni.values[r][c] / truth[r][c] - 1.0);
        if (!nvbw) bidir_rel.push_back(rep->matrices[2].values[r][c] / (2.0 * truth[r][c]) - 1.0);
      }
    }
  }
  ASSERT_EQ(rel.size(), 48u * 56u);
  const double bound = o.noise.truncation * o.noise.scale + 0.005;  // + print rounding
  for (double e : rel) EXPECT_LE(std::abs(e), bound);
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  auto median_abs = [&](const std::vector<double>& v) {
    std::vector<double> a;
    for (double e : v) a.push_back(std::abs(e));
    return median(a);
  };
  const stats::NoiseQuantiles q = stats::EstimateNoise(o.noise, 100000);
  std::vector<double> model_abs;
  for (double e : q.sorted) model_abs.push_back(std::abs(e));
  EXPECT_NEAR(median(rel), q.Quantile(0.5), 0.01);
  EXPECT_NEAR(median_abs(rel), median(model_abs), 0.01);
  EXPECT_NEAR(median(bidir_rel), q.Quantile(0.5), 0.015);
  // Not all the same draw: cells of a pair differ by direction.
  EXPECT_GT(median_abs(rel), 0.02);
}

}  // namespace sim_test
}  // namespace toposcope::sim
