// Golden tests of the chrony log readers (tracking/statistics/measurements) and the chronyc
// tracking/sources/sourcestats parsers on every real fixture, the sign conventions of the
// SyncPoints, the tracking.log writer's round trip, and malformed inputs.
#include "toposcope/formats/clock/chrony.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "toposcope/base/file_io.h"
#include "toposcope/base/time.h"

namespace toposcope::formats {
namespace chrony_test {

const std::string kDir = std::string(TOPOSCOPE_FIXTURES) + "/chrony/";
const std::string kTracking = kDir + "bbs_pps_pru_bbb_refclock_pps_tracking.log";
const std::string kStatistics = kDir + "bbs_pps_pru_bbb_refclock_pps_gps_statistics.log";
const std::string kNtpmonMeas = kDir + "ntpmon_aws_host_measurements_lines_noheader.log";
const std::string kNtpmonStats = kDir + "ntpmon_aws_host_statistics_lines_noheader.log";
const std::string kOmniosBanner = kDir + "omnios_issue2576_illumos_tracking_banner_repeat_PARTIAL.log";
const std::string kOmniosUnsync = kDir + "omnios_issue2576_illumos_tracking_unsync_0000_lines_PARTIAL.log";
const std::string kChronycTracking = kDir + "powersj_ubuntu1804_chrony32_chronyc_tracking.txt";
const std::string kChronycSources = kDir + "powersj_ubuntu1804_chrony32_chronyc_sources_v.txt";
const std::string kChronycSourceStats = kDir + "powersj_ubuntu1804_chrony32_chronyc_sourcestats_v.txt";
const std::string kChronycSources1 = kDir + "myblackhole_chrony3_chronyc_n_sources_v_1src.txt";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int64_t Utc(const char* iso) { return *ParseIsoTimeNs(iso); }

struct Parsed {
  Diagnostics diag;
  ReadCounts counts;
  Result<ChronyLog> log = MakeError("not parsed");
};

Parsed ParseLog(const std::string& text, const std::string& source = "test",
                ChronyLogKind kind = ChronyLogKind::kUnknown) {
  Parsed p;
  p.log = ParseChronyLog(text, source, "hostA", p.diag, p.counts, kind);
  EXPECT_TRUE(p.counts.Balanced());
  EXPECT_EQ(p.diag.RejectedFor(source), p.counts.rejected);
  return p;
}

std::string Reasons(const Diagnostics& diag) {
  std::string out;
  for (const auto& d : diag.items()) out += d.ToString() + "\n";
  return out;
}

// ---------------------------------------------------------------------------------------------
// Log files.

TEST(ChronyLog, TrackingRefclockFixture) {
  auto p = ParseLog(Slurp(kTracking), kTracking);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.log->kind, ChronyLogKind::kTracking);
  EXPECT_EQ(p.counts.read, 192);
  EXPECT_EQ(p.counts.accepted, 192);
  EXPECT_EQ(p.counts.rejected, 0);
  EXPECT_EQ(p.diag.warnings_total(), 0) << Reasons(p.diag);
  EXPECT_EQ(p.log->banners, 6);  // first line, then every 32 entries
  ASSERT_EQ(p.log->tracking.size(), 192u);
  ASSERT_EQ(p.log->sync_points.size(), 192u);

  const auto& r = p.log->tracking.front();
  EXPECT_EQ(r.line, 4);
  EXPECT_EQ(r.time_ns, Utc("2026-03-02T15:53:32Z"));
  EXPECT_EQ(r.ip, "PPS");  // a refclock's refid in the IP column
  EXPECT_EQ(r.stratum, 1);
  EXPECT_DOUBLE_EQ(r.freq_ppm, 58.553);
  EXPECT_DOUBLE_EQ(r.skew_ppm, 0.0);
  EXPECT_DOUBLE_EQ(r.offset_s, -6.548e-08);
  EXPECT_EQ(r.leap, 'N');
  EXPECT_EQ(r.combined, 1);
  EXPECT_DOUBLE_EQ(r.offset_sd_s, 1.729e-08);
  EXPECT_DOUBLE_EQ(r.remaining_correction_s, -2.544e-08);
  EXPECT_DOUBLE_EQ(r.root_delay_s, 1.000e-09);
  EXPECT_DOUBLE_EQ(r.root_dispersion_s, 2.142e-06);
  EXPECT_DOUBLE_EQ(r.max_error_s, 3.988e-06);
  EXPECT_TRUE(r.Synced());

  // The 33rd entry comes after the second banner (lines 36-38).
  EXPECT_EQ(p.log->tracking[32].line, 39);
  EXPECT_EQ(p.log->tracking[32].time_ns, Utc("2026-03-02T15:54:36Z"));

  const auto& last = p.log->tracking.back();
  EXPECT_EQ(last.time_ns, Utc("2026-03-02T15:59:54Z"));
  EXPECT_DOUBLE_EQ(last.offset_s, 1.077e-16);
  EXPECT_DOUBLE_EQ(last.max_error_s, 3.921e-06);

