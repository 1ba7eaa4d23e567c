// Tests of formats/fabric/iblinkinfo: golden on real iblinkinfo output (testdata/real/iblinkinfo, with
// testdata/real/PROVENANCE.md) and bad inputs.
#include "toposcope/formats/fabric/iblinkinfo.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>

namespace toposcope::formats {
namespace iblinkinfo_test {

const std::string kQdr = std::string(TOPOSCOPE_TESTDATA) +
                         "/real/iblinkinfo/qdr_connectx3_infiniscale4_18port_down_polling_tsinghua_dbx1000_readme_excerpt.txt";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Reasons(const Diagnostics& diag, Severity s = Severity::kRejected) {
  std::string out;
  for (const Diagnostic& d : diag.items()) {
    if (d.severity == s) out += std::to_string(d.line) + ": " + d.reason + "\n";
  }
  return out;
}

// Nine CAs on one 18-port Infiniscale-IV switch, 4X QDR; the switch's free ports are Down/Polling.
// Every CA line has the switch line of the other end (same LIDs and ports).
TEST(IbLinkInfoReal, QdrSwitchWithNineCasBothEnds) {
  Diagnostics diag;
  auto r = ParseIbLinkInfo(Slurp(kQdr), "q", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->counts.read, 36);
  EXPECT_EQ(r->counts.rejected, 0) << Reasons(diag);
  ASSERT_EQ(r->ports.size(), 27U);
  std::map<std::pair<int, int>, const IbLinkInfoPort*> by_end;
  int switch_ports = 0, down = 0;
  for (const IbLinkInfoPort& p : r->ports) {
    by_end[{p.lid, p.port}] = &p;
    if (p.switch_node) {
      ++switch_ports;
      EXPECT_EQ(p.node_guid, "0x0002c902004b2678");
      EXPECT_EQ(p.node_desc, "Infiniscale-IV Mellanox Technologies");
    }
    if (!p.Linked()) {
      ++down;
      EXPECT_EQ(p.state, "Down");
      EXPECT_EQ(p.phys_state, "Polling");
      EXPECT_EQ(p.width, "");
      continue;
    }
    EXPECT_EQ(p.width, "4X");
    EXPECT_EQ(p.speed, "QDR");
    EXPECT_DOUBLE_EQ(p.rate_gbps, 40);
    EXPECT_EQ(p.state, "Active");
    EXPECT_EQ(p.phys_state, "LinkUp");
  }
  EXPECT_EQ(switch_ports, 18);
  EXPECT_EQ(down, 9);
  for (const IbLinkInfoPort& p : r->ports) {
    if (!p.Linked()) continue;
    const auto it = by_end.find({p.peer_lid, p.peer_port});
    if (p.switch_node && p.peer_desc == "teaker-10 HCA-1") {
      ASSERT_NE(it, by_end.end());
    }
    if (it == by_end.end()) continue;
    EXPECT_EQ(it->second->peer_lid, p.lid) << p.line;
    EXPECT_EQ(it->second->peer_port, p.port) << p.line;
  }
  const IbLinkInfoPort& nine_b = *by_end.at({4, 2});
  EXPECT_EQ(nine_b.node_desc, "teaker-9 HCA-1");
  EXPECT_EQ(nine_b.port_guid, "0xf45214030091ba52");
  EXPECT_EQ(nine_b.peer_port, 14);
  EXPECT_EQ(nine_b.peer_desc, "Infiniscale-IV Mellanox Technologies");
}

// Each port line knows its node's header line; the file is recognised by its content.
TEST(IbLinkInfoReal, PortsKnowTheirHeaderLine) {
  Diagnostics diag;
  const std::string text = Slurp(kQdr);
  auto r = ParseIbLinkInfo(text, "q", diag);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->source, "q");
  ASSERT_GE(r->ports.size(), 9u);
  EXPECT_EQ(r->ports[0].node_line, 1);
  EXPECT_EQ(r->ports[7].node_line, 13);  // teaker-9's second port, under the header of line 13
  EXPECT_EQ(r->ports[8].node_line, 16);  // the switch
  EXPECT_TRUE(LooksLikeIbLinkInfo(text));
  EXPECT_TRUE(LooksLikeIbLinkInfo("[root@n1 ~]# iblinkinfo\n" + text));
  EXPECT_FALSE(LooksLikeIbLinkInfo("CA: x:\nno port lines\n"));
}

TEST(IbLinkInfo, SpeedsFromTheLaneRate) {
  Diagnostics diag;
  auto r = ParseIbLinkInfo(
      "Switch: 0xec0d9a030002b810 SwitchIB Mellanox Technologies:\n"
      "         496   20[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>     612    1[  ] \"thing4 HCA-1\" ( )\n"
      "         496   21[  ] ==( 4X 106.25 Gbps Active/  LinkUp)==>  91   1[  ] \"node17 mlx5_0\" ( )\n"
      "         496   22[  ] ==( 4X  10.0 Gbps (FDR10) Active/  LinkUp)==>     145    1[  ] \"gpfs HCA-1\" ( )\n",
      "s", diag);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->ports.size(), 3U) << Reasons(diag);
  EXPECT_EQ(r->ports[0].speed, "EDR");
  EXPECT_DOUBLE_EQ(r->ports[0].rate_gbps, 100);
  EXPECT_EQ(r->ports[1].speed, "NDR");
  EXPECT_DOUBLE_EQ(r->ports[1].rate_gbps, 400);
  EXPECT_EQ(r->ports[2].speed, "FDR10");
  EXPECT_DOUBLE_EQ(r->ports[2].rate_gbps, 40);
}

