// Tests of analysis/fabric/fabric_findings: down ports where the peer side or the switch's tier
// shows a link, links slower than their tier's usual width x speed, and mismatched link ends, on a
// small two-tier fabric written as iblinkinfo prints it.
#include "toposcope/analysis/fabric/fabric_findings.h"

#include <gtest/gtest.h>

#include <string>

#include "toposcope/base/diagnostics.h"
#include "toposcope/formats/fabric/iblinkinfo.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {
namespace fabric_findings_test {

// Three 4-port leaves under one spine, 4X NDR (106.25 Gb/s lanes). leaf2's port 1 trained to HDR;
// leaf3's port 2 is down where both other leaves link port 2; leaf3's port 4 is down while the
// adapter h34 prints its link to it; the spine prints its end of leaf1's uplink as 2X.
const char* kTwoTier =
    "Switch: 0x00000000000000a1 leaf1:\n"
    "           1    1[  ] ==( 4X       106.25 Gbps Active/  LinkUp)==>      11    1[  ] \"h11 mlx5_0\" ( )\n"
    "           1    2[  ] ==( 4X       106.25 Gbps Active/  LinkUp)==>      12    1[  ] \"h12 mlx5_0\" ( )\n"
    "           1    3[  ] ==( 4X       106.25 Gbps Active/  LinkUp)==>       9    1[  ] \"spine\" ( )\n"
    "           1    4[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n"
    "Switch: 0x00000000000000a2 leaf2:\n"
    "           2    1[  ] ==( 4X       53.125 Gbps Active/  LinkUp)==>      21    1[  ] \"h21 mlx5_0\" ( )\n"
    "           2    2[  ] ==( 4X       106.25 Gbps Active/  LinkUp)==>      22    1[  ] \"h22 mlx5_0\" ( )\n"
    "           2    3[  ] ==( 4X       106.25 Gbps Active/  LinkUp)==>       9    2[  ] \"spine\" ( )\n"
    "           2    4[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n"
    "Switch: 0x00000000000000a3 leaf3:\n"
    "           3    1[  ] ==( 4X       106.25 Gbps Active/  LinkUp)==>      31    1[  ] \"h31 mlx5_0\" ( )\n"
    "           3    2[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n"
    "           3    3[  ] ==( 4X       106.25 Gbps Active/  LinkUp)==>       9    3[  ] \"spine\" ( )\n"
    "           3    4[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n"
    "Switch: 0x00000000000000b1 spine:\n"
    "           9    1[  ] ==( 2X       106.25 Gbps Active/  LinkUp)==>       1    3[  ] \"leaf1\" ( )\n"
    "           9    2[  ] ==( 4X       106.25 Gbps Active/  LinkUp)==>       2    3[  ] \"leaf2\" ( )\n"
    "           9    3[  ] ==( 4X       106.25 Gbps Active/  LinkUp)==>       3    3[  ] \"leaf3\" ( )\n"
    "           9    4[  ] ==(                Down/ Disabled)==>             [  ] \"\" ( )\n"
    "CA: h34 mlx5_0:\n"
    "      0x0000000000003401     34    1[  ] ==( 4X       106.25 Gbps Active/  LinkUp)==>       3    4[  ] \"leaf3\" ( )\n";

FabricReport Analyze(const std::string& text) {
  model::Dataset ds;
  Diagnostics diag;
  auto info = formats::ParseIbLinkInfo(text, "links.txt", diag);
  EXPECT_TRUE(info.ok());
  if (!info.ok()) return {};
  EXPECT_EQ(info->counts.rejected, 0);
  ds.link_infos.push_back(std::move(*info));
  return AnalyzeFabric(ds);  // runs AddFabricFindings
}

TEST(FabricFindings, DownPortsSlowLinksAndMismatchedEnds) {
  const FabricReport r = Analyze(kTwoTier);
  EXPECT_EQ(r.leaves.size(), 3u);
  EXPECT_EQ(r.spines, (std::vector<std::string>{"S-00000000000000b1"}));
  EXPECT_EQ(r.down_ports.size(), 5u);
  ASSERT_EQ(r.findings.size(), 3u);
  const FabricFinding& pattern = r.findings[0];
  EXPECT_EQ(pattern.kind, FabricFindingKind::kPortDownExpectedLink);
  EXPECT_EQ(pattern.node, "S-00000000000000a3");
  EXPECT_EQ(pattern.port, 2);
  EXPECT_EQ(pattern.line, 13);
  EXPECT_NE(pattern.evidence.find("linked on 2 of the 2 other leaf switches with 4 ports"), std::string::npos)
      << pattern.evidence;
  const FabricFinding& peer = r.findings[1];
  EXPECT_EQ(peer.kind, FabricFindingKind::kPortDownExpectedLink);
  EXPECT_EQ(peer.port, 4);
  EXPECT_EQ(peer.peer, "H-0000000000003401");
  EXPECT_NE(peer.evidence.find("peer side"), std::string::npos) << peer.evidence;
  const FabricFinding& slow = r.findings[2];
  EXPECT_EQ(slow.kind, FabricFindingKind::kLinkBelowUsual);
  EXPECT_EQ(slow.node, "S-00000000000000a2");
  EXPECT_EQ(slow.port, 1);
  EXPECT_EQ(slow.speed, "HDR");
  EXPECT_EQ(slow.usual_width, "4x");
  EXPECT_EQ(slow.usual_speed, "NDR");
  EXPECT_EQ(slow.tier, "host-leaf");
  EXPECT_NE(slow.evidence.find("where 5 of the 6 active host-leaf links run 4x NDR"), std::string::npos)
      << slow.evidence;
  // The uplink whose two ends print 4X and 2X: a mismatch (fabric's finding, reused), not counted twice.
  ASSERT_EQ(r.mismatches.size(), 1u);
  EXPECT_TRUE(r.mismatches[0].width_differs);
  EXPECT_EQ(r.mismatches[0].a.tool, "iblinkinfo");
  EXPECT_EQ(r.mismatches[0].a.source, "links.txt");
}

TEST(FabricFindings, NoUsualWithoutAClearMostCommonPair) {
  // Two host links, one NDR and one HDR: no pair is more common, so neither is below "usual".
  const FabricReport r = Analyze(
      "Switch: 0x00000000000000a1 leaf1:\n"
      "           1    1[  ] ==( 4X       106.25 Gbps Active/  LinkUp)==>      11    1[  ] \"h11 mlx5_0\" ( )\n"
      "           1    2[  ] ==( 4X       53.125 Gbps Active/  LinkUp)==>      12    1[  ] \"h12 mlx5_0\" ( )\n");
  EXPECT_EQ(r.links.size(), 2u);
  EXPECT_TRUE(r.findings.empty());
}

TEST(FabricFindings, LinksThatAreNotActiveDoNotSetTheUsual) {
  // Three links in Init at HDR and two Active at NDR: the usual comes from the active ones only.
  std::string text = "Switch: 0x00000000000000a1 leaf1:\n";
  for (int p = 1; p <= 5; ++p) {
    const bool init = p <= 3;
    text += "           1    " + std::to_string(p) + "[  ] ==( 4X       " + (init ? "53.125" : "106.25") + " Gbps " +
            (init ? "Init" : "Active") + "/  LinkUp)==>      1" + std::to_string(p) + "    1[  ] \"h1" +
            std::to_string(p) + " mlx5_0\" ( )\n";
  }
  const FabricReport r = Analyze(text);
  EXPECT_EQ(r.links.size(), 5u);
  EXPECT_EQ(r.links[0].state, "Init");
  EXPECT_TRUE(r.findings.empty());
}

}  // namespace fabric_findings_test
}  // namespace toposcope::analysis