  const auto& sp = p.log->sync_points.front();
  EXPECT_EQ(sp.host, "hostA");
  EXPECT_EQ(sp.source, "chrony-tracking");
  EXPECT_EQ(sp.reference, "PPS");
  EXPECT_EQ(sp.state, "N");
  EXPECT_TRUE(sp.synced);
  EXPECT_EQ(sp.ref_ns, Utc("2026-03-02T15:53:32Z"));
  EXPECT_NEAR(sp.offset_ns, -65.48, 1e-9);
  EXPECT_EQ(sp.local_ns, sp.ref_ns - 65);  // local clock slow of UTC by 65 ns
  EXPECT_NEAR(sp.uncertainty_ns, 17.29, 1e-9);
  EXPECT_EQ(sp.line, 4);
  for (const auto& s : p.log->sync_points) EXPECT_TRUE(s.synced);
}

TEST(ChronyLog, TrackingWriterReproducesRealFileByteForByte) {
  const std::string text = Slurp(kTracking);
  auto p = ParseLog(text, kTracking);
  ASSERT_TRUE(p.log.ok());
  std::string written = WriteChronyTrackingLog(p.log->tracking, 32);
  std::string expected = text;
  if (!expected.empty() && expected.back() != '\n') expected += '\n';
  EXPECT_EQ(written, expected);
}

TEST(ChronyLog, StatisticsRefclockFixtureInterleavedSources) {
  auto p = ParseLog(Slurp(kStatistics), kStatistics);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.log->kind, ChronyLogKind::kStatistics);
  EXPECT_EQ(p.counts.read, 1312);
  EXPECT_EQ(p.counts.accepted, 1312);
  EXPECT_EQ(p.counts.rejected, 0);
  // Lines of PPS and GPS interleave out of time order, but each source's own times never go
  // backwards: no warnings.
  EXPECT_EQ(p.diag.warnings_total(), 0) << Reasons(p.diag);
  EXPECT_EQ(p.log->banners, 41);
  ASSERT_EQ(p.log->statistics.size(), 1312u);
  int pps = 0;
  int gps = 0;
  for (const auto& r : p.log->statistics) {
    pps += r.ip == "PPS";
    gps += r.ip == "GPS";
  }
  EXPECT_EQ(pps, 876);
  EXPECT_EQ(gps, 436);

  const auto& g = p.log->statistics[2];  // line 6
  EXPECT_EQ(g.line, 6);
  EXPECT_EQ(g.ip, "GPS");
  EXPECT_EQ(g.time_ns, Utc("2026-03-02T15:34:29Z"));
  EXPECT_DOUBLE_EQ(g.std_dev_s, 1.440e-03);
  EXPECT_DOUBLE_EQ(g.est_offset_s, 1.724e-01);
  EXPECT_DOUBLE_EQ(g.offset_sd_s, 1.062e-03);
  EXPECT_DOUBLE_EQ(g.diff_freq, -5.597e-05);
  EXPECT_DOUBLE_EQ(g.est_skew, 6.979e-04);
  EXPECT_DOUBLE_EQ(g.stress, 2.5e-01);
  EXPECT_EQ(g.ns, 8);
  EXPECT_EQ(g.bs, 2);
  EXPECT_EQ(g.nr, 3);
  EXPECT_DOUBLE_EQ(g.asym, 0.0);
  // The GPS (NMEA) source is 172 ms late: the local clock reads fast of it.
  const auto& sp = p.log->sync_points[2];
  EXPECT_EQ(sp.source, "chrony-statistics");
  EXPECT_EQ(sp.reference, "GPS");
  EXPECT_NEAR(sp.offset_ns, 172.4e6, 1e-3);
  EXPECT_EQ(sp.local_ns, sp.ref_ns + 172400000);
  EXPECT_NEAR(sp.uncertainty_ns, 1.062e6, 1e-6);
  // Line 6 is earlier than line 5 (15:34:30 PPS): the file is not in time order.
  EXPECT_LT(p.log->statistics[2].time_ns, p.log->statistics[1].time_ns + 2 * 1000000000LL);
  EXPECT_GT(p.log->statistics[3].time_ns, p.log->statistics[2].time_ns);
  EXPECT_LT(p.log->statistics[5].time_ns, p.log->statistics[4].time_ns);
}

TEST(ChronyLog, MeasurementsWithoutHeaderRecognisedByShape) {
  auto p = ParseLog(Slurp(kNtpmonMeas), kNtpmonMeas);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.log->kind, ChronyLogKind::kMeasurements);
  EXPECT_EQ(p.counts.read, 6);
  EXPECT_EQ(p.counts.accepted, 6);
  EXPECT_EQ(p.log->banners, 0);
  ASSERT_EQ(p.log->measurements.size(), 6u);
  const auto& m = p.log->measurements[0];
  EXPECT_EQ(m.time_ns, Utc("2021-12-30T11:28:49Z"));
  EXPECT_EQ(m.ip, "17.253.66.253");
  EXPECT_EQ(m.leap, 'N');
  EXPECT_EQ(m.stratum, 1);
  EXPECT_EQ(m.tests_123, "111");
  EXPECT_EQ(m.tests_567, "111");
  EXPECT_EQ(m.tests_abcd, "1111");
  EXPECT_TRUE(m.AllTestsPassed());
  EXPECT_EQ(m.local_poll, 6);
  EXPECT_EQ(m.remote_poll, 6);
  EXPECT_DOUBLE_EQ(m.score, 0.0);
  EXPECT_DOUBLE_EQ(m.offset_s, -3.420e-04);
  EXPECT_DOUBLE_EQ(m.peer_delay_s, 1.302e-03);
  EXPECT_DOUBLE_EQ(m.peer_dispersion_s, 4.121e-06);
  EXPECT_DOUBLE_EQ(m.root_delay_s, 0.0);
  EXPECT_DOUBLE_EQ(m.root_dispersion_s, 1.984e-04);
  EXPECT_TRUE(m.has_refid);
  EXPECT_EQ(m.refid, 0x47505373u);  // "GPSs"
  EXPECT_EQ(m.mode_txrx, "4B K K");
  // theta = -342 us means the local clock is 342 us FAST (measurements' sign is reversed).
  const auto& sp = p.log->sync_points[0];
  EXPECT_EQ(sp.source, "chrony-measurements");
  EXPECT_NEAR(sp.offset_ns, 342000.0, 1e-6);
  EXPECT_EQ(sp.local_ns, sp.ref_ns + 342000);
  EXPECT_NEAR(sp.uncertainty_ns, 651000.0, 1e-6);
  EXPECT_TRUE(sp.synced);

  const auto& aws = p.log->measurements[3];
  EXPECT_EQ(aws.ip, "169.254.169.123");
  EXPECT_EQ(aws.stratum, 3);
  EXPECT_EQ(aws.refid, 0x0A2C4A4Eu);
  const auto& last = p.log->measurements[5];
  EXPECT_EQ(last.tests_abcd, "1101");
  EXPECT_FALSE(last.AllTestsPassed());
  EXPECT_EQ(last.local_poll, 8);
  EXPECT_EQ(last.remote_poll, 7);
  EXPECT_DOUBLE_EQ(last.score, 0.01);
  EXPECT_DOUBLE_EQ(last.offset_s, -1.080e-03);
  EXPECT_EQ(last.time_ns, Utc("2021-12-30T21:38:41Z"));
}

