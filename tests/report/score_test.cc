// Tests of report/score on hand-written documents: a good pair scores; a truncated truth.json, a
// truth.json with a key of the wrong type and a result.json that is not a toposcope result each
// give an Error naming the file and the problem, never an exception.
#include "toposcope/report/score.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "toposcope/base/file_io.h"

namespace toposcope::report {
namespace score_test {

using nlohmann::json;
namespace fs = std::filesystem;

// Two GPUs on one NVLink island and their link, as the simulator's truth writes them.
json GoodTruth() {
  return json::parse(R"({
    "schema": "toposcope.truth/1",
    "gpus": [{"id": "h0/gpu0", "island": "h0/nvl0"}, {"id": "h0/gpu1", "island": "h0/nvl0"}],
    "links": [{"a": "h0/gpu0", "b": "h0/gpu1", "type": "NVLINK", "lanes": 18, "degraded": false}]
  })");
}

// What the analyzer would find for that truth.
json GoodResult() {
  return json::parse(R"({
    "schema": "toposcope.result/1",
    "gpus": [{"id": "h0/gpu0", "island": "i0"}, {"id": "h0/gpu1", "island": "i0"}],
    "links": [{"a": "h0/gpu0", "b": "h0/gpu1", "type": "NVLINK", "lanes": 18, "degraded": false,
               "bandwidth_class": "nvlink"}]
  })");
}

// A temporary directory for the files one test writes.
class ScoreFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("toposcope_score_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                        "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    EXPECT_TRUE(WriteFileText(path, text).ok());
    return path;
  }
  fs::path dir_;
};

TEST(Score, GoodPairScores) {
  Result<json> s = Score(GoodTruth(), GoodResult());
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  EXPECT_EQ((*s)["schema"], "toposcope.score/1");
  EXPECT_EQ((*s)["islands"]["ari"], 1.0);
  EXPECT_EQ((*s)["islands"]["gpus"], 2);
  EXPECT_EQ((*s)["links"]["truth_links"], 1);
  EXPECT_EQ((*s)["links"]["type_accuracy"], 1.0);
  EXPECT_EQ((*s)["links"]["lanes_accuracy"], 1.0);
  EXPECT_EQ((*s)["links"]["bandwidth_class_accuracy"], 1.0);
}

// An undirected link names its ends in name order; a renamed dataset keeps the truth's ids as
// written while the analyzer orders the new names: the two orders still match.
TEST(Score, UndirectedLinkIdsMatchWhateverTheOrderOfTheirEnds) {
  json truth = GoodTruth();
  truth["fabric"] = json::parse(R"({"links": [{"id": "sw-b--host-a", "latency_us": 0.5}]})");
  truth["rdma"] = json::parse(R"({"links": [{"link": "zz~aa", "backbone": true, "mode": "steady"}]})");
  json result = GoodResult();
  result["link_weights"] = json::parse(R"([{"link": "host-a--sw-b", "identifiable": true, "latency_us": 0.5}])");
  result["link_entropy_summary"] = json::parse(R"([{"link": "aa~zz", "deterministic": true, "regular": true}])");
  result["entropy_modes"] = json::parse(R"([{"link": "aa~zz", "mode": "steady"}])");
  Result<json> s = Score(truth, result);
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  EXPECT_EQ((*s)["tomography"]["identifiable"], 1) << s->dump(2);
  EXPECT_EQ((*s)["tomography"]["links_not_in_truth"], 0) << s->dump(2);
  EXPECT_EQ((*s)["entropy"]["links_scored"], 1) << s->dump(2);
  EXPECT_EQ((*s)["entropy"]["backbone"]["true_positives"], 1) << s->dump(2);
  EXPECT_DOUBLE_EQ((*s)["entropy"]["modes"]["accuracy"].get<double>(), 1.0) << s->dump(2);
}