TEST(IbLinkInfo, BadInputsAndLinesGiveTheirReason) {
  Diagnostics d0;
  EXPECT_FALSE(ParseIbLinkInfo("", "e", d0).ok());
  EXPECT_FALSE(ParseIbLinkInfo(std::string("\x00\x01\x02 x", 6), "b", d0).ok());
  EXPECT_FALSE(ParseIbLinkInfo("hello\nworld\n", "g", d0).ok());
  Diagnostics diag;
  auto r = ParseIbLinkInfo(
      "           2    1[  ] ==( 4X 10.0 Gbps Active/  LinkUp)==>  3    1[  ] \"a\" ( )\n"  // 1: no header
      "[root@node1 ~]# iblinkinfo\n"                                                        // 2: prompt
      "Switch: 0x0002c902004b2678 Infiniscale-IV Mellanox Technologies:\n"
      "           2    2[  ] ==( 5Z 10.0 Gbps Active/  LinkUp)==>  3    1[  ] \"a\" ( )\n"  // 4: width
      "       70000    3[  ] ==( 4X 10.0 Gbps Active/  LinkUp)==>  3    1[  ] \"a\" ( )\n"  // 5: LID
      "           2    4[  ] ==( 4X fast Gbps Active/  LinkUp)==>  3    1[  ] \"a\" ( )\n"  // 6: rate
      "           2    5[  ] ==( 4X 10.0 Gbps Active/  LinkUp)==>  3    1[  ]\n"            // 7: no desc
      "some text\n"                                                                        // 8: garbage
      "           2    6[  ] ==( 4X 10.0 Gbps Active/  LinkUp)==>  3    1[  ] \"a\" ( )\n",
      "t", diag);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->ports.size(), 1U);
  EXPECT_EQ(r->counts.read, 8);
  EXPECT_EQ(r->counts.rejected, 6) << Reasons(diag);
  EXPECT_EQ(diag.RejectedFor("t"), 6);
  const std::string why = Reasons(diag);
  for (const char* want : {"1: port line before any", "4: width '5Z' is not", "5: LID '70000' is not",
                           "6: rate 'fast' is not", "7: no quoted peer description", "8: not an iblinkinfo port line"}) {
    EXPECT_NE(why.find(want), std::string::npos) << want << "\n" << why;
  }
  EXPECT_NE(Reasons(diag, Severity::kWarning).find("2: shell prompt running iblinkinfo"), std::string::npos);
}

}  // namespace iblinkinfo_test
}  // namespace toposcope::formats
