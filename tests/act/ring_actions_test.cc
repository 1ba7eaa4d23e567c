// The ring's action files: golden mpirun / torchrun / SLURM hostfiles, and the NCCL graph file
// golden, read back through our graph XML reader, with the same attributes (names and order) on
// <graphs> and <graph> as NCCL's own dump in the real fixtures.
#include "toposcope/act/ring_actions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/formats/nccl/nccl_xml.h"

namespace toposcope::act {
namespace ring_actions_test {

const std::vector<std::string> kOrder = {"dgx-b07", "dgx-a01", "dgx-c12"};

TEST(RingActions, Hostfiles) {
  EXPECT_EQ(MpirunHostfileText(kOrder, {8, 8, 4}), "dgx-b07 slots=8\ndgx-a01 slots=8\ndgx-c12 slots=4\n");
  EXPECT_EQ(TorchrunHostsText(kOrder), "dgx-b07\ndgx-a01\ndgx-c12\n");
  EXPECT_EQ(SlurmHostfileText(kOrder, {2, 1, 3}), "dgx-b07\ndgx-b07\ndgx-a01\ndgx-c12\ndgx-c12\ndgx-c12\n");
  EXPECT_EQ(MpirunHostfileText({}, {}), "");
}

RingGraphSpec Spec() {
  RingGraphSpec s;
  s.gpu_order = {0, 2, 1, 3};
  s.net_dev = 1;
  s.nchannels = 2;
  s.speed_intra_gbs = 25;
  s.speed_inter_gbs = 25;
  s.type_intra = "NVL";
  return s;
}

TEST(RingActions, GraphXmlGolden) {
  const std::string golden =
      "<graphs version=\"1\">\n"
      "  <graph id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"2\" speedintra=\"25\" speedinter=\"25\" "
      "latencyinter=\"0\" typeintra=\"NVL\" typeinter=\"SYS\" samechannels=\"1\">\n"
      "    <channel>\n"
      "      <net dev=\"1\"/>\n"
      "      <gpu dev=\"0\"/>\n"
      "      <gpu dev=\"2\"/>\n"
      "      <gpu dev=\"1\"/>\n"
      "      <gpu dev=\"3\"/>\n"
      "      <net dev=\"1\"/>\n"
      "    </channel>\n"
      "    <channel>\n"
      "      <net dev=\"1\"/>\n"
      "      <gpu dev=\"0\"/>\n"
      "      <gpu dev=\"2\"/>\n"
      "      <gpu dev=\"1\"/>\n"
      "      <gpu dev=\"3\"/>\n"
      "      <net dev=\"1\"/>\n"
      "    </channel>\n"
      "  </graph>\n"
      "</graphs>\n";
  EXPECT_EQ(RingGraphXml(Spec()), golden);
}

TEST(RingActions, GraphXmlReadsBackLikeNcclsOwnDump) {
  const std::string text = RingGraphXml(Spec());
  Diagnostics diag;
  ReadCounts counts;
  auto g = formats::ParseNcclGraphXml(text, "nccl_graph.xml", diag, counts);
  ASSERT_TRUE(g.ok()) << g.error().ToString();
  EXPECT_EQ(counts.rejected, 0);
  ASSERT_EQ(g->graphs.size(), 1u);
  const formats::NcclGraph& graph = g->graphs[0];
  EXPECT_EQ(graph.pattern, 4);
  EXPECT_EQ(graph.nchannels, 2);
  ASSERT_EQ(graph.channels.size(), 2u);
  const std::vector<std::pair<std::string, int64_t>> steps = {{"net", 1}, {"gpu", 0}, {"gpu", 2},
                                                               {"gpu", 1}, {"gpu", 3}, {"net", 1}};
  EXPECT_EQ(graph.channels[0].steps, steps);
  EXPECT_EQ(formats::WriteNcclGraphXml(*g), text);  // what we write we read back identically

  // The attributes NCCL writes on <graphs> and <graph>, by name and in order.
  auto real = ReadFileText(std::string(TOPOSCOPE_FIXTURES) + "/nccl_graph_xml/azure_azhpc_ncv4-graph.xml");
  ASSERT_TRUE(real.ok()) << real.error().ToString();
  auto real_tree = formats::ParseXmlTree(*real, "real");
  auto ours = formats::ParseXmlTree(text, "ours");
  ASSERT_TRUE(real_tree.ok() && ours.ok());
  auto keys = [](const formats::XmlElement& e) {
    std::vector<std::string> k;
    for (const auto& [name, value] : e.attrs) k.push_back(name);
    return k;
  };
  EXPECT_EQ(keys(*ours), keys(*real_tree));
  ASSERT_FALSE(real_tree->children.empty());
  EXPECT_EQ(keys(ours->children[0]), keys(real_tree->children[0]));
  EXPECT_EQ(ours->children[0].children[0].name, real_tree->children[0].children[0].name);  // <channel>
  EXPECT_EQ(keys(ours->children[0].children[0].children[1]), keys(real_tree->children[0].children[0].children[0]));
}

}  // namespace ring_actions_test
}  // namespace toposcope::act
