// Golden tests of the ptp4l / phc2sys log reader on every real fixture, the prefixes (stdout,
// syslog, journal, message tags), summaries and port states, the sign convention of the
// SyncPoints, the writers' round trips, and malformed inputs.
#include "toposcope/formats/clock/linuxptp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace toposcope::formats {
namespace linuxptp_test {

const std::string kDir = std::string(TOPOSCOPE_FIXTURES) + "/linuxptp/";
const std::string kSrsran = kDir + "srsran_issue192_phc2sys_8hz_s0_s1_s2_PARTIAL.log";
const std::string kSja1105 = kDir + "openil_linuxptp_issue3_sja1105_swp2_ptp4l_8hz_s2.log";
const std::string kLs1021a = kDir + "openil_linuxptp_issue1_ls1021a_ptp4l_startup_s0_s1_s2_PARTIAL.log";
const std::string kSysDiverging = kDir + "openil_issue61_phc2sys_swp3_sys_offset_diverging_PARTIAL.log";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Parsed {
  Diagnostics diag;
  ReadCounts counts;
  Result<PtpLog> log = MakeError("not parsed");
};

Parsed Parse(const std::string& text, const std::string& source = "test") {
  Parsed p;
  p.log = ParsePtpLog(text, source, "node1", p.diag, p.counts);
  EXPECT_TRUE(p.counts.Balanced());
  EXPECT_EQ(p.diag.RejectedFor(source), p.counts.rejected);
  return p;
}

std::string Reasons(const Diagnostics& diag) {
  std::string out;
  for (const auto& d : diag.items()) out += d.ToString() + "\n";
  return out;
}

std::string WithNewline(std::string s) {
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s;
}

// ---------------------------------------------------------------------------------------------
// Real fixtures.

TEST(LinuxPtp, SrsranPhc2sysStepAndLock) {
  auto p = Parse(Slurp(kSrsran), kSrsran);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.counts.read, 15);
  EXPECT_EQ(p.counts.accepted, 15);
  EXPECT_EQ(p.counts.rejected, 0);
  EXPECT_EQ(p.diag.warnings_total(), 0) << Reasons(p.diag);
  ASSERT_EQ(p.log->records.size(), 15u);
  ASSERT_EQ(p.log->sync_points.size(), 15u);
  std::vector<std::string> states;
  for (const auto& r : p.log->records) {
    EXPECT_EQ(r.kind, PtpLineKind::kPhc2sysOffset);
    EXPECT_EQ(r.program, "phc2sys");
    EXPECT_EQ(r.clock, "CLOCK_REALTIME");
    EXPECT_EQ(r.source_label, "phc");
    states.push_back(r.StateText());
  }
  EXPECT_EQ(states[0], "s0");
  EXPECT_EQ(states[1], "s1");
  for (size_t i = 2; i < states.size(); ++i) EXPECT_EQ(states[i], "s2");
  // The servo steps the clock: the offset jumps from -513295 (s1) to -17 (s2).
  EXPECT_EQ(p.log->records[0].offset_ns, -513281);
  EXPECT_EQ(p.log->records[1].offset_ns, -513295);
  EXPECT_EQ(p.log->records[2].offset_ns, -17);
  EXPECT_EQ(p.log->records[14].offset_ns, -13);
  EXPECT_DOUBLE_EQ(p.log->records[0].freq_ppb, -3295);
  ASSERT_TRUE(p.log->records[0].delay_ns.has_value());
  EXPECT_EQ(*p.log->records[0].delay_ns, 519);
  EXPECT_EQ(p.log->records[0].monotonic_ns, 709813024000000LL);

  const auto& s0 = p.log->sync_points[0];
  EXPECT_EQ(s0.host, "node1");
  EXPECT_EQ(s0.source, "phc2sys");
  EXPECT_EQ(s0.reference, "phc");
  EXPECT_EQ(s0.clock, "CLOCK_REALTIME");
  EXPECT_EQ(s0.state, "s0");
  EXPECT_FALSE(s0.synced);
  EXPECT_EQ(s0.local_ns, 709813024000000LL);
  EXPECT_EQ(s0.ref_ns, 709813024000000LL + 513281);  // target - source = -513281
  EXPECT_DOUBLE_EQ(s0.offset_ns, -513281);
  EXPECT_DOUBLE_EQ(s0.uncertainty_ns, 259.5);
  EXPECT_EQ(s0.line, 1);
  EXPECT_FALSE(p.log->sync_points[1].synced);
  EXPECT_TRUE(p.log->sync_points[2].synced);
  EXPECT_EQ(p.log->sync_points[2].ref_ns, 709813275000000LL + 17);
  // 8 updates per second.
  EXPECT_EQ(p.log->records[1].monotonic_ns - p.log->records[0].monotonic_ns, 125000000);
}