TEST(ChronyLog, StatisticsWithoutHeaderRecognisedByShape) {
  auto p = ParseLog(Slurp(kNtpmonStats), kNtpmonStats);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.log->kind, ChronyLogKind::kStatistics);
  EXPECT_EQ(p.counts.read, 6);
  EXPECT_EQ(p.counts.accepted, 6);
  ASSERT_EQ(p.log->statistics.size(), 6u);
  const auto& r = p.log->statistics[2];
  EXPECT_EQ(r.ip, "169.254.169.123");
  EXPECT_DOUBLE_EQ(r.std_dev_s, 3.312e-05);
  EXPECT_DOUBLE_EQ(r.est_offset_s, -1.386e-07);
  EXPECT_DOUBLE_EQ(r.diff_freq, 2.105e-09);
  EXPECT_EQ(r.ns, 16);
  EXPECT_EQ(r.bs, 0);
  EXPECT_EQ(r.nr, 10);
  EXPECT_EQ(p.log->statistics[3].bs, 1);
  EXPECT_NEAR(p.log->sync_points[2].offset_ns, -138.6, 1e-9);
  EXPECT_EQ(p.log->sync_points[2].local_ns, p.log->sync_points[2].ref_ns - 139);
}

TEST(ChronyLog, IllumosBannerInTheMiddle) {
  auto p = ParseLog(Slurp(kOmniosBanner), kOmniosBanner);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.log->kind, ChronyLogKind::kTracking);
  EXPECT_EQ(p.counts.read, 6);
  EXPECT_EQ(p.counts.accepted, 6);
  EXPECT_EQ(p.counts.rejected, 0);
  EXPECT_EQ(p.log->banners, 1);
  ASSERT_EQ(p.log->tracking.size(), 6u);
  std::vector<int64_t> lines;
  for (const auto& r : p.log->tracking) lines.push_back(r.line);
  EXPECT_EQ(lines, (std::vector<int64_t>{1, 2, 6, 7, 8, 9}));
  EXPECT_EQ(p.log->tracking[0].ip, "81.94.123.17");
  EXPECT_EQ(p.log->tracking[0].stratum, 3);
  EXPECT_DOUBLE_EQ(p.log->tracking[0].freq_ppm, -764.414);  // the broken clock of the issue
  EXPECT_DOUBLE_EQ(p.log->tracking[2].remaining_correction_s, -2.450e-08);
  EXPECT_DOUBLE_EQ(p.log->tracking[5].max_error_s, 6.137e-03);
  for (const auto& s : p.log->sync_points) EXPECT_TRUE(s.synced);
}

TEST(ChronyLog, IllumosUnsynchronisedLines) {
  auto p = ParseLog(Slurp(kOmniosUnsync), kOmniosUnsync);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.counts.read, 8);
  EXPECT_EQ(p.counts.accepted, 8);
  EXPECT_EQ(p.counts.rejected, 0);
  EXPECT_EQ(p.diag.warnings_total(), 0) << Reasons(p.diag);
  ASSERT_EQ(p.log->tracking.size(), 8u);
  ASSERT_EQ(p.log->sync_points.size(), 8u);
  std::vector<bool> synced;
  for (const auto& s : p.log->sync_points) synced.push_back(s.synced);
  EXPECT_EQ(synced, (std::vector<bool>{false, true, true, true, true, false, true, false}));
  const auto& u = p.log->tracking[0];
  EXPECT_EQ(u.ip, "0.0.0.0");
  EXPECT_EQ(u.stratum, 0);
  EXPECT_EQ(u.leap, '?');
  EXPECT_EQ(u.combined, 0);
  EXPECT_DOUBLE_EQ(u.freq_ppm, -31686.728);
  EXPECT_DOUBLE_EQ(u.skew_ppm, 112.861);
  EXPECT_DOUBLE_EQ(u.remaining_correction_s, 6.604e-01);
  EXPECT_FALSE(u.Synced());
  EXPECT_EQ(p.log->sync_points[0].state, "?");
  EXPECT_TRUE(std::isnan(p.log->sync_points[0].uncertainty_ns));
  const auto& s = p.log->tracking[1];
  EXPECT_EQ(s.ip, "81.94.123.17");
  EXPECT_DOUBLE_EQ(s.offset_s, -2.837e-03);
  EXPECT_EQ(p.log->sync_points[1].local_ns, p.log->sync_points[1].ref_ns - 2837000);
  EXPECT_EQ(p.log->tracking[6].combined, 2);
  // The unsynchronised update and the next one share a second (08:43:18): not backwards.
  EXPECT_EQ(p.log->tracking[5].time_ns, p.log->tracking[6].time_ns);
}

