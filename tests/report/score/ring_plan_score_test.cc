// The ring_plan section of a score: the plan's own figures copied, and the ring edges whose listed
// cables include the truth's degraded / flapping link counted per order (either end order of an id).
#include "toposcope/report/score/ring_plan_score.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace toposcope::report::score_internal {
namespace ring_plan_score_test {

using nlohmann::json;

json Truth() {
  return {{"schema", "toposcope.truth/1"},
          {"fabric",
           {{"faults",
             {{{"kind", "degraded_link"}, {"element", "spine1--leaf2"}},
              {{"kind", "flapping_link"}, {"element", "leaf3--spine0"}},
              {{"kind", "slow_host"}, {"element", "h1"}}}}}}};
}

json Plan() {
  json before = {{"edges",
                  {{{"a", "h1"}, {"b", "h2"}, {"cables", {"h1--leaf1", "leaf1--spine1", "leaf2--spine1", "h2--leaf2"}}},
                   {{"a", "h2"}, {"b", "h3"}, {"cables", {"h2--leaf2", "leaf2--spine1", "leaf3--spine1"}}},
                   {{"a", "h3"}, {"b", "h1"}, {"cables", {"leaf3--spine0"}}}}}};
  json after = {{"edges", {{{"a", "h1"}, {"b", "h3"}, {"cables", {"leaf1--spine0"}}}}}};
  return {{"schema", "toposcope.ring_plan/1"}, {"hops_before", 12.0}, {"hops_after", 8.0}, {"inter_leaf_before", 3},
          {"inter_leaf_after", 1}, {"allreduce_us_before", nullptr}, {"allreduce_us_after", 5.5},
          {"before", before}, {"after", after}};
}

TEST(RingPlanScore, CopiesFiguresAndCountsFaultyEdges) {
  const json s = ScoreRingPlan(Truth(), Plan());
  EXPECT_EQ(s["hops_before"], 12.0);
  EXPECT_EQ(s["hops_after"], 8.0);
  EXPECT_EQ(s["inter_leaf_before"], 3);
  EXPECT_EQ(s["inter_leaf_after"], 1);
  EXPECT_TRUE(s["allreduce_us_before"].is_null());
  EXPECT_EQ(s["degraded_edges_before"], 2);
  EXPECT_EQ(s["degraded_edges_after"], 0);
  EXPECT_EQ(s["flapping_edges_before"], 1);
  EXPECT_EQ(s["flapping_edges_after"], 0);
}

TEST(RingPlanScore, NotARingPlanGivesNothing) {
  EXPECT_TRUE(ScoreRingPlan(Truth(), json{{"schema", "toposcope.result/1"}}).empty());
  EXPECT_TRUE(ScoreRingPlan(Truth(), json::array()).empty());
  // A truth without fabric faults: no faulty edges.
  const json s = ScoreRingPlan(json{{"schema", "toposcope.truth/1"}}, Plan());
  EXPECT_EQ(s["degraded_edges_before"], 0);
}

}  // namespace ring_plan_score_test
}  // namespace toposcope::report::score_internal