TEST(LinuxPtp, Sja1105Ptp4lSteadyState) {
  auto p = Parse(Slurp(kSja1105), kSja1105);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.counts.read, 10);
  EXPECT_EQ(p.counts.accepted, 10);
  EXPECT_EQ(p.counts.rejected, 0);
  EXPECT_EQ(p.diag.warnings_total(), 0);
  ASSERT_EQ(p.log->sync_points.size(), 10u);
  std::vector<int64_t> offsets;
  for (const auto& r : p.log->records) {
    EXPECT_EQ(r.kind, PtpLineKind::kMasterOffset);
    EXPECT_EQ(r.servo_state, 2);
    ASSERT_TRUE(r.delay_ns.has_value());
    EXPECT_GE(*r.delay_ns, 484);
    EXPECT_LE(*r.delay_ns, 487);
    offsets.push_back(r.offset_ns);
  }
  EXPECT_EQ(offsets, (std::vector<int64_t>{5, -3, 0, 1, 1, -5, 3, 4, -5, 3}));
  EXPECT_DOUBLE_EQ(p.log->records[0].freq_ppb, 83715);
  const auto& sp = p.log->sync_points[0];
  EXPECT_EQ(sp.source, "ptp4l");
  EXPECT_EQ(sp.reference, "master");
  EXPECT_TRUE(sp.synced);
  EXPECT_EQ(sp.local_ns, 48343000000LL);
  EXPECT_EQ(sp.ref_ns, 48343000000LL - 5);  // slave - master = +5: local ahead
  EXPECT_DOUBLE_EQ(sp.uncertainty_ns, 242);
  EXPECT_DOUBLE_EQ(p.log->sync_points[9].uncertainty_ns, 243.5);
}

TEST(LinuxPtp, Ls1021aStartupPortStatesAndBadSync) {
  auto p = Parse(Slurp(kLs1021a), kLs1021a);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.counts.read, 11);
  EXPECT_EQ(p.counts.accepted, 11);
  EXPECT_EQ(p.counts.rejected, 0);
  // Negative path delays (a bad sync): accepted, warned, no uncertainty.
  EXPECT_EQ(p.diag.warnings_total(), 4) << Reasons(p.diag);
  ASSERT_EQ(p.log->records.size(), 11u);
  std::vector<PtpLineKind> kinds;
  for (const auto& r : p.log->records) kinds.push_back(r.kind);
  using K = PtpLineKind;
  EXPECT_EQ(kinds, (std::vector<K>{K::kOther, K::kPortState, K::kPortState, K::kOther, K::kOther,
                                   K::kPortState, K::kMasterOffset, K::kMasterOffset, K::kMasterOffset,
                                   K::kPortState, K::kMasterOffset}));
  EXPECT_EQ(p.log->records[0].message, "selected /dev/ptp0 as PTP clock");
  const auto& init = p.log->records[1];
  EXPECT_EQ(init.port, 1);
  EXPECT_EQ(init.interface, "");
  EXPECT_EQ(init.from_state, "INITIALIZING");
  EXPECT_EQ(init.to_state, "LISTENING");
  EXPECT_EQ(init.event, "INITIALIZE");  // the old event name
  EXPECT_EQ(p.log->records[2].port, 0);
  EXPECT_EQ(p.log->records[3].message, "port 1: new foreign master 00049f.fffe.ef0606-1");
  const auto& slave = p.log->records[9];
  EXPECT_EQ(slave.from_state, "UNCALIBRATED");
  EXPECT_EQ(slave.to_state, "SLAVE");
  EXPECT_EQ(slave.event, "MASTER_CLOCK_SELECTED");
  EXPECT_EQ(slave.monotonic_ns, 2680908000000LL);

  ASSERT_EQ(p.log->sync_points.size(), 4u);
  EXPECT_EQ(p.log->sync_points[0].state, "s0");
  EXPECT_EQ(p.log->sync_points[1].state, "s1");
  EXPECT_EQ(p.log->sync_points[2].state, "s2");
  EXPECT_FALSE(p.log->sync_points[0].synced);
  EXPECT_TRUE(p.log->sync_points[3].synced);
  EXPECT_EQ(p.log->records[6].offset_ns, 1814389063);
  EXPECT_EQ(*p.log->records[6].delay_ns, -11282235);
  EXPECT_DOUBLE_EQ(p.log->records[6].freq_ppb, 1000000);
  EXPECT_TRUE(std::isnan(p.log->sync_points[0].uncertainty_ns));
  EXPECT_EQ(p.log->sync_points[2].ref_ns, 2680908000000LL - 121269846);
}

