// Tests of analysis/fabric/fabric: leaves, spines and hosts of ibnetdiscover dumps and iblinkinfo
// outputs (alone and merged), adapters whose descriptions name no host, and links whose two ends
// print different widths or speeds.
#include "toposcope/analysis/fabric/fabric.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"
#include "toposcope/formats/fabric/iblinkinfo.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {
namespace fabric_test {

const std::string kReal = std::string(TOPOSCOPE_FIXTURES) + "/ibnetdiscover/";

FabricReport FromText(const std::string& text, int64_t* rejected = nullptr) {
  model::Dataset ds;
  Diagnostics diag;
  auto fab = formats::ParseIbnetdiscover(text, "dump.txt", diag);
  EXPECT_TRUE(fab.ok());
  if (!fab.ok()) return {};
  if (rejected) *rejected = fab->counts.rejected;
  ds.fabrics.push_back(std::move(*fab));
  return AnalyzeFabric(ds);
}

FabricReport FromFile(const std::string& path) {
  auto text = ReadFileText(path);
  EXPECT_TRUE(text.ok()) << path;
  return text.ok() ? FromText(*text) : FabricReport{};
}

// One HDR switch with three adapters: the firmware default description, a bare device name and a
// SHARP aggregation node — no description names a host.
const char* kNoHostNames =
    "switchguid=0xaa(aa)\n"
    "Switch\t8 \"S-00000000000000aa\"\t\t# \"QM8700\" enhanced port 0 lid 1 lmc 0\n"
    "[1]\t\"H-00000000000000b1\"[1](b1) \t\t# \"MT4123 ConnectX6   Mellanox Technologies\" lid 2 4xHDR\n"
    "[2]\t\"H-00000000000000b2\"[1](b2) \t\t# \"mlx5_0\" lid 3 4xHDR\n"
    "[3]\t\"H-00000000000000b3\"[1](b3) \t\t# \"Mellanox Technologies Aggregation Node\" lid 4 4xHDR\n"
    "\n"
    "caguid=0xb1\n"
    "Ca\t1 \"H-00000000000000b1\"\t\t# \"MT4123 ConnectX6   Mellanox Technologies\"\n"
    "[1](b1) \t\"S-00000000000000aa\"[1]\t\t# lid 2 lmc 0 \"QM8700\" lid 1 4xHDR\n"
    "\n"
    "caguid=0xb2\n"
    "Ca\t1 \"H-00000000000000b2\"\t\t# \"mlx5_0\"\n"
    "[1](b2) \t\"S-00000000000000aa\"[2]\t\t# lid 3 lmc 0 \"QM8700\" lid 1 4xHDR\n"
    "\n"
    "caguid=0xb3\n"
    "Ca\t1 \"H-00000000000000b3\"\t\t# \"Mellanox Technologies Aggregation Node\"\n"
    "[1](b3) \t\"S-00000000000000aa\"[3]\t\t# lid 4 lmc 0 \"QM8700\" lid 1 4xHDR\n";

TEST(Fabric, AdaptersWithoutHostNamesStillMakeALeaf) {
  int64_t rejected = -1;
  const FabricReport r = FromText(kNoHostNames, &rejected);
  EXPECT_EQ(rejected, 0);
  ASSERT_EQ(r.switches.size(), 1u);
  EXPECT_EQ(SwitchLevelName(r.switches[0].level), "leaf");
  EXPECT_EQ(r.switches[0].hosts, 2);
  ASSERT_EQ(r.leaves.size(), 1u);
  EXPECT_EQ(r.leaves[0].hosts, (std::vector<std::string>{"H-00000000000000b1", "H-00000000000000b2"}));
  EXPECT_TRUE(r.spines.empty());
  EXPECT_EQ(r.hosts, (std::vector<std::string>{"H-00000000000000b1", "H-00000000000000b2"}));
  EXPECT_EQ(r.hosts_named_by_guid, 2);
  ASSERT_EQ(r.cas.size(), 3u);  // nothing dropped
  EXPECT_EQ(r.cas[0].named_by, "guid");
  EXPECT_EQ(r.cas[1].named_by, "guid");
  EXPECT_EQ(r.cas[1].device, "mlx5_0");
  EXPECT_EQ(r.cas[2].named_by, "service");
  EXPECT_EQ(r.cas[2].name, "");
  EXPECT_TRUE(r.cas[0].host.empty());  // `host` stays what the description says
  EXPECT_TRUE(r.mismatches.empty());
}

TEST(Fabric, LoneHostWordNamesTheHost) {
  std::string text = kNoHostNames;
  const std::string from = "\"mlx5_0\"";
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from)) text.replace(at, from.size(), "\"cn042\"");
  const FabricReport r = FromText(text);
  ASSERT_EQ(r.cas.size(), 3u);
  EXPECT_EQ(r.cas[1].name, "cn042");
  EXPECT_EQ(r.cas[1].named_by, "description");
  EXPECT_EQ(r.hosts_named_by_guid, 1);
}

