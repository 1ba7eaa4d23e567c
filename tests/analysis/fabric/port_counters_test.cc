// Tests of analysis/fabric/port_counters on small hand-made data sets: LIDs mapped by the
// ibnetdiscover dump, the rise rule (any LinkDowned rise; errors far above the others; a cleared
// counter), the one-read rule, an unmapped LID, `all ports` left out.
#include "toposcope/analysis/fabric/port_counters.h"

#include <gtest/gtest.h>

#include <string>

#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/formats/fabric/ibqueryerrors.h"
#include "toposcope/formats/fabric/perfquery.h"

namespace toposcope::analysis {
namespace port_counters_test {

// Two leaves (lid 1, 2) and a spine (lid 3); each leaf's port 1 to a host, ports 2 to the spine.
const char* kFabric =
    "switchguid=0x0000000000000010(0000000000000010)\n"
    "Switch\t8 \"S-0000000000000010\"\t\t# \"leaf0\" enhanced port 0 lid 1 lmc 0\n"
    "[1]\t\"H-0000000000000100\"[1](0000000000000101) \t\t# \"host0 mlx5_0\" lid 11 4xNDR\n"
    "[2]\t\"S-0000000000000030\"[1]\t\t# \"spine0\" lid 3 4xNDR\n"
    "\n"
    "switchguid=0x0000000000000020(0000000000000020)\n"
    "Switch\t8 \"S-0000000000000020\"\t\t# \"leaf1\" enhanced port 0 lid 2 lmc 0\n"
    "[1]\t\"H-0000000000000200\"[1](0000000000000201) \t\t# \"host1 mlx5_0\" lid 12 4xNDR\n"
    "[2]\t\"S-0000000000000030\"[2]\t\t# \"spine0\" lid 3 4xNDR\n"
    "\n"
    "switchguid=0x0000000000000030(0000000000000030)\n"
    "Switch\t8 \"S-0000000000000030\"\t\t# \"spine0\" enhanced port 0 lid 3 lmc 0\n"
    "[1]\t\"S-0000000000000010\"[2]\t\t# \"leaf0\" lid 1 4xNDR\n"
    "[2]\t\"S-0000000000000020\"[2]\t\t# \"leaf1\" lid 2 4xNDR\n"
    "\n"
    "caguid=0x0000000000000100\n"
    "Ca\t1 \"H-0000000000000100\"\t\t# \"host0 mlx5_0\"\n"
    "[1](0000000000000101) \t\"S-0000000000000010\"[1]\t\t# lid 11 lmc 0 \"leaf0\" lid 1 4xNDR\n"
    "\n"
    "caguid=0x0000000000000200\n"
    "Ca\t1 \"H-0000000000000200\"\t\t# \"host1 mlx5_0\"\n"
    "[1](0000000000000201) \t\"S-0000000000000020\"[1]\t\t# lid 12 lmc 0 \"leaf1\" lid 2 4xNDR\n";

std::string Block(int lid, int port, int downed, int symbols, int wait, double t) {
  formats::PortCounterBlock b;
  b.lid = lid;
  b.port = port;
  b.extended = true;
  b.counters = {{"LinkDownedCounter", static_cast<uint64_t>(downed)},
                {"SymbolErrorCounter", static_cast<uint64_t>(symbols)},
                {"PortRcvErrors", 0},
                {"PortXmitWait", static_cast<uint64_t>(wait)}};
  char ts[64];
  std::snprintf(ts, sizeof ts, "timestamp %.3f\n", t);
  return formats::WritePerfqueryBlock(b) + ts;
}

struct Fixture {
  model::Dataset ds;
  void Fabric() {
    auto f = formats::ParseIbnetdiscover(kFabric, "f.ibnet", ds.diag);
    ASSERT_TRUE(f.ok()) << f.error().ToString();
    ds.fabrics.push_back(*f);
  }
  void Read(const std::string& text, const std::string& name) {
    auto r = formats::ParsePerfquery(text, name, ds.diag);
    ASSERT_TRUE(r.ok());
    ds.port_counters.push_back(*r);
  }
  PortCounterReport Analyze() { return AnalyzePortCounters(ds, AnalyzeFabric(ds)); }
};

TEST(PortCounters, NoReadsNotPresent) {
  Fixture x;
  x.Fabric();
  EXPECT_FALSE(x.Analyze().present);
}

TEST(PortCounters, RiseRuleFindsTheCableThatWentDown) {
  Fixture x;
  x.Fabric();
  // The later read comes first in the files: reads are ordered by their timestamps.
  x.Read(Block(1, 2, 5, 300, 1000, 200) + Block(3, 1, 4, 200, 1100, 200) + Block(1, 1, 2, 1, 1200, 200) +
             Block(2, 1, 1, 0, 900, 200) + Block(2, 2, 0, 0, 800, 200) + Block(3, 2, 0, 0, 1000, 200),
         "end.txt");
  x.Read(Block(1, 2, 3, 0, 10, 100) + Block(3, 1, 3, 0, 20, 100) + Block(1, 1, 2, 0, 30, 100) +
             Block(2, 1, 1, 0, 40, 100) + Block(2, 2, 0, 0, 50, 100) + Block(3, 2, 0, 0, 60, 100),
         "start.txt");
  const PortCounterReport r = x.Analyze();
  ASSERT_TRUE(r.present);
  EXPECT_EQ(r.blocks, 12);
  EXPECT_EQ(r.unmapped_lids, 0);
  ASSERT_EQ(r.ports.size(), 6U);
  EXPECT_EQ(r.ports[0].node_name, "leaf0");
  EXPECT_EQ(r.ports[0].port, 1);
  EXPECT_EQ(r.ports[0].cable, "host0--leaf0");
  EXPECT_DOUBLE_EQ(r.ports[0].span_s, 100);
  ASSERT_EQ(r.findings.size(), 4U);
  EXPECT_EQ(r.findings[0].kind, PortCounterFindingKind::kLinkDowned);
  EXPECT_EQ(r.findings[0].cable, "leaf0--spine0");
  EXPECT_EQ(r.findings[0].node_name, "leaf0");
  EXPECT_EQ(r.findings[0].value, 2);
  EXPECT_EQ(r.findings[0].source, "end.txt");
  EXPECT_NE(r.findings[0].evidence.find("LinkDownedCounter rose by 2 in 100.0 s"), std::string::npos)
      << r.findings[0].evidence;
  EXPECT_EQ(r.findings[1].kind, PortCounterFindingKind::kLinkDowned);
  EXPECT_EQ(r.findings[1].node_name, "spine0");
  EXPECT_EQ(r.findings[1].value, 1);
  EXPECT_EQ(r.findings[2].kind, PortCounterFindingKind::kLinkErrors);
  EXPECT_EQ(r.findings[2].value, 300);
  EXPECT_EQ(r.findings[3].kind, PortCounterFindingKind::kLinkErrors);
  EXPECT_EQ(r.findings[3].node_name, "spine0");
}

TEST(PortCounters, ClearedCounterCountsItsLastValue) {
  Fixture x;
  x.Fabric();
  x.Read(Block(1, 2, 9, 0, 0, 1) + Block(1, 1, 0, 0, 0, 1), "a.txt");
  x.Read(Block(1, 2, 1, 0, 0, 2) + Block(1, 1, 0, 0, 0, 2), "b.txt");  // cleared with perfquery -r, then one outage
  const PortCounterReport r = x.Analyze();
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(r.findings[0].cable, "leaf0--spine0");
  EXPECT_EQ(r.findings[0].value, 1);
}

TEST(PortCounters, OneReadNeedsFarAboveTheOthers) {
  Fixture x;
  x.Fabric();
  x.Read(Block(1, 1, 2, 0, 100, 1) + Block(1, 2, 40, 0, 120, 1) + Block(2, 1, 1, 0, 90, 1) + Block(2, 2, 0, 0, 110, 1) +
             Block(3, 1, 0, 0, 100, 1) + Block(3, 2, 1, 0, 95, 1) + Block(9, 4, 0, 0, 100, 1) +
             "# Port counters: Lid 3 all ports\nLinkDownedCounter:...............99\n",
         "one.txt");
  const PortCounterReport r = x.Analyze();
  EXPECT_EQ(r.unmapped_lids, 1);
  ASSERT_EQ(r.findings.size(), 1U) << r.findings[0].evidence;
  EXPECT_EQ(r.findings[0].kind, PortCounterFindingKind::kLinkDowned);
  EXPECT_EQ(r.findings[0].cable, "leaf0--spine0");
  EXPECT_FALSE(r.findings[0].rise);
  EXPECT_EQ(r.findings[0].value, 40);
  bool unmapped = false;
  for (const auto& p : r.ports) unmapped = unmapped || (p.node_name == "lid 9" && p.cable.empty());
  EXPECT_TRUE(unmapped);
}

// ibqueryerrors names a switch by its node GUID and an adapter by its port GUID; a counter it does
// not print counts 0; a node no dump has keeps its description.
TEST(PortCounters, IbQueryErrorsByGuid) {
  Fixture x;
  x.Fabric();
  auto r = formats::ParseIbQueryErrors(
      "Errors for 0x0000000000000010 \"leaf0\"\n"
      "   GUID 0x0000000000000010 port 2: [LinkDownedCounter == 30]\n"
      "Errors for \"host1 mlx5_0\"\n"
      "   GUID 0x0000000000000201 port 1: [SymbolErrorCounter == 3]\n"
      "Errors for 0x99 \"ghost\"\n"
      "   GUID 0x99 port 1: [LinkDownedCounter == 1]\n",
      "iqe.txt", x.ds.diag);
  ASSERT_TRUE(r.ok());
  x.ds.port_counters.push_back(*r);
  const PortCounterReport rep = x.Analyze();
  EXPECT_EQ(rep.unmapped_lids, 1);
  ASSERT_EQ(rep.ports.size(), 3U);
  EXPECT_EQ(rep.ports[0].node_name, "ghost");
  EXPECT_EQ(rep.ports[1].node_name, "host1");
  EXPECT_EQ(rep.ports[1].cable, "host1--leaf1");
  EXPECT_EQ(rep.ports[1].link_downed, 0);
  EXPECT_EQ(rep.ports[2].cable, "leaf0--spine0");
  EXPECT_EQ(rep.ports[2].lid, -1);
  ASSERT_EQ(rep.findings.size(), 1U);
  EXPECT_EQ(rep.findings[0].cable, "leaf0--spine0");
  EXPECT_EQ(rep.findings[0].value, 30);
}

}  // namespace port_counters_test
}  // namespace toposcope::analysis