TEST(LinuxPtp, Phc2sysSysSourceDiverging) {
  auto p = Parse(Slurp(kSysDiverging), kSysDiverging);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.counts.read, 19);
  EXPECT_EQ(p.counts.accepted, 19);
  EXPECT_EQ(p.counts.rejected, 0);
  ASSERT_EQ(p.log->sync_points.size(), 19u);
  for (const auto& r : p.log->records) {
    EXPECT_EQ(r.clock, "swp3");
    EXPECT_EQ(r.source_label, "sys");
    EXPECT_EQ(r.servo_state, 2);
  }
  // The offset keeps growing: the servo does not converge.
  for (size_t i = 1; i < p.log->records.size(); ++i) {
    EXPECT_LT(p.log->records[i].offset_ns, p.log->records[i - 1].offset_ns);
  }
  EXPECT_EQ(p.log->records.front().offset_ns, -5400);
  EXPECT_EQ(p.log->records.back().offset_ns, -22872);
  EXPECT_DOUBLE_EQ(p.log->records.back().freq_ppb, -126336);
  const auto& sp = p.log->sync_points[0];
  EXPECT_EQ(sp.reference, "sys");
  EXPECT_EQ(sp.clock, "swp3");
  EXPECT_EQ(sp.local_ns, 372710000000LL);
  EXPECT_EQ(sp.ref_ns, 372710000000LL + 5400);
  EXPECT_DOUBLE_EQ(sp.uncertainty_ns, 3360);
}

// An empty bracket group is not a tag: it stays in the text, so the line writes back as it was
// read (a fuzzer find: "[]" was taken for a tag and dropped, and the rest then read as a
// malformed phc2sys line).
TEST(LinuxPtp, EmptyBracketsAreTextNotATag) {
  const std::string text =
      "ptp4l[2510.089]: port 1: INITIALIZING to LISTENING on INIT_COMPLETE\n"
      "[]3-4[485phc2sys[709814.527]: CLOCK_REALTIME phc offset -24 s2 freq954]: rms\n";
  Parsed p = Parse(text);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  ASSERT_EQ(p.log->records.size(), 2u);
  EXPECT_EQ(p.log->records[1].tag, "");
  const std::string written = WritePtpLog(p.log->records);
  Parsed again = Parse(written, "rewritten");
  ASSERT_TRUE(again.log.ok());
  EXPECT_EQ(again.counts.rejected, 0) << Reasons(again.diag);
  EXPECT_EQ(WithNewline(written), text);
}

TEST(LinuxPtp, WriterReproducesEveryFixture) {
  for (const auto& path : {kSrsran, kSja1105, kLs1021a, kSysDiverging}) {
    const std::string text = Slurp(path);
    auto p = Parse(text, path);
    ASSERT_TRUE(p.log.ok()) << path;
    EXPECT_EQ(WritePtpLog(p.log->records), WithNewline(text)) << path;
  }
}

// ---------------------------------------------------------------------------------------------
// Prefixes, tags, summaries.

