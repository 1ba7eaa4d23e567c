// Unit tests of serve/snapshot: the hosts of a result and each host's part of result.json (GPU
// ids, cables "A--B", host pairs "A~B", nested sections such as hypotheses.symptoms).
#include "toposcope/serve/snapshot.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace toposcope::serve {
namespace snapshot_test {

TEST(Snapshot, HostParts) {
  const std::string result = R"({"schema": "toposcope.result/1",
    "gpus": [{"id": "h1/gpu0", "host": "h1"}, {"id": "h2/gpu0", "host": "h2"}],
    "links": [{"a": "h1/gpu0", "b": "h1/gpu1"}],
    "link_weights": [{"link": "h1--leaf1"}, {"link": "leaf1--spine1"}],
    "rings": [{"link": "h1~h2"}],
    "hypotheses": {"symptoms": [{"entity": "h2/gpu0"}, {"entity": "h10"}]},
    "thresholds": {"x": 1}})";
  const auto parts = HostParts(result, {"h1", "h2"});
  ASSERT_EQ(parts.size(), 2u);
  const auto h1 = nlohmann::json::parse(parts.at("h1"));
  EXPECT_EQ(h1["schema"], "toposcope.host/1");
  EXPECT_EQ(h1["host"], "h1");
  EXPECT_EQ(h1["gpus"].size(), 1u);
  EXPECT_EQ(h1["links"].size(), 1u);
  EXPECT_EQ(h1["link_weights"].size(), 1u);
  EXPECT_EQ(h1["rings"].size(), 1u);
  EXPECT_FALSE(h1.contains("hypotheses.symptoms"));
  const auto h2 = nlohmann::json::parse(parts.at("h2"));
  EXPECT_EQ(h2["hypotheses.symptoms"].size(), 1u);  // h10 is not h2
  EXPECT_EQ(h2["rings"].size(), 1u);
  EXPECT_FALSE(h2.contains("links"));
}

TEST(Snapshot, BuildSnapshot) {
  AnalysisOutput out;
  out.result.gpus.push_back({"h1/gpu0", "h1", 0, "h1/island0"});
  const Snapshot s = BuildSnapshot(out, 3);
  EXPECT_EQ(s.generation, 3);
  EXPECT_NE(s.metrics_text.find("toposcope_host_gpus{host=\"h1\"} 1\n"), std::string::npos);
  EXPECT_EQ(s.host_json.count("h1"), 1u);
  EXPECT_EQ(ResultHosts(out.result), std::vector<std::string>{"h1"});
  const Snapshot again = BuildSnapshot(out, 3);
  EXPECT_EQ(s.metrics_text, again.metrics_text);
  EXPECT_EQ(s.result_json, again.result_json);
}

}  // namespace snapshot_test
}  // namespace toposcope::serve
