// Golden tests of the ibnetdiscover reader on every real fixture in ibnetdiscover/ (the QDR PSMN
// fabric, the NDR DGX H100 SuperPOD, the isolated GB200 HCA), writer round trips (the writer
// reproduces the real files byte for byte), grouped/full-info variants and malformed inputs.
#include "toposcope/formats/fabric/ibnetdiscover.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace toposcope::formats {
namespace ibnetdiscover_test {

const std::string kDir = std::string(TOPOSCOPE_FIXTURES) + "/ibnetdiscover/";
const std::string kQdr = kDir + "psmn_x5_qdr_11switch_89ca.topofile";
const std::string kNdr = kDir + "topograph_ndr_dgx_h100_superpod_40switch_582ca.out";
const std::string kIsolated = kDir + "topograph_gb200_isolated_hca_no_links.out";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

IbFabric MustParse(const std::string& text, Diagnostics& diag, const std::string& src = "t") {
  auto r = ParseIbnetdiscover(text, src, diag);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
  return r.ok() ? *r : IbFabric{};
}

IbFabric NoLines(IbFabric f) {
  f.counts = {};
  for (IbNode& n : f.nodes) {
    n.line = 0;
    for (IbPortLink& p : n.ports) p.line = 0;
  }
  return f;
}

const IbPortLink* PortOf(const IbNode& n, int port) {
  for (const IbPortLink& p : n.ports) {
    if (p.port == port) return &p;
  }
  return nullptr;
}

TEST(IbnetdiscoverTest, QdrFabricGolden) {
  Diagnostics diag;
  const IbFabric f = MustParse(Slurp(kQdr), diag, kQdr);
  EXPECT_EQ(f.SwitchCount(), 11);
  EXPECT_EQ(f.CaCount(), 89);
  EXPECT_EQ(f.RouterCount(), 0);
  EXPECT_EQ(f.counts.read, 818);
  EXPECT_EQ(f.counts.accepted, 818);
  EXPECT_EQ(f.counts.rejected, 0);
  EXPECT_EQ(diag.warnings_total(), 0);
  EXPECT_EQ(f.generated_on, "Wed May 13 14:36:33 2020");
  EXPECT_EQ(f.initiated_from, "node 0002c90300080e84 port 0002c90300080e85");

  const IbNode& s0 = f.nodes[0];
  EXPECT_EQ(s0.kind, IbNodeKind::kSwitch);
  EXPECT_EQ(s0.id, "S-0008f10500200b50");
  EXPECT_EQ(s0.guid, "8f10500200b50");
  EXPECT_EQ(s0.port0_guid, "8f10500200b50");
  EXPECT_EQ(s0.vendid, "0x8f1");
  EXPECT_EQ(s0.devid, "0x5a5a");
  EXPECT_EQ(s0.sysimgguid, "0x8f10500200b51");
  EXPECT_EQ(s0.nports, 36);
  EXPECT_EQ(s0.desc, "Voltaire 4036 - 36 QDR ports switch");
  EXPECT_TRUE(s0.enhanced_port0);
  EXPECT_EQ(s0.lid, 9);
  EXPECT_EQ(s0.lmc, 0);
  EXPECT_EQ(s0.line, 10);
  ASSERT_NE(PortOf(s0, 1), nullptr);
  EXPECT_EQ(PortOf(s0, 1)->peer_guid, "S-0008f10500108c5c");
  EXPECT_EQ(PortOf(s0, 1)->peer_port, 15);
  EXPECT_EQ(PortOf(s0, 1)->peer_desc, "Voltaire 4036 # 4036-8C5C");  // '#' inside the description
  EXPECT_EQ(PortOf(s0, 1)->peer_lid, 16);
  EXPECT_EQ(PortOf(s0, 1)->width, "4x");
  EXPECT_EQ(PortOf(s0, 1)->speed, "QDR");
  EXPECT_DOUBLE_EQ(PortOf(s0, 1)->rate_gbps, 40);
  const IbPortLink* p4 = PortOf(s0, 4);
  ASSERT_NE(p4, nullptr);
  EXPECT_EQ(p4->peer_guid, "H-003048c749cd0000");
  EXPECT_EQ(p4->peer_port_guid, "3048c749cd0001");
  EXPECT_EQ(p4->speed, "DDR");
  EXPECT_DOUBLE_EQ(p4->rate_gbps, 20);
  EXPECT_EQ(PortOf(s0, 25), nullptr);  // not connected
  // A "base port 0" switch.
  const IbNode* base = f.FindNode("S-0002c90200417670");
  ASSERT_NE(base, nullptr);
  EXPECT_FALSE(base->enhanced_port0);
  EXPECT_EQ(base->desc, "Infiniscale-IV Mellanox Technologies");
  EXPECT_EQ(base->lid, 18);
  EXPECT_EQ(base->ports.size(), 36u);
  // A CA and its one port.
  const IbNode* ca = f.FindNode("H-78e7d10300229794");
  ASSERT_NE(ca, nullptr);
  EXPECT_EQ(ca->kind, IbNodeKind::kCa);
  EXPECT_EQ(ca->nports, 1);
  EXPECT_EQ(ca->line, 613);
  ASSERT_EQ(ca->ports.size(), 1u);
  EXPECT_EQ(ca->ports[0].port_guid, "78e7d10300229795");
  EXPECT_EQ(ca->ports[0].lid, 23);
  EXPECT_EQ(ca->ports[0].lmc, 0);
  EXPECT_EQ(ca->ports[0].peer_guid, "S-0002c90200417670");
  EXPECT_EQ(ca->ports[0].peer_port, 1);
  EXPECT_EQ(ca->ports[0].peer_lid, 18);
  EXPECT_EQ(ca->ports[0].line, 614);

  int64_t ports = 0, ddr = 0;
  for (const IbNode& n : f.nodes) {
    ports += static_cast<int64_t>(n.ports.size());
    for (const IbPortLink& p : n.ports) ddr += p.speed == "DDR";
  }
  EXPECT_EQ(ports, 318);
  EXPECT_EQ(ddr, 46);
  const auto links = IbLinks(f);
  EXPECT_EQ(links.size(), 159u);  // 89 CA links + 70 switch-switch links
  int sw_sw = 0;
  for (const IbLink& l : links) sw_sw += l.a_id[0] == 'S' && l.b_id[0] == 'S';
  EXPECT_EQ(sw_sw, 70);
}

TEST(IbnetdiscoverTest, NdrSuperpodGolden) {
  Diagnostics diag;
  const IbFabric f = MustParse(Slurp(kNdr), diag, kNdr);
  EXPECT_EQ(f.SwitchCount(), 40);
  EXPECT_EQ(f.CaCount(), 582);
  EXPECT_EQ(f.counts.read, 5338);
  EXPECT_EQ(f.counts.rejected, 0);
  EXPECT_EQ(diag.warnings_total(), 0);
  EXPECT_EQ(f.generated_on, "Wed Aug  6 16:11:23 2025");
  int leaves = 0, spines = 0;
  int64_t ports = 0;
  for (const IbNode& n : f.nodes) {
    ports += static_cast<int64_t>(n.ports.size());
    if (n.IsSwitch()) {
      EXPECT_EQ(n.nports, 65);
      EXPECT_EQ(n.devid, "0xd2f2");
      leaves += n.desc.find("IBLEAF") != std::string::npos;
      spines += n.desc.find("IBSPINE") != std::string::npos;
    }
    for (const IbPortLink& p : n.ports) {
      EXPECT_EQ(p.width, "4x");
      EXPECT_EQ(p.speed, "NDR");
      EXPECT_DOUBLE_EQ(p.rate_gbps, 400);
    }
  }
  EXPECT_EQ(leaves, 31);
  EXPECT_EQ(spines, 9);
  EXPECT_EQ(ports, 2228);
  const IbNode& s0 = f.nodes[0];
  EXPECT_EQ(s0.desc, "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1");
  EXPECT_EQ(s0.lid, 73);
  ASSERT_NE(PortOf(s0, 65), nullptr);
  EXPECT_EQ(PortOf(s0, 65)->peer_desc, "Mellanox Technologies Aggregation Node");
  EXPECT_EQ(PortOf(s0, 35)->peer_guid, "S-2c5eab0300c26280");
  EXPECT_EQ(PortOf(s0, 35)->peer_port, 32);
  const IbNode* spine = f.FindNode("S-2c5eab0300c26280");
  ASSERT_NE(spine, nullptr);
  EXPECT_EQ(spine->desc, "MF0;A10-P1-IBSPINE-02:MQM9701/U1");
  EXPECT_EQ(spine->lid, 236);
  const IbNode* ca = f.FindNode("H-e09d7303007a4bd8");
  ASSERT_NE(ca, nullptr);
  EXPECT_EQ(ca->desc, "a08-p1-dgx-04-c01 mlx5_5");
  ASSERT_EQ(ca->ports.size(), 1u);
  EXPECT_EQ(ca->ports[0].peer_guid, "S-2c5eab0300b87b40");
  EXPECT_EQ(ca->ports[0].peer_port, 1);
  EXPECT_EQ(ca->ports[0].lid, 647);
  const auto links = IbLinks(f);
  EXPECT_EQ(links.size(), 1114u);  // 582 CA links + 532 leaf-spine links
  // Every host CA hangs off a leaf switch; the 40 SHARP aggregation nodes sit on port 65 of every
  // switch (leaves and spines).
  const auto idx = f.IndexById();
  int aggregation = 0;
  for (const IbNode& n : f.nodes) {
    if (n.IsSwitch()) continue;
    ASSERT_EQ(n.ports.size(), 1u);
    const IbNode& sw = f.nodes[idx.at(n.ports[0].peer_guid)];
    if (n.desc == "Mellanox Technologies Aggregation Node") {
      ++aggregation;
      EXPECT_EQ(n.ports[0].peer_port, 65);
      continue;
    }
    EXPECT_NE(sw.desc.find("IBLEAF"), std::string::npos) << n.id;
  }
  EXPECT_EQ(aggregation, 40);
}

TEST(IbnetdiscoverTest, IsolatedHcaGolden) {
  Diagnostics diag;
  const IbFabric f = MustParse(Slurp(kIsolated), diag, kIsolated);
  ASSERT_EQ(f.nodes.size(), 1u);
  EXPECT_EQ(f.CaCount(), 1);
  EXPECT_EQ(f.counts.read, 5);
  EXPECT_EQ(f.counts.accepted, 5);
  const IbNode& n = f.nodes[0];
  EXPECT_EQ(n.id, "H-b8e92403009ca838");
  EXPECT_EQ(n.guid, "b8e92403009ca838");
  EXPECT_EQ(n.desc, "dgx-gb200-n01-c1 HCA-1");
  EXPECT_EQ(n.devid, "0x1021");
  EXPECT_TRUE(n.ports.empty());
  EXPECT_TRUE(IbLinks(f).empty());
  EXPECT_EQ(f.initiated_from, "node b8e92403009ca838 port b8e92403009ca838");
}

TEST(IbnetdiscoverTest, WriterReproducesRealFilesByteForByte) {
  for (const std::string& path : {kQdr, kNdr, kIsolated}) {
    const std::string text = Slurp(path);
    Diagnostics diag;
    const IbFabric f = MustParse(text, diag, path);
    const std::string written = WriteIbnetdiscover(f);
    std::string want = text;
    while (want.size() > 1 && want.substr(want.size() - 2) == "\n\n") want.pop_back();  // trailing blank lines
    size_t diff = 0;
    while (diff < written.size() && diff < want.size() && written[diff] == want[diff]) ++diff;
    EXPECT_EQ(written.size(), want.size()) << path;
    EXPECT_EQ(diff, want.size()) << path << " differs at byte " << diff << ": "
                                 << want.substr(diff > 40 ? diff - 40 : 0, 80);
    Diagnostics d2;
    const IbFabric again = MustParse(written, d2);
    EXPECT_EQ(NoLines(again), NoLines(f)) << path;
    EXPECT_EQ(d2.rejected_total(), 0);
  }
}

TEST(IbnetdiscoverTest, RoundTripSynthetic) {
  IbFabric f;
  f.generated_on = "Mon Jan  1 00:00:00 2024";
  f.initiated_from = "node 0000000000000001 port 0000000000000002";
  f.max_hops = 3;
  f.total_mads = 1234;
  IbNode sw;
  sw.kind = IbNodeKind::kSwitch;
  sw.id = "S-00000000000000aa";
  sw.guid = "aa";
  sw.port0_guid = "aa";
  sw.nports = 40;
  sw.desc = "leaf \"1\" # odd";
  sw.lid = 5;
  sw.lmc = 0;
  sw.vendid = "0x2c9";
  sw.devid = "0xd2f0";
  sw.sysimgguid = "0xab";
  IbPortLink a;
  a.port = 1;
  a.peer_guid = "H-00000000000000bb";
  a.peer_port = 1;
  a.peer_port_guid = "bc";
  a.peer_desc = "host1 mlx5_0";
  a.peer_lid = 7;
  a.width = "4x";
  a.speed = "HDR";
  a.rate_gbps = 200;
  a.extra = "s=4 w=2 v=3 e=4";
  sw.ports.push_back(a);
  IbPortLink b = a;
  b.port = 2;
  b.peer_guid = "R-00000000000000cc";
  b.peer_port_guid = "cd";
  b.width = "12x";
  b.speed = "FDR10";
  b.rate_gbps = 120;
  b.extra.clear();
  sw.ports.push_back(b);
  f.nodes.push_back(sw);
  IbNode ca;
  ca.kind = IbNodeKind::kCa;
  ca.id = "H-00000000000000bb";
  ca.guid = "bb";
  ca.nports = 2;
  ca.desc = "host1 mlx5_0";
  IbPortLink c;
  c.port = 1;
  c.port_guid = "bc";
  c.peer_guid = "S-00000000000000aa";
  c.peer_port = 1;
  c.peer_desc = sw.desc;
  c.peer_lid = 5;
  c.lid = 7;
  c.lmc = 2;
  c.width = "4x";
  c.speed = "HDR";
  c.rate_gbps = 200;
  ca.ports.push_back(c);
  f.nodes.push_back(ca);
  IbNode rt;
  rt.kind = IbNodeKind::kRouter;
  rt.id = "R-00000000000000cc";
  rt.guid = "cc";
  rt.nports = 1;
  rt.desc = "router";
  IbPortLink d;
  d.port = 1;
  d.port_guid = "cd";
  d.peer_guid = sw.id;
  d.peer_port = 2;
  d.peer_desc = sw.desc;
  d.peer_lid = 5;
  d.lid = 9;
  d.lmc = 0;
  d.width = "12x";
  d.speed = "FDR10";
  d.rate_gbps = 120;
  rt.ports.push_back(d);
  f.nodes.push_back(rt);
  const std::string text = WriteIbnetdiscover(f);
  Diagnostics diag;
  const IbFabric again = MustParse(text, diag);
  EXPECT_EQ(diag.rejected_total(), 0);
  EXPECT_EQ(diag.warnings_total(), 0) << (diag.items().empty() ? "" : diag.items()[0].ToString());
  EXPECT_EQ(NoLines(again), NoLines(f)) << text;
  EXPECT_EQ(WriteIbnetdiscover(again), text);
  EXPECT_EQ(again.RouterCount(), 1);
  EXPECT_EQ(IbLinks(again).size(), 2u);
}

TEST(IbnetdiscoverTest, GroupedOutputAndCaToCa) {
  const std::string text =
      "#\n# Topology file: generated on Tue Jan  2 03:04:05 2024\n#\n"
      "# Reported max hops discovered: 2\n# Total MADs used: 99\n"
      "# Initiated from node 0002c903000e0b72 port 0002c903000e0b73\n"
      "\nChassis 1 (guid 0x8f104004128f0)\n\n# Spine Nodes\n"
      "vendid=0x8f1\ndevid=0x5a37\nsysimgguid=0x8f104004128f3\t\t# Chassis 1\n"
      "switchguid=0x8f104004128f0(8f104004128f0)\t# ISR9288/ISR9096 Voltaire sLB-24D 1 Chip 1\n"
      "Switch\t24 \"S-0008f104004128f0\"\t\t# \"ISR9288 Voltaire sLB-24D\" base port 0 lid 2 lmc 0\n"
      "[1][ext 3]\t\"S-0008f10400412af0\"[19][ext 7]\t\t# \"ISR9288 Voltaire sFB-12\" lid 3 4xDDR\n"
      "\nNon-Chassis Nodes\n"
      "\nvendid=0x2c9\ndevid=0x673c\nsysimgguid=0x2c903000e0b75\ncaguid=0x2c903000e0b72\n"
      "Ca\t2 \"H-0002c903000e0b72\"\t\t# \"host-a mlx4_0\"\n"
      "[1](2c903000e0b73) \t\"H-0002c903000e0c00\"[2] (2c903000e0c02) \t\t# lid 4 lmc 0 \"host-b mlx4_0\" lid 6 4xFDR\n";
  Diagnostics diag;
  const IbFabric f = MustParse(text, diag);
  EXPECT_EQ(f.counts.rejected, 0) << (diag.items().empty() ? "" : diag.items()[0].ToString());
  EXPECT_EQ(f.max_hops, 2);
  EXPECT_EQ(f.total_mads, 99);
  ASSERT_EQ(f.nodes.size(), 2u);
  EXPECT_EQ(f.nodes[0].chassis, 1);
  EXPECT_EQ(f.nodes[0].chassis_info, "ISR9288/ISR9096 Voltaire sLB-24D 1 Chip 1");
  EXPECT_EQ(f.nodes[0].ports[0].ext_port, 3);
  EXPECT_EQ(f.nodes[0].ports[0].peer_ext_port, 7);
  EXPECT_DOUBLE_EQ(f.nodes[0].ports[0].rate_gbps, 20);
  const IbPortLink& cc = f.nodes[1].ports[0];
  EXPECT_EQ(cc.peer_guid, "H-0002c903000e0c00");
  EXPECT_EQ(cc.peer_port, 2);
  EXPECT_EQ(cc.peer_port_guid, "2c903000e0c02");
  EXPECT_EQ(cc.speed, "FDR");
  EXPECT_DOUBLE_EQ(cc.rate_gbps, 56);
  // Rewritten (ungrouped) it reads back the same.
  Diagnostics d2;
  EXPECT_EQ(NoLines(MustParse(WriteIbnetdiscover(f), d2)), NoLines(f));
}

TEST(IbnetdiscoverTest, RejectsMalformedLinesWithReasons) {
  const std::string head = "#\n# Topology file: generated on X\n#\n";
  const std::string sw =
      "switchguid=0xaa(aa)\nSwitch\t4 \"S-00000000000000aa\"\t\t# \"sw\" enhanced port 0 lid 1 lmc 0\n";
  const std::string good = "[1]\t\"H-00000000000000bb\"[1](bb) \t\t# \"h\" lid 2 4xEDR\n";
  struct Case {
    std::string line;
    std::string reason_part;
  };
  const std::vector<Case> cases = {
      {"[0]\t\"H-00000000000000bb\"[1]\t\t# \"h\" lid 2 4xEDR", "bad local port"},
      {"[9]\t\"H-00000000000000bb\"[1]\t\t# \"h\" lid 2 4xEDR", "beyond the node's 4 ports"},
      {"[1]\t\"H-00000000000000cc\"[1]\t\t# \"h\" lid 2 4xEDR", "listed twice"},
      {"[2]\t\"X-00000000000000bb\"[1]\t\t# \"h\" lid 2 4xEDR", "bad peer id"},
      {"[2]\t\"H-0bb\"[1]\t\t# \"h\" lid 2 4xEDR", "bad peer id"},
      {"[2]\t\"H-00000000000000bb\"[x]\t\t# \"h\" lid 2 4xEDR", "bad peer port"},
      {"[2]\t\"H-00000000000000bb\"[1]\t\t \"h\" lid 2 4xEDR", "missing '#'"},
      {"[2]\t\"H-00000000000000bb\"[1]\t\t# \"h\" lid 99999 4xEDR", "bad peer lid"},
      {"[2]\t\"H-00000000000000bb\"[1]\t\t# \"h\" lid 2 4xWOW", "unknown link width/speed"},
      {"[2]\t\"H-00000000000000bb\"[1]\t\t# \"h\" lid 2 5xEDR", "unknown link width/speed"},
      {"[2]\t\"H-00000000000000bb\"[1](zz) \t\t# \"h\" lid 2 4xEDR", "bad peer port GUID"},
      {"[2]\t\"S-00000000000000aa\"[2]\t\t# \"sw\" lid 1 4xEDR", "linked to itself"},
      {"[2]\t\"H-00000000000000bb\"[1]\t\t# lid 1 lmc 9 \"h\" lid 2 4xEDR", "bad port lmc"},
      {"[2]\t\"H-00000000000000bb\"[1]", "missing '#'"},
      {"garbage here", "not an ibnetdiscover topology line"},
      {"frobguid=0x12", "unknown attribute"},
      {"vendid=12", "bad vendid"},
  };
  for (const Case& c : cases) {
    Diagnostics diag;
    const IbFabric f = MustParse(head + sw + good + c.line + "\n", diag);
    EXPECT_EQ(f.counts.rejected, 1) << c.line;
    EXPECT_TRUE(f.counts.Balanced());
    bool found = false;
    for (const Diagnostic& d : diag.items()) {
      if (d.severity == Severity::kRejected && d.reason.find(c.reason_part) != std::string::npos) found = true;
    }
    EXPECT_TRUE(found) << c.line << " -> " << (diag.items().empty() ? "" : diag.items().back().ToString());
  }
}

TEST(IbnetdiscoverTest, DuplicateNodesAndOrphanPorts) {
  const std::string text =
      "#\n# Topology file: generated on X\n#\n"
      "[1]\t\"H-00000000000000bb\"[1]\t\t# \"h\" lid 2 4xEDR\n"  // before any node
      "Switch\t4 \"S-00000000000000aa\"\t\t# \"sw\" enhanced port 0 lid 1 lmc 0\n"
      "[1]\t\"H-00000000000000bb\"[1](bb) \t\t# \"h\" lid 2 4xEDR\n"
      "\nSwitch\t4 \"S-00000000000000aa\"\t\t# \"sw again\" enhanced port 0 lid 1 lmc 0\n"
      "[2]\t\"H-00000000000000bb\"[1](bb) \t\t# \"h\" lid 2 4xEDR\n"
      "\nSwitch\t300 \"S-00000000000000ff\"\t\t# \"big\" enhanced port 0 lid 1 lmc 0\n"
      "\nCa\t1 \"S-00000000000000dd\"\t\t# \"wrong letter\"\n"
      "\nSwitch\t4 \"S-00000000000000ee\"\t\t# \"no port0\"\n";
  Diagnostics diag;
  const IbFabric f = MustParse(text, diag);
  ASSERT_EQ(f.nodes.size(), 1u);
  EXPECT_EQ(f.counts.read, 8);
  EXPECT_EQ(f.counts.accepted, 2);
  EXPECT_EQ(f.counts.rejected, 6);
  std::set<std::string> reasons;
  for (const Diagnostic& d : diag.items()) reasons.insert(d.reason);
  EXPECT_TRUE(reasons.count("port line outside a node block"));
  EXPECT_TRUE(reasons.count("port line of a rejected node"));
  EXPECT_TRUE(reasons.count("node S-00000000000000aa was listed before; this block is dropped"));
  EXPECT_TRUE(reasons.count("bad port count (want 1..255)"));
  EXPECT_TRUE(reasons.count("switch header without 'enhanced|base port 0 lid N lmc N'"));
}

TEST(IbnetdiscoverTest, WarnsOnOneSidedOrMismatchedLinks) {
  const std::string text =
      "Switch\t4 \"S-00000000000000aa\"\t\t# \"sw\" enhanced port 0 lid 1 lmc 0\n"
      "[1]\t\"H-00000000000000bb\"[1](bb) \t\t# \"h\" lid 2 4x???\n"
      "\ncaguid=0xbc\nCa\t1 \"H-00000000000000bb\"\t\t# \"h\"\n"
      "[1](bb) \t\"S-00000000000000aa\"[3]\t\t# lid 2 lmc 0 \"sw\" lid 1 4xEDR\n";
  Diagnostics diag;
  const IbFabric f = MustParse(text, diag);
  EXPECT_EQ(f.counts.rejected, 0);
  EXPECT_EQ(f.nodes[0].ports[0].speed, "???");
  EXPECT_DOUBLE_EQ(f.nodes[0].ports[0].rate_gbps, 0);
  int warns = 0;
  for (const Diagnostic& d : diag.items()) warns += d.severity == Severity::kWarning;
  EXPECT_EQ(warns, 4);  // ??? speed, GUID vs id, and both one-sided ends
}

TEST(IbnetdiscoverTest, UnusableInputsFail) {
  Diagnostics diag;
  EXPECT_FALSE(ParseIbnetdiscover("", "e", diag).ok());
  EXPECT_FALSE(ParseIbnetdiscover("\n\n# just a comment\n", "c", diag).ok());
  EXPECT_FALSE(ParseIbnetdiscover(std::string("\x00\x01\x02\xff\xfe garbage", 15), "b", diag).ok());
  EXPECT_FALSE(ParseIbnetdiscover("SwitchName=s0 Nodes=n[1-4]\n", "slurm", diag).ok());
  EXPECT_FALSE(ParseIbnetdiscover("GPU0\tGPU1\tCPU Affinity\n", "nvsmi", diag).ok());
  EXPECT_EQ(diag.rejected_total(), 0);
  EXPECT_TRUE(LooksLikeIbnetdiscover(Slurp(kQdr).substr(0, 4096)));
  EXPECT_TRUE(LooksLikeIbnetdiscover(Slurp(kIsolated)));
  EXPECT_FALSE(LooksLikeIbnetdiscover("SwitchName=s0 Nodes=n[1-4]\n"));
}

TEST(IbnetdiscoverTest, TruncatedFileKeepsWhatIsWhole) {
  std::string text = Slurp(kNdr);
  text.resize(text.size() / 2);  // cut mid-line
  Diagnostics diag;
  const IbFabric f = MustParse(text, diag);
  EXPECT_TRUE(f.counts.Balanced());
  EXPECT_GT(f.nodes.size(), 20u);
  EXPECT_LE(f.counts.rejected, 1);
}

TEST(IbnetdiscoverTest, StreamingReaderMatchesWholeParse) {
  const std::string path = kQdr;
  auto in = OpenInput(path);
  ASSERT_TRUE(in.ok());
  LineReader lines(std::move(*in));
  Diagnostics diag;
  ReadCounts counts;
  IbnetdiscoverHeader header;
  std::vector<IbNode> nodes;
  ASSERT_TRUE(ReadIbnetdiscover(lines, path, [&](IbNode&& n) { nodes.push_back(std::move(n)); }, diag, counts, &header).ok());
  Diagnostics d2;
  const IbFabric f = MustParse(Slurp(path), d2);
  EXPECT_EQ(nodes, f.nodes);
  EXPECT_EQ(counts.read, f.counts.read);
  EXPECT_EQ(header.generated_on, f.generated_on);
}

TEST(IbnetdiscoverTest, SyntheticGroupedFullInfoFile) {
  const std::string path = std::string(TOPOSCOPE_TESTDATA) + "/ibnetdiscover/grouped_full_info_router_ca2ca_SYNTHETIC.txt";
  Diagnostics diag;
  const IbFabric f = MustParse(Slurp(path), diag, path);
  EXPECT_EQ(f.counts.read, 27);
  EXPECT_EQ(f.counts.rejected, 0) << (diag.items().empty() ? "" : diag.items()[0].ToString());
  EXPECT_EQ(diag.warnings_total(), 0);
  ASSERT_EQ(f.nodes.size(), 4u);
  EXPECT_EQ(f.SwitchCount(), 1);
  EXPECT_EQ(f.CaCount(), 2);
  EXPECT_EQ(f.RouterCount(), 1);
  EXPECT_EQ(f.nodes[0].ports[0].extra, "s=2 w=2 v=3");
  EXPECT_EQ(f.nodes[0].ports[1].speed, "FDR10");
  EXPECT_DOUBLE_EQ(f.nodes[0].ports[1].rate_gbps, 40);
  const IbNode& rt = f.nodes[3];
  EXPECT_EQ(rt.kind, IbNodeKind::kRouter);
  EXPECT_EQ(rt.guid, "2c903000e0d00");
  EXPECT_EQ(rt.ports[0].width, "2x");
  EXPECT_DOUBLE_EQ(rt.ports[0].rate_gbps, 100);
  EXPECT_EQ(IbLinks(f).size(), 4u);  // sw-sw (peer not dumped), sw-ca, ca-ca, rt-sw, each once
  Diagnostics d2;
  EXPECT_EQ(NoLines(MustParse(WriteIbnetdiscover(f), d2)), NoLines(f));
}

TEST(IbnetdiscoverTest, Rates) {
  EXPECT_DOUBLE_EQ(IbRateGbps("4x", "SDR"), 10);
  EXPECT_DOUBLE_EQ(IbRateGbps("4x", "FDR"), 56);
  EXPECT_DOUBLE_EQ(IbRateGbps("4x", "EDR"), 100);
  EXPECT_DOUBLE_EQ(IbRateGbps("4x", "HDR"), 200);
  EXPECT_DOUBLE_EQ(IbRateGbps("2x", "NDR"), 200);
  EXPECT_DOUBLE_EQ(IbRateGbps("4x", "XDR"), 800);
  EXPECT_DOUBLE_EQ(IbRateGbps("??", "NDR"), 0);
}

}  // namespace ibnetdiscover_test
}  // namespace toposcope::formats