TEST(LinuxPtp, SyslogJournalAndTags) {
  const std::string text =
      "Jun 10 12:00:01 gpu-node-7 ptp4l[1234]: [5000.250] master offset        -12 s2 freq   "
      "-1234 path delay       600\n"
      "2024-06-10T12:00:02+0000 gpu-node-7 phc2sys[1300]: [5001.000] CLOCK_REALTIME phc offset "
      "       7 s2 freq   +100 delay    500\n"
      "ptp4l[5002.125]: [ptp4l.0.config] master offset         20 s3 freq    +50 path delay   "
      "  610\n"
      "ptp4l[5002.250]: [ptp4l.0.config:6] [ens7f0] port 1 (ens7f0): UNCALIBRATED to SLAVE on "
      "MASTER_CLOCK_SELECTED\n"
      "phc2sys[5003.000]: CLOCK_REALTIME rms   12 max   30 freq  -3500 +/-  12 delay   510 +/-   "
      "3\n"
      "ptp4l[5004.000]: rms    8 max   15 freq  +1000 +/-   5\n"
      "ptp4l[5005.000]: rms    8 max   15 freq  +1000 +/-   5 delay   600 +/-   2\n"
      "phc2sys[5006.000]: /dev/ptp1 pps offset       -3 s2 freq    -20\n";
  auto p = Parse(text);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.counts.read, 8);
  EXPECT_EQ(p.counts.accepted, 8);
  EXPECT_EQ(p.counts.rejected, 0) << Reasons(p.diag);
  const auto& r = p.log->records;
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(r[0].kind, PtpLineKind::kMasterOffset);
  EXPECT_EQ(r[0].program, "ptp4l");
  EXPECT_EQ(r[0].pid, 1234);
  EXPECT_EQ(r[0].host, "gpu-node-7");
  EXPECT_EQ(r[0].syslog_time, "Jun 10 12:00:01");
  EXPECT_EQ(r[0].monotonic_ns, 5000250000000LL);
  EXPECT_EQ(r[0].offset_ns, -12);
  EXPECT_EQ(r[1].host, "gpu-node-7");
  EXPECT_EQ(r[1].syslog_time, "2024-06-10T12:00:02+0000");
  EXPECT_EQ(r[1].kind, PtpLineKind::kPhc2sysOffset);
  EXPECT_EQ(r[2].tag, "ptp4l.0.config");
  EXPECT_EQ(r[2].servo_state, 3);
  EXPECT_EQ(r[3].kind, PtpLineKind::kPortState);
  EXPECT_EQ(r[3].tag, "ptp4l.0.config:6 ens7f0");
  EXPECT_EQ(r[3].interface, "ens7f0");
  EXPECT_EQ(r[3].to_state, "SLAVE");
  EXPECT_EQ(r[4].kind, PtpLineKind::kSummary);
  EXPECT_EQ(r[4].clock, "CLOCK_REALTIME");
  EXPECT_DOUBLE_EQ(r[4].rms_ns, 12);
  EXPECT_DOUBLE_EQ(r[4].max_ns, 30);
  EXPECT_DOUBLE_EQ(r[4].freq_mean_ppb, -3500);
  EXPECT_DOUBLE_EQ(r[4].freq_sd_ppb, 12);
  EXPECT_DOUBLE_EQ(r[4].delay_mean_ns, 510);
  EXPECT_DOUBLE_EQ(r[4].delay_sd_ns, 3);
  EXPECT_EQ(r[5].clock, "");
  EXPECT_TRUE(std::isnan(r[5].delay_mean_ns));
  EXPECT_DOUBLE_EQ(r[6].delay_mean_ns, 600);
  EXPECT_EQ(r[7].source_label, "pps");
  EXPECT_FALSE(r[7].delay_ns.has_value());

  // 4 samples and 3 summaries (clock-quality points, no offset pair); the syslog host wins over the caller's.
  ASSERT_EQ(p.log->sync_points.size(), 7u);
  EXPECT_EQ(p.log->sync_points[0].host, "gpu-node-7");
  EXPECT_DOUBLE_EQ(p.log->sync_points[0].freq_ppb, -1234);
  EXPECT_EQ(p.log->sync_points[2].host, "node1");
  EXPECT_EQ(p.log->sync_points[2].clock, "ptp4l.0.config");
  EXPECT_TRUE(p.log->sync_points[2].synced);                      // s3
  EXPECT_TRUE(std::isnan(p.log->sync_points[6].uncertainty_ns));  // pps: no delay
  EXPECT_DOUBLE_EQ(p.log->sync_points[6].freq_ppb, -20);
  const auto& sum = p.log->sync_points[3];  // phc2sys CLOCK_REALTIME rms 12 max 30 freq -3500 +/- 12
  EXPECT_EQ(sum.source, "phc2sys-summary");
  EXPECT_EQ(sum.clock, "CLOCK_REALTIME");
  EXPECT_EQ(sum.local_ns, 5003000000000LL);
  EXPECT_EQ(sum.ref_ns, kNoTime);
  EXPECT_TRUE(std::isnan(sum.offset_ns));
  EXPECT_FALSE(sum.synced);
  EXPECT_DOUBLE_EQ(sum.offset_rms_ns, 12);
  EXPECT_DOUBLE_EQ(sum.offset_max_ns, 30);
  EXPECT_DOUBLE_EQ(sum.freq_ppb, -3500);
  EXPECT_DOUBLE_EQ(sum.freq_sd_ppb, 12);
  EXPECT_EQ(sum.line, 5);
  EXPECT_EQ(p.log->sync_points[4].source, "ptp4l-summary");
  EXPECT_EQ(p.log->sync_points[4].reference, "master");
  EXPECT_DOUBLE_EQ(p.log->sync_points[4].freq_sd_ppb, 5);
  EXPECT_DOUBLE_EQ(p.log->sync_points[5].offset_max_ns, 15);
  EXPECT_EQ(WritePtpLog(p.log->records), WritePtpLog(Parse(WritePtpLog(p.log->records)).log->records));
}

