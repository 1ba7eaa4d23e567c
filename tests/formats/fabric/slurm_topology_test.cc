// Golden tests of the Slurm topology.conf / topology.yaml readers on every real fixture in
// slurm_topology/, writer round trips (the writers reproduce topograph's CI output and the
// topology.yaml(5) example byte for byte), hostlist expansion/compression edge cases, bad input.
#include "toposcope/formats/fabric/slurm_topology.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "toposcope/formats/fabric/mini_yaml.h"

namespace toposcope::formats {
namespace slurm_topology_test {

const std::string kDir = std::string(TOPOSCOPE_FIXTURES) + "/slurm_topology/";
const std::string kCirce = kDir + "nvidia_circe_dgx2_superpod_5leaf_topology_tonystarkiss.conf";
const std::string kYaml = kDir + "slurm_man5_topology_yaml_example.yaml";
const std::string kBlock8x4 = kDir + "slurm_testsuite_check_topology_block_8x4.conf";
const std::string kTc3 = kDir + "slurm_testsuite_test_133_1_testcase3_tree_2grp_20leaf.conf";
const std::string kTc6 = kDir + "slurm_testsuite_test_133_1_testcase6_disconnected_trunks.conf";
const std::string kDra = kDir + "topograph_ci_expected_slinky_dra_block_from_large_model.conf";
const std::string kOci = kDir + "topograph_ci_expected_slinky_oci_sim_tree_from_large_model.conf";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

SlurmTopology Conf(const std::string& text, Diagnostics& diag) {
  auto r = ParseSlurmTopologyConf(text, "t", diag);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
  if (!r.ok() || r->size() != 1) return {};
  return (*r)[0];
}

std::vector<SlurmTopology> Yaml(const std::string& text, Diagnostics& diag) {
  auto r = ParseSlurmTopologyYaml(text, "t", diag);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
  return r.ok() ? *r : std::vector<SlurmTopology>{};
}

// Drops what the writers do not carry (lines, expressions as written).
SlurmTopology Norm(SlurmTopology t) {
  t.line = 0;
  for (auto& s : t.switches) s.line = 0, s.nodes_expr.clear(), s.switches_expr.clear();
  for (auto& b : t.blocks) b.line = 0, b.nodes_expr.clear();
  for (auto& r : t.rings) r.line = 0, r.nodes_expr.clear();
  for (auto& u : t.toruses) u.line = 0, u.nodes_expr.clear();
  return t;
}
SlurmTopology NormYaml(SlurmTopology t) {
  t = Norm(std::move(t));
  for (auto& s : t.switches) s.comment.clear(), s.link_speed = -1;
  for (auto& b : t.blocks) b.comment.clear();
  return t;
}

const SlurmSwitch* Sw(const SlurmTopology& t, const std::string& name) {
  for (const auto& s : t.switches) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

int Warnings(const Diagnostics& d, const std::string& part) {
  int n = 0;
  for (const auto& x : d.items()) n += x.severity == Severity::kWarning && x.reason.find(part) != std::string::npos;
  return n;
}

TEST(SlurmTopologyTest, CirceRealClusterWithItsFaults) {
  Diagnostics diag;
  const SlurmTopology t = Conf(Slurp(kCirce), diag);
  EXPECT_EQ(t.plugin, "tree");
  EXPECT_EQ(t.counts.read, 5);
  EXPECT_EQ(t.counts.accepted, 5);
  ASSERT_EQ(t.switches.size(), 5u);
  const SlurmSwitch& s0 = t.switches[0];
  EXPECT_EQ(s0.name, "s0");
  EXPECT_EQ(s0.nodes_expr, "circe-n[001-016],n[019-020]");
  ASSERT_EQ(s0.nodes.size(), 18u);
  EXPECT_EQ(s0.nodes[0], "circe-n001");
  EXPECT_EQ(s0.nodes[15], "circe-n016");
  EXPECT_EQ(s0.nodes[16], "n019");  // the prefix belongs to the first bracket group only
  EXPECT_EQ(s0.nodes[17], "n020");
  EXPECT_EQ(Sw(t, "s1")->nodes.size(), 18u);
  EXPECT_EQ(Sw(t, "s2")->nodes.size(), 18u);
  EXPECT_EQ(Sw(t, "s3")->nodes.size(), 18u);
  ASSERT_EQ(Sw(t, "s4")->nodes.size(), 8u);
  EXPECT_EQ(Sw(t, "s4")->nodes[3], "circe-n051");
  EXPECT_EQ(t.AllNodes().size(), 79u);  // 80 listed, circe-n051 twice
  EXPECT_EQ(t.RootSwitches().size(), 5u);
  EXPECT_EQ(t.LeafSwitches().size(), 5u);
  EXPECT_EQ(Warnings(diag, "node circe-n051 is under both s2 and s4"), 1);
  EXPECT_EQ(Warnings(diag, "several root switches"), 1);
  EXPECT_EQ(diag.rejected_total(), 0);
}

TEST(SlurmTopologyTest, Testcase3ThreeLevelTree) {
  Diagnostics diag;
  const SlurmTopology t = Conf(Slurp(kTc3), diag);
  EXPECT_EQ(t.plugin, "tree");
  EXPECT_EQ(t.counts.read, 23);
  EXPECT_EQ(t.counts.rejected, 0);
  ASSERT_EQ(t.switches.size(), 23u);
  EXPECT_EQ(t.switches[0].name, "root");
  EXPECT_EQ(t.switches[0].switches, (std::vector<std::string>{"grp10", "grp11"}));
  EXPECT_EQ(t.switches[0].comment, "");  // the "# topology.conf" header is cut off by a blank line
  ASSERT_EQ(Sw(t, "grp11")->switches.size(), 10u);
  EXPECT_EQ(Sw(t, "grp11")->switches[9], "leaf119");
  EXPECT_EQ(Sw(t, "leaf119")->nodes.back(), "peta10399");
  EXPECT_EQ(Sw(t, "leaf100")->nodes.front(), "peta10000");
  EXPECT_EQ(Sw(t, "leaf100")->line, 7);
  EXPECT_EQ(t.RootSwitches(), std::vector<std::string>{"root"});
  EXPECT_EQ(t.LeafSwitches().size(), 20u);
  EXPECT_EQ(t.AllNodes().size(), 400u);
  EXPECT_EQ(diag.warnings_total(), 0);
}

TEST(SlurmTopologyTest, Testcase6DisconnectedTrunks) {
  Diagnostics diag;
  const SlurmTopology t = Conf(Slurp(kTc6), diag);
  EXPECT_EQ(t.counts.read, 7);
  EXPECT_EQ(t.counts.accepted, 7);
  EXPECT_EQ(t.switches.size(), 7u);
  EXPECT_EQ(Sw(t, "spineA")->switches, (std::vector<std::string>{"leafA1", "leafA2"}));
  EXPECT_EQ(Sw(t, "spineA")->switches_expr, "leafA1,leafA2");
  EXPECT_EQ(t.RootSwitches(), (std::vector<std::string>{"spineA", "spineB", "leafC"}));
  EXPECT_EQ(Sw(t, "leafC")->nodes.size(), 8u);
  EXPECT_EQ(Sw(t, "leafC")->nodes[0], "node33");
  EXPECT_EQ(t.AllNodes().size(), 40u);
  EXPECT_EQ(Warnings(diag, "several root switches (no common parent): 3"), 1);
}

TEST(SlurmTopologyTest, BlockFiles) {
  Diagnostics diag;
  const SlurmTopology b = Conf(Slurp(kBlock8x4), diag);
  EXPECT_EQ(b.plugin, "block");
  EXPECT_EQ(b.counts.read, 9);
  EXPECT_EQ(b.counts.accepted, 9);
  ASSERT_EQ(b.blocks.size(), 8u);
  EXPECT_EQ(b.blocks[7].name, "b8");
  EXPECT_EQ(b.blocks[7].nodes, (std::vector<std::string>{"node29", "node30", "node31", "node32"}));
  EXPECT_EQ(b.block_sizes, (std::vector<int>{4, 8, 16, 32, 64}));
  EXPECT_EQ(b.AllNodes().size(), 32u);

  const SlurmTopology d = Conf(Slurp(kDra), diag);
  EXPECT_EQ(d.plugin, "block");
  EXPECT_EQ(d.counts.read, 13);
  ASSERT_EQ(d.blocks.size(), 12u);
  EXPECT_EQ(d.blocks[0].name, "rack11");
  EXPECT_EQ(d.blocks[0].comment, "rack11=nvl-1-1");
  EXPECT_EQ(d.blocks[0].nodes.front(), "srv1101");
  EXPECT_EQ(d.blocks[11].nodes.back(), "srv6208");
  EXPECT_EQ(d.block_sizes, (std::vector<int>{8, 16, 32}));
  EXPECT_EQ(d.AllNodes().size(), 96u);
  EXPECT_EQ(diag.rejected_total(), 0);
  EXPECT_EQ(diag.warnings_total(), 0);
}

TEST(SlurmTopologyTest, TopographTreeWithNameComments) {
  Diagnostics diag;
  const SlurmTopology t = Conf(Slurp(kOci), diag);
  EXPECT_EQ(t.counts.read, 19);
  ASSERT_EQ(t.switches.size(), 19u);
  EXPECT_EQ(t.switches[0].name, "switch.3.1");
  EXPECT_EQ(t.switches[0].comment, "switch.3.1=core");
  EXPECT_EQ(t.switches[0].switches_expr, "switch.2.[1-6]");
  EXPECT_EQ(t.switches[0].switches.size(), 6u);
  EXPECT_EQ(t.switches[0].switches[5], "switch.2.6");
  EXPECT_EQ(Sw(t, "switch.2.6")->switches, (std::vector<std::string>{"switch.1.11", "switch.1.12"}));
  EXPECT_EQ(Sw(t, "switch.1.12")->comment, "switch.1.12=leaf-6-2");
  EXPECT_EQ(Sw(t, "switch.1.12")->nodes.back(), "srv6208");
  EXPECT_EQ(t.RootSwitches(), std::vector<std::string>{"switch.3.1"});
  EXPECT_EQ(t.LeafSwitches().size(), 12u);
  EXPECT_EQ(t.AllNodes().size(), 96u);
  EXPECT_EQ(diag.warnings_total(), 0);
}

TEST(SlurmTopologyTest, ManPageYamlEveryPlugin) {
  Diagnostics diag;
  const auto v = Yaml(Slurp(kYaml), diag);
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(diag.rejected_total(), 0);
  EXPECT_EQ(v[0].name, "topo1");
  EXPECT_TRUE(v[0].cluster_default);
  EXPECT_EQ(v[0].plugin, "tree");
  ASSERT_EQ(v[0].switches.size(), 3u);
  EXPECT_EQ(v[0].switches[0].name, "sw_root");
  EXPECT_EQ(v[0].switches[0].switches, (std::vector<std::string>{"s1", "s2"}));
  EXPECT_EQ(v[0].switches[2].nodes, (std::vector<std::string>{"node03", "node04"}));
  EXPECT_EQ(v[0].switches[2].line, 10);
  EXPECT_EQ(v[0].counts.read, 4);
  EXPECT_EQ(v[1].plugin, "block");
  EXPECT_FALSE(v[1].cluster_default);
  EXPECT_EQ(v[1].block_sizes, (std::vector<int>{4, 16}));
  ASSERT_EQ(v[1].blocks.size(), 4u);
  EXPECT_EQ(v[1].blocks[3].nodes.back(), "node16");
  EXPECT_EQ(v[2].plugin, "flat");
  EXPECT_TRUE(v[2].flat_options.empty());
  EXPECT_EQ(v[3].name, "topo3a");
  EXPECT_EQ(v[3].flat_options, (std::vector<std::pair<std::string, std::string>>{{"alpha_step_rank", "true"}}));
  EXPECT_EQ(v[4].plugin, "ring");
  ASSERT_EQ(v[4].rings.size(), 2u);
  EXPECT_EQ(v[4].rings[1].name, "ring1");
  EXPECT_EQ(v[4].rings[1].nodes.size(), 8u);
  EXPECT_EQ(v[5].plugin, "torus3d");
  ASSERT_EQ(v[5].toruses.size(), 1u);
  EXPECT_EQ(v[5].toruses[0].name, "pod1");
  EXPECT_EQ(v[5].toruses[0].dims, (std::array<int, 3>{4, 4, 2}));
  EXPECT_EQ(v[5].toruses[0].nodes.size(), 32u);
  ASSERT_EQ(v[5].toruses[0].placements.size(), 3u);
  EXPECT_EQ(v[5].toruses[0].placements[1], (std::array<int, 3>{2, 2, 2}));
  // The writer prints the man page's example back byte for byte.
  EXPECT_EQ(WriteSlurmTopologyYaml(v), Slurp(kYaml));
}

TEST(SlurmTopologyTest, ConfWriterReproducesRealFiles) {
  for (const std::string& path : {kCirce, kBlock8x4, kDra, kOci}) {
    Diagnostics diag;
    const SlurmTopology t = Conf(Slurp(path), diag);
    EXPECT_EQ(WriteSlurmTopologyConf(t), Slurp(path)) << path;
  }
}

TEST(SlurmTopologyTest, RoundTripsEveryFixture) {
  for (const std::string& path : {kCirce, kBlock8x4, kTc3, kTc6, kDra, kOci}) {
    Diagnostics diag;
    const SlurmTopology t = Conf(Slurp(path), diag);
    Diagnostics d2;
    const SlurmTopology again = Conf(WriteSlurmTopologyConf(t), d2);
    EXPECT_EQ(Norm(again), Norm(t)) << path;
    EXPECT_EQ(d2.rejected_total(), 0);
    // Through YAML too (no comments or LinkSpeed there).
    Diagnostics d3;
    SlurmTopology named = t;
    named.name = "t";
    const auto y = Yaml(WriteSlurmTopologyYaml({named}), d3);
    ASSERT_EQ(y.size(), 1u) << path;
    EXPECT_EQ(NormYaml(y[0]), NormYaml(named)) << path;
  }
  Diagnostics diag;
  const auto v = Yaml(Slurp(kYaml), diag);
  Diagnostics d2;
  const auto again = Yaml(WriteSlurmTopologyYaml(v), d2);
  ASSERT_EQ(again.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(Norm(again[i]), Norm(v[i]));
}

TEST(SlurmTopologyTest, SyntheticWriterOddNames) {
  SlurmTopology t;
  t.plugin = "tree";
  SlurmSwitch root{"core", {"leaf1", "leaf2", "x"}, {}, "", "", 100, "generated", 0};
  SlurmSwitch l1{"leaf1", {}, {"gpu-a9", "gpu-a10", "gpu-a11", "gpu-b01", "host", "gpu-a12"}, "", "", -1, "", 0};
  SlurmSwitch l2{"leaf2", {}, {"n1-ib", "n2-ib", "n3-ib", "n007", "n008"}, "", "", -1, "", 0};
  t.switches = {root, l1, l2};
  const std::string text = WriteSlurmTopologyConf(t);
  EXPECT_NE(text.find("Nodes=gpu-a[9-11],gpu-b01,host,gpu-a12"), std::string::npos) << text;
  EXPECT_NE(text.find("Nodes=n[1-3]-ib,n[007-008]"), std::string::npos) << text;
  EXPECT_NE(text.find("LinkSpeed=100"), std::string::npos);
  Diagnostics diag;
  const SlurmTopology again = Conf(text, diag);
  EXPECT_EQ(Norm(again), Norm(t));
  EXPECT_EQ(Warnings(diag, "child switch x is never defined"), 1);
}

// A comment that holds control bytes (kept from a damaged file) is written with '?' for them, so
// that a short rewritten file still reads as text and round-trips (a fuzzer find).
TEST(SlurmTopologyTest, WriterReplacesControlBytesInComments) {
  SlurmTopology t;
  t.plugin = "block";
  SlurmBlock b;
  b.name = "rack1";
  b.nodes = {"srv1", "srv2"};
  b.comment = std::string("r\x01\x02\x03\x04\x05" "ack\x7f" "1") + std::string(1, '\0') + "=nvl";
  t.blocks = {b};
  const std::string text = WriteSlurmTopologyConf(t);
  EXPECT_NE(text.find("# r?????ack?1?=nvl\n"), std::string::npos) << text;
  Diagnostics diag;
  const SlurmTopology again = Conf(text, diag);
  ASSERT_EQ(again.blocks.size(), 1u);
  EXPECT_EQ(again.blocks[0].nodes, b.nodes);
  EXPECT_EQ(again.counts.rejected, 0);
}

TEST(SlurmTopologyTest, SyntheticTreeFile) {
  Diagnostics diag;
  const SlurmTopology t =
      Conf(Slurp(std::string(TOPOSCOPE_TESTDATA) + "/slurm_topology/tree_linkspeed_continuation_SYNTHETIC.conf"), diag);
  EXPECT_EQ(t.counts.read, 6);
  EXPECT_EQ(t.counts.rejected, 0);
  ASSERT_EQ(t.switches.size(), 6u);
  EXPECT_EQ(t.switches[0].link_speed, 400);
  EXPECT_EQ(Sw(t, "spine2")->switches, std::vector<std::string>{"leaf03"});
  EXPECT_EQ(Sw(t, "spine2")->line, 5);
  EXPECT_EQ(Sw(t, "leaf02")->nodes,
            (std::vector<std::string>{"gpu-r2n1-ib", "gpu-r2n2-ib", "gpu-r3n1-ib", "gpu-r3n2-ib"}));
  EXPECT_EQ(Sw(t, "leaf03")->link_speed, 200);
  EXPECT_EQ(t.AllNodes().size(), 10u);
  EXPECT_EQ(diag.warnings_total(), 0);
  Diagnostics d2;
  EXPECT_EQ(Norm(Conf(WriteSlurmTopologyConf(t), d2)), Norm(t));
}

TEST(SlurmTopologyTest, HostlistExpansion) {
  std::string err;
  EXPECT_EQ(ExpandHostlist("node[01-03,07]", &err), (std::vector<std::string>{"node01", "node02", "node03", "node07"}));
  EXPECT_EQ(ExpandHostlist("n[8-10]", &err), (std::vector<std::string>{"n8", "n9", "n10"}));
  EXPECT_EQ(ExpandHostlist("n[08-10]", &err), (std::vector<std::string>{"n08", "n09", "n10"}));
  EXPECT_EQ(ExpandHostlist("r[1-2]n[1-2]", &err), (std::vector<std::string>{"r1n1", "r1n2", "r2n1", "r2n2"}));
  EXPECT_EQ(ExpandHostlist("a,b[1-2],c", &err), (std::vector<std::string>{"a", "b1", "b2", "c"}));
  EXPECT_EQ(ExpandHostlist("[1101-1102]", &err), (std::vector<std::string>{"1101", "1102"}));
  EXPECT_EQ(ExpandHostlist("n[1-2]-ib", &err), (std::vector<std::string>{"n1-ib", "n2-ib"}));
  EXPECT_EQ(ExpandHostlist("srv11[01-02]", &err), (std::vector<std::string>{"srv1101", "srv1102"}));
  EXPECT_TRUE(err.empty());
  for (const char* bad : {"", "n[1-", "n]1[", "n[3-1]", "n[a-b]", "n[]", "a,,b", "n[1-2", "n[[1]]", "n[1-99999999]",
                          "a b", "n[1-1000][1-1001]"}) {
    err.clear();
    EXPECT_TRUE(ExpandHostlist(bad, &err).empty()) << bad;
    EXPECT_FALSE(err.empty()) << bad;
  }
  EXPECT_TRUE(ExpandHostlist("x[", nullptr).empty());
}

TEST(SlurmTopologyTest, HostlistLimits) {
  std::string err;
  // One range may hold Slurm's 64K hosts, not one more.
  EXPECT_EQ(ExpandHostlist("n[0-65535]", &err).size(), kSlurmMaxRangeHosts);
  EXPECT_TRUE(ExpandHostlist("n[0-65536]", &err).empty());
  EXPECT_NE(err.find("Slurm's own limit"), std::string::npos) << err;
  // A caller's cap.
  EXPECT_EQ(ExpandHostlist("n[1-10]", &err, 10).size(), 10u);
  EXPECT_TRUE(ExpandHostlist("n[1-11]", &err, 10).empty());
  EXPECT_TRUE(ExpandHostlist("r[1-4]n[1-3]", &err, 11).empty());
  // The cap holds for all hostlists of one file together: the switch that crosses it is rejected.
  Diagnostics diag;
  auto t = ParseSlurmTopologyConf("SwitchName=a Nodes=n[1-6]\nSwitchName=b Nodes=m[1-6]\n", "t.conf", diag, 10);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)[0].counts.accepted, 1);
  EXPECT_EQ((*t)[0].counts.rejected, 1);
  EXPECT_TRUE((*t)[0].counts.Balanced());
  bool said = false;
  for (const auto& d : diag.items()) said = said || d.reason.find("this file's hostlists") != std::string::npos;
  EXPECT_TRUE(said);
  Diagnostics diag2;
  auto y = ParseSlurmTopologyYaml(
      "- topology: t\n  tree:\n    switches:\n      - switch: a\n        nodes: n[1-6]\n"
      "      - switch: b\n        nodes: m[1-6]\n",
      "t.yaml", diag2, nullptr, 10);
  ASSERT_TRUE(y.ok());
  EXPECT_EQ((*y)[0].switches.size(), 1u);
  EXPECT_EQ((*y)[0].counts.rejected, 1);
}

TEST(SlurmTopologyTest, HostlistCompression) {
  EXPECT_EQ(CompressHostlist({"node01", "node02", "node03", "node07"}), "node[01-03,07]");
  EXPECT_EQ(CompressHostlist({"n8", "n9", "n10", "n11"}), "n[8-11]");
  EXPECT_EQ(CompressHostlist({"n1"}), "n1");
  EXPECT_EQ(CompressHostlist({}), "");
  EXPECT_EQ(CompressHostlist({"b", "a1", "a2"}), "b,a[1-2]");
  EXPECT_EQ(CompressHostlist({"n3", "n1", "n2"}), "n3,n[1-2]");  // order is kept
  EXPECT_EQ(CompressHostlist({"n1", "n01"}), "n1,n01");           // padding differs
  EXPECT_EQ(CompressHostlist({"switch.2.1", "switch.2.2", "switch.2.3"}), "switch.2.[1-3]");
  EXPECT_EQ(CompressHostlist({"circe-n001", "circe-n002", "n019", "n020"}), "circe-n[001-002],n[019-020]");
  EXPECT_EQ(CompressHostlist({"n98", "n99", "n100"}), "n[98-100]");
  EXPECT_EQ(CompressHostlist({"n098", "n099", "n100"}), "n[098-100]");
  // Round trip on awkward lists.
  const std::vector<std::vector<std::string>> lists = {
      {"a1b2", "a1b3", "a2b2"}, {"x9", "x10", "x010"}, {"0", "1", "2"}, {"n1", "n1"}, {"h"}, {"n5", "n4", "n6", "n7"}};
  for (const auto& l : lists) {
    std::string err;
    EXPECT_EQ(ExpandHostlist(CompressHostlist(l), &err), l) << CompressHostlist(l) << " " << err;
  }
}

TEST(SlurmTopologyTest, ConfBadLines) {
  const std::string text =
      "SwitchName=s1 Nodes=n[1-4] LinkSpeed=100\n"
      "SwitchName=s1 Nodes=n[5-8]\n"             // defined twice
      "SwitchName=s2 Nodes=n[5-\n"               // bad hostlist
      "SwitchName=s3 Frob=1\n"                   // unknown key
      "SwitchName=s4 Nodes=a Nodes=b\n"          // repeated key
      "SwitchName=s5 LinkSpeed=fast\n"           // bad number
      "SwitchName=s6 LinkSpeed=99999999999999\n"  // huge number
      "SwitchName=\n"                            // empty value
      "Nodes=n1\n"                               // not a record start
      "BlockName=b1 Nodes=n[1-2]\n"              // block line in a tree file
      "switchname=s7 switches=s1,s2 \\\n  nodes=n9 # trailing comment\n";  // continuation, any case
  Diagnostics diag;
  const SlurmTopology t = Conf(text, diag);
  EXPECT_EQ(t.counts.read, 11);
  EXPECT_EQ(t.counts.accepted, 2);
  EXPECT_EQ(t.counts.rejected, 9);
  ASSERT_EQ(t.switches.size(), 2u);
  EXPECT_EQ(t.switches[0].link_speed, 100);
  EXPECT_EQ(t.switches[1].name, "s7");
  EXPECT_EQ(t.switches[1].nodes, std::vector<std::string>{"n9"});
  EXPECT_EQ(t.switches[1].line, 11);
  EXPECT_EQ(Warnings(diag, "switch lists both Switches= and Nodes="), 1);
  std::vector<std::string> reasons;
  for (const auto& d : diag.items()) {
    if (d.severity == Severity::kRejected) reasons.push_back(std::to_string(d.line) + ":" + d.reason);
  }
  ASSERT_EQ(reasons.size(), 9u);
  auto has = [&](const std::string& r) { return std::find(reasons.begin(), reasons.end(), r) != reasons.end(); };
  EXPECT_TRUE(has("2:switch s1 defined twice"));
  EXPECT_TRUE(has("10:block line in a topology/tree file"));
  EXPECT_TRUE(has("4:unknown key 'Frob' for this record"));
  EXPECT_TRUE(has("5:key Nodes repeated"));
}

TEST(SlurmTopologyTest, BlockSizesChecks) {
  Diagnostics diag;
  const SlurmTopology t = Conf("BlockName=b1 Nodes=n[1-4]\nBlockSizes=4,2\nBlockSizes=4,8\nBlockSizes=8\nBlockName=b2\n", diag);
  EXPECT_EQ(t.plugin, "block");
  EXPECT_EQ(t.block_sizes, (std::vector<int>{4, 8}));
  EXPECT_EQ(t.counts.rejected, 3);  // decreasing, twice, no Nodes=
}

TEST(SlurmTopologyTest, UnusableInputsFail) {
  Diagnostics diag;
  EXPECT_FALSE(ParseSlurmTopologyConf("", "e", diag).ok());
  EXPECT_FALSE(ParseSlurmTopologyConf("# only a comment\n\n", "c", diag).ok());
  EXPECT_FALSE(ParseSlurmTopologyConf("ClusterName=x\nSlurmctldHost=y\n", "slurm.conf", diag).ok());
  EXPECT_FALSE(ParseSlurmTopologyConf(std::string("\x00\x01\x02\x03", 4), "bin", diag).ok());
  EXPECT_FALSE(ParseSlurmTopologyYaml("", "e", diag).ok());
  EXPECT_FALSE(ParseSlurmTopologyYaml("a: b\n", "map", diag).ok());
  EXPECT_FALSE(ParseSlurmTopologyYaml("- a\n- b\n", "seq", diag).ok());
  EXPECT_FALSE(ParseSlurmTopologyYaml("- topology: x\n  tree: &a\n", "anchor", diag).ok());
  EXPECT_FALSE(ParseSlurmTopologyYaml("- topology: x\n\ttree:\n", "tab", diag).ok());
  EXPECT_EQ(diag.rejected_total(), 0);
  EXPECT_TRUE(LooksLikeSlurmTopology(Slurp(kTc6)));
  EXPECT_TRUE(LooksLikeSlurmTopology(Slurp(kYaml)));
  EXPECT_TRUE(LooksLikeSlurmTopologyYaml(Slurp(kYaml)));
  EXPECT_FALSE(LooksLikeSlurmTopology("ClusterName=x\n"));
}

TEST(SlurmTopologyTest, YamlBadEntries) {
  const std::string text =
      "- topology: a\n  tree:\n    switches:\n"
      "      - switch: s1\n        nodes: n[1-2]\n"
      "      - nodes: n3\n"                      // no name
      "      - switch: s1\n"                     // twice
      "      - switch: s2\n        nodes: n[2-\n"  // bad hostlist
      "      - switch: s3\n        colour: red\n"  // unknown key
      "- topology: a\n  flat: true\n"            // topology twice
      "- topology: b\n  flat: true\n  tree: {}\n"  // two plugins
      "- topology: c\n  cluster_default: maybe\n  flat: true\n"
      "- topology: d\n  block:\n    block_sizes: [8, 4]\n"
      "- topology: e\n  ring:\n    rings:\n      - ring: r\n        nodes: n[1-17]\n";
  Diagnostics diag;
  const auto v = Yaml(text, diag);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].counts.read, 6);
  EXPECT_EQ(v[0].counts.accepted, 2);
  EXPECT_EQ(v[0].counts.rejected, 4);
  EXPECT_EQ(v[0].switches.size(), 1u);
  EXPECT_EQ(v[1].name, "e");
  EXPECT_EQ(Warnings(diag, "16 nodes at most"), 1);
  EXPECT_EQ(diag.rejected_total(), 8);
}