TEST(Fabric, LinkEndsWithDifferentWidthOrSpeedAreAFinding) {
  std::string text = kNoHostNames;
  // The adapter's end of port 2 trained to 2x, its switch end prints 4x; port 1's adapter end EDR.
  text.replace(text.find("\"QM8700\" lid 1 4xHDR\n\ncaguid=0xb3"), 22, "\"QM8700\" lid 1 2xHDR\n");
  text.replace(text.find("# lid 2 lmc 0 \"QM8700\" lid 1 4xHDR"), 34, "# lid 2 lmc 0 \"QM8700\" lid 1 4xEDR");
  const FabricReport r = FromText(text);
  ASSERT_EQ(r.mismatches.size(), 2u);
  const auto& m1 = r.mismatches[0];
  EXPECT_EQ(m1.a.node, "H-00000000000000b1");
  EXPECT_EQ(m1.a.speed, "EDR");
  EXPECT_EQ(m1.b.node, "S-00000000000000aa");
  EXPECT_EQ(m1.b.port, 1);
  EXPECT_EQ(m1.b.speed, "HDR");
  EXPECT_FALSE(m1.width_differs);
  EXPECT_TRUE(m1.speed_differs);
  EXPECT_EQ(m1.a.line, 9);
  EXPECT_EQ(m1.b.line, 3);
  const auto& m2 = r.mismatches[1];
  EXPECT_EQ(m2.a.node, "H-00000000000000b2");
  EXPECT_EQ(m2.a.width, "2x");
  EXPECT_EQ(m2.b.width, "4x");
  EXPECT_TRUE(m2.width_differs);
  EXPECT_FALSE(m2.speed_differs);
}

// The PSMN QDR dump: 89 ConnectX adapters with the vendor description only. Before, every switch was
// a spine and the fabric had no host; the six switches holding adapters are leaves.
TEST(FabricReal, QdrAdaptersWithoutHostNames) {
  const FabricReport r = FromFile(kReal + "psmn_x5_qdr_11switch_89ca.topofile");
  EXPECT_EQ(r.switches.size(), 11u);
  EXPECT_EQ(r.cas.size(), 89u);
  EXPECT_EQ(r.leaves.size(), 6u);
  EXPECT_EQ(r.spines.size(), 5u);
  EXPECT_EQ(r.hosts.size(), 89u);
  EXPECT_EQ(r.hosts_named_by_guid, 89);
  size_t on_leaves = 0;
  for (const auto& l : r.leaves) on_leaves += l.hosts.size();
  EXPECT_EQ(on_leaves, 89u);
  EXPECT_TRUE(r.mismatches.empty());
  // 23 of its 89 adapter links run 4x DDR where the other 66 run 4x QDR: each is below its tier's
  // usual (taken from the dump: 4x QDR), the leaf-spine links (all 4x QDR) are not.
  int slow = 0;
  for (const FabricFinding& f : r.findings) {
    EXPECT_EQ(f.kind, FabricFindingKind::kLinkBelowUsual);
    EXPECT_EQ(f.tier, "host-leaf");
    EXPECT_EQ(f.speed, "DDR");
    EXPECT_EQ(f.usual_speed, "QDR");
    EXPECT_EQ(f.usual_width, "4x");
    ++slow;
  }
  EXPECT_EQ(slow, 23);
}