// ---------------------------------------------------------------------------------------------
// Writers.

TEST(LinuxPtpWriter, SampleLinesInLinuxptpLayout) {
  EXPECT_EQ(FormatPtp4lSampleLine(48343999999LL, 5, 2, 83715, 484),
            "ptp4l[48.343]: master offset          5 s2 freq  +83715 path delay       484");
  EXPECT_EQ(FormatPhc2sysSampleLine(709813024000000LL, "CLOCK_REALTIME", "phc", -513281, 0, -3295, 519),
            "phc2sys[709813.024]: CLOCK_REALTIME phc offset   -513281 s0 freq   -3295 delay    519");
  EXPECT_EQ(FormatPhc2sysSampleLine(1000000000LL, "CLOCK_REALTIME", "pps", 3, 2, 0, std::nullopt),
            "phc2sys[1.000]: CLOCK_REALTIME pps offset         3 s2 freq      +0");
  // Wide values overflow the widths, as in linuxptp.
  EXPECT_EQ(FormatPtp4lSampleLine(1000000000LL, -363290000824LL, 0, 0, 0),
            "ptp4l[1.000]: master offset -363290000824 s0 freq      +0 path delay         0");
}

TEST(LinuxPtpWriter, RoundTripOfSimulatedRecords) {
  std::vector<PtpRecord> recs;
  for (int i = 0; i < 40; ++i) {
    PtpRecord r;
    r.monotonic_ns = 1000000000000LL + int64_t{i} * 125000000;
    r.offset_ns = (i * 37 % 101) - 50;
    r.servo_state = i < 2 ? i : 2;
    r.freq_ppb = -3000 - i;
    r.delay_ns = 500 + i % 5;
    if (i % 2 == 0) {
      r.kind = PtpLineKind::kMasterOffset;
      r.program = "ptp4l";
    } else {
      r.kind = PtpLineKind::kPhc2sysOffset;
      r.program = "phc2sys";
      r.clock = "CLOCK_REALTIME";
      r.source_label = "phc";
    }
    recs.push_back(r);
  }
  const std::string text = WritePtpLog(recs);
  auto p = Parse(text);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.rejected, 0);
  ASSERT_EQ(p.log->records.size(), recs.size());
  for (size_t i = 0; i < recs.size(); ++i) {
    const auto& a = recs[i];
    const auto& b = p.log->records[i];
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.program, b.program);
    EXPECT_EQ(a.monotonic_ns, b.monotonic_ns);
    EXPECT_EQ(a.offset_ns, b.offset_ns);
    EXPECT_EQ(a.servo_state, b.servo_state);
    EXPECT_EQ(a.freq_ppb, b.freq_ppb);
    EXPECT_EQ(a.delay_ns, b.delay_ns);
    EXPECT_EQ(a.clock, b.clock);
    EXPECT_EQ(a.source_label, b.source_label);
  }
  EXPECT_EQ(WritePtpLog(p.log->records), text);
  // The sync points carry the convention ref = local - offset.
  for (const auto& sp : p.log->sync_points) {
    EXPECT_EQ(sp.ref_ns, sp.local_ns - static_cast<int64_t>(sp.offset_ns));
  }
}

// ---------------------------------------------------------------------------------------------
// Bad input.

TEST(LinuxPtpBad, EmptyGarbageAndForeignTextAreErrors) {
  static const char kBinary[] =
      "\x7f"
      "ELF\x02\x01\x01\x00\x00\x00\n\xff\xfe\n";
  for (const std::string& text : {std::string(), std::string("\n  \n"), std::string("hello\nworld\n"),
                                  std::string(kBinary, sizeof(kBinary) - 1)}) {
    auto p = Parse(text);
    EXPECT_FALSE(p.log.ok());
  }
}

