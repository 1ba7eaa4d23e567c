// Tests of report/json/time_json: clocks[].heldout_residuals_us holds at most 48 signed residuals
// per model, in time order from the host's first held-out point, whose sizes agree with the
// model's residual_us; a host without held-out points gets an empty list.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "toposcope/analysis/time/timesync.h"
#include "toposcope/report/json/result_sections.h"

namespace toposcope::report {
namespace time_json_test {

using analysis::SyncSample;

// Sync samples 1 s apart, the clock drifting 20 us/s from a 5 ms offset, with +-0.2 us of noise.
std::vector<SyncSample> Drifting(int n) {
  std::vector<SyncSample> s;
  for (int i = 0; i < n; ++i) {
    const int64_t local = 1'700'000'000'000'000'000 + static_cast<int64_t>(i) * 1'000'000'000;
    const double offset_ns = 5e6 + 20e3 * i + ((i % 2) ? 200 : -200);
    s.push_back({local, local - static_cast<int64_t>(offset_ns), NAN});
  }
  return s;
}

TEST(ClocksJson, HeldOutResidualsPerModel) {
  const auto fit = analysis::FitHostClock("h1", Drifting(600));
  ASSERT_GT(fit.heldout.size(), 48U);
  const nlohmann::json clocks = ClocksJson({fit});
  ASSERT_EQ(clocks.size(), 4U);
  for (const auto& c : clocks) {
    const auto& pts = c["heldout_residuals_us"];
    ASSERT_EQ(pts.size(), 48U) << c["model"];
    EXPECT_EQ(pts[0][0], 0.0);
    double mean_abs = 0;
    for (size_t i = 0; i < pts.size(); ++i) {
      if (i > 0) {
        EXPECT_GT(pts[i][0].get<double>(), pts[i - 1][0].get<double>());
      }
      mean_abs += std::abs(pts[i][1].get<double>()) / static_cast<double>(pts.size());
    }
    const double mean = c["residual_us"]["mean"].get<double>();
    EXPECT_NEAR(mean_abs, mean, 0.25 * mean + 0.05) << c["model"];
  }
  // Before alignment the offset itself (ms); the best model within a microsecond.
  EXPECT_GT(std::abs(clocks[0]["heldout_residuals_us"][0][1].get<double>()), 1000.0);
  EXPECT_LT(std::abs(clocks[3]["heldout_residuals_us"][0][1].get<double>()), 1.0);
}

TEST(ClocksJson, NoHeldOutPointsNoResiduals) {
  const auto fit = analysis::FitHostClock("h1", Drifting(3));
  for (const auto& c : ClocksJson({fit})) {
    EXPECT_LE(c["heldout_residuals_us"].size(), fit.heldout.size());
    EXPECT_TRUE(c["heldout_residuals_us"].is_array());
  }
}

}  // namespace time_json_test
}  // namespace toposcope::report
