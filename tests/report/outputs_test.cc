// Tests of report/outputs: the files an analysis writes with --out: always result.json and
// topology.json and report.html; the Slurm topologies with inferred leaves; the OpenSM hop weights with hop
// weights; in that order, with the texts of their writers; and the first write error.
#include "toposcope/report/outputs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "toposcope/base/file_io.h"
#include "toposcope/formats/fabric/slurm_topology.h"
#include "toposcope/model/topology.h"
#include "toposcope/report/export/opensm_export.h"
#include "toposcope/report/export/slurm_export.h"
#include "toposcope/report/html/html_report.h"
#include "toposcope/report/result_json.h"

namespace toposcope::report {
namespace outputs_test {

namespace fs = std::filesystem;

// A result with two inferred leaves in one pod and one hop weight.
analysis::AnalysisResult WithLeavesAndHopWeights() {
  analysis::AnalysisResult r;
  r.leaves_inferred = true;
  r.inferred_leaves.leaves = {{"leaf-00", {"n001", "n002"}}, {"leaf-01", {"n003", "n004"}}};
  r.inferred_leaves.pods = {{"pod-00", {"leaf-00", "leaf-01"}, {"n001", "n002", "n003", "n004"}}};
  r.inferred_leaves.hosts = {"n001", "n002", "n003", "n004"};
  r.link_weights.present = true;
  r.link_weights.hop_weights = {{"0x0002c90000001001", 3, 7}};
  return r;
}

std::vector<std::string> Names(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::string> names;
  for (const auto& [name, text] : files) names.push_back(name);
  return names;
}

class OutputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("toposcope_outputs_test_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST(AnalysisOutputFiles, ResultAndTopologyAlways) {
  const analysis::AnalysisResult r;
  const model::Dataset ds;
  const auto files = AnalysisOutputFiles(r, ds);
  EXPECT_EQ(Names(files), (std::vector<std::string>{"result.json", "topology.json", "report.html"}));
  EXPECT_EQ(files[0].second, ResultJsonText(r));
  EXPECT_EQ(files[1].second, DumpSchemaFirst(model::TopologyToJson(model::BuildTopology(ds))));
  // The HTML report draws the same result.
  EXPECT_EQ(files[2].second, html::HtmlReportText(ResultToJson(r)));
}

TEST(AnalysisOutputFiles, SlurmAndOpenSmWhenThereIsSomethingToWrite) {
  const analysis::AnalysisResult r = WithLeavesAndHopWeights();
  const auto files = AnalysisOutputFiles(r, model::Dataset());
  ASSERT_EQ(Names(files), (std::vector<std::string>{"result.json", "topology.json", "report.html", "topology.conf",
                                                    "topology.yaml", "opensm-hop-weights.txt"}));
  // topology.conf: the tree as it is; topology.yaml: the tree named and the cluster default, then
  // the block topology.
  EXPECT_EQ(files[3].second, formats::WriteSlurmTopologyConf(ToSlurmTopology(r.inferred_leaves)));
  formats::SlurmTopology tree = ToSlurmTopology(r.inferred_leaves);
  tree.name = "inferred-tree";
  tree.cluster_default = true;
  formats::SlurmTopology block = ToSlurmBlockTopology(r.inferred_leaves);
  block.name = "inferred-block";
  EXPECT_EQ(files[4].second, formats::WriteSlurmTopologyYaml({tree, block}));
  EXPECT_NE(files[4].second.find("inferred-block"), std::string::npos) << files[4].second;
  EXPECT_EQ(files[5].second, WriteOpenSmHopWeights(r.link_weights.hop_weights));
  EXPECT_NE(files[5].second.find("0x0002c90000001001 3 7\n"), std::string::npos) << files[5].second;
}

TEST(AnalysisOutputFiles, NoSlurmWithoutLeaves) {
  analysis::AnalysisResult r = WithLeavesAndHopWeights();
  r.inferred_leaves.leaves.clear();
  r.link_weights.hop_weights.clear();
  EXPECT_EQ(Names(AnalysisOutputFiles(r, model::Dataset())),
            (std::vector<std::string>{"result.json", "topology.json", "report.html"}));
}

TEST_F(OutputsTest, WritesEveryFileIntoTheDirectory) {
  const analysis::AnalysisResult r = WithLeavesAndHopWeights();
  const model::Dataset ds;
  const Status st = WriteAnalysisOutputs(r, ds, dir_.string());
  ASSERT_TRUE(st.ok()) << st.error().ToString();
  for (const auto& [name, text] : AnalysisOutputFiles(r, ds)) {
    Result<std::string> back = ReadFileText((dir_ / name).string());
    ASSERT_TRUE(back.ok()) << name;
    EXPECT_EQ(*back, text) << name;
  }
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++n;
  EXPECT_EQ(n, 6U);
}

TEST_F(OutputsTest, FirstWriteErrorNamesTheFile) {
  fs::create_directories(dir_);
  fs::create_directories(dir_ / "result.json");  // a directory where the file should go
  const Status st = WriteAnalysisOutputs(analysis::AnalysisResult{}, model::Dataset(), dir_.string());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().path, (dir_ / "result.json").string());
  EXPECT_FALSE(fs::exists(dir_ / "topology.json"));  // nothing after the failed file
}

}  // namespace outputs_test
}  // namespace toposcope::report