TEST(ChronyLog, StreamsFromAFile) {
  auto in = OpenInput(kStatistics);
  ASSERT_TRUE(in.ok());
  LineReader lines(std::move(*in));
  Diagnostics diag;
  ReadCounts counts;
  int64_t synced = 0;
  ChronyLogSinks sinks;
  sinks.sync = [&](const SyncPoint& p) { synced += p.synced; };
  auto kind = ReadChronyLog(lines, kStatistics, "bbb", ChronyLogKind::kUnknown, sinks, diag, counts);
  ASSERT_TRUE(kind.ok());
  EXPECT_EQ(*kind, ChronyLogKind::kStatistics);
  EXPECT_EQ(counts.accepted, 1312);
  EXPECT_EQ(synced, 1312);
}

// ---------------------------------------------------------------------------------------------
// Sign conventions.

TEST(ChronySigns, TrackingPositiveOffsetMeansLocalFast) {
  const std::string line =
      "2024-01-01 00:00:00 10.0.0.1         2     10.000      0.010  1.000e-03 N  1  1.000e-05  "
      "0.000e+00  1.000e-03  1.000e-04  2.000e-03\n";
  auto p = ParseLog(line);
  ASSERT_TRUE(p.log.ok());
  ASSERT_EQ(p.log->sync_points.size(), 1u);
  const auto& sp = p.log->sync_points[0];
  EXPECT_EQ(sp.ref_ns, Utc("2024-01-01T00:00:00Z"));
  EXPECT_EQ(sp.local_ns, sp.ref_ns + 1000000);
  EXPECT_DOUBLE_EQ(sp.offset_ns, 1e6);
}

TEST(ChronySigns, MeasurementsPositiveOffsetMeansLocalSlow) {
  const std::string line =
      "2024-01-01 00:00:00 10.0.0.1        N  2 111 111 1111   6  6 0.00  1.000e-03  2.000e-04  "
      "1.000e-06  1.000e-03  1.000e-03 0A000001 4B K K\n";
  auto p = ParseLog(line);
  ASSERT_TRUE(p.log.ok());
  ASSERT_EQ(p.log->sync_points.size(), 1u);
  const auto& sp = p.log->sync_points[0];
  EXPECT_EQ(sp.local_ns, sp.ref_ns - 1000000);
  EXPECT_DOUBLE_EQ(sp.offset_ns, -1e6);
  EXPECT_DOUBLE_EQ(sp.uncertainty_ns, 1e5);
}

TEST(ChronySigns, StatisticsPositiveOffsetMeansLocalFast) {
  const std::string line =
      "2024-01-01 00:00:00 10.0.0.1         1.000e-06  1.000e-03  1.000e-06  0.000e+00  "
      "1.000e-09 1.0e-02   8   0   4  0.00\n";
  auto p = ParseLog(line);
  ASSERT_TRUE(p.log.ok());
  ASSERT_EQ(p.log->sync_points.size(), 1u);
  EXPECT_EQ(p.log->sync_points[0].local_ns, p.log->sync_points[0].ref_ns + 1000000);
}

// ---------------------------------------------------------------------------------------------
// Writer.

ChronyTrackingRecord Rec(int64_t t, double offset_s) {
  ChronyTrackingRecord r;
  r.time_ns = t;
  r.ip = "192.168.1.1";
  r.stratum = 2;
  r.freq_ppm = -12.345;
  r.skew_ppm = 0.123;
  r.offset_s = offset_s;
  r.leap = 'N';
  r.combined = 3;
  r.offset_sd_s = 1.5e-06;
  r.remaining_correction_s = -2.25e-07;
  r.root_delay_s = 1.234e-03;
  r.root_dispersion_s = 5.678e-04;
  r.max_error_s = 1.111e-03;
  return r;
}

TEST(ChronyWriter, TrackingRoundTripWithBannersEvery32) {
  std::vector<ChronyTrackingRecord> recs;
  const int64_t t0 = Utc("2024-02-29T23:59:00Z");
  for (int i = 0; i < 70; ++i) {
    static constexpr double kOffsets[] = {1.25e-05, -3.75e-05, 0.0, 2.5e-06, -1.0e-03, 4.321e-07, 9.999e+01};
    auto r = Rec(t0 + int64_t{i} * 16 * 1000000000, kOffsets[i % 7]);
    if (i == 10) {
      r.ip = "2001:db8:1234:5678:9abc:def0:1234:5678";  // IPv6 pushes the columns right
    }
    if (i == 20) {
      r.ip = "0.0.0.0";
      r.stratum = 0;
      r.leap = '?';
      r.offset_s = 0;
      r.combined = 0;
    }
    recs.push_back(r);
  }
  const std::string text = WriteChronyTrackingLog(recs, 32);
  auto p = ParseLog(text);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.log->banners, 3);
  EXPECT_EQ(p.counts.accepted, 70);
  EXPECT_EQ(p.counts.rejected, 0);
  ASSERT_EQ(p.log->tracking.size(), recs.size());
  for (size_t i = 0; i < recs.size(); ++i) {
    const auto& a = recs[i];
    const auto& b = p.log->tracking[i];
    EXPECT_EQ(a.time_ns, b.time_ns);
    EXPECT_EQ(a.ip, b.ip);
    EXPECT_EQ(a.stratum, b.stratum);
    EXPECT_EQ(a.freq_ppm, b.freq_ppm);
    EXPECT_EQ(a.skew_ppm, b.skew_ppm);
    EXPECT_EQ(a.offset_s, b.offset_s);
    EXPECT_EQ(a.leap, b.leap);
    EXPECT_EQ(a.combined, b.combined);
    EXPECT_EQ(a.offset_sd_s, b.offset_sd_s);
    EXPECT_EQ(a.remaining_correction_s, b.remaining_correction_s);
    EXPECT_EQ(a.root_delay_s, b.root_delay_s);
    EXPECT_EQ(a.root_dispersion_s, b.root_dispersion_s);
    EXPECT_EQ(a.max_error_s, b.max_error_s);
  }
  EXPECT_FALSE(p.log->sync_points[20].synced);
  EXPECT_EQ(WriteChronyTrackingLog(p.log->tracking, 32), text);
  // The 2024-02-29 leap day and midnight rollover print right.
  EXPECT_EQ(FormatChronyTrackingLine(recs[0]).substr(0, 19), "2024-02-29 23:59:00");
  EXPECT_EQ(FormatChronyTrackingLine(recs[4]).substr(0, 19), "2024-03-01 00:00:04");
}