TEST(LinuxPtpBad, MalformedSamplesRejectedOthersKept) {
  const std::string text =
      "ptp4l[10.000]: master offset abc s2 freq +1 path delay 5\n"                   // not a number
      "ptp4l[10.125]: master offset 5 s2 freq\n"                                     // truncated
      "ptp4l[10.250]: master offset 5 sX freq +1 path delay 5\n"                     // bad state
      "ptp4l[10.375]: master offset 5 s2 freq nan path delay 5\n"                    // NaN
      "ptp4l[10.500]: master offset 99999999999999999999 s2 freq +1 path delay 5\n"  // > int64
      "ptp4l[10.625]: master offset 5 s2 freq 1e300 path delay 5\n"                  // huge freq
      "phc2sys[10.750]: CLOCK_REALTIME phc offset 12 s2 freq +1 delay x\n"           // bad delay
      "ptp4l[10.875]: rms abc max 3\n"                                               // bad summary
      "ptp4l[11.000]: port 1: link down\n"                                           // other: kept
      "ptp4l[11.125]: something we do not know\n"                                    // other: kept
      "ptp4l[11.250]: master offset 7 s2 freq +1 path delay 5\n"                     // good
      "ptp4l[1.2.3]: master offset 7 s2 freq +1 path delay 5\n"                      // bad time
      "ptp4l[1.2.3]: hello\n";                                                       // other, whole
  auto p = Parse(text);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.counts.read, 13);
  EXPECT_EQ(p.counts.accepted, 4);
  EXPECT_EQ(p.counts.rejected, 9) << Reasons(p.diag);
  EXPECT_EQ(p.log->records.back().message, "ptp4l[1.2.3]: hello");
  EXPECT_EQ(p.log->records.back().program, "");
  const std::string reasons = Reasons(p.diag);
  EXPECT_NE(reasons.find("offset 'abc' is not an integer"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("has 5 fields"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("servo state 'sX'"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("freq 'nan'"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("summary rms 'abc'"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("malformed monotonic time"), std::string::npos) << reasons;
  EXPECT_EQ(p.log->sync_points.size(), 1u);
  EXPECT_EQ(p.log->records[0].kind, PtpLineKind::kOther);
}

// A bracket that is neither a time nor a process id (12 digits: found by the fuzzer) is not a
// prefix: a sample behind it is rejected, any other line is kept whole and writes back the same.
TEST(LinuxPtpBad, OverlongProcessIdIsNotAPrefix) {
  const std::string text =
      "ptp4l[123456789012]: master offset 7 s2 freq +1 path delay 5\n"
      "phc2sys[709098134024]: CLOCK_REALTIME phptp4l[48.343]: master offset 5 s2 freq +83715 path delay 484\n"
      "ptp4l[11.250]: master offset 7 s2 freq +1 path delay 5\n";
  auto p = Parse(text);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.counts.read, 3);
  EXPECT_EQ(p.counts.rejected, 1) << Reasons(p.diag);
  EXPECT_NE(Reasons(p.diag).find("malformed monotonic time or process id"), std::string::npos) << Reasons(p.diag);
  ASSERT_EQ(p.log->records.size(), 2u);
  EXPECT_EQ(p.log->records[0].kind, PtpLineKind::kOther);
  EXPECT_EQ(p.log->records[0].program, "");
  auto again = Parse(WritePtpLog(p.log->records));
  ASSERT_TRUE(again.log.ok()) << again.log.error().ToString();
  ASSERT_EQ(again.log->records.size(), 2u);
  EXPECT_EQ(again.log->records[0].kind, PtpLineKind::kOther);
  EXPECT_EQ(again.log->records[1].kind, PtpLineKind::kMasterOffset);
  EXPECT_EQ(WritePtpLog(again.log->records), WritePtpLog(p.log->records));
}

TEST(LinuxPtpBad, BackwardsTimeDuplicatesAndMissingTime) {
  const std::string text =
      "ptp4l[20.000]: master offset 1 s2 freq +1 path delay 5\n"
      "ptp4l[19.000]: master offset 2 s2 freq +1 path delay 5\n"          // restart or paste: backwards
      "ptp4l[19.000]: master offset 2 s2 freq +1 path delay 5\n"          // duplicate
      "phc2sys[5.000]: CLOCK_REALTIME phc offset 3 s2 freq +1 delay 5\n"  // another program
      "master offset 4 s2 freq +1 path delay 5\n";                        // no prefix: no time
  auto p = Parse(text);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.accepted, 5);
  EXPECT_EQ(p.counts.rejected, 0);
  EXPECT_EQ(p.diag.warnings_total(), 3) << Reasons(p.diag);
  const std::string reasons = Reasons(p.diag);
  EXPECT_NE(reasons.find("monotonic time goes backwards (by 1.000 s)"), std::string::npos);
  EXPECT_NE(reasons.find("repeats line 2"), std::string::npos);
  EXPECT_NE(reasons.find("sample without a monotonic time"), std::string::npos);
  EXPECT_EQ(p.log->sync_points.size(), 4u);
}

TEST(LinuxPtpBad, OffsetOverflowingTheAxisRejected) {
  const std::string text =
      "ptp4l[8999999999.999]: master offset -9223372036854775807 s2 freq +1 path delay 5\n"
      "ptp4l[99999999999.000]: master offset 1 s2 freq +1 path delay 5\n"
      // 5.7 years: not exact as a double offset, and no clock offset (found by the fuzzer).
      "ptp4l[2677.908]: master offset 181438906121269846 s2 freq +1000000 path delay 7\n";
  auto p = Parse(text);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.rejected, 3) << Reasons(p.diag);
  EXPECT_NE(Reasons(p.diag).find("exceeds 2^53 ns"), std::string::npos) << Reasons(p.diag);
  EXPECT_TRUE(p.log->sync_points.empty());
}

// ---------------------------------------------------------------------------------------------
// Real files in testdata/real/linuxptp (testdata/real/PROVENANCE.md).

const std::string kRealDir = std::string(TOPOSCOPE_TESTDATA) + "/real/linuxptp/";

// fmadio/public issue 274: 12 ptp4l summary lines with delay; each is a clock-quality point.
TEST(PtpRealTestdata, Fmadio274SummariesWithDelay) {
  const std::string path = kRealDir + "fmadio_public_issue274_ptp4l_summary_rms_max_freq_delay.log";
  auto p = Parse(Slurp(path), path);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.read, 12);
  EXPECT_EQ(p.counts.accepted, 12);
  EXPECT_EQ(p.counts.rejected, 0) << Reasons(p.diag);
  ASSERT_EQ(p.log->sync_points.size(), 12u);
  const auto& first = p.log->sync_points.front();
  EXPECT_EQ(first.source, "ptp4l-summary");
  EXPECT_EQ(first.local_ns, 104370000000LL);
  EXPECT_DOUBLE_EQ(first.offset_rms_ns, 35);
  EXPECT_DOUBLE_EQ(first.offset_max_ns, 69);
  EXPECT_DOUBLE_EQ(first.freq_ppb, -75896);
  EXPECT_DOUBLE_EQ(first.freq_sd_ppb, 44);
  EXPECT_EQ(p.log->records.front().delay_mean_ns, 9183);
  const auto& last = p.log->sync_points.back();
  EXPECT_DOUBLE_EQ(last.offset_rms_ns, 97);
  EXPECT_DOUBLE_EQ(last.offset_max_ns, 222);
  EXPECT_DOUBLE_EQ(last.freq_sd_ppb, 133);
}