TEST(Score, SourceQpAccuracyPerQpsOfANicPair) {
  // 10.0.0.1 -> 10.0.0.2 carries two QPs (one paired right, one wrong), 10.0.0.3 -> 10.0.0.4 one.
  json truth = GoodTruth();
  truth["rdma"] = json::parse(R"({"flows": [
    {"src": "10.0.0.1", "dst": "10.0.0.2", "dest_qp": 11, "src_qp": 21, "kind": "ring"},
    {"src": "10.0.0.1", "dst": "10.0.0.2", "dest_qp": 12, "src_qp": 22, "kind": "ring"},
    {"src": "10.0.0.3", "dst": "10.0.0.4", "dest_qp": 13, "src_qp": 23, "kind": "ring"}]})");
  json result = GoodResult();
  result["flows"] = json::parse(R"([
    {"src": "10.0.0.1", "dst": "10.0.0.2", "dest_qp": 11, "src_qp": 21,
     "candidates": [{"method": "reverse_psn", "src_qp": 21}]},
    {"src": "10.0.0.1", "dst": "10.0.0.2", "dest_qp": 12, "src_qp": 21,
     "candidates": [{"method": "reverse_ack", "src_qp": 21}]},
    {"src": "10.0.0.3", "dst": "10.0.0.4", "dest_qp": 13, "src_qp": 23}])");
  Result<json> s = Score(truth, result);
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  const json& f = (*s)["flows"];
  EXPECT_EQ(f["multi_qp"]["found"], 2);
  EXPECT_EQ(f["multi_qp"]["src_qp_right"], 1);
  EXPECT_EQ(f["multi_qp"]["src_qp_accuracy"], 0.5);
  EXPECT_EQ(f["by_qps_per_nic_pair"]["2"]["truth"], 2);
  EXPECT_EQ(f["by_qps_per_nic_pair"]["1"]["src_qp_accuracy"], 1.0);
  EXPECT_EQ(f["by_method"]["reverse_psn"]["right"], 1);
  EXPECT_EQ(f["by_method"]["reverse_ack"]["right"], 0);
}

TEST(Score, WrongTypeForAKeyIsAnErrorNamingTheKey) {
  json truth = GoodTruth();
  truth["links"][0]["lanes"] = "eighteen";
  Result<json> s = Score(truth, GoodResult());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().path, "truth.json");
  EXPECT_EQ(s.error().message, "key 'links[0].lanes' is a string, not a number");

  truth = GoodTruth();
  truth["gpus"] = 2;
  s = Score(truth, GoodResult());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().ToString(), "truth.json: error: key 'gpus' is a number, not an array");

  json result = GoodResult();
  result["links"][0]["degraded"] = nullptr;
  s = Score(GoodTruth(), result);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().path, "result.json");
  EXPECT_EQ(s.error().message, "key 'links[0].degraded' is null, not a boolean");

  truth = GoodTruth();
  truth["rdma"] = json::parse(R"({"rings": [{"channel": 0, "hosts": ["h0", 7]}]})");
  s = Score(truth, GoodResult());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "key 'rdma.rings[0].hosts[1]' is a number, not a string");
}

TEST(Score, ResultThatIsNotAToposcopeResultIsAnError) {
  json topology = {{"schema", "toposcope.topology/1"}, {"hosts", json::array()}};
  Result<json> s = Score(GoodTruth(), topology);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().path, "result.json");
  EXPECT_NE(s.error().message.find("not a toposcope result"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("toposcope.topology/1"), std::string::npos) << s.error().message;
  // The two documents swapped: the truth is the one named.
  s = Score(GoodResult(), GoodTruth());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().path, "truth.json");
  s = Score(json::array(), GoodResult());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().path, "truth.json");
}

TEST_F(ScoreFilesTest, GoodFilesScore) {
  Result<json> s = ScoreFiles(Write("truth.json", GoodTruth().dump()), Write("result.json", GoodResult().dump(2)));
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  EXPECT_EQ((*s)["links"]["type_accuracy"], 1.0);
}

TEST_F(ScoreFilesTest, TruncatedTruthIsAnErrorAtItsEnd) {
  const std::string text = GoodTruth().dump(2);
  const std::string truth = Write("truth.json", text.substr(0, text.size() / 2));
  Result<json> s = ScoreFiles(truth, Write("result.json", GoodResult().dump()));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().path, truth);
  EXPECT_GT(s.error().line, 1);
  EXPECT_EQ(s.error().message.rfind("not valid JSON", 0), 0U) << s.error().message;
  EXPECT_NE(s.error().hint.find("truncated"), std::string::npos) << s.error().hint;
}

TEST_F(ScoreFilesTest, WrongTypeNamesTheFile) {
  json truth = GoodTruth();
  truth["links"][0]["degraded"] = "no";
  const std::string truth_path = Write("truth.json", truth.dump());
  Result<json> s = ScoreFiles(truth_path, Write("result.json", GoodResult().dump()));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().ToString(), truth_path + ": error: key 'links[0].degraded' is a string, not a boolean");
}

TEST_F(ScoreFilesTest, ResultThatIsNotAToposcopeResultNamesTheFile) {
  const std::string result_path = Write("topology.json", R"({"schema": "toposcope.topology/1"})");
  Result<json> s = ScoreFiles(Write("truth.json", GoodTruth().dump()), result_path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().path, result_path);
  EXPECT_NE(s.error().message.find("not a toposcope result"), std::string::npos) << s.error().message;
}

TEST_F(ScoreFilesTest, MissingFileIsAnError) {
  Result<json> s = ScoreFiles((dir_ / "none.json").string(), Write("result.json", GoodResult().dump()));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().path, (dir_ / "none.json").string());
}

}  // namespace score_test
}  // namespace toposcope::report
