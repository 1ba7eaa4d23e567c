// Tests of analysis/time/servo_health: servo series from ptp4l / phc2sys samples and summaries, and
// the diverging / saturated findings, on real logs and on hand-made series.
#include "toposcope/analysis/time/servo_health.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/rng.h"
#include "toposcope/formats/clock/linuxptp.h"

namespace toposcope::analysis {
namespace servo_health_test {

const std::string kFixtures = std::string(TOPOSCOPE_FIXTURES) + "/linuxptp/";
const std::string kTestdata = std::string(TOPOSCOPE_TESTDATA) + "/real/linuxptp/";

std::vector<formats::SyncPoint> PointsOf(const std::string& path) {
  auto text = ReadFileText(path);
  EXPECT_TRUE(text.ok()) << path;
  if (!text.ok()) return {};
  Diagnostics diag;
  ReadCounts counts;
  auto log = formats::ParsePtpLog(*text, path, "node1", diag, counts);
  EXPECT_TRUE(log.ok()) << path;
  return log.ok() ? log->sync_points : std::vector<formats::SyncPoint>{};
}

// A phc2sys series of locked samples with the given offsets and frequencies, one per second.
std::vector<formats::SyncPoint> Series(const std::vector<double>& offsets, const std::vector<double>& freqs) {
  std::vector<formats::SyncPoint> out;
  for (size_t i = 0; i < offsets.size(); ++i) {
    formats::SyncPoint p;
    p.host = "h";
    p.source = "phc2sys";
    p.clock = "CLOCK_REALTIME";
    p.reference = "phc";
    p.local_ns = static_cast<int64_t>(i + 1) * 1000000000;
    p.ref_ns = p.local_ns - static_cast<int64_t>(offsets[i]);
    p.offset_ns = offsets[i];
    p.freq_ppb = freqs[i];
    p.synced = true;
    p.state = "s2";
    p.line = static_cast<int64_t>(i + 1);
    out.push_back(p);
  }
  return out;
}

// nxp-archive/openil issue 61: phc2sys disciplining swp3 from the system clock, |offset| growing from
// 5400 to 22872 ns over all 19 locked samples while the frequency runs away.
TEST(ServoReal, Openil61PhcFromSysDiverges) {
  const ServoReport r = AnalyzeServos(PointsOf(kFixtures + "openil_issue61_phc2sys_swp3_sys_offset_diverging_PARTIAL.log"));
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_EQ(r.series[0].program, "phc2sys");
  EXPECT_EQ(r.series[0].clock, "swp3");
  EXPECT_EQ(r.series[0].reference, "sys");
  EXPECT_EQ(r.series[0].points, 19);
  EXPECT_EQ(r.series[0].locked, 19);
  EXPECT_DOUBLE_EQ(r.series[0].offset_max_ns, 22872);
  EXPECT_DOUBLE_EQ(r.series[0].freq_min_ppb, -126336);
  EXPECT_DOUBLE_EQ(r.series[0].freq_max_ppb, -45706);
  ASSERT_EQ(r.findings.size(), 1u);
  const ServoFinding& f = r.findings[0];
  EXPECT_EQ(ServoFindingKindName(f.kind), "diverging");
  EXPECT_EQ(f.host, "node1");
  EXPECT_EQ(f.first_line, 1);
  EXPECT_EQ(f.last_line, 19);
  EXPECT_EQ(f.k, 19);
  EXPECT_EQ(f.n, 19);
  EXPECT_EQ(f.k_needed, 8);  // 19/7! = 3.8e-3, 19/8! = 4.7e-4
  EXPECT_NEAR(f.chance, 19.0 / 1.21645100408832e17, 1e-20);
  ASSERT_EQ(f.offsets_ns.size(), 19u);
  EXPECT_DOUBLE_EQ(f.offsets_ns.front(), -5400);
  EXPECT_DOUBLE_EQ(f.offsets_ns.back(), -22872);
  EXPECT_DOUBLE_EQ(f.freq_first_ppb, -45706);
  EXPECT_DOUBLE_EQ(f.freq_last_ppb, -126336);
  EXPECT_NE(f.evidence.find("lines 1-19"), std::string::npos) << f.evidence;
}

// nxp-archive/openil_linuxptp issue 9: ptp4l's frequency pinned at -31000000 ppb (the PHC's max_adj)
// for 7 samples while |offset| grows from 23587382 to 23614100 ns: saturated. 7 samples are too few for
// the divergence test (7/7! = 1.4e-3).
TEST(ServoReal, OpenilLinuxptp9Saturated) {
  const ServoReport r = AnalyzeServos(PointsOf(kTestdata + "openil_linuxptp_issue9_ptp4l_freq_pinned_-31000000_PARTIAL.log"));
  ASSERT_EQ(r.series.size(), 1u);
  ASSERT_EQ(r.findings.size(), 1u);
  const ServoFinding& f = r.findings[0];
  EXPECT_EQ(ServoFindingKindName(f.kind), "saturated");
  EXPECT_EQ(f.program, "ptp4l");
  EXPECT_EQ(f.reference, "master");
  EXPECT_EQ(f.k, 7);
  EXPECT_EQ(f.first_line, 1);
  EXPECT_EQ(f.last_line, 7);
  EXPECT_DOUBLE_EQ(f.freq_first_ppb, -31000000);
  EXPECT_DOUBLE_EQ(f.offsets_ns.front(), -23587382);
  EXPECT_DOUBLE_EQ(f.offsets_ns.back(), -23614100);
}

// Healthy servos, samples and summaries: series with their offset scale, no finding.
TEST(ServoReal, HealthyLogsHaveNoFinding) {
  for (const std::string& path :
       {kFixtures + "openil_linuxptp_issue3_sja1105_swp2_ptp4l_8hz_s2.log",
        kFixtures + "srsran_issue192_phc2sys_8hz_s0_s1_s2_PARTIAL.log",
        kFixtures + "openil_linuxptp_issue1_ls1021a_ptp4l_startup_s0_s1_s2_PARTIAL.log",
        kTestdata + "openil_issue61_turn14_ptp4l_summary_s2_PARTIAL.log",
        kTestdata + "fmadio_public_issue274_ptp4l_summary_rms_max_freq_delay.log",
        kTestdata + "modaq2_docs_phc2sys_u2_clock_realtime_summaries.log"}) {
    const ServoReport r = AnalyzeServos(PointsOf(path));
    EXPECT_FALSE(r.series.empty()) << path;
    EXPECT_TRUE(r.findings.empty()) << path << ": " << (r.findings.empty() ? "" : r.findings[0].evidence);
  }
}

// Summaries are clock-quality samples: the offset scale is their median rms, the max their largest max.
TEST(ServoReal, SummariesGiveTheOffsetScale) {
  const ServoReport r = AnalyzeServos(PointsOf(kTestdata + "fmadio_public_issue274_ptp4l_summary_rms_max_freq_delay.log"));
  ASSERT_EQ(r.series.size(), 1u);
  const ServoSeries& s = r.series[0];
  EXPECT_TRUE(s.summaries);
  EXPECT_EQ(s.program, "ptp4l");
  EXPECT_EQ(s.points, 12);
  EXPECT_DOUBLE_EQ(s.offset_rms_ns, 35);  // median of 35 35 23 31 69 62 39 35 24 28 86 97
  EXPECT_DOUBLE_EQ(s.offset_max_ns, 222);
  EXPECT_DOUBLE_EQ(s.freq_min_ppb, -75971);
  EXPECT_DOUBLE_EQ(s.freq_max_ppb, -75795);
  EXPECT_EQ(s.first_line, 1);
  EXPECT_EQ(s.last_line, 12);
}

// A locked servo's noise: no monotone run long enough over 2000 samples (k needed: 2000/k! < 1e-3 -> 10).
TEST(Servo, NoiseIsNotDivergence) {
  Rng rng(7);
  std::vector<double> offsets, freqs;
  for (int i = 0; i < 2000; ++i) {
    offsets.push_back(std::round(20 * rng.Normal()));
    freqs.push_back(std::round(-3000 + 5 * rng.Normal()));
  }
  const ServoReport r = AnalyzeServos(Series(offsets, freqs));
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_EQ(r.series[0].locked, 2000);
  EXPECT_NEAR(r.series[0].offset_rms_ns, 20, 2);
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].evidence;
}

// A run is reported only when long enough for n: 7 growing samples among 8 are not (8/7! = 1.6e-3),
// 8 among 9 are (9/8! = 2.2e-4).
TEST(Servo, RunLengthAgainstSampleCount) {
  EXPECT_TRUE(AnalyzeServos(Series({1, 2, 3, 4, 5, 6, 7, 3}, {0, 1, 2, 3, 4, 5, 6, 7})).findings.empty());
  const ServoReport r = AnalyzeServos(Series({1, -2, 3, -4, 5, -6, 7, 8, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8}));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].k, 8);
  EXPECT_EQ(r.findings[0].k_needed, 8);
  EXPECT_EQ(r.findings[0].first_line, 1);
  EXPECT_EQ(r.findings[0].last_line, 8);
  // Unlocked samples are not tested.
  auto unlocked = Series({1, -2, 3, -4, 5, -6, 7, 8, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  for (auto& p : unlocked) p.synced = false;
  EXPECT_TRUE(AnalyzeServos(unlocked).findings.empty());
}

// Saturation needs the frequency at the series' extreme, repeated, with |offset| growing across it.
TEST(Servo, SaturationNeedsPinnedExtremeAndGrowth) {
  const std::vector<double> f = {100, 200, 900000000, 900000000, 900000000, 900000000};
  const ServoReport pinned = AnalyzeServos(Series({10, 5, 100, 200, 300, 400}, f));
  ASSERT_EQ(pinned.findings.size(), 1u);
  EXPECT_EQ(ServoFindingKindName(pinned.findings[0].kind), "saturated");
  EXPECT_EQ(pinned.findings[0].k, 4);
  EXPECT_EQ(pinned.findings[0].first_line, 3);
  EXPECT_NE(pinned.findings[0].evidence.find("max_frequency"), std::string::npos);
  // Pinned but the offset does not grow: a steady servo at a constant frequency.
  EXPECT_TRUE(AnalyzeServos(Series({10, 5, 100, 90, 100, 90}, f)).findings.empty());
  // Repeated but not the extreme.
  EXPECT_TRUE(AnalyzeServos(Series({1, 2, 3, 4, 1, 2}, {50, 50, 50, 50, 80, 10})).findings.empty());
}

// Other sources (chrony, the sync CSV) are not servos.
TEST(Servo, OtherSourcesIgnored) {
  auto pts = Series({1, 2, 3}, {0, 0, 0});
  for (auto& p : pts) p.source = "chrony-tracking";
  const ServoReport r = AnalyzeServos(pts);
  EXPECT_TRUE(r.series.empty());
  EXPECT_TRUE(r.findings.empty());
}

}  // namespace servo_health_test
}  // namespace toposcope::analysis