// NatLabRockies/MODAQ2 docs: 4 phc2sys summaries (`-u 2`) with the clock name first.
TEST(PtpRealTestdata, Modaq2Phc2sysSummaries) {
  const std::string path = kRealDir + "modaq2_docs_phc2sys_u2_clock_realtime_summaries.log";
  auto p = Parse(Slurp(path), path);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.accepted, 4);
  EXPECT_EQ(p.counts.rejected, 0) << Reasons(p.diag);
  ASSERT_EQ(p.log->sync_points.size(), 4u);
  for (const auto& sp : p.log->sync_points) {
    EXPECT_EQ(sp.source, "phc2sys-summary");
    EXPECT_EQ(sp.clock, "CLOCK_REALTIME");
    EXPECT_EQ(sp.ref_ns, kNoTime);
  }
  EXPECT_DOUBLE_EQ(p.log->sync_points[3].offset_rms_ns, 464);
  EXPECT_DOUBLE_EQ(p.log->sync_points[3].offset_max_ns, 554);
  EXPECT_DOUBLE_EQ(p.log->sync_points[3].freq_ppb, -9514);
  EXPECT_DOUBLE_EQ(p.log->records[2].delay_sd_ns, 36);
}

// nxp-archive/openil issue 61 (turn 14): 18 locked ptp4l summaries, rms 2-5 ns.
TEST(PtpRealTestdata, Openil61Summaries) {
  const std::string path = kRealDir + "openil_issue61_turn14_ptp4l_summary_s2_PARTIAL.log";
  auto p = Parse(Slurp(path), path);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.accepted, 18);
  EXPECT_EQ(p.counts.rejected, 0) << Reasons(p.diag);
  ASSERT_EQ(p.log->sync_points.size(), 18u);
  EXPECT_DOUBLE_EQ(p.log->sync_points[8].offset_max_ns, 11);
  EXPECT_DOUBLE_EQ(p.log->sync_points[8].freq_ppb, 14426);
}

