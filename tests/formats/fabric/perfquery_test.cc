// Tests of formats/fabric/perfquery: golden on real perfquery output (testdata/real/perfquery, with
// testdata/real/PROVENANCE.md), timestamps and old counter names, bad inputs (file and line named),
// detection, and the writer read back.
#include "toposcope/formats/fabric/perfquery.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "toposcope/formats/sniff.h"

namespace toposcope::formats {
namespace perfquery_test {

const std::string kReal = std::string(TOPOSCOPE_TESTDATA) + "/real/perfquery/";
const std::string kIssue16 = kReal + "perfquery_x_rhel75_all_zero_prompt_lid10_infiniband_diags_issue16.txt";
const std::string kNetdata = kReal + "perfquery_x_lid21_header_wrapped_by_email_netdata_issue2620_excerpt.txt";
const std::string kIbsim = kReal + "perfquery_plain_no_header_command_line_lid5_port1_ibsim_pr1_excerpt.txt";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Lines(const Diagnostics& diag, Severity s) {
  std::string out;
  for (const Diagnostic& d : diag.items()) {
    if (d.severity == s) out += d.source + ":" + std::to_string(d.line) + ": " + d.reason + "\n";
  }
  return out;
}

// RHEL 7.5 `perfquery -x 10 1` after a root prompt: one extended block, 25 counters, all zero.
TEST(PerfqueryReal, ExtendedAllZeroAfterRootPrompt) {
  const std::string text = Slurp(kIssue16);
  EXPECT_EQ(SniffFormat(text).format, FileFormat::kPerfquery);
  Diagnostics diag;
  auto r = ParsePerfquery(text, "i16", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->counts.read, 26);
  EXPECT_EQ(r->counts.rejected, 0) << Lines(diag, Severity::kRejected);
  EXPECT_TRUE(r->counts.Balanced());
  ASSERT_EQ(r->blocks.size(), 1U);
  const PortCounterBlock& b = r->blocks[0];
  EXPECT_EQ(b.lid, 10);
  EXPECT_EQ(b.port, 1);
  EXPECT_TRUE(b.extended);
  EXPECT_EQ(b.named_by, "header");
  EXPECT_EQ(b.cap_mask, "0x5300");
  EXPECT_EQ(b.line, 2);
  EXPECT_FALSE(b.has_time);
  EXPECT_EQ(b.counters.size(), 25U);
  EXPECT_EQ(b.counters.at("LinkDownedCounter"), 0U);
  EXPECT_EQ(b.counters.at("PortXmitWait"), 0U);
  EXPECT_EQ(b.counters.at("QP1Dropped"), 0U);
  EXPECT_NE(Lines(diag, Severity::kWarning).find("i16:1: perfquery command line"), std::string::npos);
}

// netdata issue 2620: the header's CapMask wrapped by the mail client onto a line of its own, data
// counters in the trillions, and the excerpt cut inside `VL15Dropped` (that line rejected).
TEST(PerfqueryReal, WrappedHeaderAndCutLastLine) {
  const std::string text = Slurp(kNetdata);
  EXPECT_EQ(SniffFormat(text).format, FileFormat::kPerfquery);
  Diagnostics diag;
  auto r = ParsePerfquery(text, "nd", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->counts.read, 24);
  EXPECT_EQ(r->counts.accepted, 23);
  EXPECT_EQ(r->counts.rejected, 1);
  EXPECT_EQ(Lines(diag, Severity::kRejected),
            "nd:25: not perfquery output (no `# Port counters:` header or `<Name>:....<value>` counter)\n");
  EXPECT_NE(Lines(diag, Severity::kWarning).find("nd:2: the header's CapMask wrapped"), std::string::npos);
  ASSERT_EQ(r->blocks.size(), 1U);
  const PortCounterBlock& b = r->blocks[0];
  EXPECT_EQ(b.lid, 21);
  EXPECT_EQ(b.port, 1);
  EXPECT_EQ(b.cap_mask, "0x1600");
  EXPECT_EQ(b.counters.at("PortRcvData"), 2341975277576ULL);
  EXPECT_EQ(b.counters.at("PortMulticastRcvPkts"), 6779U);
  EXPECT_EQ(b.counters.at("ExcessiveBufferOverrunErrors"), 0U);
  EXPECT_EQ(b.counters.count("VL15Dropped"), 0U);
}

// ibsim pull request 1: `perfquery 5 1` under ibsim printed no header; the command line names the
// LID and port.
TEST(PerfqueryReal, NoHeaderNamedByCommandLine) {
  const std::string text = Slurp(kIbsim);
  EXPECT_EQ(SniffFormat(text).format, FileFormat::kPerfquery);
  Diagnostics diag;
  auto r = ParsePerfquery(text, "ibsim", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->counts.read, 10);
  EXPECT_EQ(r->counts.rejected, 0) << Lines(diag, Severity::kRejected);
  ASSERT_EQ(r->blocks.size(), 1U);
  EXPECT_EQ(r->blocks[0].lid, 5);
  EXPECT_EQ(r->blocks[0].port, 1);
  EXPECT_EQ(r->blocks[0].named_by, "command line");
  EXPECT_FALSE(r->blocks[0].extended);
  EXPECT_EQ(r->blocks[0].line, 2);
  EXPECT_EQ(r->blocks[0].counters.at("PortXmitConstraintErrors"), 0U);
}

// Older perfquery's short names read under today's; `timestamp` lines date the block before them.
TEST(Perfquery, OldNamesAndTimestamps) {
  Diagnostics diag;
  auto r = ParsePerfquery(Slurp(std::string(TOPOSCOPE_TESTDATA) + "/perfquery/two_blocks_timestamps_old_names.txt"),
                          "t", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->counts.rejected, 0) << Lines(diag, Severity::kRejected);
  ASSERT_EQ(r->blocks.size(), 2U);
  const PortCounterBlock& a = r->blocks[0];
  EXPECT_EQ(a.port, 7);
  EXPECT_EQ(a.counters.at("SymbolErrorCounter"), 12U);
  EXPECT_EQ(a.counters.at("LinkErrorRecoveryCounter"), 3U);
  EXPECT_EQ(a.counters.at("LinkDownedCounter"), 2U);
  EXPECT_EQ(a.counters.at("PortXmitData"), 905972985U);
  EXPECT_EQ(a.counters.at("PortXmitWait"), 41U);
  EXPECT_TRUE(a.has_time);
  EXPECT_DOUBLE_EQ(a.time_s, 1700000000.25);
  EXPECT_TRUE(r->blocks[1].has_time);
  EXPECT_DOUBLE_EQ(r->blocks[1].time_s, 1700000000.26);
}

TEST(Perfquery, BadLinesNameFileAndLine) {
  const std::string text =
      "# Port counters: Lid 3 port 7\n"
      "LinkDownedCounter:...............x12\n"
      "LinkDownedCounter:...............4\n"
      "LinkDownedCounter:...............5\n"
      "# Port counters: Lid 70000 port 1\n"
      "# Port counters: Lid 3 port\n"
      "hello world\n";
  Diagnostics diag;
  auto r = ParsePerfquery(text, "bad.txt", diag);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->counts.Balanced());
  EXPECT_EQ(r->counts.accepted, 2);
  EXPECT_EQ(r->counts.rejected, 5);
  EXPECT_EQ(Lines(diag, Severity::kRejected),
            "bad.txt:2: counter LinkDownedCounter: value 'x12' is not a number\n"
            "bad.txt:4: counter LinkDownedCounter printed twice in one block\n"
            "bad.txt:5: LID '70000' is not 0..65535\n"
            "bad.txt:6: header without `Lid <n> port <n>`\n"
            "bad.txt:7: not perfquery output (no `# Port counters:` header or `<Name>:....<value>` counter)\n");
  ASSERT_EQ(r->blocks.size(), 1U);
  EXPECT_EQ(r->blocks[0].counters.at("LinkDownedCounter"), 4U);
}

TEST(Perfquery, NoCountersFailsAndBinaryFails) {
  Diagnostics diag;
  auto r = ParsePerfquery("just text\n", "x.txt", diag);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().ToString().find("x.txt"), std::string::npos);
  EXPECT_FALSE(ParsePerfquery(std::string("\0\0\0\x01\x02", 5), "b", diag).ok());
  EXPECT_NE(SniffFormat("PortSelect: 1\nhello\n").format, FileFormat::kPerfquery);
}

TEST(Perfquery, WriterReadsBack) {
  PortCounterBlock b;
  b.lid = 12;
  b.port = 33;
  b.extended = true;
  b.cap_mask = "0x5a00";
  b.counters = {{"PortSelect", 33}, {"CounterSelect", 0}, {"LinkDownedCounter", 4}, {"PortXmitWait", 123456},
                {"PortXmitData", 1ULL << 40}, {"VendorThing", 9}};
  const std::string text = WritePerfqueryBlock(b);
  EXPECT_EQ(text.substr(0, text.find('\n')), "# Port extended counters: Lid 12 port 33 (CapMask: 0x5a00)");
  EXPECT_NE(text.find("PortSelect:......................33\n"), std::string::npos);
  EXPECT_NE(text.find("CounterSelect:...................0x0000\n"), std::string::npos);
  Diagnostics diag;
  auto r = ParsePerfquery(text, "w", diag);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->counts.rejected, 0);
  ASSERT_EQ(r->blocks.size(), 1U);
  EXPECT_EQ(r->blocks[0].counters, b.counters);
  EXPECT_EQ(r->blocks[0].cap_mask, "0x5a00");
}

}  // namespace perfquery_test
}  // namespace toposcope::formats