TEST(MiniYamlTest, SubsetAndErrors) {
  auto r = ParseYaml(
      "# c\nk: v # trailing\nq: \"a#b\\tc\\u00e9\"\ns: 'it''s'\nl: [a, \"b c\", 'd']\nm: {x: 1, y: [2]}\n"
      "seq:\n- 1\n- - 2\n  - 3\n- k: v\n  k2: v2\nempty:\nnull2: ~\n",
      "t");
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  const YamlNode& y = *r;
  EXPECT_EQ(y.Find("k")->scalar, "v");
  EXPECT_EQ(y.Find("q")->scalar, "a#b\tc\xC3\xA9");
  EXPECT_EQ(y.Find("s")->scalar, "it's");
  EXPECT_EQ(y.Find("l")->seq.size(), 3u);
  EXPECT_EQ(y.Find("l")->seq[1].scalar, "b c");
  EXPECT_EQ(y.Find("m")->Find("y")->seq[0].AsInt(), 2);
  const YamlNode* seq = y.Find("seq");
  ASSERT_EQ(seq->seq.size(), 3u);
  EXPECT_EQ(seq->seq[1].seq.size(), 2u);
  EXPECT_EQ(seq->seq[2].Find("k2")->scalar, "v2");
  EXPECT_TRUE(y.Find("empty")->IsNull());
  EXPECT_TRUE(y.Find("null2")->IsNull());
  EXPECT_EQ(y.Find("seq")->seq[2].line, 11);
  for (const char* bad : {"a: b\na: c\n", "a: [1, 2\n", "a: \"x\n", "a: *ref\n", "a: |\n  x\n", "a:\n  b\n   c: d\n",
                          "a: b: c\n", "x: 1\n---\ny: 2\n", "a: 'x\n", "a: \"\\q\"\n", "x: 1\n  y: 2\n"}) {
    auto e = ParseYaml(bad, "bad");
    EXPECT_FALSE(e.ok()) << bad;
    if (!e.ok()) {
      EXPECT_GT(e.error().line, 0) << bad;
    }
  }
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "[";
  EXPECT_FALSE(ParseYaml("a: " + deep + "\n", "deep").ok());
  EXPECT_EQ(YamlQuote("node[01-02]"), "node[01-02]");
  EXPECT_EQ(YamlQuote(""), "\"\"");
  EXPECT_EQ(YamlQuote("a: b"), "\"a: b\"");
  EXPECT_EQ(YamlQuote("- x"), "\"- x\"");
  EXPECT_EQ(YamlQuote("x\"y\n"), "\"x\\\"y\\x0a\"");
}

}  // namespace slurm_topology_test
}  // namespace toposcope::formats