TEST(ChronyWriter, NoBannerAndOldLayoutWithoutMaxError) {
  auto r = Rec(Utc("2020-01-01T00:00:00Z"), 1e-3);
  r.max_error_s = NAN;
  const std::string text = WriteChronyTrackingLog({r, r}, 0);
  EXPECT_EQ(text.find("==="), std::string::npos);
  auto p = ParseLog(text);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.accepted, 2);
  EXPECT_TRUE(std::isnan(p.log->tracking[0].max_error_s));
  EXPECT_EQ(p.diag.warnings_total(), 1);  // the second line repeats the first
}

// ---------------------------------------------------------------------------------------------
// Bad input.

TEST(ChronyBad, EmptyAndGarbageAreErrors) {
  static const char kBinary[] = "\x01\x02\x00\xff\xfe garbage\x7f\n";
  for (const std::string& text :
       {std::string(), std::string("\n\n  \n"), std::string("hello world\nthis is not chrony\n"),
        std::string(kBinary, sizeof(kBinary) - 1)}) {
    auto p = ParseLog(text);
    EXPECT_FALSE(p.log.ok());
  }
  auto p = ParseLog("hello world\nthis is not chrony\n");
  EXPECT_EQ(p.counts.read, 2);
  EXPECT_EQ(p.counts.rejected, 2);
}

