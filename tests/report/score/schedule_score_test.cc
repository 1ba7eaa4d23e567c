// report/score/schedule_score: a move_off on an affected link inside the event window is correct,
// one outside the window or on another link is not, only a link's first move_off counts, and a
// clean run counts every decision.
#include "toposcope/report/score/schedule_score.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace toposcope::report::score_internal {
namespace schedule_score_test {

using nlohmann::json;

json Truth(const std::string& kind) {
  return {{"ring_event",
           {{"kind", kind}, {"affected_links", {"capture:leaf00-p5", "a~b"}}, {"start_ns", 10'000'000'000},
            {"end_ns", 20'000'000'000}}}};
}

json Decision(const std::string& action, const std::string& link, int64_t t_ns) {
  return {{"action", action}, {"link", link}, {"t_ns", t_ns}};
}

json Result(const json& decisions) {
  return {{"schedule", {{"options", {{"hot_hold_s", 3}}}, {"window_ns", 500'000'000}, {"decisions", decisions}}}};
}

TEST(ScheduleScore, CorrectAndWrongDecisions) {
  json out;
  ScoreSchedule(Truth("congestion"),
                Result({Decision("move_off", "capture:leaf00-p5", 13'000'000'000),
                        Decision("move_off", "capture:leaf00-p5", 14'000'000'000),  // same link again: not scored
                        Decision("move_off", "capture:leaf03-p5", 13'500'000'000),  // not affected
                        Decision("move_off", "a~b", 25'000'000'000),                // too late (end + 3 s + 1 s)
                        Decision("merge", "capture:leaf00-p5", 26'000'000'000)}),
                out);
  ASSERT_TRUE(out.contains("schedule"));
  const json& s = out["schedule"];
  EXPECT_EQ(s["move_offs"], 3);
  EXPECT_EQ(s["correct"], 1);
  EXPECT_NEAR(s["precision"].get<double>(), 1.0 / 3, 1e-6);
  EXPECT_EQ(s["recall"], 1.0);
  EXPECT_EQ(s["time_to_decision_s"], 3.0);
}

TEST(ScheduleScore, MissedEventAndCleanRun) {
  json out;
  ScoreSchedule(Truth("flapping"), Result(json::array()), out);
  EXPECT_EQ(out["schedule"]["recall"], 0.0);
  EXPECT_TRUE(out["schedule"]["precision"].is_null());
  json clean;
  ScoreSchedule(Truth("none"), Result(json::array({Decision("move_off", "a~b", 1)})), clean);
  EXPECT_EQ(clean["schedule"]["clean_decisions"], 1);
  json nothing;
  ScoreSchedule(json::object(), Result(json::array()), nothing);
  EXPECT_FALSE(nothing.contains("schedule"));
}

}  // namespace schedule_score_test
}  // namespace toposcope::report::score_internal
