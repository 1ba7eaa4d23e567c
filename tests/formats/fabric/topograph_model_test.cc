// Golden tests of the topograph simulation-model reader on every real model in topograph_models/
// (checked against topograph's own CI output for large.yaml in slurm_topology/), the original
// 2024 schema, and the model errors topograph itself refuses.
#include "toposcope/formats/fabric/topograph_model.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "toposcope/formats/fabric/slurm_topology.h"

namespace toposcope::formats {
namespace topograph_model_test {

const std::string kDir = std::string(TOPOSCOPE_FIXTURES) + "/topograph_models/";
const std::string kSmall = kDir + "topograph_tests_models_small-tree.yaml";
const std::string kMedium = kDir + "topograph_tests_models_medium.yaml";
const std::string kNvl72 = kDir + "topograph_tests_models_nvl72.yaml";
const std::string kLarge = kDir + "topograph_tests_models_large.yaml";
const std::string kDual = kDir + "topograph_tests_models_dual-xclr-regular.yaml";
const std::string kOciConf =
    std::string(TOPOSCOPE_FIXTURES) + "/slurm_topology/topograph_ci_expected_slinky_oci_sim_tree_from_large_model.conf";
const std::string kDraConf =
    std::string(TOPOSCOPE_FIXTURES) + "/slurm_topology/topograph_ci_expected_slinky_dra_block_from_large_model.conf";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TopographModel Model(const std::string& text, Diagnostics& diag) {
  auto r = ParseTopographModel(text, "t", diag);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
  return r.ok() ? *r : TopographModel{};
}

const TopographSwitch* Sw(const TopographModel& m, const std::string& name) {
  for (const auto& s : m.switches) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

TEST(TopographModelTest, SmallTree) {
  Diagnostics diag;
  const TopographModel m = Model(Slurp(kSmall), diag);
  EXPECT_EQ(m.counts.read, 3);
  EXPECT_EQ(m.counts.accepted, 3);
  ASSERT_EQ(m.switches.size(), 3u);  // S1 defined, S2 and S3 implied by the blocks
  EXPECT_EQ(m.switches[0].name, "S1");
  EXPECT_EQ(m.switches[0].switches, (std::vector<std::string>{"S2", "S3"}));
  EXPECT_EQ(m.switches[0].line, 16);
  ASSERT_EQ(m.capacity_blocks.size(), 2u);
  const auto& b = m.capacity_blocks[0];
  EXPECT_EQ(b.name, "S2");
  EXPECT_EQ(b.switch_name, "S2");
  EXPECT_EQ(b.nodes, (std::vector<std::string>{"I21", "I22", "I25"}));
  EXPECT_EQ(b.node_exprs, (std::vector<std::string>{"I[21-22]", "I25"}));
  EXPECT_EQ(b.nvlink, "nvl2");
  EXPECT_EQ(b.line, 21);
  EXPECT_EQ(m.capacity_blocks[1].nodes, (std::vector<std::string>{"I34", "I35", "I36"}));
  EXPECT_EQ(Sw(m, "S3")->capacity_blocks, std::vector<std::string>{"S3"});
  EXPECT_EQ(m.RootSwitches(), std::vector<std::string>{"S1"});
  EXPECT_EQ(m.NetLayers("I25"), (std::vector<std::string>{"S2", "S1"}));
  EXPECT_TRUE(m.NetLayers("nope").empty());
  EXPECT_EQ(diag.warnings_total(), 0);
}

TEST(TopographModelTest, MediumThreeTiers) {
  Diagnostics diag;
  const TopographModel m = Model(Slurp(kMedium), diag);
  EXPECT_EQ(m.counts.read, 7);
  EXPECT_EQ(m.counts.rejected, 0);
  EXPECT_EQ(m.switches.size(), 7u);
  EXPECT_EQ(Sw(m, "sw3")->labels, (KeyValues{{"topology.kubernetes.io/region", "us-west"}}));
  EXPECT_EQ(Sw(m, "sw22")->labels, (KeyValues{{"topology.kubernetes.io/zone", "zone2"}}));
  ASSERT_EQ(m.capacity_blocks.size(), 4u);
  EXPECT_EQ(m.capacity_blocks[2].nodes, (std::vector<std::string>{"1301", "1302"}));
  EXPECT_EQ(m.capacity_blocks[2].nvlink, "nvl3");
  EXPECT_EQ(m.AllNodes().size(), 8u);
  EXPECT_EQ(m.NetLayers("1301"), (std::vector<std::string>{"sw13", "sw22", "sw3"}));
  EXPECT_EQ(m.ParentOf("sw21"), "sw3");
  EXPECT_EQ(m.ParentOf("sw3"), "");
}

TEST(TopographModelTest, Nvl72) {
  Diagnostics diag;
  const TopographModel m = Model(Slurp(kNvl72), diag);
  EXPECT_EQ(m.counts.read, 7);
  EXPECT_EQ(m.switches.size(), 7u);
  ASSERT_EQ(m.capacity_blocks.size(), 4u);
  for (const auto& b : m.capacity_blocks) EXPECT_EQ(b.nodes.size(), 18u);
  EXPECT_EQ(m.capacity_blocks[3].nodes.back(), "node2218");
  EXPECT_EQ(m.capacity_blocks[3].nvlink, "nvl-2-2");
  EXPECT_EQ(m.AllNodes().size(), 72u);
  EXPECT_EQ(m.RootSwitches(), std::vector<std::string>{"core"});
  EXPECT_EQ(m.NetLayers("node2101"), (std::vector<std::string>{"leaf-2-1", "spine-2", "core"}));
}

TEST(TopographModelTest, LargeMatchesTopographsOwnSlurmOutput) {
  Diagnostics diag;
  const TopographModel m = Model(Slurp(kLarge), diag);
  EXPECT_EQ(m.counts.read, 19);
  EXPECT_EQ(m.counts.accepted, 19);
  EXPECT_EQ(m.switches.size(), 19u);
  EXPECT_EQ(m.capacity_blocks.size(), 12u);
  EXPECT_EQ(m.AllNodes().size(), 96u);
  EXPECT_EQ(Sw(m, "core")->switches.size(), 6u);
  // topograph's slinky tree output names switches switch.L.N and says which model switch each is.
  Diagnostics d2;
  auto conf = ParseSlurmTopologyConf(Slurp(kOciConf), "oci", d2);
  ASSERT_TRUE(conf.ok());
  const SlurmTopology& t = (*conf)[0];
  std::map<std::string, std::string> model_name;  // switch.1.1 -> leaf-1-1
  for (const auto& s : t.switches) {
    const auto eq = s.comment.find('=');
    ASSERT_NE(eq, std::string::npos);
    model_name[s.comment.substr(0, eq)] = s.comment.substr(eq + 1);
  }
  for (const auto& s : t.switches) {
    const TopographSwitch* ms = Sw(m, model_name[s.name]);
    ASSERT_NE(ms, nullptr) << s.name;
    std::vector<std::string> children;
    for (const auto& c : s.switches) children.push_back(model_name[c]);
    EXPECT_EQ(children, ms->switches) << s.name;
    if (!s.nodes.empty()) {
      ASSERT_EQ(ms->capacity_blocks.size(), 1u);
      for (const auto& b : m.capacity_blocks) {
        if (b.name == ms->capacity_blocks[0]) {
          EXPECT_EQ(b.nodes, s.nodes) << s.name;
        }
      }
    }
  }
  // And the DRA block output has the same 12 groups of 8.
  auto blocks = ParseSlurmTopologyConf(Slurp(kDraConf), "dra", d2);
  ASSERT_TRUE(blocks.ok());
  ASSERT_EQ((*blocks)[0].blocks.size(), m.capacity_blocks.size());
  for (size_t i = 0; i < m.capacity_blocks.size(); ++i) {
    EXPECT_EQ((*blocks)[0].blocks[i].nodes, m.capacity_blocks[i].nodes);
    EXPECT_EQ((*blocks)[0].blocks[i].comment.substr((*blocks)[0].blocks[i].comment.find('=') + 1),
              m.capacity_blocks[i].nvlink);
  }
}

TEST(TopographModelTest, DualXclrSubDomains) {
  Diagnostics diag;
  const TopographModel m = Model(Slurp(kDual), diag);
  EXPECT_EQ(m.counts.read, 19);
  ASSERT_EQ(m.capacity_blocks.size(), 12u);
  EXPECT_EQ(m.capacity_blocks[0].nvlink, "nvl-1");
  EXPECT_EQ(m.capacity_blocks[0].sub_domain, "rack01");
  EXPECT_EQ(m.capacity_blocks[0].name, "leaf-1-1");
  EXPECT_EQ(m.capacity_blocks[11].nvlink, "nvl-2");
  EXPECT_EQ(m.capacity_blocks[11].sub_domain, "rack12");
  EXPECT_EQ(m.capacity_blocks[11].annotations.size(), 2u);
  int nvl1 = 0;
  for (const auto& b : m.capacity_blocks) nvl1 += b.nvlink == "nvl-1";
  EXPECT_EQ(nvl1, 6);
  EXPECT_EQ(m.NetLayers("srv6208"), (std::vector<std::string>{"leaf-6-2", "spine-6", "core"}));
}

TEST(TopographModelTest, OriginalSchema) {
  const std::string text =
      "switches:\n"
      "- name: core\n  switches: [spine]\n  metadata:\n    region: us-west\n"
      "- name: spine\n  switches: [tor]\n"
      "- name: tor\n  capacity_blocks: [cb1, cb2]\n"
      "capacity_blocks:\n"
      "- name: cb1\n  type: H100\n  nvlink: nv1\n  nodes: [n11, n12]\n"
      "- name: cb2\n  type: H100\n  nodes: [\"n[21-22]\"]\n";
  Diagnostics diag;
  const TopographModel m = Model(text, diag);
  EXPECT_EQ(m.counts.read, 5);
  EXPECT_EQ(m.counts.rejected, 0);
  ASSERT_EQ(m.switches.size(), 3u);
  EXPECT_EQ(m.switches[0].labels, (KeyValues{{"region", "us-west"}}));
  EXPECT_EQ(m.switches[2].capacity_blocks, (std::vector<std::string>{"cb1", "cb2"}));
  ASSERT_EQ(m.capacity_blocks.size(), 2u);
  EXPECT_EQ(m.capacity_blocks[0].type, "H100");
  EXPECT_EQ(m.capacity_blocks[0].nvlink, "nv1");
  EXPECT_EQ(m.capacity_blocks[0].switch_name, "tor");
  EXPECT_EQ(m.capacity_blocks[1].nodes, (std::vector<std::string>{"n21", "n22"}));
  EXPECT_EQ(m.NetLayers("n22"), (std::vector<std::string>{"tor", "spine", "core"}));
}

TEST(TopographModelTest, RejectsWhatTopographRefuses) {
  const std::string text =
      "switches:\n"
      "  a:\n    switches: [b, c]\n"
      "  d:\n    switches: [b]\n"          // b has two parents
      "  x:\n    switches: [y]\n"
      "  y:\n    switches: [x]\n"          // cycle x <-> y
      "  e:\n    colour: red\n"            // unknown key
      "  f:\n    switches: b\n"            // wrong kind
      "blocks:\n"
      "- switch: b\n  nodes: [\"n[1-2]\"]\n"
      "- switch: c\n  nodes: [n2]\n"        // duplicated node
      "- switch: c\n  nodes: [\"n[5-\"]\n"  // bad range
      "- nodes: [n9]\n"                     // no switch: kept, hangs nowhere
      "- switch: c\n  nodes: [n10]\n  shape: round\n";
  Diagnostics diag;
  const TopographModel m = Model(text, diag);
  EXPECT_EQ(m.counts.read, 11);
  EXPECT_EQ(m.counts.accepted, 3);  // a, block b, block without switch
  EXPECT_EQ(m.counts.rejected, 8);
  std::vector<std::string> reasons;
  for (const auto& d : diag.items()) reasons.push_back(d.reason);
  auto has = [&](const std::string& part) {
    for (const auto& r : reasons) {
      if (r.find(part) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("switch b has two parent switches a and d"));
  EXPECT_TRUE(has("circular switch topology"));
  EXPECT_TRUE(has("unknown key 'colour'"));
  EXPECT_TRUE(has("switches must be a sequence"));
  EXPECT_TRUE(has("duplicated node name n2"));
  EXPECT_TRUE(has("bad node range"));
  EXPECT_TRUE(has("unknown key 'shape'"));
  EXPECT_TRUE(m.NetLayers("n9").empty());
}

TEST(TopographModelTest, UnusableInputsFail) {
  Diagnostics diag;
  EXPECT_FALSE(ParseTopographModel("", "e", diag).ok());
  EXPECT_FALSE(ParseTopographModel("- a\n", "seq", diag).ok());
  EXPECT_FALSE(ParseTopographModel("foo: bar\n", "other", diag).ok());
  EXPECT_FALSE(ParseTopographModel("switches: 3\n", "scalar", diag).ok());
  EXPECT_FALSE(ParseTopographModel("switches:\n  a: [\n", "broken", diag).ok());
  EXPECT_FALSE(ParseTopographModel(std::string("\x00\x01\x02", 3), "bin", diag).ok());
  EXPECT_EQ(diag.rejected_total(), 0);
  EXPECT_TRUE(LooksLikeTopographModel(Slurp(kLarge)));
  EXPECT_TRUE(LooksLikeTopographModel(Slurp(kSmall)));
  EXPECT_FALSE(LooksLikeTopographModel("- topology: x\n"));
}

}  // namespace topograph_model_test
}  // namespace toposcope::formats

// All node ranges of one file together stay within max_names: the block that crosses it is rejected.
TEST(TopographModelLimits, NodeRangesShareOneBudget) {
  const std::string text =
      "switches:\n  s1:\n    switches: []\nblocks:\n- switch: s1\n  nodes: [\"n[1-6]\"]\n"
      "- switch: s1\n  nodes: [\"m[1-6]\"]\n";
  toposcope::Diagnostics diag;
  auto m = toposcope::formats::ParseTopographModel(text, "t.yaml", diag, 10);
  ASSERT_TRUE(m.ok()) << m.error().ToString();
  EXPECT_TRUE(m->counts.Balanced());
  EXPECT_GE(m->counts.rejected, 1);
  size_t nodes = 0;
  for (const auto& b : m->capacity_blocks) nodes += b.nodes.size();
  EXPECT_LE(nodes, 10u);
  toposcope::Diagnostics diag2;
  auto all = toposcope::formats::ParseTopographModel(text, "t.yaml", diag2);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->counts.rejected, 0);
}
