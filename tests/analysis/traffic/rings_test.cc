// Tests of the ring/tree views: golden on the real NCCL_DEBUG=INFO logs (2.26.2 16-rank H100 ring
// orders, trees and NET connections merged across three excerpt files; 2.16.5 two-node log with
// old and new tree lines), exact ring recovery from synthetic host flows, and the log-vs-flow
// comparison.
#include "toposcope/analysis/traffic/rings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "toposcope/analysis/fabric/architecture.h"
#include "toposcope/base/file_io.h"
#include "toposcope/formats/nccl/nccl_log.h"

namespace toposcope::analysis {
namespace rings_test {

using Strings = std::vector<std::string>;

const std::string kDir = std::string(TOPOSCOPE_FIXTURES) + "/nccl_debug_log/";
const std::string kRingsTrees = kDir + "nccl2.26.2_2node16gpu_h100_ib_rings_trees_excerpt.log";
const std::string kConnect = kDir + "nccl2.26.2_2node16gpu_h100_ib_channel_connect_excerpt.log";
const std::string kNetUsing = kDir + "nccl2.26.2_2node16gpu_h100_ib_netib_using_excerpt.log";
const std::string k216 = kDir + "nccl2.16.5_2node_a100pcie_roce_ib_graph_ring_tree_qpn.log";
const std::string k21x = kDir + "nccl2.1x_busid_format_2node16gpu_ib_excerpt.log";

formats::NcclLog Load(const std::string& path) {
  Diagnostics d;
  auto text = ReadFileText(path);
  EXPECT_TRUE(text.ok()) << path;
  if (!text.ok()) return {};
  auto log = formats::ParseNcclLog(*text, path, d);
  EXPECT_TRUE(log.ok()) << path;
  return log.ok() ? *log : formats::NcclLog{};
}

const RingView* Channel(const RingReport& r, int ch) {
  for (const auto& v : r.rings) {
    if (v.channel == ch) return &v;
  }
  return nullptr;
}

const TreeView* TreeChannel(const RingReport& r, int ch) {
  for (const auto& t : r.trees) {
    if (t.channel == ch) return &t;
  }
  return nullptr;
}

TEST(RingHelpers, CollapseAndCanonical) {
  EXPECT_EQ(CollapseHosts({"a", "a", "b", "b", "a"}), (Strings{"a", "b"}));
  EXPECT_EQ(CollapseHosts({"a", "a"}), (Strings{"a"}));
  EXPECT_EQ(CollapseHosts({}), Strings{});
  EXPECT_EQ(CollapseHosts({"b", "a", "c", "b"}), (Strings{"b", "a", "c"}));
  EXPECT_EQ(CanonicalCycle({"c", "a", "b"}), (Strings{"a", "b", "c"}));
  EXPECT_EQ(CanonicalCycle({"c", "b", "a"}), (Strings{"a", "c", "b"}));
}

TEST(RingsFromLogs, Nccl2262RingsTreesExcerptAlone) {
  model::Dataset ds;
  ds.nccl_logs.push_back(Load(kRingsTrees));
  RingReport r = RingsFromLogs(ds);
  ASSERT_EQ(r.rings.size(), 16u);
  const RingView* c0 = Channel(r, 0);
  ASSERT_NE(c0, nullptr);
  EXPECT_EQ(RingSourceName(c0->source), "nccl_log");
  EXPECT_EQ(c0->comm, "nranks=16");
  EXPECT_EQ(c0->ranks, (std::vector<int>{0, 7, 6, 5, 4, 3, 2, 1, 9, 10, 11, 12, 13, 14, 15, 8}));
  // Rank 14 prints no comm or Trees line in this excerpt: its host is unknown.
  EXPECT_EQ(c0->hosts, (Strings{"lccn09", "lccn19", "?", "lccn19"}));
  EXPECT_EQ(c0->gpus[0], "lccn09/gpu0");
  EXPECT_EQ(c0->gpus[1], "lccn09/gpu7");
  EXPECT_EQ(c0->gpus[8], "lccn19/gpu1");  // rank 9, from its Trees line's prefix
  EXPECT_EQ(c0->gpus[13], "?/?");          // rank 14
  // Trees: 16 channels, channel 0 is the chain 15->14->...->8->0 and 7->...->1->0, rooted at 0.
  ASSERT_EQ(r.trees.size(), 16u);
  const TreeView* t0 = TreeChannel(r, 0);
  ASSERT_NE(t0, nullptr);
  EXPECT_EQ(t0->root, 0);
  std::vector<std::pair<int, int>> want = {{1, 0}, {2, 1}, {3, 2}, {4, 3},  {5, 4},   {6, 5},   {7, 6},  {8, 0},
                                           {9, 8}, {10, 9}, {11, 10}, {12, 11}, {13, 12}, {14, 13}, {15, 14}};
  EXPECT_EQ(t0->edges, want);
  // Channel 5: rank 5 is the root with children 6 and 13 (its "6/13/-1->5->-1").
  const TreeView* t5 = TreeChannel(r, 5);
  ASSERT_NE(t5, nullptr);
  EXPECT_EQ(t5->root, 5);
}

TEST(RingsFromLogs, Nccl2262MergedAcrossThreeFiles) {
  model::Dataset ds;
  ds.nccl_logs.push_back(Load(kRingsTrees));
  ds.nccl_logs.push_back(Load(kConnect));
  ds.nccl_logs.push_back(Load(kNetUsing));
  RingReport r = RingsFromLogs(ds);
  ASSERT_EQ(r.rings.size(), 16u);
  // Every ring of this 2-node job crosses between the nodes exactly twice.
  for (const auto& v : r.rings) {
    EXPECT_EQ(v.hosts, (Strings{"lccn09", "lccn19"})) << "channel " << v.channel;
    EXPECT_EQ(v.cross_node_nics.size(), 2u) << "channel " << v.channel;
    EXPECT_EQ(v.channels, 16);
    EXPECT_EQ(v.ranks.size(), 16u);
  }
  // Channel 0: 0 7 6 5 4 3 2 1 | 9 ... 15 8 |: hops 1 -> 9 (rank 1 sends on NET dev 1 = mlx5_1 of
  // lccn09; lccn19's device list is not in the excerpts) and 8 -> 0 (no connection lines).
  const RingView* c0 = Channel(r, 0);
  ASSERT_NE(c0, nullptr);
  EXPECT_EQ(c0->cross_node_nics, (Strings{"lccn09:mlx5_1->lccn19:?", "lccn19:?->lccn09:?"}));
  EXPECT_EQ(c0->gpus[13], "lccn19/gpu6");  // rank 14, from the connection lines
  // Channel 1: 0 8 15 ... 9 | 1 ... 7: hops 0 -> 8 and 9 -> 1 (received on lccn09's NET dev 1).
  const RingView* c1 = Channel(r, 1);
  ASSERT_NE(c1, nullptr);
  EXPECT_EQ(c1->ranks, (std::vector<int>{0, 8, 15, 14, 13, 12, 11, 10, 9, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(c1->cross_node_nics, (Strings{"lccn09:?->lccn19:?", "lccn19:?->lccn09:mlx5_1"}));
  // Channel 2: 0 7 6 5 4 3 | 11 ... 8 9 10 | 2 1: hops 3 -> 11 (lccn09 dev 3 = mlx5_4) and 10 -> 2
  // (received by lccn09 rank 2 on dev 2 = mlx5_2).
  const RingView* c2 = Channel(r, 2);
  ASSERT_NE(c2, nullptr);
  EXPECT_EQ(c2->cross_node_nics, (Strings{"lccn09:mlx5_4->lccn19:?", "lccn19:?->lccn09:mlx5_2"}));
  // Channel 6: 0 7 | 15 8 ... 14 | 6 5 ...: hops 7 -> 15 (received on lccn19 dev 7, no names
  // there) and 14 -> 6 (sent by lccn19, received by lccn09 rank 6 on dev 6 = mlx5_7).
  const RingView* c6 = Channel(r, 6);
  ASSERT_NE(c6, nullptr);
  EXPECT_EQ(c6->cross_node_nics, (Strings{"lccn09:?->lccn19:?", "lccn19:?->lccn09:mlx5_7"}));
}

TEST(RingsFromLogs, Nccl2165TwoNodeLog) {
  model::Dataset ds;
  ds.nccl_logs.push_back(Load(k216));
  RingReport r = RingsFromLogs(ds);
  ASSERT_EQ(r.rings.size(), 2u);
  for (const auto& v : r.rings) {
    EXPECT_EQ(v.comm, "0xb2f794396f6d0bd1");
    EXPECT_EQ(v.ranks, (std::vector<int>{0, 1}));
    // Rank 1 runs on n014 (nccl-tests' header says so) but no NCCL line of rank 1 is in this log.
    EXPECT_EQ(v.hosts, (Strings{"n013", "?"}));
    EXPECT_EQ(v.gpus, (Strings{"n013/gpu0", "?/?"}));
    // Rank 0 sends and receives on NET/IB/1 = mlx5_2 ("[1]mlx5_2:1/IB").
    EXPECT_EQ(v.cross_node_nics, (Strings{"n013:mlx5_2->?:?", "?:?->n013:mlx5_2"}));
  }
  // The ring order agrees with the "Ring 00 : 1 -> 0 -> 1" lines: no note about it.
  for (const auto& n : r.notes) EXPECT_EQ(n.find("disagree"), std::string::npos) << n;
  // Old "Tree" and new "Trees" lines merge: channel 0 is 1 -> 0, channel 1 is 0 -> 1.
  ASSERT_EQ(r.trees.size(), 2u);
  EXPECT_EQ(r.trees[0].edges, (std::vector<std::pair<int, int>>{{1, 0}}));
  EXPECT_EQ(r.trees[0].root, 0);
  EXPECT_EQ(r.trees[1].edges, (std::vector<std::pair<int, int>>{{0, 1}}));
  EXPECT_EQ(r.trees[1].root, 1);
}

TEST(RingsFromLogs, ConnectionOnlyExcerptHasNoRings) {
  model::Dataset ds;
  ds.nccl_logs.push_back(Load(k21x));
  RingReport r = RingsFromLogs(ds);
  EXPECT_TRUE(r.rings.empty());
  EXPECT_TRUE(r.trees.empty());
  model::Dataset empty;
  EXPECT_TRUE(RingsFromLogs(empty).rings.empty());
}

TEST(RingsFromLogs, RebuiltFromRingLinesAndDisagreements) {
  Diagnostics d;
  // Three ranks on three hosts; no ring order for channel 0, only every rank's Ring line.
  auto a = formats::ParseNcclLog(
      "h1:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 3 nNodes 3 localRanks 1 localRank 0 MNNVL 0\n"
      "h1:1:1 [0] NCCL INFO Ring 00 : 1 -> 0 -> 2\n"
      "h1:1:1 [0] NCCL INFO Channel 01/02 :    0   1   2\n"
      "h1:1:1 [0] NCCL INFO Ring 01 : 2 -> 0 -> 1\n",
      "h1.log", d);
  auto b = formats::ParseNcclLog(
      "h2:1:1 [3] NCCL INFO comm 0x2 rank 1 nRanks 3 nNodes 3 localRanks 1 localRank 0 MNNVL 0\n"
      "h2:1:1 [3] NCCL INFO Ring 00 : 2 -> 1 -> 0\n"
      "h2:1:1 [3] NCCL INFO Ring 01 : 0 -> 1 -> 0\n",  // disagrees with rank 0's order (next is 2)
      "h2.log", d);
  auto c = formats::ParseNcclLog(
      "h3:1:1 [5] NCCL INFO comm 0x3 rank 2 nRanks 3 nNodes 3 localRanks 1 localRank 0 MNNVL 0\n"
      "h3:1:1 [5] NCCL INFO Ring 00 : 0 -> 2 -> 1\n",
      "h3.log", d);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  model::Dataset ds;
  ds.nccl_logs = {*a, *b, *c};
  RingReport r = RingsFromLogs(ds);
  ASSERT_EQ(r.rings.size(), 2u);
  EXPECT_EQ(r.rings[0].ranks, (std::vector<int>{0, 2, 1}));
  EXPECT_EQ(r.rings[0].hosts, (Strings{"h1", "h3", "h2"}));
  EXPECT_EQ(r.rings[0].gpus, (Strings{"h1/gpu0", "h3/gpu5", "h2/gpu3"}));
  EXPECT_EQ(r.rings[0].cross_node_nics.size(), 3u);
  EXPECT_EQ(r.rings[1].ranks, (std::vector<int>{0, 1, 2}));
  bool rebuilt = false, disagree = false;
  for (const auto& n : r.notes) {
    rebuilt = rebuilt || n.find("channel 0: ring rebuilt from 3 Ring lines") != std::string::npos;
    disagree = disagree || n.find("channel 1: 1 Ring line(s) disagree") != std::string::npos;
  }
  EXPECT_TRUE(rebuilt);
  EXPECT_TRUE(disagree);
}

// Two hosts, four ranks, NCCL 2.4 spelling: connections labelled "Ring", the NET ones without the
// device in brackets; no ring order and no "prev -> me -> next" line. The connections close a cycle.
TEST(RingsFromLogs, Nccl24RingConnectionLinesAcrossHosts) {
  Diagnostics d;
  auto a = formats::ParseNcclLog(
      "hostA:100:200 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC\n"
      "hostA:101:201 [1] NCCL INFO Ring 00 : 1 -> 2 [send] via NET/Socket/0\n"
      "hostA:100:200 [0] NCCL INFO Ring 00 : 3 -> 0 [receive] via NET/Socket/0\n",
      "a.log", d);
  auto b = formats::ParseNcclLog(
      "hostB:300:400 [0] NCCL INFO Ring 00 : 1 -> 2 [receive] via NET/Socket/0\n"
      "hostB:300:400 [0] NCCL INFO Ring 00 : 2[0] -> 3[1] via P2P/IPC\n"
      "hostB:301:401 [1] NCCL INFO Ring 00 : 3 -> 0 [send] via NET/Socket/0\n",
      "b.log", d);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(d.items().size(), 0u);
  model::Dataset ds;
  ds.nccl_logs = {*a, *b};
  RingReport r = RingsFromLogs(ds);
  ASSERT_EQ(r.rings.size(), 1u);
  EXPECT_EQ(r.rings[0].ranks, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(r.rings[0].hosts, (Strings{"hostA", "hostB"}));
  EXPECT_EQ(r.rings[0].gpus, (Strings{"hostA/gpu0", "hostA/gpu1", "hostB/gpu0", "hostB/gpu1"}));
  EXPECT_TRUE(r.rings[0].complete);
  EXPECT_EQ(RingHostOrders(r).size(), 1u);
}

// Newer logs: "Channel 05/0" connection lines of every rank, the tree connections after the ring
// ones (so ranks have two successors), and "/1" point-to-point lines, which are not ring hops.
TEST(RingsFromLogs, ChannelConnectionsWithTreeConnectionsCloseTheRing) {
  Diagnostics d;
  auto log = formats::ParseNcclLog(
      "n1:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0\n"
      "n1:1:1 [0] NCCL INFO Channel 05/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
      "n1:1:2 [1] NCCL INFO comm 0x2 rank 1 nRanks 4 nNodes 2 localRanks 2 localRank 1 MNNVL 0\n"
      "n1:1:2 [1] NCCL INFO Channel 05/0 : 1[1] -> 2[0] [send] via NET/IB/0\n"
      "n2:2:1 [0] NCCL INFO comm 0x3 rank 2 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0\n"
      "n2:2:1 [0] NCCL INFO Channel 05/0 : 1[1] -> 2[0] [receive] via NET/IB/0\n"
      "n2:2:1 [0] NCCL INFO Channel 05/0 : 2[0] -> 3[1] via P2P/CUMEM\n"
      "n2:2:2 [1] NCCL INFO comm 0x4 rank 3 nRanks 4 nNodes 2 localRanks 2 localRank 1 MNNVL 0\n"
      "n2:2:2 [1] NCCL INFO Channel 05/0 : 3[1] -> 0[0] [send] via NET/IB/0\n"
      "n1:1:1 [0] NCCL INFO Channel 05/0 : 3[1] -> 0[0] [receive] via NET/IB/0\n"
      "n1:1:1 [0] NCCL INFO Connected all rings\n"
      "n1:1:1 [0] NCCL INFO Channel 05/0 : 0[0] -> 2[0] [send] via NET/IB/0\n"   // tree
      "n2:2:1 [0] NCCL INFO Channel 05/0 : 2[0] -> 0[0] [send] via NET/IB/0\n"   // tree
      "n1:1:2 [1] NCCL INFO Channel 05/0 : 1[1] -> 0[0] via P2P/CUMEM\n"         // tree
      "n1:1:1 [0] NCCL INFO Channel 02/1 : 0[0] -> 3[1] [send] via NET/IB/0\n",  // point to point
      "n.log", d);
  ASSERT_TRUE(log.ok());
  model::Dataset ds;
  ds.nccl_logs = {*log};
  RingReport r = RingsFromLogs(ds);
  ASSERT_EQ(r.rings.size(), 1u);
  EXPECT_EQ(r.rings[0].channel, 5);
  EXPECT_EQ(r.rings[0].ranks, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(r.rings[0].hosts, (Strings{"n1", "n2"}));
  EXPECT_TRUE(r.rings[0].complete);
  bool first = false;
  for (const auto& n : r.notes) first = first || n.find("rebuilt from 4 first connection lines") != std::string::npos;
  EXPECT_TRUE(first);
}

// NCCL <= 2.22 prints at most 20 ranks of rank 0's order; with nothing else to rebuild it from, the
// ring is partial: complete = false, no hop from the last printed rank back to rank 0, and neither
// the architecture's host orders nor the log/flow comparison use it.
TEST(RingsFromLogs, CutShortOrderIsAPartialRing) {
  Diagnostics d;
  std::string text = "h0:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 32 nNodes 4 localRanks 8 localRank 0 MNNVL 0\n";
  text += "h0:1:1 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16  17"
          "  18  19\n";
  auto log = formats::ParseNcclLog(text, "cut.log", d);
  ASSERT_TRUE(log.ok());
  model::Dataset ds;
  ds.nccl_logs = {*log};
  RingReport r = RingsFromLogs(ds);
  ASSERT_EQ(r.rings.size(), 1u);
  EXPECT_FALSE(r.rings[0].complete);
  EXPECT_EQ(r.rings[0].ranks.size(), 20u);
  EXPECT_EQ(RingHostOrders(r).size(), 0u);
  bool partial = false;
  for (const auto& n : r.notes) partial = partial || n.find("partial ring of 20 of 32 ranks") != std::string::npos;
  EXPECT_TRUE(partial);
  // Hosts of ranks 0..19 on two hosts in a row: h0 then "?" (unknown), never wrapped back to h0.
  EXPECT_EQ(r.rings[0].hosts, (Strings{"h0", "?"}));
  EXPECT_EQ(r.rings[0].cross_node_nics.size(), 1u);
  std::vector<RingView> flows(1);
  flows[0].source = RingSource::kFlows;
  flows[0].hosts = {"?", "h0"};
  CompareRings(&r, flows);
  EXPECT_EQ(r.log_flow_agree + r.log_flow_disagree, 0);
  EXPECT_NE(r.notes.back().find("0 cross-node host cycle(s) in the NCCL logs"), std::string::npos) << r.notes.back();
}

// Real console captures (testdata/real/nccl_log, PROVENANCE.md).
const std::string kRealLog = std::string(TOPOSCOPE_TESTDATA) + "/real/nccl_log/";

RingReport RealRings(const std::string& name) {
  model::Dataset ds;
  ds.nccl_logs.push_back(Load(kRealLog + name));
  return RingsFromLogs(ds);
}

bool HasNote(const RingReport& r, std::string_view part) {
  for (const auto& n : r.notes) {
    if (n.find(part) != std::string::npos) return true;
  }
  return false;
}

// NVIDIA/nccl issue #514: rank 0's orders of a 32-rank comm cut by NCCL at 20 ranks: every ring is
// partial (its ranks name rank 31, so the comm has at least 32).
TEST(RingsFromLogsReal, Issue514CutShortOrdersArePartial) {
  const RingReport r = RealRings("nccl2.x_cut_short_ring_orders_32ranks_nccl_issue514_excerpt.log");
  ASSERT_EQ(r.rings.size(), 8u);
  for (const auto& v : r.rings) {
    EXPECT_FALSE(v.complete) << v.channel;
    EXPECT_EQ(v.ranks.size(), 20u);
  }
  EXPECT_EQ(r.rings[0].ranks.front(), 0);
  EXPECT_EQ(r.rings[0].ranks.back(), 21);
  EXPECT_TRUE(HasNote(r, "channel 0: partial ring of 20 of 32 ranks"));
  EXPECT_TRUE(RingHostOrders(r).empty());
}

// torchrun's "[rank0]:" prefix, 2.23+ one-digit spacing: ten whole rings of four ranks.
TEST(RingsFromLogsReal, TorchrunPrefixedOrdersAreWholeRings) {
  const RingReport r = RealRings("torchrun_rank_prefix_4gpu_channel_orders_torchtitan_issue1570_excerpt.log");
  ASSERT_EQ(r.rings.size(), 10u);
  for (const auto& v : r.rings) {
    EXPECT_TRUE(v.complete);
    EXPECT_EQ(v.ranks, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(v.comm, "nranks=4");
    EXPECT_EQ(v.gpus[0], "costa-671b-5-worker-1/gpu0");
  }
}

// Python logging prefix: the channel 23 order is a whole ring of 8; rank 0's Ring lines alone close
// no cycle for channels 0-9.
TEST(RingsFromLogsReal, PythonLoggingPrefixedOrder) {
  const RingReport r = RealRings("pylogging_prefix_8gpu_ring_lines_easydistill_issue4_excerpt.log");
  ASSERT_EQ(r.rings.size(), 1u);
  EXPECT_EQ(r.rings[0].channel, 23);
  EXPECT_TRUE(r.rings[0].complete);
  EXPECT_EQ(r.rings[0].ranks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(r.rings[0].gpus[0], "g340-cd51-4900-b72a-d104-a9bf-df48/gpu0");
  EXPECT_TRUE(HasNote(r, "channel 9: no ring order and neither Ring lines nor connections close a cycle"));
}

// NCCL 2.4 connection excerpts of 32 and 64 ranks: some ranks' lines are missing, so no cycle
// closes and no ring is claimed.
TEST(RingsFromLogsReal, Nccl24ConnectionExcerptsCloseNoRing) {
  const RingReport a = RealRings("nccl2.4_ring_connections_4node_32gpu_nccl_tests_issue29_excerpt.log");
  EXPECT_TRUE(a.rings.empty());
  EXPECT_TRUE(HasNote(a, "channel 0: no ring order and neither Ring lines nor connections close a cycle"));
  const RingReport b = RealRings("nccl2.4_socket_ring_send_receive_aws_nccl_issue226_excerpt.log");
  EXPECT_TRUE(b.rings.empty());
  // 2.5.6 labels tree connections "Ring" too: rank 155 has three successors and no cycle closes.
  const RingReport c = RealRings("nccl2.5.6_mpi_rank_tag_split_trees_ring_conns_nccl_issue302_excerpt.log");
  EXPECT_TRUE(c.rings.empty());
  EXPECT_EQ(c.trees.size(), 4u);
}

// ---------------------------------------------------------------------------------------------
// Rings from flows
// ---------------------------------------------------------------------------------------------

IpAddress HostIp(int h) { return IpAddress::V4(0x0a000001u + static_cast<uint32_t>(h)); }

void AddFlow(FlowReport& r, int a, int b, uint32_t qp, int64_t data_bytes) {
  Flow f;
  f.key = FlowKey{HostIp(a), HostIp(b), qp};
  f.src_host = "h" + std::to_string(a);
  f.dst_host = "h" + std::to_string(b);
  f.data_bytes = data_bytes;
  r.flows.push_back(f);
}

TEST(RingsFromFlows, ExactRecoveryOfTwoRingsUnderNoise) {
  FlowReport r;
  for (int h = 0; h < 6; ++h) r.hosts.Add(HostIp(h), "h" + std::to_string(h), "inventory", "mlx5_" + std::to_string(h));
  const std::vector<int> ring = {0, 3, 1, 5, 2, 4};
  uint32_t qp = 100;
  for (size_t i = 0; i < ring.size(); ++i) {
    const int a = ring[i], b = ring[(i + 1) % ring.size()];
    AddFlow(r, a, b, qp++, 1'000'000'000);  // forward ring: 1 GB per hop, 2 QPs (channels)
    AddFlow(r, a, b, qp++, 1'000'000'000);
    AddFlow(r, b, a, qp++, 1'000'000);  // NCCL's fifo writes back: 1 MB
    AddFlow(r, b, a, qp++, 500'000'000);  // the reverse ring (another channel): 0.5 GB
  }
  AddFlow(r, 0, 2, qp++, 2'000'000);  // a stray point-to-point transfer
  AddFlow(r, 0, 0, qp++, 9'000'000'000);  // same host: ignored
  auto rings = RingsFromFlows(r);
  ASSERT_EQ(rings.size(), 2u);
  EXPECT_EQ(RingSourceName(rings[0].source), "flows");
  EXPECT_EQ(rings[0].channel, -1);
  EXPECT_EQ(rings[0].hosts, (Strings{"h0", "h3", "h1", "h5", "h2", "h4"}));
  EXPECT_NEAR(rings[0].bytes, 2e9, 1.0);
  EXPECT_EQ(rings[1].hosts, (Strings{"h0", "h4", "h2", "h5", "h1", "h3"}));
  EXPECT_NEAR(rings[1].bytes, 0.501e9, 1.0);
  ASSERT_EQ(rings[0].cross_node_nics.size(), 6u);
  EXPECT_EQ(rings[0].cross_node_nics[0], "h0:mlx5_0->h3:mlx5_3");
}

TEST(RingsFromFlows, UnknownHostsByIpAndMultiRail) {
  FlowReport r;
  // Two hosts with two rails each, no host map: nodes are the IPs; but with hosts set on flows the
  // rails fold into one hop listing both IP pairs.
  auto add = [&r](const char* s, const char* d, const char* hs, const char* hd, int64_t bytes) {
    Flow f;
    f.key = FlowKey{*IpAddress::Parse(s), *IpAddress::Parse(d), 1};
    f.src_host = hs;
    f.dst_host = hd;
    f.data_bytes = bytes;
    r.flows.push_back(f);
  };
  add("10.0.0.1", "10.0.1.1", "a", "b", 300);
  add("10.0.0.2", "10.0.1.2", "a", "b", 200);
  add("10.0.1.1", "10.0.0.1", "b", "a", 250);
  auto rings = RingsFromFlows(r);
  ASSERT_EQ(rings.size(), 1u);
  EXPECT_EQ(rings[0].hosts, (Strings{"a", "b"}));
  EXPECT_EQ(rings[0].cross_node_nics,
            (Strings{"a:10.0.0.1->b:10.0.1.1,a:10.0.0.2->b:10.0.1.2", "b:10.0.1.1->a:10.0.0.1"}));
  EXPECT_NEAR(rings[0].bytes, 250, 1e-9);

  FlowReport anon;
  Flow f;
  f.key = FlowKey{*IpAddress::Parse("10.0.0.1"), *IpAddress::Parse("10.0.0.2"), 1};
  f.data_bytes = 10;
  anon.flows.push_back(f);
  f.key = FlowKey{*IpAddress::Parse("10.0.0.2"), *IpAddress::Parse("10.0.0.1"), 2};
  anon.flows.push_back(f);
  auto ar = RingsFromFlows(anon);
  ASSERT_EQ(ar.size(), 1u);
  EXPECT_EQ(ar[0].hosts, (Strings{"10.0.0.1", "10.0.0.2"}));
  EXPECT_TRUE(RingsFromFlows(FlowReport{}).empty());
}

TEST(CompareRings, RealLogRingsAgainstFlows) {
  model::Dataset ds;
  ds.nccl_logs.push_back(Load(kRingsTrees));
  ds.nccl_logs.push_back(Load(kConnect));
  RingReport r = RingsFromLogs(ds);
  FlowReport fr;
  auto add = [&fr](const char* s, const char* d, const char* hs, const char* hd) {
    Flow f;
    f.key = FlowKey{*IpAddress::Parse(s), *IpAddress::Parse(d), 1};
    f.src_host = hs;
    f.dst_host = hd;
    f.data_bytes = 1 << 30;
    fr.flows.push_back(f);
  };
  add("192.168.11.9", "192.168.11.19", "lccn09", "lccn19");
  add("192.168.11.19", "192.168.11.9", "lccn19", "lccn09");
  auto flow_rings = RingsFromFlows(fr);
  ASSERT_EQ(flow_rings.size(), 1u);
  CompareRings(&r, flow_rings);
  EXPECT_EQ(r.log_flow_agree, 1);
  EXPECT_EQ(r.log_flow_disagree, 0);
  bool noted = false;
  for (const auto& n : r.notes) {
    noted = noted || n == "agree: log ring lccn09 -> lccn19 (16 channels) is a flow ring";
  }
  EXPECT_TRUE(noted);
}

TEST(CompareRings, DirectionAndMissingRings) {
  RingReport r;
  RingView log;
  log.source = RingSource::kNcclLog;
  log.channel = 0;
  log.comm = "c";
  log.hosts = {"b", "c", "a"};
  r.rings.push_back(log);
  RingView intra = log;
  intra.channel = 1;
  intra.hosts = {"a"};  // one host: not compared
  r.rings.push_back(intra);
  RingView rev;
  rev.source = RingSource::kFlows;
  rev.hosts = {"a", "c", "b"};
  RingView extra;
  extra.source = RingSource::kFlows;
  extra.hosts = {"d", "e"};
  {
    RingReport x = r;
    CompareRings(&x, {rev, extra});
    EXPECT_EQ(x.log_flow_agree, 0);
    EXPECT_EQ(x.log_flow_disagree, 2);
    ASSERT_EQ(x.notes.size(), 2u);
    EXPECT_EQ(x.notes[0], "disagree: log ring a -> b -> c (c/0) appears in flows only in the reverse direction");
    EXPECT_EQ(x.notes[1], "disagree: flow ring d -> e is in no NCCL log ring");
  }
  {
    RingReport x = r;
    RingView same;
    same.source = RingSource::kFlows;
    same.hosts = {"c", "a", "b"};
    CompareRings(&x, {same});
    EXPECT_EQ(x.log_flow_agree, 1);
    EXPECT_EQ(x.log_flow_disagree, 0);
  }
  {
    RingReport x = r;
    CompareRings(&x, {});
    EXPECT_EQ(x.log_flow_agree + x.log_flow_disagree, 0);
    ASSERT_EQ(x.notes.size(), 1u);
    EXPECT_NE(x.notes[0].find("nothing to compare"), std::string::npos);
  }
  CompareRings(nullptr, {});  // no crash
}

}  // namespace rings_test
}  // namespace toposcope::analysis
