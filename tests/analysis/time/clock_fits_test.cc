// Tests of analysis/clock_fits: the fits of a loaded dataset grow with its samples, not its time span.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "toposcope/analysis/time/clock_fits.h"
#include "toposcope/model/dataset.h"
#include "toposcope/report/json/result_sections.h"

namespace toposcope::analysis {
namespace clock_fits_test {

// A chrony tracking log of 60 measurements: two bursts of 30 (every 2 s), 40 days apart.
std::string TwoBurstLog() {
  return (std::filesystem::path(__FILE__).parent_path() / "two_bursts_40_days_tracking.log").string();
}

TEST(ClockFits, TwoBurstsFortyDaysApartGiveSegmentsBoundedByTheSamples) {
  auto ds = model::LoadPaths({TwoBurstLog()}, {});
  ASSERT_TRUE(ds.ok()) << ds.error().ToString();
  const std::vector<HostClockFit> fits = FitClocks(*ds, TimesyncOptions{});
  ASSERT_EQ(fits.size(), 1U);
  const HostClockFit& fit = fits[0];
  ASSERT_EQ(fit.models.size(), 4U);
  const size_t samples = static_cast<size_t>(fit.models[0].fit_points) + fit.heldout.size();
  EXPECT_EQ(samples, 60U);
  constexpr int64_t kFortyDaysNs = 40LL * 86400 * 1000000000LL;
  for (const ClockModel& m : fit.models) {
    EXPECT_LE(m.segments.size(), samples) << ClockModelName(m.kind);
    ASSERT_EQ(m.gaps.size(), 1U) << ClockModelName(m.kind);
    EXPECT_NEAR(static_cast<double>(m.gaps[0].to_local_ns - m.gaps[0].from_local_ns), kFortyDaysNs, 120e9);
    // No segment starts inside the gap beyond one quadratic window (120 s) of its ends.
    const ClockGap& g = m.gaps[0];
    for (const ClockSegment& sg : m.segments) {
      EXPECT_TRUE(sg.start_local_ns <= g.from_local_ns + static_cast<int64_t>(120e9) ||
                  sg.start_local_ns >= g.to_local_ns - static_cast<int64_t>(120e9))
          << ClockModelName(m.kind) << " segment at " << sg.start_local_ns;
    }
  }
  // The robust model still follows both bursts (offsets near -65 ns, 10 ns of noise).
  const ClockModel& best = fit.Best();
  EXPECT_LT(best.p99_abs_residual_us, 0.1);
  const size_t json_bytes = report::ClocksJson(fits).dump().size();
  EXPECT_LT(json_bytes, 64U * 1024) << "the clock section of result.json";
}

}  // namespace clock_fits_test
}  // namespace toposcope::analysis