// The SuperPOD dump: 31 leaves and 9 spines; its adapters with the firmware default description
// ("MT4129 ConnectX7   Mellanox Technologies") count as hosts named by GUID, SHARP nodes do not.
TEST(FabricReal, NdrSuperPodLeavesAndUnnamedAdapters) {
  const FabricReport r = FromFile(kReal + "topograph_ndr_dgx_h100_superpod_40switch_582ca.out");
  EXPECT_EQ(r.switches.size(), 40u);
  EXPECT_EQ(r.leaves.size(), 31u);
  EXPECT_EQ(r.spines.size(), 9u);
  int service = 0, guid = 0;
  for (const auto& c : r.cas) {
    service += c.named_by == "service" ? 1 : 0;
    guid += c.named_by == "guid" ? 1 : 0;
  }
  EXPECT_EQ(service + guid + static_cast<int>(std::count_if(r.cas.begin(), r.cas.end(), [](const FabricCa& c) {
              return c.named_by == "description";
            })),
            static_cast<int>(r.cas.size()));
  EXPECT_GT(guid, 0);
  EXPECT_EQ(r.hosts_named_by_guid, guid);
  EXPECT_TRUE(r.mismatches.empty());
}

// The ibnetdiscover(8) man page's example (testdata/real/ibnetdiscover): InfiniHost adapters whose
// descriptions name no host, and two links whose ends print 1xSDR on one side and 4xSDR on the other.
TEST(FabricRealTestdata, ManPageExampleNoHostNamesAndWidthMismatch) {
  int64_t rejected = -1;
  auto text = ReadFileText(std::string(TOPOSCOPE_TESTDATA) +
                           "/real/ibnetdiscover/ibnetdiscover_man8_example_infinihost_no_hostnames_1x_vs_4x.topo");
  ASSERT_TRUE(text.ok());
  const FabricReport r = FromText(*text, &rejected);
  EXPECT_EQ(rejected, 0);
  EXPECT_EQ(r.switches.size(), 2u);
  EXPECT_EQ(r.cas.size(), 4u);
  EXPECT_EQ(r.leaves.size(), 2u);  // both switches hold adapters
  EXPECT_TRUE(r.spines.empty());
  EXPECT_EQ(r.hosts.size(), 4u);
  EXPECT_EQ(r.hosts_named_by_guid, 4);
  ASSERT_EQ(r.mismatches.size(), 2u);
  const auto& m1 = r.mismatches[0];
  EXPECT_EQ(m1.a.node, "H-0008f10403960558");
  EXPECT_EQ(m1.a.port, 1);
  EXPECT_EQ(m1.a.width, "1x");
  EXPECT_EQ(m1.b.node, "S-005442ba00003080");
  EXPECT_EQ(m1.b.port, 12);
  EXPECT_EQ(m1.b.width, "4x");
  EXPECT_TRUE(m1.width_differs);
  EXPECT_FALSE(m1.speed_differs);
  EXPECT_EQ(m1.a.line, 52);
  EXPECT_EQ(m1.b.line, 18);
  const auto& m2 = r.mismatches[1];
  EXPECT_EQ(m2.a.node, "S-0008f10400410015");
  EXPECT_EQ(m2.a.port, 1);
  EXPECT_EQ(m2.a.width, "1x");
  EXPECT_EQ(m2.b.node, "S-005442ba00003080");
  EXPECT_EQ(m2.b.port, 10);
  EXPECT_EQ(m2.b.width, "4x");
}

// --- iblinkinfo as a second source of the graph ------------------------------------------------

const std::string kIbLinkInfoQdr = std::string(TOPOSCOPE_TESTDATA) +
    "/real/iblinkinfo/qdr_connectx3_infiniscale4_18port_down_polling_tsinghua_dbx1000_readme_excerpt.txt";

