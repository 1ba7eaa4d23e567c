// Tests of formats/fabric/ibqueryerrors: golden on real ibqueryerrors output
// (testdata/real/ibqueryerrors, with testdata/real/PROVENANCE.md), a healthy fabric's summary alone,
// bad inputs with file and line.
#include "toposcope/formats/fabric/ibqueryerrors.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "toposcope/formats/sniff.h"

namespace toposcope::formats {
namespace ibqueryerrors_test {

const std::string kReal = std::string(TOPOSCOPE_TESTDATA) + "/real/ibqueryerrors/";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Rejected(const Diagnostics& diag) {
  std::string out;
  for (const Diagnostic& d : diag.items()) {
    if (d.severity == Severity::kRejected) out += d.source + ":" + std::to_string(d.line) + ": " + d.reason + "\n";
  }
  return out;
}

// An SX6036 switch and three adapters: port ALL, port 0, PortXmitWait at its 32-bit maximum.
TEST(IbQueryErrorsReal, SwitchAndAdaptersFromAMailingListPost) {
  const std::string text = Slurp(kReal + "ibqueryerrors_sx6036_ca_and_switch_port_all_max_xmitwait_mailing_list_excerpt.txt");
  EXPECT_EQ(SniffFormat(text).format, FileFormat::kIbQueryErrors);
  Diagnostics diag;
  auto r = ParseIbQueryErrors(text, "ml", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->tool, "ibqueryerrors");
  EXPECT_EQ(r->counts.read, 19);
  EXPECT_EQ(r->counts.rejected, 0) << Rejected(diag);
  ASSERT_EQ(r->blocks.size(), 15U);
  const PortCounterBlock& ca = r->blocks[0];
  EXPECT_EQ(ca.node_desc, "dl380g7 mlx4_0");
  EXPECT_EQ(ca.node_guid, "");
  EXPECT_EQ(ca.port_guid, "0x7cfe900300179b31");
  EXPECT_EQ(ca.port, 1);
  EXPECT_EQ(ca.lid, -1);
  EXPECT_EQ(ca.counters.at("PortXmitWait"), 4294967295U);
  const PortCounterBlock& all = r->blocks[3];
  EXPECT_EQ(all.node_guid, "0x2c903006e29b0");
  EXPECT_EQ(all.node_desc, "MF0;ys23ib4:SX6036/U1");
  EXPECT_EQ(all.port, 255);
  EXPECT_EQ(all.counters.at("LinkDownedCounter"), 48U);
  EXPECT_EQ(all.counters.size(), 6U);
  const PortCounterBlock& p5 = r->blocks[9];
  EXPECT_EQ(p5.port, 5);
  EXPECT_EQ(p5.counters.at("SymbolErrorCounter"), 65535U);
  EXPECT_EQ(p5.counters.at("PortXmitDiscards"), 649U);
  EXPECT_EQ(p5.line, 14);
  EXPECT_EQ(r->blocks.back().node_desc, "rd240 mlx4_0");
}

// ibsim's leaf with symbol errors and link-downed events on one port, after a root prompt.
TEST(IbQueryErrorsReal, IbsimLeafPort33) {
  const std::string text = Slurp(kReal + "ibqueryerrors_ibsim_leaf_port33_symbol_and_link_downed_tutorial_excerpt.txt");
  EXPECT_EQ(SniffFormat(text).format, FileFormat::kIbQueryErrors);
  Diagnostics diag;
  auto r = ParseIbQueryErrors(text, "sim", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->counts.read, 3);
  EXPECT_EQ(r->counts.rejected, 0) << Rejected(diag);
  ASSERT_EQ(r->blocks.size(), 2U);
  EXPECT_EQ(r->blocks[1].node_desc, "hxa-su1-leaf-r1");
  EXPECT_EQ(r->blocks[1].port, 33);
  EXPECT_EQ(r->blocks[1].counters.at("LinkDownedCounter"), 3U);
}

TEST(IbQueryErrors, HealthyFabricPrintsTheSummaryAlone) {
  Diagnostics diag;
  auto r = ParseIbQueryErrors("\n## Summary: 16 nodes checked, 0 bad nodes found\n##          226 ports checked, 0 ports have errors beyond threshold\n",
                              "ok", diag);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->blocks.empty());
  EXPECT_EQ(r->counts.read, 0);
  EXPECT_FALSE(ParseIbQueryErrors("hello\n", "x", diag).ok());
}

TEST(IbQueryErrors, BadLinesNameFileAndLine) {
  const std::string text =
      "   GUID 0x1 port 1: [LinkDownedCounter == 1]\n"
      "Errors for 0x10 leaf-without-quotes\n"
      "Errors for 0x10 \"leaf1\"\n"
      "   GUID 0x10 port 300: [LinkDownedCounter == 1]\n"
      "   GUID 0x10 port 2: [LinkDownedCounter = 1]\n"
      "   GUID 0x10 port 3: [LinkDownedCounter == 2] [SymbolErrorCounter == 7]\n"
      "what is this\n";
  Diagnostics diag;
  auto r = ParseIbQueryErrors(text, "bad.txt", diag);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->counts.Balanced());
  EXPECT_EQ(r->counts.accepted, 2);
  EXPECT_EQ(Rejected(diag),
            "bad.txt:1: port line before any `Errors for` header\n"
            "bad.txt:2: header without a quoted node description\n"
            "bad.txt:4: port '300' is not 0..255 or ALL\n"
            "bad.txt:5: counter 'LinkDownedCounter = 1' is not `<Counter> == <number>`\n"
            "bad.txt:7: not ibqueryerrors output (no `Errors for` header or `GUID 0x.. port N: [...]` line)\n");
  ASSERT_EQ(r->blocks.size(), 1U);
  EXPECT_EQ(r->blocks[0].counters.at("SymbolErrorCounter"), 7U);
}

}  // namespace ibqueryerrors_test
}  // namespace toposcope::formats
