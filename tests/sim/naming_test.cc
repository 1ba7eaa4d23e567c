// Tests of sim/naming and of the simulator's use of it: names in each real style, unique, in random
// order; a cluster named in a style keeps its grouping and data under new names; the inputs carry
// no placement (no rack/leaf columns in the inventory, no leaf or port in capture file names).
#include "toposcope/sim/naming.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "temp_dir.h"
#include "toposcope/base/file_io.h"
#include "toposcope/sim/cluster.h"
#include "toposcope/sim/simulate.h"

namespace toposcope::sim {
namespace naming_test {

namespace fs = std::filesystem;

TEST(Naming, StylesByNameAndSeed) {
  for (NameStyle s : {NameStyle::kPlain, NameStyle::kDgx, NameStyle::kRackNode, NameStyle::kCloudIp}) {
    EXPECT_EQ(ParseNameStyle(NameStyleName(s)), s);
  }
  EXPECT_FALSE(ParseNameStyle("nodes").has_value());
  std::set<NameStyle> seen;
  for (uint64_t seed = 1; seed <= 3; ++seed) seen.insert(NameStyleOfSeed(seed));
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen.count(NameStyle::kPlain), 0u);
}

TEST(Naming, DrawsUniqueNamesInEachStyle) {
  const std::regex host_re[] = {std::regex("dgx-[a-h][0-9]{2}-[0-9]{2}"), std::regex("gpu-r[0-9]+-n[0-9]+"),
                                std::regex("ip-10-[0-9]+-[0-9]+-[0-9]+")};
  const NameStyle styles[] = {NameStyle::kDgx, NameStyle::kRackNode, NameStyle::kCloudIp};
  for (int k = 0; k < 3; ++k) {
    std::set<std::string> taken = {"already"};
    const std::vector<std::string> hosts = DrawNames(500, styles[k], NameKind::kHost, 3, 1, taken);
    const std::vector<std::string> sw = DrawNames(50, styles[k], NameKind::kSwitch, 3, 2, taken);
    EXPECT_EQ(taken.size(), 551u);  // all unique, none the name taken before
    for (const auto& h : hosts) EXPECT_TRUE(std::regex_match(h, host_re[k])) << h;
    for (const auto& s : sw) EXPECT_EQ(s.find("leaf"), std::string::npos) << s;
    std::set<std::string> again_taken = {"already"};
    EXPECT_EQ(DrawNames(500, styles[k], NameKind::kHost, 3, 1, again_taken), hosts);  // same seed, same names
  }
  // More names than a style holds still come out unique.
  std::set<std::string> taken;
  EXPECT_EQ(DrawNames(12000, NameStyle::kDgx, NameKind::kHost, 1, 1, taken).size(), 12000u);
  EXPECT_EQ(taken.size(), 12000u);
}

TEST(Naming, ClusterNamedInAStyleKeepsItsGroupingUnderNewNames) {
  for (Arch arch : {Arch::kFatTree, Arch::kDragonfly, Arch::kHhre}) {
    SimOptions o;
    o.arch = arch;
    o.hosts = 16;
    Result<Cluster> plain = BuildCluster(o);
    o.naming = NameStyle::kCloudIp;
    Result<Cluster> named = BuildCluster(o);
    ASSERT_TRUE(plain.ok() && named.ok());
    ASSERT_EQ(plain->hosts.size(), named->hosts.size());
    ASSERT_EQ(plain->fabric.leaves.size(), named->fabric.leaves.size());
    std::set<std::string> names;
    for (size_t i = 0; i < plain->hosts.size(); ++i) {
      const HostModel& a = plain->hosts[i];
      const HostModel& b = named->hosts[i];
      EXPECT_EQ(b.name.rfind("ip-10-", 0), 0u) << b.name;
      EXPECT_EQ(b.host_hash, a.host_hash);  // the same data under the new name
      EXPECT_EQ(b.type, a.type);
      names.insert(b.name);
      // The host's leaf is the one whose members list it.
      bool listed = false;
      for (const auto& l : named->fabric.leaves) {
        if (l.name != b.leaf) continue;
        listed = std::find(l.members.begin(), l.members.end(), b.name) != l.members.end();
      }
      EXPECT_TRUE(listed) << b.name << " " << b.leaf;
    }
    EXPECT_EQ(names.size(), plain->hosts.size());
    for (size_t l = 0; l < plain->fabric.leaves.size(); ++l) {
      EXPECT_EQ(named->fabric.leaves[l].name.rfind("sw-10-250-", 0), 0u);
      EXPECT_EQ(named->fabric.leaves[l].members.size(), plain->fabric.leaves[l].members.size());
    }
    for (size_t g = 0; g < plain->fabric.groups.size(); ++g) {
      EXPECT_EQ(named->fabric.groups[g].name, plain->fabric.groups[g].name);
      EXPECT_EQ(named->fabric.groups[g].members.size(), plain->fabric.groups[g].members.size());
      for (const auto& r : named->fabric.groups[g].members) EXPECT_EQ(r.rfind("sw-10-250-", 0), 0u) << r;
    }
    for (const auto& ring : named->fabric.rings) {
      for (const auto& r : ring.members) EXPECT_EQ(r.rfind("sw-10-250-", 0), 0u) << r;
    }
  }
}

TEST(Naming, InputsCarryNoPlacement) {
  TempDir tmp("naming_placement");
  SimOptions o;
  o.hosts = 8;
  o.with_rdma = true;
  o.naming = NameStyle::kDgx;
  Result<SimSummary> s = Simulate(o, tmp.str());
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  const std::string inv = *ReadFileText(tmp.str() + "/inventory.csv");
  EXPECT_EQ(inv.substr(0, inv.find('\n')), "host,ip,nic,port,gid");
  std::set<std::string> leaves;
  for (const auto& h : s->hosts) leaves.insert(h.leaf);
  int captures = 0;
  for (const auto& e : fs::directory_iterator(tmp.path() / "captures")) {
    const std::string name = e.path().filename().string();
    ++captures;
    EXPECT_TRUE(std::regex_match(name, std::regex("span-[0-9a-f]{8}\\.pcap"))) << name;
    for (const auto& l : leaves) EXPECT_EQ(name.find(l), std::string::npos) << name;
  }
  EXPECT_GT(captures, 0);
  for (const auto& h : s->hosts) EXPECT_EQ(h.name.rfind("dgx-", 0), 0u) << h.name;
}

}  // namespace naming_test
}  // namespace toposcope::sim