void AddLinkInfo(model::Dataset& ds, const std::string& text, const std::string& source) {
  Diagnostics diag;
  auto info = formats::ParseIbLinkInfo(text, source, diag);
  ASSERT_TRUE(info.ok());
  ds.link_infos.push_back(std::move(*info));
}

// The real QDR iblinkinfo alone: one 18-port switch, nine adapter ports of eight hosts (teaker-9 has
// two), every link printed from both ends and counted once; nine free ports Down/Polling.
TEST(FabricRealIbLinkInfo, QdrSwitchAloneGivesTheLeafAndItsEightHosts) {
  model::Dataset ds;
  auto text = ReadFileText(kIbLinkInfoQdr);
  ASSERT_TRUE(text.ok());
  AddLinkInfo(ds, *text, "qdr.txt");
  const FabricReport r = AnalyzeFabric(ds);
  ASSERT_TRUE(r.present);
  EXPECT_EQ(r.source_tools, "iblinkinfo");
  ASSERT_EQ(r.switches.size(), 1u);
  EXPECT_EQ(r.switches[0].id, "S-0002c902004b2678");
  EXPECT_EQ(r.switches[0].nports, 18);
  EXPECT_EQ(r.switches[0].level, SwitchLevel::kLeaf);
  EXPECT_EQ(r.cas.size(), 8u);
  EXPECT_EQ(r.hosts, (std::vector<std::string>{"teaker-10", "teaker-11", "teaker-4", "teaker-5", "teaker-6",
                                                "teaker-7", "teaker-8", "teaker-9"}));
  ASSERT_EQ(r.leaves.size(), 1u);
  EXPECT_EQ(r.leaves[0].hosts.size(), 8u);
  EXPECT_TRUE(r.spines.empty());
  ASSERT_EQ(r.links.size(), 9u);
  for (const FabricLink& l : r.links) {
    EXPECT_EQ(l.width, "4x");
    EXPECT_EQ(l.speed, "QDR");
    EXPECT_EQ(l.state, "Active");
    EXPECT_EQ(l.tier, "host-leaf");
    EXPECT_DOUBLE_EQ(l.rate_gbps, 40);
  }
  EXPECT_TRUE(r.mismatches.empty());
  EXPECT_EQ(r.unresolved_peers, 0);
  ASSERT_EQ(r.down_ports.size(), 9u);
  EXPECT_EQ(r.down_ports[0].port, 8);
  EXPECT_EQ(r.down_ports[0].phys_state, "Polling");
  // One switch: no tier to compare its free ports with, and no peer says they are linked.
  EXPECT_TRUE(r.findings.empty());
}

// An ibnetdiscover dump of part of the same fabric (node GUIDs one below the port GUIDs, as on
// ConnectX-3; the LIDs iblinkinfo prints): its adapters are matched by port GUID, so nothing is
// counted twice and the dump's ids win.
const char* kQdrDump =
    "switchguid=0x2c902004b2678(2c902004b2678)\n"
    "Switch\t18 \"S-0002c902004b2678\"\t\t# \"Infiniscale-IV Mellanox Technologies\" base port 0 lid 2 lmc 0\n"
    "[3]\t\"H-f45214030091ba50\"[1](f45214030091ba51) \t\t# \"teaker-9 HCA-1\" lid 6 4xQDR\n"
    "[9]\t\"H-f45214030091b9f0\"[1](f45214030091b9f1) \t\t# \"teaker-4 HCA-1\" lid 1 4xQDR\n"
    "[14]\t\"H-f45214030091ba50\"[2](f45214030091ba52) \t\t# \"teaker-9 HCA-1\" lid 4 4xQDR\n"
    "\n"
    "caguid=0xf45214030091b9f0\n"
    "Ca\t2 \"H-f45214030091b9f0\"\t\t# \"teaker-4 HCA-1\"\n"
    "[1](f45214030091b9f1) \t\"S-0002c902004b2678\"[9]\t\t# lid 1 lmc 0 \"Infiniscale-IV Mellanox Technologies\" lid 2 4xQDR\n"
    "\n"
    "caguid=0xf45214030091ba50\n"
    "Ca\t2 \"H-f45214030091ba50\"\t\t# \"teaker-9 HCA-1\"\n"
    "[1](f45214030091ba51) \t\"S-0002c902004b2678\"[3]\t\t# lid 6 lmc 0 \"Infiniscale-IV Mellanox Technologies\" lid 2 4xQDR\n"
    "[2](f45214030091ba52) \t\"S-0002c902004b2678\"[14]\t\t# lid 4 lmc 0 \"Infiniscale-IV Mellanox Technologies\" lid 2 4xQDR\n";

