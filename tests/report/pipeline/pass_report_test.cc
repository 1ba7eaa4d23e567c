// Tests of report/pipeline/pass_report's passes.json: a measurement that is not a finite number
// (a clock that could not be read) becomes null, never an exception, and the rest keeps three
// decimals.
#include "toposcope/report/pipeline/pass_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace toposcope::report {
namespace pass_report_test {

TEST(PassReport, NonFiniteSecondsAreNull) {
  analysis::PipelineRun run;
  analysis::PassStats p;
  p.wall_s = 1.23456;
  p.cpu_s = std::numeric_limits<double>::quiet_NaN();
  p.peak_rss_bytes = 3 * 1024 * 1024;
  run.passes.push_back(p);
  nlohmann::json j;
  ASSERT_NO_THROW(j = PassStatsJson(run));
  EXPECT_EQ(j["passes"][0]["wall_s"], 1.235);
  EXPECT_TRUE(j["passes"][0]["cpu_s"].is_null());
  EXPECT_EQ(j["passes"][0]["peak_rss_mb"], 3.0);
  EXPECT_TRUE(j["total"]["cpu_s"].is_null());
  EXPECT_EQ(j["total"]["wall_s"], 1.235);
  run.passes[0].wall_s = std::numeric_limits<double>::infinity();
  ASSERT_NO_THROW(j = PassStatsJson(run));
  EXPECT_TRUE(j["passes"][0]["wall_s"].is_null());
}

}  // namespace pass_report_test
}  // namespace toposcope::report