TEST(ChronyBad, MalformedLinesRejectedWithReasons) {
  const std::string banner = ChronyTrackingBanner();
  const std::string good = FormatChronyTrackingLine(Rec(Utc("2024-01-01T00:00:00Z"), 1e-4));
  std::string text = banner + good + "\n";
  text += good.substr(0, 40) + "\n";                       // truncated
  text += "2024-13-01 00:00:00" + good.substr(19) + "\n";  // bad month
  std::string nan_line = good;
  nan_line.replace(nan_line.find("-12.345"), 7, "    nan");
  text += nan_line + "\n";  // NaN freq
  std::string huge = good;
  huge.replace(huge.find(" 1.000e-04"), 10, " 1.000e+99");
  text += huge + "\n";  // huge offset
  std::string leap = good;
  leap.replace(leap.find(" N "), 3, " X ");
  text += leap + "\n";  // bad leap
  text += "2024-01-01 00:00:01 PPS 1.0e-07 2.0e-08 1.0e-07 1.0e-09 1.0e-08 1.0e-02 8 0 4 0.00\n";
  auto p = ParseLog(text);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.read, 7);
  EXPECT_EQ(p.counts.accepted, 1);
  EXPECT_EQ(p.counts.rejected, 6);
  const std::string reasons = Reasons(p.diag);
  EXPECT_NE(reasons.find("fields, expected 14"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("bad date/time"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("Freq ppm 'nan' is not a number"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("Offset '1.000e+99' is out of range"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("a statistics.log line in a tracking.log"), std::string::npos) << reasons;
  EXPECT_EQ(p.diag.items()[0].line, 5);
}

TEST(ChronyBad, BackwardsTimeAndDuplicatesAcceptedWithWarnings) {
  const auto a = FormatChronyTrackingLine(Rec(Utc("2024-01-01T00:01:00Z"), 1e-4));
  const auto b = FormatChronyTrackingLine(Rec(Utc("2024-01-01T00:00:00Z"), 2e-4));
  auto p = ParseLog(a + "\n" + b + "\n" + b + "\n");
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.accepted, 3);
  EXPECT_EQ(p.diag.warnings_total(), 2);
  const std::string reasons = Reasons(p.diag);
  EXPECT_NE(reasons.find("time goes backwards (by 60 s)"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("repeats line 2"), std::string::npos) << reasons;
}

TEST(ChronyBad, ExplicitKindRejectsOtherShapes) {
  auto p = ParseLog(Slurp(kNtpmonStats), "x", ChronyLogKind::kTracking);
  // Every line is rejected, but the input is still chrony (no banner and no accepted line: error).
  EXPECT_FALSE(p.log.ok());
  EXPECT_EQ(p.counts.rejected, 6);
}

TEST(ChronyBad, UnknownBannerLinesRejected) {
  const std::string text =
      "==========================================\n"
      "   Date (UTC) Time         Refid  DP L P  Raw offset   Cooked offset      Disp.\n"
      "==========================================\n"
      "2024-01-01 00:00:00.123456 PPS     0 N 0  1.234e-07  -5.678e-08  2.000e-07\n";
  auto p = ParseLog(text);
  ASSERT_TRUE(p.log.ok());  // a chrony log, just not one we read
  EXPECT_EQ(p.counts.rejected, 1);
  EXPECT_EQ(p.diag.warnings_total(), 1);
}

// ---------------------------------------------------------------------------------------------
// chronyc.

TEST(Chronyc, TrackingFixtureWithSigns) {
  Diagnostics diag;
  ReadCounts counts;
  auto t = ParseChronycTracking(Slurp(kChronycTracking), kChronycTracking, diag, counts);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  EXPECT_EQ(counts.read, 13);
  EXPECT_EQ(counts.accepted, 13);
  EXPECT_EQ(counts.rejected, 0);
  EXPECT_EQ(t->reference_id, 0xAB42617Eu);
  EXPECT_EQ(t->reference_name, "srcf-ntp.stanford.edu");
  EXPECT_EQ(t->stratum, 2);
  EXPECT_EQ(t->ref_time_ns, Utc("2018-04-05T18:27:33Z"));
  EXPECT_DOUBLE_EQ(t->system_time_offset_s, -0.000669840);  // "slow of NTP time"
  EXPECT_DOUBLE_EQ(t->last_offset_s, -0.000506939);
  EXPECT_DOUBLE_EQ(t->rms_offset_s, 0.001261410);
  EXPECT_DOUBLE_EQ(t->frequency_ppm, -28.552);  // "ppm slow"
  EXPECT_DOUBLE_EQ(t->residual_freq_ppm, -0.0);
  EXPECT_DOUBLE_EQ(t->skew_ppm, 88.846);
  EXPECT_DOUBLE_EQ(t->root_delay_s, 0.031207338);
  EXPECT_DOUBLE_EQ(t->root_dispersion_s, 0.001206590);
  EXPECT_DOUBLE_EQ(t->update_interval_s, 65.2);
  EXPECT_EQ(t->leap_status, "Normal");
  EXPECT_TRUE(t->Synced());
  EXPECT_TRUE(t->other.empty());
}

TEST(Chronyc, TrackingFastAndUnsynchronised) {
  const std::string text =
      "Reference ID    : 00000000 ()\n"
      "Stratum         : 0\n"
      "Ref time (UTC)  : Thu Jan 01 00:00:00 1970\n"
      "System time     : 0.000001234 seconds fast of NTP time\n"
      "Frequency       : 3.500 ppm fast\n"
      "Root delay      : 1.000000000 seconds\n"
      "Leap status     : Not synchronised\n"
      "Future field    : 42\n"
      "Stratum         : 3\n"
      "Skew            : lots ppm\n"
      "garbage line\n";
  Diagnostics diag;
  ReadCounts counts;
  auto t = ParseChronycTracking(text, "t", diag, counts);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(counts.read, 11);
  EXPECT_EQ(counts.accepted, 8);
  EXPECT_EQ(counts.rejected, 3);
  EXPECT_EQ(t->reference_id, 0u);
  EXPECT_EQ(t->reference_name, "");
  EXPECT_EQ(t->stratum, 0);
  EXPECT_EQ(t->ref_time_ns, 0);
  EXPECT_DOUBLE_EQ(t->system_time_offset_s, 1.234e-06);
  EXPECT_DOUBLE_EQ(t->frequency_ppm, 3.5);
  EXPECT_FALSE(t->Synced());
  ASSERT_EQ(t->other.size(), 1u);
  EXPECT_EQ(t->other[0].first, "Future field");
  Diagnostics d2;
  ReadCounts c2;
  EXPECT_FALSE(ParseChronycTracking("nothing here\n", "t", d2, c2).ok());
  EXPECT_FALSE(ParseChronycTracking("", "t", d2, c2).ok());
}

TEST(Chronyc, SourcesFixtureChrony32) {
  Diagnostics diag;
  ReadCounts counts;
  auto s = ParseChronycSources(Slurp(kChronycSources), kChronycSources, diag, counts);
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  EXPECT_EQ(counts.read, 8);
  EXPECT_EQ(counts.accepted, 8);
  EXPECT_EQ(counts.rejected, 0);
  EXPECT_EQ(s->number_of_sources, 8);
  EXPECT_TRUE(s->verbose);
  ASSERT_EQ(s->sources.size(), 8u);
  const auto& a = s->sources[0];
  EXPECT_EQ(a.mode, '^');
  EXPECT_EQ(a.state, '+');
  EXPECT_EQ(a.name, "chilipepper.canonical.com");
  EXPECT_EQ(a.stratum, 2);
  EXPECT_EQ(a.poll_log2, 7);
  EXPECT_EQ(a.reach, 0377);
  EXPECT_EQ(a.last_rx_s, 39);
  EXPECT_DOUBLE_EQ(a.adjusted_offset_s, 1245e-6);
  EXPECT_DOUBLE_EQ(a.measured_offset_s, 1245e-6);
  EXPECT_DOUBLE_EQ(a.error_s, 0.102);
  EXPECT_EQ(a.line, 13);
  const auto& best = s->sources[4];
  EXPECT_EQ(best.state, '*');
  EXPECT_EQ(best.name, "clock.xmission.com");
  EXPECT_DOUBLE_EQ(best.adjusted_offset_s, -4641e-9);
  EXPECT_DOUBLE_EQ(best.measured_offset_s, 144e-6);
  EXPECT_DOUBLE_EQ(best.error_s, 0.041);
  EXPECT_DOUBLE_EQ(s->sources[3].adjusted_offset_s, -87e-6);
  EXPECT_DOUBLE_EQ(s->sources[3].measured_offset_s, 62e-6);
  EXPECT_DOUBLE_EQ(s->sources[5].adjusted_offset_s, -0.014);
  const auto& cut = s->sources[6];
  EXPECT_EQ(cut.name, "palpatine.steven-mcdonal>");
  EXPECT_TRUE(cut.name_truncated);
  EXPECT_EQ(cut.reach, 0177);
  EXPECT_EQ(s->sources[7].last_rx_s, 106);
}

TEST(Chronyc, SourcesFixtureOneSource) {
  Diagnostics diag;
  ReadCounts counts;
  auto s = ParseChronycSources(Slurp(kChronycSources1), kChronycSources1, diag, counts);
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  EXPECT_EQ(counts.read, 1);
  EXPECT_EQ(counts.accepted, 1);
  EXPECT_EQ(s->number_of_sources, 1);
  ASSERT_EQ(s->sources.size(), 1u);
  const auto& a = s->sources[0];
  EXPECT_EQ(a.name, "192.168.78.212");
  EXPECT_EQ(a.state, '*');
  EXPECT_EQ(a.stratum, 3);
  EXPECT_EQ(a.poll_log2, 6);
  EXPECT_EQ(a.reach, 017);  // octal: 15
  EXPECT_EQ(a.last_rx_s, 5);
  EXPECT_DOUBLE_EQ(a.adjusted_offset_s, -440e-9);
  EXPECT_DOUBLE_EQ(a.measured_offset_s, -83e-6);
  EXPECT_DOUBLE_EQ(a.error_s, 0.043);
}

TEST(Chronyc, SourcesChrony4RefclockNeverAndBadRows) {
  const std::string text =
      "MS Name/IP address         Stratum Poll Reach LastRx Last sample               \n"
      "===============================================================================\n"
      "#* PPS0                          0   4   377    13    -12ns[  -15ns] +/-  131ns\n"
      "^? 2001:db8::1                   0   6     0     -     +0ns[   +0ns] +/-    0ns\n"
      "^- far.example.org               2  10   377   21m  -1234us[-1234us] +/-   20ms\n"
      "^+ bad.example.org               2   6   389    10  +1us[+1us] +/- 1ms\n"
      "^+ nounit.example.org            2   6   377    10  +1[+1us] +/- 1ms\n"
      "?? what\n";
  Diagnostics diag;
  ReadCounts counts;
  auto s = ParseChronycSources(text, "s", diag, counts);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(counts.read, 6);
  EXPECT_EQ(counts.accepted, 3);
  EXPECT_EQ(counts.rejected, 3);
  EXPECT_EQ(s->number_of_sources, -1);
  EXPECT_FALSE(s->verbose);
  EXPECT_EQ(s->sources[0].mode, '#');
  EXPECT_EQ(s->sources[0].poll_log2, 4);
  EXPECT_DOUBLE_EQ(s->sources[0].error_s, 131e-9);
  EXPECT_EQ(s->sources[1].last_rx_s, -1);
  EXPECT_EQ(s->sources[1].reach, 0);
  EXPECT_EQ(s->sources[2].last_rx_s, 21 * 60);
  Diagnostics d2;
  ReadCounts c2;
  EXPECT_FALSE(ParseChronycSources("", "s", d2, c2).ok());
  EXPECT_FALSE(ParseChronycSources("random text\n", "s", d2, c2).ok());
}

TEST(Chronyc, SourceStatsFixture) {
  Diagnostics diag;
  ReadCounts counts;
  auto s = ParseChronycSourceStats(Slurp(kChronycSourceStats), kChronycSourceStats, diag, counts);
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  EXPECT_EQ(counts.read, 8);
  EXPECT_EQ(counts.accepted, 8);
  EXPECT_EQ(counts.rejected, 0);
  EXPECT_EQ(s->number_of_sources, 8);
  EXPECT_TRUE(s->verbose);
  ASSERT_EQ(s->sources.size(), 8u);
  const auto& a = s->sources[0];
  EXPECT_EQ(a.name, "chilipepper.canonical.com");
  EXPECT_EQ(a.np, 19);
  EXPECT_EQ(a.nr, 9);
  EXPECT_EQ(a.span_s, 1170);
  EXPECT_DOUBLE_EQ(a.frequency_ppm, 1.015);
  EXPECT_DOUBLE_EQ(a.freq_skew_ppm, 2.938);
  EXPECT_DOUBLE_EQ(a.offset_s, 166e-6);
  EXPECT_DOUBLE_EQ(a.std_dev_s, 1095e-6);
  EXPECT_DOUBLE_EQ(s->sources[5].offset_s, -0.013);
  EXPECT_TRUE(s->sources[6].name_truncated);
  const auto& p = s->sources[7];
  EXPECT_EQ(p.name, "paladin.latt.net");
  EXPECT_EQ(p.span_s, 20 * 60);  // "20m"
  EXPECT_EQ(p.np, 21);
  EXPECT_EQ(p.nr, 14);
  EXPECT_DOUBLE_EQ(p.std_dev_s, 1373e-6);
}

TEST(Chronyc, UnitParsers) {
  EXPECT_DOUBLE_EQ(*ParseChronycSeconds("-440ns"), -440e-9);
  EXPECT_DOUBLE_EQ(*ParseChronycSeconds("+1245us"), 1245e-6);
  EXPECT_DOUBLE_EQ(*ParseChronycSeconds("43ms"), 0.043);
  EXPECT_DOUBLE_EQ(*ParseChronycSeconds("2s"), 2.0);
  EXPECT_FALSE(ParseChronycSeconds("12").has_value());
  EXPECT_FALSE(ParseChronycSeconds("nanms").has_value());
  EXPECT_FALSE(ParseChronycSeconds("ms").has_value());
  EXPECT_EQ(*ParseChronycInterval("39"), 39);
  EXPECT_EQ(*ParseChronycInterval("3h"), 3 * 3600);
  EXPECT_EQ(*ParseChronycInterval("2d"), 2 * 86400);
  EXPECT_FALSE(ParseChronycInterval("-").has_value());
  EXPECT_FALSE(ParseChronycInterval("9x").has_value());
}

// Several reports with shell prompts (a real paste): each report is one sync point at its Ref
// time with its Last offset; the prompts are text around them.
TEST(ChronycTrackingGolden, ReportsAfterPromptsGiveOneSamplePerReport) {
  const std::string path = std::string(TOPOSCOPE_TESTDATA) + "/real/chrony/chronyc_tracking_two_prompts_scale_network_pr121.txt";
  Diagnostics diag;
  ReadCounts counts;
  auto reports = ParseChronycTrackingReports(Slurp(path), path, diag, counts);
  ASSERT_TRUE(reports.ok()) << reports.error().ToString();
  ASSERT_EQ(reports->size(), 2u);
  EXPECT_EQ(counts.read, 28);
  EXPECT_EQ(counts.rejected, 0);
  EXPECT_EQ(counts.accepted, 28);
  EXPECT_EQ((*reports)[0].reference_name, "ntp1.bytestacker.com");
  EXPECT_EQ((*reports)[1].reference_name, "clock.trit.net");
  EXPECT_EQ((*reports)[1].line, 17);
  auto p = ToSyncPoint((*reports)[0], "server2");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->source, "chronyc-tracking");
  EXPECT_EQ(p->ref_ns, int64_t{1544076242} * 1000000000);  // Thu Dec 06 06:04:02 2018 UTC
  EXPECT_NEAR(p->offset_ns, 85454, 1e-6);
  EXPECT_EQ(p->local_ns - p->ref_ns, 85454);
  EXPECT_NEAR(p->uncertainty_ns, (0.018798923 + 0.031140074 / 2) * 1e9, 1);
  EXPECT_TRUE(p->synced);
}

// Older chrony releases print an IPv4 source's reference ID as its dotted address (a real report,
// testdata/real/chrony, PROVENANCE.md): it is the same 32-bit ID, and the report gives its sample.
TEST(ChronycTrackingParse, DottedIpv4ReferenceIdOfOlderChronyIsRead) {
  const std::string path = std::string(TOPOSCOPE_TESTDATA) +
                           "/real/chrony/chronyc_tracking_old_dotted_refid_7495s_slow_6digit_root_telegraf_issue2988_excerpt.txt";
  Diagnostics diag;
  ReadCounts counts;
  auto t = ParseChronycTracking(Slurp(path), path, diag, counts);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  EXPECT_EQ(counts.read, 14);
  EXPECT_EQ(counts.rejected, 0) << (diag.items().empty() ? "" : diag.items()[0].ToString());
  EXPECT_EQ(counts.accepted, 14);
  EXPECT_EQ(t->reference_id, 0x0a006316u);  // 10.0.99.22
  EXPECT_EQ(t->reference_name, "ntp2.chewy.local");
  EXPECT_DOUBLE_EQ(t->system_time_offset_s, -7495.370605469);
  EXPECT_DOUBLE_EQ(t->root_delay_s, 0.033780);  // six decimals in this release
  // Neither hex nor a dotted IPv4 address: still rejected, with the reason.
  Diagnostics d2;
  ReadCounts c2;
  auto bad = ParseChronycTracking("Reference ID    : 10.0.99 (x)\nStratum         : 2\n", "t", d2, c2);
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(c2.rejected, 1);
  ASSERT_FALSE(d2.items().empty());
  EXPECT_NE(d2.items()[0].reason.find("is not 8 hex digits or an IPv4 address"), std::string::npos);
  EXPECT_EQ(d2.items()[0].line, 1);
}

// An unsynchronised report gives no sample; a field repeated inside one report is rejected while
// a new `Reference ID` starts the next report.
TEST(ChronycTrackingParse, UnsyncedReportsGiveNoSampleAndRepeatsAreRejected) {
  const std::string text =
      "$ chronyc tracking\n"
      "Reference ID    : 00000000 ()\n"
      "Stratum         : 0\n"
      "Ref time (UTC)  : Thu Jan 01 00:00:00 1970\n"
      "Last offset     : +0.000000000 seconds\n"
      "Leap status     : Not synchronised\n"
      "Every 60.0s: chronyc tracking\n"
      "Reference ID    : AB42617E (a)\n"
      "Stratum         : 2\n"
      "Stratum         : 2\n"
      "Ref time (UTC)  : Thu Apr 05 18:27:33 2018\n"
      "Last offset     : -0.000506939 seconds\n"
      "Leap status     : Normal\n"
      "stray words\n";
  Diagnostics diag;
  ReadCounts counts;
  auto reports = ParseChronycTrackingReports(text, "t", diag, counts);
  ASSERT_TRUE(reports.ok());
  ASSERT_EQ(reports->size(), 2u);
  EXPECT_EQ(counts.read, 14);
  EXPECT_EQ(counts.rejected, 2);
  EXPECT_EQ(counts.accepted + counts.rejected, counts.read);
  EXPECT_FALSE(ToSyncPoint((*reports)[0], "h").has_value());
  auto p = ToSyncPoint((*reports)[1], "h");
  ASSERT_TRUE(p.has_value());
  EXPECT_NEAR(p->offset_ns, -506939, 1e-6);
}

}  // namespace chrony_test
}  // namespace toposcope::formats