TEST(FabricRealIbLinkInfo, MergedWithAnIbnetdiscoverDumpOfTheSameFabricCountsEachNodeAndLinkOnce) {
  model::Dataset ds;
  Diagnostics diag;
  auto dump = formats::ParseIbnetdiscover(kQdrDump, "dump.txt", diag);
  ASSERT_TRUE(dump.ok());
  ASSERT_EQ(dump->counts.rejected, 0);
  ds.fabrics.push_back(std::move(*dump));
  auto text = ReadFileText(kIbLinkInfoQdr);
  ASSERT_TRUE(text.ok());
  AddLinkInfo(ds, *text, "qdr.txt");
  const FabricReport r = AnalyzeFabric(ds);
  EXPECT_EQ(r.source_tools, "ibnetdiscover+iblinkinfo");
  EXPECT_EQ(r.switches.size(), 1u);
  EXPECT_EQ(r.cas.size(), 8u);
  EXPECT_EQ(r.hosts.size(), 8u);
  EXPECT_EQ(r.links.size(), 9u);
  EXPECT_TRUE(r.mismatches.empty());
  EXPECT_TRUE(r.findings.empty());
  const auto ca = [&](const std::string& id) {
    return std::find_if(r.cas.begin(), r.cas.end(), [&](const FabricCa& c) { return c.id == id; });
  };
  ASSERT_NE(ca("H-f45214030091ba50"), r.cas.end());  // teaker-9, two ports, the dump's id
  EXPECT_EQ(ca("H-f45214030091ba50")->ports.size(), 2u);
  EXPECT_EQ(ca("H-f45214030091ba51"), r.cas.end());
  ASSERT_NE(ca("H-f45214030091ba11"), r.cas.end());  // teaker-10: iblinkinfo only, its port GUID
  EXPECT_EQ(ca("H-f45214030091ba11")->name, "teaker-10");
  // Links the dump prints keep its width and speed; those only iblinkinfo prints carry a state.
  int with_state = 0;
  for (const FabricLink& l : r.links) with_state += l.state == "Active" ? 1 : 0;
  EXPECT_EQ(with_state, 6);
}

// `iblinkinfo --switches-only`: the adapters are known by the switch side alone (their LID and
// description): an adapter per peer whose description names a host, and the switch is still a leaf.
TEST(FabricIbLinkInfo, SwitchesOnlyOutputStillGivesTheLeaf) {
  auto text = ReadFileText(kIbLinkInfoQdr);
  ASSERT_TRUE(text.ok());
  std::string switch_only;
  bool in_switch = false;
  for (std::string_view line : SplitLines(*text)) {
    if (StartsWith(line, "Switch:")) in_switch = true;
    if (StartsWith(line, "CA:")) in_switch = false;
    if (in_switch) switch_only += std::string(line) + "\n";
  }
  model::Dataset ds;
  AddLinkInfo(ds, switch_only, "switches.txt");
  const FabricReport r = AnalyzeFabric(ds);
  ASSERT_EQ(r.leaves.size(), 1u);
  EXPECT_EQ(r.leaves[0].hosts.size(), 8u);
  EXPECT_EQ(r.links.size(), 9u);
  EXPECT_EQ(r.cas.size(), 9u);  // teaker-9's two ports have two LIDs: two adapters of one host
  EXPECT_EQ(r.hosts.size(), 8u);
  EXPECT_EQ(r.unresolved_peers, 0);
}

}  // namespace fabric_test
}  // namespace toposcope::analysis