// nxp-archive/openil_linuxptp issue 9: 7 s2 samples with freq pinned at -31000000 ppb.
TEST(PtpRealTestdata, OpenilLinuxptp9FreqPinned) {
  const std::string path = kRealDir + "openil_linuxptp_issue9_ptp4l_freq_pinned_-31000000_PARTIAL.log";
  auto p = Parse(Slurp(path), path);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.accepted, 7);
  EXPECT_EQ(p.counts.rejected, 0) << Reasons(p.diag);
  ASSERT_EQ(p.log->sync_points.size(), 7u);
  for (const auto& sp : p.log->sync_points) EXPECT_DOUBLE_EQ(sp.freq_ppb, -31000000);
  EXPECT_DOUBLE_EQ(p.log->sync_points.front().offset_ns, -23587382);
  EXPECT_DOUBLE_EQ(p.log->sync_points.back().offset_ns, -23614100);
}

// nxp-archive/openil_linuxptp issue 15: s0 samples whose offset (1.6e18 ns, 51 years) is beyond 2^53 ns:
// each is rejected with its line and reason; the port lines are kept.
TEST(PtpRealTestdata, OpenilLinuxptp15OffsetsBeyondTheAxisAreRejected) {
  const std::string path = kRealDir + "openil_linuxptp_issue15_ptp4l_s0_freq_pinned_offset_beyond_2e53_PARTIAL.log";
  auto p = Parse(Slurp(path), path);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.read, 15);
  EXPECT_EQ(p.counts.accepted, 5);
  EXPECT_EQ(p.counts.rejected, 10);
  EXPECT_TRUE(p.log->sync_points.empty());
  ASSERT_FALSE(p.diag.items().empty());
  const std::string first = p.diag.items().front().ToString();
  EXPECT_NE(first.find(":6"), std::string::npos) << first;
  EXPECT_NE(first.find("exceeds 2^53 ns"), std::string::npos) << first;
}

// The other way round (a later linuxptp_fuzz find): a tag, a blank, then prefix-shaped text with a
// bad time before a real prefix. Read as text; run together on write, the real prefix further on
// would be found instead, so that record is written spaced, as it was read.
TEST(PtpWrite, TagBeforeABadPrefixIsWrittenSpacedWhenRunTogetherWouldReadOtherwise) {
  const std::string text =
      "ptp4l[48.100]: master offset          4 s2 freq  +83714 path delay       485\n"
      "[t]  x[1.2q]: text ptp4l[48.343]: master offset          5 s2 freq  +83715 path delay       484\n";
  Diagnostics diag;
  ReadCounts counts;
  auto log = ParsePtpLog(text, "in", "h", diag, counts);
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->records.size(), 2u);
  EXPECT_EQ(log->records[1].kind, PtpLineKind::kOther);
  EXPECT_EQ(log->records[1].tag, "t");
  const std::string written = WritePtpLog(log->records);
  EXPECT_NE(written.find("\n[t] x[1.2q]: text ptp4l[48.343]"), std::string::npos) << written;
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = ParsePtpLog(written, "rw", "h", diag2, counts2);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(counts2.rejected, 0);
  ASSERT_EQ(again->records.size(), 2u);
  EXPECT_EQ(again->records[1].kind, PtpLineKind::kOther);
  EXPECT_EQ(WritePtpLog(again->records), written);
}

}  // namespace linuxptp_test
}  // namespace toposcope::formats

namespace toposcope::formats {
namespace linuxptp_test {

// A line that starts with a tag run into text shaped like a prefix with a bad time (found by a long
// linuxptp_fuzz run): read as text with a tag, it is written back the same way, not as a
// `p4l[...]:` prefix that would now be rejected.
TEST(PtpWrite, TagRunIntoAPrefixLikeTextStaysText) {
  const std::string text =
      "ptp4l[4851.948]: rms    2 max    4 freq +14422 +/-   3 delay   237 +/-   0\n"
      "[rank0]p4l[zz4857.956]: rms    3 max    5 freq +14421 +/-   4 delay   236 +/-   0\n"
      "[rank0] plain text after a tag\n";
  Diagnostics diag;
  ReadCounts counts;
  auto log = ParsePtpLog(text, "in", "h", diag, counts);
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(counts.rejected, 0);
  ASSERT_EQ(log->records.size(), 3u);
  EXPECT_EQ(log->records[1].tag, "rank0");
  const std::string written = WritePtpLog(log->records);
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = ParsePtpLog(written, "rw", "h", diag2, counts2);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(counts2.rejected, 0) << written;
  ASSERT_EQ(again->records.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(again->records[i].kind, log->records[i].kind);
  EXPECT_EQ(WritePtpLog(again->records), written);
}

}  // namespace linuxptp_test
}  // namespace toposcope::formats
