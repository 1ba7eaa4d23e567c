// Golden tests of the NCCL_DEBUG=INFO log reader on the seven real logs (NCCL 2.1x busId era,
// 2.16.5, 2.2x CUMEM, 2.2x system dump, 2.26.2 rings/trees, connections and NET/IB device list),
// a synthetic log with the remaining line spellings, writer round trips for every era, and
// malformed inputs.
#include "toposcope/formats/nccl/nccl_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "toposcope/base/file_io.h"

namespace toposcope::formats {
namespace nccl_log_test {

const std::string kReal = std::string(TOPOSCOPE_FIXTURES) + "/nccl_debug_log/";
const std::string k216 = kReal + "nccl2.16.5_2node_a100pcie_roce_ib_graph_ring_tree_qpn.log";
const std::string kBusId = kReal + "nccl2.1x_busid_format_2node16gpu_ib_excerpt.log";
const std::string kConnect = kReal + "nccl2.26.2_2node16gpu_h100_ib_channel_connect_excerpt.log";
const std::string kUsing = kReal + "nccl2.26.2_2node16gpu_h100_ib_netib_using_excerpt.log";
const std::string kRingsTrees = kReal + "nccl2.26.2_2node16gpu_h100_ib_rings_trees_excerpt.log";
const std::string kSystem = kReal + "nccl2.2x_h200_vm_graph_system_dump_excerpt.log";
const std::string kCumem = kReal + "nccl2.2x_h20_2node_cumem_ib_excerpt.log";
const std::string kSynth = std::string(TOPOSCOPE_TESTDATA) + "/nccl_log/synthetic_mixed_eras.log";

using Dir = NcclConnection::Dir;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Reads a file through the streaming path (OpenInput + LineReader).
NcclLog ReadFile(const std::string& path, Diagnostics& diag) {
  auto in = OpenInput(path);
  EXPECT_TRUE(in.ok()) << path;
  LineReader lines(std::move(*in));
  auto log = ReadNcclLog(lines, path, diag);
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().ToString());
  return log.ok() ? std::move(*log) : NcclLog{};
}

NcclLog ParseOk(std::string_view text, Diagnostics& diag) {
  auto log = ParseNcclLog(text, "<test>", diag);
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().ToString());
  return log.ok() ? std::move(*log) : NcclLog{};
}

void ExpectCounts(const NcclLog& log, int64_t read, int64_t rejected) {
  EXPECT_EQ(log.counts.read, read);
  EXPECT_EQ(log.counts.rejected, rejected);
  EXPECT_TRUE(log.counts.Balanced());
}

// ---------------------------------------------------------------------------------------------
// Real fixtures.

TEST(NcclLogFixture, Nccl2165RoceIbGraphRingTreeQpn) {
  Diagnostics diag;
  const NcclLog log = ReadFile(k216, diag);
  ExpectCounts(log, 74, 0);
  EXPECT_EQ(log.nccl_version, "2.16.5+cuda11.8");
  ASSERT_EQ(log.net_using.size(), 1u);
  ASSERT_EQ(log.comms.size(), 1u);
  ASSERT_EQ(log.ring_orders.size(), 2u);
  ASSERT_EQ(log.rings.size(), 2u);
  ASSERT_EQ(log.trees.size(), 4u);  // 2 old "Tree N :" + 2 channels of "Trees"
  ASSERT_EQ(log.connections.size(), 4u);
  ASSERT_EQ(log.qpns.size(), 2u);
  // 74 lines: 15 records' lines (1+1+2+2+2+1+4+2) + the version banner + 57 others.
  EXPECT_EQ(log.ignored_lines, 74 - 15 - 1);

  const NcclNetUsing& u = log.net_using[0];
  EXPECT_EQ(u.at.host, "n013");
  EXPECT_EQ(u.at.pid, 101855);
  EXPECT_EQ(u.at.tid, 101885);
  EXPECT_EQ(u.at.cuda_dev, 0);
  EXPECT_EQ(u.at.ts_ns, kNoTime);
  EXPECT_EQ(u.net_name, "IB");
  ASSERT_EQ(u.devices.size(), 2u);
  EXPECT_EQ(u.devices[0].index, 0);
  EXPECT_EQ(u.devices[0].name, "mlx5_0");
  EXPECT_EQ(u.devices[0].port, 1);
  EXPECT_EQ(u.devices[0].link_layer, "RoCE");
  EXPECT_EQ(u.devices[1].name, "mlx5_2");
  EXPECT_EQ(u.devices[1].link_layer, "IB");
  EXPECT_TRUE(u.relaxed_ordering);
  EXPECT_EQ(u.oob_iface, "ibp209s0f0");
  EXPECT_EQ(u.oob_ip, "10.128.3.13");
  EXPECT_EQ(u.oob_port, 0);
  EXPECT_EQ(u.line, 13);

  // Old "Tree 0 : -1 -> 0 -> 1/-1/-1" (up -> me -> down).
  EXPECT_TRUE(log.trees[0].old_format);
  EXPECT_EQ(log.trees[0].channel, 0);
  EXPECT_EQ(log.trees[0].up, -1);
  EXPECT_EQ(log.trees[0].me, 0);
  EXPECT_EQ(log.trees[0].down, (std::array<int, 3>{1, -1, -1}));
  EXPECT_EQ(log.trees[1].up, 1);
  EXPECT_EQ(log.trees[1].down, (std::array<int, 3>{-1, -1, -1}));
  // "Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->1": the same trees in the new spelling.
  EXPECT_FALSE(log.trees[2].old_format);
  EXPECT_EQ(log.trees[2].channel, 0);
  EXPECT_EQ(log.trees[2].down, log.trees[0].down);
  EXPECT_EQ(log.trees[2].up, log.trees[0].up);
  EXPECT_EQ(log.trees[3].channel, 1);
  EXPECT_EQ(log.trees[3].up, 1);
  EXPECT_EQ(log.trees[3].line, log.trees[2].line);

  // Pre-2.23 ring order "Channel 00/02 :    0   1".
  EXPECT_EQ(log.ring_orders[0].channel, 0);
  EXPECT_EQ(log.ring_orders[0].nchannels, 2);
  EXPECT_EQ(log.ring_orders[0].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(log.ring_orders[1].channel, 1);
  EXPECT_EQ(log.ring_orders[0].comm, "");  // the comm line comes later in 2.16
  EXPECT_FALSE(log.ring_orders[0].truncated);
  EXPECT_EQ(log.rings[1].channel, 1);
  EXPECT_EQ(log.rings[1].prev, 1);
  EXPECT_EQ(log.rings[1].me, 0);
  EXPECT_EQ(log.rings[1].next, 1);

  // "Channel 00/0 : 1[81000] -> 0[81000] [receive] via NET/IB/1/GDRDMA".
  const NcclConnection& c0 = log.connections[0];
  EXPECT_EQ(c0.channel, 0);
  EXPECT_EQ(c0.conn_index, 0);
  EXPECT_TRUE(c0.has_conn_index);
  EXPECT_EQ(c0.from_rank, 1);
  EXPECT_EQ(c0.to_rank, 0);
  EXPECT_EQ(c0.from_dev, "81000");
  EXPECT_EQ(c0.to_dev, "81000");
  EXPECT_EQ(c0.dir, Dir::kReceive);
  EXPECT_EQ(c0.transport, NcclTransport::kNet);
  EXPECT_EQ(c0.via, "NET/IB/1/GDRDMA");
  EXPECT_EQ(c0.net_name, "IB");
  EXPECT_EQ(c0.net_dev, 1);
  EXPECT_TRUE(c0.gdrdma);
  EXPECT_FALSE(c0.shared);
  EXPECT_EQ(c0.proxy_rank, -1);
  EXPECT_EQ(log.connections[2].dir, Dir::kSend);
  EXPECT_EQ(log.connections[2].from_rank, 0);
  EXPECT_EQ(log.connections[2].at.tid, 101885);

  // "NET/IB: Dev 1 Port 1 qpn 3038 mtu 5 LID 37".
  EXPECT_EQ(log.qpns[0].dev, 1);
  EXPECT_EQ(log.qpns[0].port, 1);
  EXPECT_EQ(log.qpns[0].qpn, 3038u);
  EXPECT_EQ(log.qpns[0].mtu, 5);
  EXPECT_EQ(log.qpns[0].lid, 37);
  EXPECT_EQ(log.qpns[0].gid, "");
  EXPECT_EQ(log.qpns[0].ib_dev, "");
  EXPECT_EQ(log.qpns[0].at.tid, 101888);  // the proxy thread
  EXPECT_EQ(log.qpns[1].qpn, 3039u);

  // "comm 0x72a6b00 rank 0 nranks 2 cudaDev 0 busId 81000 commId 0xb2f794396f6d0bd1 - Init COMPLETE".
  const NcclCommInit& c = log.comms[0];
  EXPECT_EQ(c.kind, NcclCommInitKind::kInitComplete);
  EXPECT_EQ(c.comm, "0x72a6b00");
  EXPECT_EQ(c.rank, 0);
  EXPECT_EQ(c.nranks, 2);
  EXPECT_EQ(c.cuda_dev, 0);
  EXPECT_EQ(c.bus_id, "81000");
  EXPECT_EQ(c.comm_id, "0xb2f794396f6d0bd1");
  EXPECT_EQ(c.nnodes, -1);
  EXPECT_EQ(c.api, "");
  EXPECT_EQ(c.line, 74);
}

TEST(NcclLogFixture, Nccl21xBusIdFormat) {
  Diagnostics diag;
  const NcclLog log = ReadFile(kBusId, diag);
  ExpectCounts(log, 16, 0);
  EXPECT_EQ(log.nccl_version, "");
  ASSERT_EQ(log.connections.size(), 12u);
  EXPECT_EQ(log.ignored_lines, 4);
  EXPECT_TRUE(log.comms.empty() && log.ring_orders.empty() && log.qpns.empty());
  // "nodeb:65671:65859 [6] NCCL INFO Channel 01 : 14[c9000] -> 13[92000] via P2P/direct pointer/read"
  const NcclConnection& p = log.connections[0];
  EXPECT_EQ(p.at.host, "nodeb");
  EXPECT_EQ(p.at.pid, 65671);
  EXPECT_EQ(p.at.tid, 65859);
  EXPECT_EQ(p.at.cuda_dev, 6);
  EXPECT_FALSE(p.has_conn_index);
  EXPECT_EQ(p.channel, 1);
  EXPECT_EQ(p.conn_index, 0);
  EXPECT_EQ(p.from_rank, 14);
  EXPECT_EQ(p.from_dev, "c9000");
  EXPECT_EQ(p.to_rank, 13);
  EXPECT_EQ(p.to_dev, "92000");
  EXPECT_EQ(p.transport, NcclTransport::kP2p);
  EXPECT_EQ(p.p2p_kind, "direct pointer");
  EXPECT_TRUE(p.read);
  EXPECT_EQ(p.dir, Dir::kNone);
  // "Channel 01 : 13[92000] -> 4[89000] [send] via NET/IB/0/GDRDMA" (no /conn in that era).
  const NcclConnection& n = log.connections[1];
  EXPECT_EQ(n.transport, NcclTransport::kNet);
  EXPECT_EQ(n.dir, Dir::kSend);
  EXPECT_EQ(n.net_name, "IB");
  EXPECT_EQ(n.net_dev, 0);
  EXPECT_TRUE(n.gdrdma);
  EXPECT_EQ(n.to_dev, "89000");
  EXPECT_EQ(log.connections[7].dir, Dir::kReceive);
  EXPECT_EQ(log.connections[7].from_rank, 5);
  EXPECT_EQ(log.connections[7].to_rank, 12);
  int p2p = 0;
  for (const auto& c : log.connections) p2p += c.transport == NcclTransport::kP2p;
  EXPECT_EQ(p2p, 10);
}

TEST(NcclLogFixture, Nccl2262ChannelConnect) {
  Diagnostics diag;
  const NcclLog log = ReadFile(kConnect, diag);
  ExpectCounts(log, 62, 0);
  ASSERT_EQ(log.connections.size(), 52u);
  EXPECT_EQ(log.ignored_lines, 10);  // "[Proxy Progress]" lines
  int net = 0, cumem = 0, send = 0, recv = 0;
  for (const auto& c : log.connections) {
    if (c.transport == NcclTransport::kNet) {
      ++net;
      EXPECT_EQ(c.net_name, "NCCL RDMA Plugin v8");  // a net name with spaces
      EXPECT_TRUE(c.gdrdma);
    }
    if (c.transport == NcclTransport::kP2p) {
      ++cumem;
      EXPECT_EQ(c.p2p_kind, "CUMEM");
      EXPECT_FALSE(c.read);
    }
    send += c.dir == Dir::kSend;
    recv += c.dir == Dir::kReceive;
  }
  EXPECT_EQ(net, 40);
  EXPECT_EQ(cumem, 12);
  EXPECT_EQ(send, 20);
  EXPECT_EQ(recv, 20);
  // "lccn09:2520137:2520336 [1] NCCL INFO Channel 01/0 : 9[1] -> 1[1] [receive] via NET/NCCL RDMA Plugin v8/1/GDRDMA"
  const NcclConnection& c = log.connections[0];
  EXPECT_EQ(c.at.host, "lccn09");
  EXPECT_EQ(c.at.pid, 2520137);
  EXPECT_EQ(c.at.tid, 2520336);
  EXPECT_EQ(c.channel, 1);
  EXPECT_EQ(c.from_rank, 9);
  EXPECT_EQ(c.from_dev, "1");  // the nvml index since 2.18.3
  EXPECT_EQ(c.to_rank, 1);
  EXPECT_EQ(c.net_dev, 1);
  EXPECT_EQ(c.via, "NET/NCCL RDMA Plugin v8/1/GDRDMA");
  EXPECT_EQ(c.line, 2);
  // "lccn19:2471268:2471611 [1] NCCL INFO Channel 03/0 : 9[1] -> 8[0] via P2P/CUMEM"
  const NcclConnection& p = log.connections[13];
  EXPECT_EQ(p.at.host, "lccn19");
  EXPECT_EQ(p.channel, 3);
  EXPECT_EQ(p.from_rank, 9);
  EXPECT_EQ(p.to_rank, 8);
  EXPECT_EQ(p.to_dev, "0");
  EXPECT_EQ(p.transport, NcclTransport::kP2p);
  const NcclConnection& last = log.connections.back();
  EXPECT_EQ(last.channel, 11);
  EXPECT_EQ(last.from_rank, 2);
  EXPECT_EQ(last.to_rank, 10);
  EXPECT_EQ(last.net_dev, 2);
  EXPECT_EQ(last.line, 62);
}

TEST(NcclLogFixture, Nccl2262NetIbUsingSharp) {
  Diagnostics diag;
  const NcclLog log = ParseOk(Slurp(kUsing), diag);
  ExpectCounts(log, 3, 0);
  ASSERT_EQ(log.net_using.size(), 1u);
  const NcclNetUsing& u = log.net_using[0];
  EXPECT_EQ(u.at.host, "lccn09");
  EXPECT_EQ(u.net_name, "IB");
  ASSERT_EQ(u.devices.size(), 8u);
  for (const auto& d : u.devices) {
    EXPECT_EQ(d.link_layer, "IB");
    EXPECT_TRUE(d.sharp);
    EXPECT_EQ(d.port, 1);
  }
  EXPECT_EQ(u.devices[3].name, "mlx5_4");
  EXPECT_EQ(u.devices[7].index, 7);
  EXPECT_EQ(u.devices[7].name, "mlx5_11");
  EXPECT_TRUE(u.relaxed_ordering);
  EXPECT_EQ(u.oob_iface, "bond0");
  EXPECT_EQ(u.oob_ip, "192.168.11.9");
  EXPECT_EQ(log.ignored_lines, 2);
}

TEST(NcclLogFixture, Nccl2262RingsTrees) {
  Diagnostics diag;
  const NcclLog log = ReadFile(kRingsTrees, diag);
  ExpectCounts(log, 130, 0);
  ASSERT_EQ(log.comms.size(), 14u);
  ASSERT_EQ(log.ring_orders.size(), 16u);
  ASSERT_EQ(log.trees.size(), 15u * 16u);
  EXPECT_TRUE(log.rings.empty());
  EXPECT_EQ(log.ignored_lines, 130 - 14 - 16 - 15);

  // "comm 0x5664a0a62880 rank 13 nRanks 16 nNodes 2 localRanks 8 localRank 5 MNNVL 0"
  const NcclCommInit& c = log.comms[0];
  EXPECT_EQ(c.kind, NcclCommInitKind::kRankInfo);
  EXPECT_EQ(c.at.host, "lccn19");
  EXPECT_EQ(c.at.pid, 2471272);
  EXPECT_EQ(c.at.cuda_dev, 5);
  EXPECT_EQ(c.comm, "0x5664a0a62880");
  EXPECT_EQ(c.rank, 13);
  EXPECT_EQ(c.nranks, 16);
  EXPECT_EQ(c.nnodes, 2);
  EXPECT_EQ(c.local_ranks, 8);
  EXPECT_EQ(c.local_rank, 5);
  EXPECT_EQ(c.mnnvl, 0);
  EXPECT_EQ(c.bus_id, "");
  std::vector<int> ranks;
  for (const auto& x : log.comms) ranks.push_back(x.rank);
  std::sort(ranks.begin(), ranks.end());
  EXPECT_EQ(ranks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 15}));

  // 2.23+ ring order "Channel 00/16 :  0  7  6  5  4  3  2  1  9 10 11 12 13 14 15  8", rank 0's comm.
  const NcclRingOrder& r0 = log.ring_orders[0];
  EXPECT_EQ(r0.channel, 0);
  EXPECT_EQ(r0.nchannels, 16);
  EXPECT_EQ(r0.ranks, (std::vector<int>{0, 7, 6, 5, 4, 3, 2, 1, 9, 10, 11, 12, 13, 14, 15, 8}));
  EXPECT_EQ(r0.comm, "0x5c2e9bbbb3f0");
  EXPECT_EQ(r0.at.tid, 2520234);
  EXPECT_EQ(log.ring_orders[15].channel, 15);
  EXPECT_EQ(log.ring_orders[15].ranks,
            (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 14, 13, 12, 11, 10, 9, 8, 15, 7}));

  // First Trees line: rank 13, "[0] 14/-1/-1->13->12 ... [5] 14/-1/-1->13->5 ... [13] 14/5/-1->13->-1".
  const NcclTreeLine& t0 = log.trees[0];
  EXPECT_EQ(t0.channel, 0);
  EXPECT_EQ(t0.down, (std::array<int, 3>{14, -1, -1}));
  EXPECT_EQ(t0.me, 13);
  EXPECT_EQ(t0.up, 12);
  EXPECT_EQ(t0.at.host, "lccn19");
  EXPECT_EQ(log.trees[5].up, 5);
  EXPECT_EQ(log.trees[13].down, (std::array<int, 3>{14, 5, -1}));
  EXPECT_EQ(log.trees[13].up, -1);
  EXPECT_EQ(log.trees[15].channel, 15);
  // Every tree record's rank is the rank of its line; each rank appears on 16 channels.
  std::map<int, int> per_rank;
  for (const auto& t : log.trees) ++per_rank[t.me];
  EXPECT_EQ(per_rank.size(), 15u);
  for (const auto& [rank, n] : per_rank) EXPECT_EQ(n, 16) << rank;
}

TEST(NcclLogFixture, Nccl22xSystemDumpHasNoTopologyRecords) {
  Diagnostics diag;
  const NcclLog log = ReadFile(kSystem, diag);
  ExpectCounts(log, 46, 0);
  EXPECT_EQ(log.ignored_lines, 46);
  EXPECT_EQ(log.nccl_lines, 46);
  EXPECT_TRUE(log.connections.empty() && log.trees.empty() && log.comms.empty());
  EXPECT_TRUE(LooksLikeNcclLog(Slurp(kSystem)));
}

TEST(NcclLogFixture, Nccl22xCumemIb) {
  Diagnostics diag;
  const NcclLog log = ReadFile(kCumem, diag);
  ExpectCounts(log, 14, 0);
  ASSERT_EQ(log.connections.size(), 14u);
  // "H20-GPU-06:4015539:4015652 [0] NCCL INFO Channel 07/0 : 0[0] -> 2[0] [receive] via NET/IB/3/GDRDMA"
  const NcclConnection& c = log.connections[0];
  EXPECT_EQ(c.at.host, "H20-GPU-06");
  EXPECT_EQ(c.at.pid, 4015539);
  EXPECT_EQ(c.channel, 7);
  EXPECT_EQ(c.net_dev, 3);
  EXPECT_EQ(c.net_name, "IB");
  EXPECT_TRUE(c.gdrdma);
  EXPECT_EQ(c.dir, Dir::kReceive);
  int cumem = 0, ib2 = 0;
  for (const auto& x : log.connections) {
    cumem += x.transport == NcclTransport::kP2p && x.p2p_kind == "CUMEM";
    ib2 += x.transport == NcclTransport::kNet && x.net_dev == 2;
  }
  EXPECT_EQ(cumem, 5);
  EXPECT_EQ(ib2, 8);
  EXPECT_EQ(log.connections[9].via, "P2P/CUMEM");
  EXPECT_EQ(log.connections.back().at.host, "H20-GPU-05");
}

// ---------------------------------------------------------------------------------------------
// Synthetic log with the remaining spellings.

TEST(NcclLogSynthetic, MixedEras) {
  Diagnostics diag;
  const NcclLog log = ReadFile(kSynth, diag);
  ExpectCounts(log, 30, 0);
  EXPECT_EQ(log.nccl_version, "2.24.3+cuda12.4");
  EXPECT_EQ(log.nccl_lines, 27);
  EXPECT_EQ(log.ignored_lines, 6);
  ASSERT_EQ(log.net_using.size(), 2u);
  ASSERT_EQ(log.comms.size(), 4u);
  ASSERT_EQ(log.ring_orders.size(), 3u);
  ASSERT_EQ(log.rings.size(), 1u);
  ASSERT_EQ(log.trees.size(), 2u);
  ASSERT_EQ(log.connections.size(), 8u);
  ASSERT_EQ(log.qpns.size(), 4u);

  // Timestamp prefixes: "[%F %T] " and with "%6f" subseconds.
  const NcclNetUsing& ib = log.net_using[0];
  EXPECT_EQ(ib.at.ts_ns, *ParseIsoTimeNs("2025-03-04 05:06:07.25"));
  EXPECT_EQ(ib.at.host, "gpu-a");
  EXPECT_FALSE(ib.relaxed_ordering);
  EXPECT_EQ(ib.devices[1].link_layer, "RoCE");
  EXPECT_EQ(ib.oob_iface, "eth0");
  EXPECT_EQ(ib.oob_ip, "10.0.0.1");
  const NcclNetUsing& sock = log.net_using[1];
  EXPECT_EQ(sock.net_name, "Socket");
  ASSERT_EQ(sock.devices.size(), 2u);
  EXPECT_EQ(sock.devices[0].address, "10.0.0.2");
  EXPECT_EQ(sock.devices[1].name, "eth1");
  EXPECT_EQ(sock.devices[1].address, "fe80::1%eth1");
  EXPECT_EQ(sock.devices[1].port, 0);
  EXPECT_EQ(sock.oob_port, -1);

  EXPECT_EQ(log.comms[0].kind, NcclCommInitKind::kInitStart);
  EXPECT_EQ(log.comms[0].api, "ncclCommInitRank");
  EXPECT_EQ(log.comms[0].nvml_dev, 0);
  EXPECT_EQ(log.comms[0].bus_id, "18000");
  EXPECT_EQ(log.comms[0].comm_id, "0x1234abcd5678ef00");
  EXPECT_EQ(log.comms[1].kind, NcclCommInitKind::kRankInfo);
  EXPECT_EQ(log.comms[2].kind, NcclCommInitKind::kInitComplete);
  EXPECT_EQ(log.comms[2].api, "ncclCommInitRankConfig");
  EXPECT_EQ(log.comms[3].at.host, "oldhost");
  EXPECT_EQ(log.comms[3].rank, 2);
  EXPECT_EQ(log.comms[3].nranks, 8);
  EXPECT_EQ(log.comms[3].bus_id, "3b000");
  EXPECT_EQ(log.comms[3].comm_id, "");

  EXPECT_EQ(log.ring_orders[0].comm, "0x55d1a2b3c4d0");
  EXPECT_EQ(log.ring_orders[1].ranks, (std::vector<int>{0, 3, 2, 1}));
  const NcclRingOrder& cut = log.ring_orders[2];
  EXPECT_TRUE(cut.truncated);
  EXPECT_EQ(cut.comm, "");  // other thread
  ASSERT_EQ(cut.ranks.size(), 36u);
  EXPECT_EQ(cut.ranks.back(), 73);

  const auto& cs = log.connections;
  EXPECT_EQ(cs[0].p2p_kind, "IPC");
  EXPECT_TRUE(cs[0].read);
  EXPECT_EQ(cs[1].p2p_kind, "CUMEM");
  EXPECT_TRUE(cs[1].read);
  EXPECT_TRUE(cs[1].ce);
  EXPECT_EQ(cs[2].p2p_kind, "indirect");
  EXPECT_EQ(cs[2].conn_index, 1);
  EXPECT_EQ(cs[2].indirect_rank, 2);
  EXPECT_EQ(cs[2].indirect_dev, "2");
  EXPECT_EQ(cs[3].transport, NcclTransport::kShm);
  EXPECT_FALSE(cs[3].has_conn_index);
  EXPECT_EQ(cs[3].p2p_kind, "direct/direct");
  EXPECT_EQ(cs[4].net_dev, 0);
  EXPECT_EQ(cs[4].proxy_rank, 1);
  EXPECT_TRUE(cs[4].gdrdma);
  EXPECT_TRUE(cs[4].gdr_pci);
  EXPECT_TRUE(cs[4].shared);
  EXPECT_EQ(cs[5].net_name, "Socket");
  EXPECT_EQ(cs[5].net_dev, 1);
  EXPECT_FALSE(cs[5].gdrdma);
  EXPECT_EQ(cs[6].transport, NcclTransport::kCollNet);
  EXPECT_EQ(cs[6].from_rank, 0);
  EXPECT_EQ(cs[6].to_rank, -1);
  EXPECT_EQ(cs[6].net_name, "SHARP");
  EXPECT_EQ(cs[7].transport, NcclTransport::kShm);
  EXPECT_EQ(cs[7].p2p_kind, "direct shared memory");
  EXPECT_EQ(cs[7].from_dev, "3b000");

  // 2.21+ RoCE qpn, the peer's qpn (set_ece), 2.26 IB qpn of a merged device, 2.16 RoCE qpn.
  EXPECT_EQ(log.qpns[0].ib_dev, "NCCL Dev");
  EXPECT_EQ(log.qpns[0].dev, 0);
  EXPECT_EQ(log.qpns[0].ib_dev_index, 0);
  EXPECT_EQ(log.qpns[0].qpn, 4242u);
  EXPECT_EQ(log.qpns[0].lid, -1);
  EXPECT_EQ(log.qpns[0].gid, "3 (80FE/A288FFFE1234)");
  EXPECT_EQ(log.qpns[0].ece, "supported=1, vendor_id=0x15b3, options=0x30000002, comp_mask=0x0");
  EXPECT_EQ(log.qpns[0].extra, "fifoRkey=0x2a fifoLkey=0x2b");
  EXPECT_TRUE(log.qpns[1].remote);
  EXPECT_EQ(log.qpns[1].qpn, 4343u);
  EXPECT_EQ(log.qpns[2].ib_dev, "NCCL MergedDev");
  EXPECT_EQ(log.qpns[2].ib_dev_index, 3);
  EXPECT_EQ(log.qpns[2].lid, 12);
  EXPECT_EQ(log.qpns[2].mtu, 4);
  EXPECT_EQ(log.qpns[2].extra, "subnet-prefix 18338657682652659712  FLID 0 fifoRkey=0x1 fifoLkey=0x2");
  EXPECT_EQ(log.qpns[3].gid, "0 (80FE/B8CEF603002D857A)");
  EXPECT_EQ(log.qpns[3].ib_dev_index, -1);
}

// A device name that begins with the word of another form of the qpn line would be read as that
// form once written back (a fuzzer find): such a line is rejected, with its reason.
TEST(NcclLog, QpnDeviceNameStartingWithAnotherFormsWordIsRejected) {
  Diagnostics diag;
  const NcclLog log = ParseOk(
      "h:1:2 [0] NCCL INFO NET/IB: \rIbDev x NCCL MergedDev 1 IbDev 3 Port 1 qpn 77 mtu 4 LID 12\n"
      "h:1:2 [0] NCCL INFO NET/IB: \rDev y 1 IbDev 3 Port 1 qpn 78 mtu 4 LID 12\n"
      "h:1:2 [0] NCCL INFO NET/IB: NCCL MergedDev 1 IbDev 3 Port 1 qpn 79 mtu 4 LID 12\n",
      diag);
  ExpectCounts(log, 3, 2);
  ASSERT_EQ(log.qpns.size(), 1u);
  EXPECT_EQ(log.qpns[0].qpn, 79u);
  std::string reasons;
  for (const auto& d : diag.items()) reasons += d.ToString() + "\n";
  EXPECT_NE(reasons.find("device name starts with 'IbDev'"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("device name starts with 'Dev'"), std::string::npos) << reasons;
}

TEST(NcclLogPrefix, Variants) {
  NcclLogPrefix p;
  std::string_view msg;
  ASSERT_TRUE(ParseNcclLogPrefix("h:1:2 [3] NCCL INFO hello", &p, &msg));
  EXPECT_EQ(p.host, "h");
  EXPECT_EQ(p.pid, 1);
  EXPECT_EQ(p.tid, 2);
  EXPECT_EQ(p.cuda_dev, 3);
  EXPECT_EQ(msg, "hello");
  ASSERT_TRUE(ParseNcclLogPrefix("[1,3]<stderr>:[2024-01-02 03:04:05] node7:99:100 [1] NCCL INFO x", &p, &msg));
  EXPECT_EQ(p.host, "node7");
  EXPECT_EQ(p.pid, 99);
  EXPECT_EQ(p.ts_ns, *ParseIsoTimeNs("2024-01-02 03:04:05"));
  ASSERT_TRUE(ParseNcclLogPrefix("h:1:2 [0] transport.cc:33 (func) NCCL WARN bad", &p, &msg));
  EXPECT_EQ(p.cuda_dev, 0);
  EXPECT_EQ(p.host, "h");
  EXPECT_EQ(msg, "bad");
  EXPECT_FALSE(ParseNcclLogPrefix("plain text", &p, &msg));
}

// Console captures put launcher and logger prefixes before NCCL's own: Ray (nested), Python
// logging, torchrun's --tee/--log-dir ("[rank3]:", "[default0]:"), `srun -l`, kubectl --timestamps.
TEST(NcclLogPrefix, LauncherAndLoggerPrefixes) {
  struct Case {
    const char* line;
    int64_t ts_ns;  // kNoTime when the prefix has no stamp we read
  };
  const Case cases[] = {
      {"(RayTrainWorker pid=1234, ip=10.0.0.1) node-a:1234:1300 [2] NCCL INFO Channel 00/02 :    0   1", kNoTime},
      {"(EngineCore_DP0 pid=1088) (RayWorkerWrapper pid=285, ip=192.168.177.12) node-a:1234:1300 [2] NCCL INFO x",
       kNoTime},
      {"(pid=21065) node-a:1234:1300 [2] NCCL INFO x", kNoTime},
      {"2024-05-01 12:00:00,123 - INFO - node-a:1234:1300 [2] NCCL INFO x", kNoTime},
      {"[2024-05-01 12:00:00] node-a:1234:1300 [2] NCCL INFO x", *ParseIsoTimeNs("2024-05-01 12:00:00")},
      {"[rank3]:node-a:1234:1300 [2] NCCL INFO x", kNoTime},
      {"[default0]:node-a:1234:1300 [2] NCCL INFO x", kNoTime},
      {"0: node-a:1234:1300 [2] NCCL INFO x", kNoTime},
      {"12: node-a:1234:1300 [2] NCCL INFO x", kNoTime},
      {"[155] node-a:1234:1300 [2] NCCL INFO x", kNoTime},
      {"2024-05-01T12:00:00.123456789Z node-a:1234:1300 [2] NCCL INFO x", *ParseIsoTimeNs("2024-05-01T12:00:00.123456789Z")},
  };
  for (const Case& c : cases) {
    NcclLogPrefix p;
    std::string_view msg;
    ASSERT_TRUE(ParseNcclLogPrefix(c.line, &p, &msg)) << c.line;
    EXPECT_EQ(p.host, "node-a") << c.line;
    EXPECT_EQ(p.pid, 1234) << c.line;
    EXPECT_EQ(p.tid, 1300) << c.line;
    EXPECT_EQ(p.cuda_dev, 2) << c.line;
    EXPECT_EQ(p.ts_ns, c.ts_ns) << c.line;
  }
}

// NCCL 2.3-2.7 label connections "Ring" (2.4's NET lines without the device in brackets), 2.3 prints
// rank 0's order as "Ring 00 :    0   1 ...", and 2.5 prints the down tree after '|'. A console
// preamble (prompt, banner) and every prefixed line are counted.
TEST(NcclLogOldEras, RingConnectionsOrdersAndSplitTrees) {
  const std::string text =
      "$ mpirun -np 4 ./all_reduce_perf -b 8 -e 128M\n"
      "NCCL version 2.4.8+cuda10.1\n"
      "0: hostA:100:200 [0] NCCL INFO Ring 00 :    0   1   2   3\n"
      "0: hostA:100:200 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC\n"
      "1: hostA:101:201 [1] NCCL INFO Ring 00 : 1 -> 2 [send] via NET/Socket/0\n"
      "2: hostB:300:400 [0] NCCL INFO Ring 00 : 1[23000] -> 2[1e000] [receive] via NET/IB/1/GDRDMA\n"
      "2: hostB:300:400 [0] NCCL INFO Trees [0] 154/-1/-1->155->153|153->155->154/-1/-1 [1] -1/-1/-1->155->154|154->155->-1/-1/-1\n"
      "2: hostB:300:400 [0] NCCL INFO Ring 00 : 2[0] 3[1] via P2P/IPC\n";  // no '->': rejected
  Diagnostics diag;
  const NcclLog log = ParseOk(text, diag);
  ExpectCounts(log, 8, 1);
  EXPECT_EQ(log.nccl_version, "2.4.8+cuda10.1");
  ASSERT_EQ(log.ring_orders.size(), 1u);
  EXPECT_EQ(log.ring_orders[0].ranks, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(log.ring_orders[0].nchannels, -1);
  EXPECT_TRUE(log.rings.empty());
  ASSERT_EQ(log.connections.size(), 3u);
  const NcclConnection& p2p = log.connections[0];
  EXPECT_EQ(p2p.channel, 0);
  EXPECT_FALSE(p2p.has_conn_index);
  EXPECT_EQ(p2p.from_rank, 0);
  EXPECT_EQ(p2p.to_rank, 1);
  EXPECT_EQ(p2p.from_dev, "0");
  EXPECT_EQ(p2p.transport, NcclTransport::kP2p);
  EXPECT_EQ(p2p.p2p_kind, "IPC");
  const NcclConnection& sock = log.connections[1];
  EXPECT_EQ(sock.from_rank, 1);
  EXPECT_EQ(sock.to_rank, 2);
  EXPECT_TRUE(sock.from_dev.empty());
  EXPECT_EQ(sock.dir, Dir::kSend);
  EXPECT_EQ(sock.transport, NcclTransport::kNet);
  EXPECT_EQ(sock.net_name, "Socket");
  EXPECT_EQ(sock.net_dev, 0);
  EXPECT_EQ(log.connections[1].at.host, "hostA");
  EXPECT_EQ(log.connections[2].to_dev, "1e000");
  EXPECT_TRUE(log.connections[2].gdrdma);
  EXPECT_EQ(log.connections[2].dir, Dir::kReceive);
  ASSERT_EQ(log.trees.size(), 2u);
  EXPECT_EQ(log.trees[0].me, 155);
  EXPECT_EQ(log.trees[0].up, 153);
  EXPECT_EQ(log.trees[0].down[0], 154);
  EXPECT_EQ(log.trees[1].up, 154);
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_EQ(diag.items()[0].line, 8);
  EXPECT_NE(diag.items()[0].reason.find("->"), std::string::npos) << diag.items()[0].reason;
}

// ---------------------------------------------------------------------------------------------
// Real console captures collected from public posts (testdata/real/nccl_log, PROVENANCE.md).

const std::string kRealLog = std::string(TOPOSCOPE_TESTDATA) + "/real/nccl_log/";

NcclLog ReadReal(const std::string& name, Diagnostics& diag) { return ReadFile(kRealLog + name, diag); }

TEST(NcclLogReal, RayTrainWorkerPrefixes) {
  Diagnostics diag;
  const NcclLog log = ReadReal("ray_train_worker_prefix_channel_orders_ray_issue40850_excerpt.log", diag);
  ExpectCounts(log, 12, 0);
  ASSERT_EQ(log.ring_orders.size(), 4u);
  for (const auto& o : log.ring_orders) {
    EXPECT_EQ(o.ranks, (std::vector<int>{0, 1, 2, 3, 4}));
    EXPECT_EQ(o.nchannels, 4);
    EXPECT_EQ(o.at.host, "localhost");
    EXPECT_EQ(o.at.pid, 83498);
  }
  EXPECT_EQ(log.ring_orders[3].channel, 3);
}

TEST(NcclLogReal, RayNestedPrefixesCommAndTrees) {
  Diagnostics diag;
  const NcclLog log = ReadReal("ray_nested_prefix_2node_comm_trees_fastsafetensors_issue36_excerpt.log", diag);
  ExpectCounts(log, 8, 0);
  ASSERT_EQ(log.comms.size(), 1u);
  EXPECT_EQ(log.comms[0].at.host, "spark2");
  EXPECT_EQ(log.comms[0].at.pid, 285);
  EXPECT_EQ(log.comms[0].rank, 1);
  EXPECT_EQ(log.comms[0].nranks, 2);
  EXPECT_EQ(log.comms[0].nnodes, 2);
  ASSERT_EQ(log.trees.size(), 16u);
  EXPECT_EQ(log.trees[0].up, 0);
  EXPECT_EQ(log.trees[15].down[0], 0);
  EXPECT_EQ(log.trees[15].up, -1);
}

TEST(NcclLogReal, RayPidPrefixOldChannelConnections) {
  Diagnostics diag;
  const NcclLog log = ReadReal("ray_pid_prefix_nccl2.7_1node4gpu_shm_p2p_ray_issue16979_excerpt.log", diag);
  ExpectCounts(log, 12, 0);
  ASSERT_EQ(log.connections.size(), 7u);
  for (const auto& c : log.connections) {
    EXPECT_FALSE(c.has_conn_index);
    EXPECT_EQ(c.at.host, "dev-duanjiangfei-ap0");
  }
  EXPECT_EQ(log.connections[1].transport, NcclTransport::kShm);
  EXPECT_EQ(log.connections[1].to_dev, "80");
  ASSERT_EQ(log.comms.size(), 1u);
  EXPECT_EQ(log.comms[0].kind, NcclCommInitKind::kInitComplete);
  EXPECT_EQ(log.comms[0].bus_id, "a0");
}

TEST(NcclLogReal, PythonLoggingPrefix) {
  Diagnostics diag;
  const NcclLog log = ReadReal("pylogging_prefix_8gpu_ring_lines_easydistill_issue4_excerpt.log", diag);
  ExpectCounts(log, 12, 1);
  ASSERT_EQ(log.ring_orders.size(), 1u);
  EXPECT_EQ(log.ring_orders[0].channel, 23);
  EXPECT_EQ(log.ring_orders[0].at.host, "g340-cd51-4900-b72a-d104-a9bf-df48");
  ASSERT_EQ(log.rings.size(), 10u);
  EXPECT_EQ(log.rings[9].channel, 9);
  EXPECT_EQ(log.rings[9].prev, 7);
  EXPECT_EQ(log.rings[9].next, 1);
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_EQ(diag.items()[0].line, 12);  // the excerpt's cut "Ring 10 : 7 ->"
}

TEST(NcclLogReal, TorchrunRankPrefix) {
  Diagnostics diag;
  const NcclLog log = ReadReal("torchrun_rank_prefix_4gpu_channel_orders_torchtitan_issue1570_excerpt.log", diag);
  ExpectCounts(log, 16, 0);
  ASSERT_EQ(log.comms.size(), 1u);
  EXPECT_EQ(log.comms[0].at.host, "costa-671b-5-worker-1");
  EXPECT_EQ(log.comms[0].nranks, 4);
  ASSERT_EQ(log.ring_orders.size(), 10u);
  EXPECT_EQ(log.ring_orders[9].ranks, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(log.ring_orders[9].nchannels, 24);
  EXPECT_EQ(log.ring_orders[9].comm, "0x43be0680");
}

TEST(NcclLogReal, Nccl24RingConnectionLines) {
  Diagnostics diag;
  const NcclLog log = ReadReal("nccl2.4_ring_connections_4node_32gpu_nccl_tests_issue29_excerpt.log", diag);
  ExpectCounts(log, 20, 0);
  ASSERT_EQ(log.connections.size(), 19u);
  EXPECT_EQ(log.connections[0].at.host, "server4");
  EXPECT_EQ(log.connections[0].from_rank, 26);
  EXPECT_EQ(log.connections[0].to_rank, 24);
  EXPECT_EQ(log.connections[0].to_dev, "0");
  EXPECT_EQ(log.connections[0].p2p_kind, "IPC");

  Diagnostics d2;
  const NcclLog sock = ReadReal("nccl2.4_socket_ring_send_receive_aws_nccl_issue226_excerpt.log", d2);
  ExpectCounts(sock, 16, 1);
  ASSERT_EQ(sock.connections.size(), 15u);
  EXPECT_EQ(sock.connections[0].dir, Dir::kSend);
  EXPECT_TRUE(sock.connections[0].from_dev.empty());
  EXPECT_EQ(sock.connections[0].net_name, "Socket");
  EXPECT_EQ(sock.connections[1].dir, Dir::kReceive);
  ASSERT_EQ(d2.items().size(), 1u);
  EXPECT_EQ(d2.items()[0].line, 16);  // "via NET/Socket" cut before the device
  EXPECT_NE(d2.items()[0].reason.find("network transport"), std::string::npos) << d2.items()[0].reason;
}

TEST(NcclLogReal, CutShortRingOrdersAndSplitTrees) {
  Diagnostics diag;
  const NcclLog log = ReadReal("nccl2.x_cut_short_ring_orders_32ranks_nccl_issue514_excerpt.log", diag);
  ExpectCounts(log, 8, 0);
  ASSERT_EQ(log.ring_orders.size(), 8u);
  for (const auto& o : log.ring_orders) EXPECT_EQ(o.ranks.size(), 20u);
  EXPECT_FALSE(log.ring_orders[0].truncated);  // NCCL <= 2.22 cuts without '...'

  Diagnostics d2;
  const NcclLog t = ReadReal("nccl2.5.6_mpi_rank_tag_split_trees_ring_conns_nccl_issue302_excerpt.log", d2);
  ExpectCounts(t, 11, 0);
  ASSERT_EQ(t.trees.size(), 4u);
  EXPECT_EQ(t.trees[3].down, (std::array<int, 3>{153, 146, 162}));
  EXPECT_EQ(t.trees[3].me, 155);
  EXPECT_EQ(t.trees[3].up, 154);
  ASSERT_EQ(t.connections.size(), 3u);
  EXPECT_EQ(t.connections[2].to_rank, 154);
  ASSERT_EQ(t.net_using.size(), 1u);
  EXPECT_EQ(t.net_using[0].devices.size(), 5u);
  EXPECT_EQ(t.net_using[0].devices[3].link_layer, "RoCE");
  EXPECT_EQ(t.net_using[0].at.host, "crow-ib-new-nccl-256-info-19");
}

// Launcher prefixes for which no public capture was found (constructed lines, in the formats the
// tools document): `srun --label` puts `<task>: ` first (right-aligned when there are 10+ tasks),
// `kubectl logs --timestamps` an RFC 3339 stamp, `kubectl logs --prefix` `[pod/NAME/CONTAINER] `,
// and both flags together put the two in either order. No line is dropped: each is read, and its
// stamp, when there is one, is the line's time.
TEST(NcclLogLaunchers, SrunLabelAndKubectlPrefixesKeepEveryLine) {
  const std::string text =
      "0: NCCL version 2.21.5+cuda12.4\n"
      " 0: node-a:1234:1300 [0] NCCL INFO Channel 00/02 :    0   1\n"
      "12: node-b:1234:1300 [4] NCCL INFO Trees [0] 13/-1/-1->12->11\n"
      "2024-05-01T12:00:00.123456789Z node-a:1234:1300 [0] NCCL INFO Channel 01/02 :    0   1\n"
      "[pod/job-worker-0/pytorch] node-a:1234:1300 [0] NCCL INFO Ring 00 : 1 -> 0 -> 1\n"
      "[pod/job-worker-1/pytorch] 2024-05-01T12:00:01.5Z node-b:77:80 [1] NCCL INFO Ring 00 : 0 -> 1 -> 0\n"
      "2024-05-01T12:00:02Z [pod/job-worker-1/pytorch] node-b:77:80 [1] NCCL INFO Ring 01 : 0 -> 1 -> 0\n"
      "2024-05-01T12:00:03Z NCCL version 2.21.5+cuda12.4\n";
  Diagnostics diag;
  auto log = ParseNcclLog(text, "launchers", diag);
  ASSERT_TRUE(log.ok());
  ExpectCounts(*log, 8, 0);
  EXPECT_EQ(log->nccl_lines, 8);
  EXPECT_EQ(log->nccl_version, "2.21.5+cuda12.4");
  ASSERT_EQ(log->ring_orders.size(), 2u);
  EXPECT_EQ(log->ring_orders[0].at.host, "node-a");
  EXPECT_EQ(log->ring_orders[0].at.ts_ns, kNoTime);
  EXPECT_EQ(log->ring_orders[1].at.ts_ns, int64_t{1714564800} * 1000000000 + 123456789);
  ASSERT_EQ(log->trees.size(), 1u);
  EXPECT_EQ(log->trees[0].at.host, "node-b");
  EXPECT_EQ(log->trees[0].me, 12);
  ASSERT_EQ(log->rings.size(), 3u);
  EXPECT_EQ(log->rings[0].at.ts_ns, kNoTime);
  EXPECT_EQ(log->rings[1].at.host, "node-b");
  EXPECT_EQ(log->rings[1].at.pid, 77);
  EXPECT_EQ(log->rings[1].at.ts_ns, int64_t{1714564801} * 1000000000 + 500000000);
  EXPECT_EQ(log->rings[2].at.ts_ns, int64_t{1714564802} * 1000000000);
  EXPECT_EQ(log->rings[2].channel, 1);
}

// Launcher captures from Kubernetes MPIJobs: the launcher pod's log has mpirun's `[1,N]<stdout>:`
// tag before every NCCL line (N = the MPI rank); a worker pod's log has NCCL's lines bare.
TEST(NcclLogReal, MpiJobLauncherTagOutputCommAndTrees) {
  Diagnostics diag;
  const NcclLog log = ReadReal("mpijob_launcher_tag_output_4node_comm_trees_aws_k8s_tester_pr454_excerpt.log", diag);
  ExpectCounts(log, 12, 1);  // the last comm line, cut after `nRank`: rejected, not dropped unseen
  ASSERT_EQ(log.comms.size(), 4u);
  EXPECT_EQ(log.comms[0].at.host, "bert-mpi-training-worker-1");
  EXPECT_EQ(log.comms[0].at.pid, 27);
  EXPECT_EQ(log.comms[0].at.tid, 571);
  EXPECT_EQ(log.comms[0].at.cuda_dev, 6);
  EXPECT_EQ(log.comms[0].rank, 14);
  EXPECT_EQ(log.comms[0].nranks, 32);
  EXPECT_EQ(log.comms[0].nnodes, 4);
  EXPECT_EQ(log.comms[0].local_rank, 6);
  std::set<std::string> hosts;
  for (const auto& c : log.comms) hosts.insert(c.at.host);
  EXPECT_EQ(hosts, (std::set<std::string>{"bert-mpi-training-worker-0", "bert-mpi-training-worker-1",
                                          "bert-mpi-training-worker-3"}));
  ASSERT_EQ(log.trees.size(), 8u);  // two channels on each of four lines
  EXPECT_EQ(log.trees[0].at.host, "bert-mpi-training-worker-3");
  EXPECT_EQ(log.trees[0].down, (std::array<int, 3>{28, -1, -1}));
  EXPECT_EQ(log.trees[0].me, 31);
  EXPECT_EQ(log.trees[0].up, 30);
  EXPECT_EQ(log.trees[7].me, 14);
  EXPECT_EQ(log.trees[7].channel, 1);
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_EQ(diag.items()[0].line, 12);
  EXPECT_NE(diag.items()[0].reason.find("'nRank' without a value"), std::string::npos) << diag.items()[0].reason;
}

TEST(NcclLogReal, MpiJobLauncherTagOutputP2pConnections) {
  Diagnostics diag;
  const NcclLog log = ReadReal("mpijob_launcher_tag_output_4node_p2p_cumem_conns_aws_k8s_tester_pr454_excerpt.log", diag);
  EXPECT_EQ(log.counts.read, 14);
  EXPECT_TRUE(log.counts.Balanced());
  ASSERT_GE(log.connections.size(), 8u);
  EXPECT_EQ(log.connections[0].at.host, "bert-mpi-training-worker-2");
  EXPECT_EQ(log.connections[0].from_rank, 21);
  EXPECT_EQ(log.connections[0].to_rank, 17);
  EXPECT_EQ(log.connections[0].from_dev, "5");
  EXPECT_EQ(log.connections[0].transport, NcclTransport::kP2p);
  EXPECT_EQ(log.connections[0].p2p_kind, "CUMEM");
  EXPECT_EQ(log.connections[7].at.host, "bert-mpi-training-worker-1");
  EXPECT_EQ(log.connections[7].from_rank, 14);
  std::set<int> channels;
  for (const auto& c : log.connections) channels.insert(c.channel);
  EXPECT_EQ(channels, (std::set<int>{0, 1}));
  // The last line is cut inside `P2P/CUMEM`: what it says before the cut (channel 1, 17 -> 18 over
  // P2P) is whole, so it is kept.
  EXPECT_EQ(log.counts.rejected, 0) << (diag.items().empty() ? "" : diag.items()[0].ToString());
  ASSERT_EQ(log.connections.size(), 9u);
  EXPECT_EQ(log.connections[8].line, 14);
  EXPECT_EQ(log.connections[8].channel, 1);
  EXPECT_EQ(log.connections[8].from_rank, 17);
  EXPECT_EQ(log.connections[8].to_rank, 18);
  EXPECT_EQ(log.connections[8].transport, NcclTransport::kP2p);
}

TEST(NcclLogReal, MpiJobWorkerPodsNetIbSixteenDevices) {
  Diagnostics diag;
  const NcclLog log = ReadReal("mpijob_worker_pods_2node_net_ib_16_hcas_aks_rdma_infiniband_issue30_excerpt.log", diag);
  ExpectCounts(log, 16, 0);  // the cut last line `ncc` is no NCCL line
  ASSERT_EQ(log.connections.size(), 15u);
  std::set<std::string> hosts;
  std::set<int> net_devs;
  int sends = 0, receives = 0;
  for (const auto& c : log.connections) {
    hosts.insert(c.at.host);
    if (c.transport == NcclTransport::kNet) net_devs.insert(c.net_dev);
    sends += c.dir == Dir::kSend;
    receives += c.dir == Dir::kReceive;
  }
  EXPECT_EQ(hosts, (std::set<std::string>{"nccl-tests-worker-0", "nccl-tests-worker-1"}));
  EXPECT_EQ(net_devs, (std::set<int>{9, 11, 12, 13, 14, 15}));
  EXPECT_EQ(sends, 7);
  EXPECT_EQ(receives, 6);
  EXPECT_EQ(log.connections[3].p2p_kind, "CUMEM");
  EXPECT_TRUE(log.connections[3].read);
  EXPECT_EQ(log.connections[0].net_name, "IB");
  EXPECT_EQ(log.connections[0].channel, 9);
  EXPECT_EQ(log.connections[0].to_rank, 1);
}

TEST(NcclLogReal, MpirunTagOutputRingOrdersAndCutTrees) {
  Diagnostics diag;
  const NcclLog log = ReadReal("mpirun_tag_output_1node_2gpu_24_channels_mscclpp_issue665_excerpt.log", diag);
  EXPECT_EQ(log.counts.read, 10);
  EXPECT_TRUE(log.counts.Balanced());
  ASSERT_EQ(log.comms.size(), 2u);
  EXPECT_EQ(log.comms[1].at.host, "my-dev-1");
  EXPECT_EQ(log.comms[1].rank, 0);
  ASSERT_EQ(log.ring_orders.size(), 5u);
  for (const auto& o : log.ring_orders) {
    EXPECT_EQ(o.ranks, (std::vector<int>{0, 1}));
    EXPECT_EQ(o.nchannels, 24);
    EXPECT_EQ(o.comm, "0x8c27c80");
  }
  // The Trees line is cut inside channel 23's children: the line is rejected, with its line number.
  EXPECT_EQ(log.counts.rejected, 1);
  EXPECT_TRUE(log.trees.empty());
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_EQ(diag.items()[0].line, 10);
  EXPECT_NE(diag.items()[0].reason.find("tree child"), std::string::npos) << diag.items()[0].reason;
}

// ---------------------------------------------------------------------------------------------
// Writer round trips.

NcclLogPrefix Pre(std::string host, int64_t pid, int64_t tid, int dev, int64_t ts = kNoTime) {
  NcclLogPrefix p;
  p.host = std::move(host);
  p.pid = pid;
  p.tid = tid;
  p.cuda_dev = dev;
  p.ts_ns = ts;
  return p;
}

// Parses one written line and returns the log; the line must be accepted, not ignored.
NcclLog ParseLine(const std::string& line) {
  EXPECT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
  Diagnostics diag;
  NcclLog log = ParseOk(line, diag);
  EXPECT_EQ(log.counts.rejected, 0) << line;
  return log;
}

template <class T>
void ExpectOne(const std::vector<T>& got, T want) {
  ASSERT_EQ(got.size(), 1u);
  want.line = 1;
  EXPECT_TRUE(got[0] == want);
}

void RoundTripEra(NcclLogEra era, bool nvml_brackets) {
  const int64_t ts = era == NcclLogEra::kV2_26 ? *ParseIsoTimeNs("2025-01-02 03:04:05.123456") : kNoTime;
  const NcclLogPrefix at = Pre("node-1", 4242, 4250, 3, ts);
  NcclLogWriter w(era, at);

  // Version.
  {
    Diagnostics diag;
    const NcclLog log = ParseOk(w.Version("2.26.2+cuda12.8"), diag);
    EXPECT_EQ(log.nccl_version, "2.26.2+cuda12.8");
  }
  // Comm.
  {
    NcclCommInit c;
    c.at = at;
    c.comm = "0x55d1a2b3c4d0";
    c.rank = 3;
    c.nranks = 16;
    if (era == NcclLogEra::kV2_26) {
      c.kind = NcclCommInitKind::kRankInfo;
      c.nnodes = 2;
      c.local_ranks = 8;
      c.local_rank = 3;
      c.mnnvl = 0;
      ExpectOne(ParseLine(w.CommInit(c)).comms, c);
      NcclCommInit d = c;
      d.kind = NcclCommInitKind::kInitComplete;
      d.nnodes = d.local_ranks = d.local_rank = d.mnnvl = -1;
      d.api = "ncclCommInitRankConfig";
      d.cuda_dev = 3;
      d.nvml_dev = 3;
      d.bus_id = "9a000";
      d.comm_id = "0xb2f794396f6d0bd1";
      ExpectOne(ParseLine(w.CommInit(d)).comms, d);
    } else {
      c.kind = NcclCommInitKind::kInitComplete;
      c.cuda_dev = 3;
      c.bus_id = "81000";
      if (era == NcclLogEra::kV2_16) c.comm_id = "0xb2f794396f6d0bd1";
      ExpectOne(ParseLine(w.CommInit(c)).comms, c);
    }
  }
  // Ring order, ring, trees.
  {
    NcclRingOrder r;
    r.at = at;
    r.channel = 5;
    r.nchannels = 16;
    r.ranks = {0, 7, 6, 5, 4, 3, 2, 1, 9, 10, 11, 12, 13, 14, 15, 8};
    const std::string line = w.RingOrder(r, 16);
    if (era == NcclLogEra::kV2_26) {
      EXPECT_NE(line.find("Channel 05/16 :  0  7  6"), std::string::npos) << line;
    } else {
      EXPECT_NE(line.find("Channel 05/16 :    0   7   6"), std::string::npos) << line;
    }
    ExpectOne(ParseLine(line).ring_orders, r);
    NcclRingLine g;
    g.at = at;
    g.channel = 3;
    g.prev = 2;
    g.me = 3;
    g.next = 4;
    ExpectOne(ParseLine(w.Ring(g)).rings, g);
    NcclTreeLine t;
    t.at = at;
    t.channel = 2;
    t.down = {4, 11, -1};
    t.me = 3;
    t.up = -1;
    ExpectOne(ParseLine(w.Tree(t)).trees, t);
    t.old_format = true;
    ExpectOne(ParseLine(w.Tree(t)).trees, t);
    t.old_format = false;
    NcclTreeLine t2 = t;
    t2.channel = 3;
    t2.up = 2;
    const NcclLog two = ParseLine(w.Trees({t, t2}));
    ASSERT_EQ(two.trees.size(), 2u);
    t2.line = 1;
    EXPECT_TRUE(two.trees[1] == t2);
  }
  // Connections of every transport.
  {
    const std::string dev_a = nvml_brackets ? "3" : "9a000";
    const std::string dev_b = nvml_brackets ? "4" : "9b000";
    const bool conn = era != NcclLogEra::kV2_12;
    auto base = [&] {
      NcclConnection c;
      c.at = at;
      c.channel = 7;
      c.conn_index = conn ? 1 : 0;
      c.has_conn_index = conn;
      c.from_rank = 3;
      c.to_rank = 4;
      c.from_dev = dev_a;
      c.to_dev = dev_b;
      return c;
    };
    NcclConnection p = base();
    p.transport = NcclTransport::kP2p;
    p.p2p_kind = era == NcclLogEra::kV2_26 ? "CUMEM" : "direct pointer";
    p.read = true;
    p.via = "P2P/" + p.p2p_kind + "/read";
    ExpectOne(ParseLine(w.Connection(p)).connections, p);

    NcclConnection ipc = base();
    ipc.transport = NcclTransport::kP2p;
    ipc.p2p_kind = "IPC";
    ipc.ce = true;
    ipc.via = "P2P/IPC/CE";
    ExpectOne(ParseLine(w.Connection(ipc)).connections, ipc);

    NcclConnection s = base();
    s.conn_index = 0;
    s.has_conn_index = false;  // SHM lines never print "/conn"
    s.transport = NcclTransport::kShm;
    s.p2p_kind = era == NcclLogEra::kV2_26 ? "direct" : "direct/direct";
    s.via = "SHM/" + s.p2p_kind;
    ExpectOne(ParseLine(w.Connection(s)).connections, s);

    NcclConnection n = base();
    n.transport = NcclTransport::kNet;
    n.dir = Dir::kSend;
    n.net_name = "IB";
    n.net_dev = 3;
    n.gdrdma = true;
    n.shared = true;
    n.via = "NET/IB/3/GDRDMA/Shared";
    ExpectOne(ParseLine(w.Connection(n)).connections, n);
    // The same from fields only (empty via): the writer builds the text.
    NcclConnection nf = n;
    nf.via.clear();
    const NcclLog from_fields = ParseLine(w.Connection(nf));
    ASSERT_EQ(from_fields.connections.size(), 1u);
    EXPECT_EQ(from_fields.connections[0].via, n.via);

    NcclConnection r = base();
    r.transport = NcclTransport::kNet;
    r.dir = Dir::kReceive;
    r.net_name = "NCCL RDMA Plugin v8";
    r.net_dev = 1;
    r.proxy_rank = 2;
    r.via = "NET/NCCL RDMA Plugin v8/1(2)";
    ExpectOne(ParseLine(w.Connection(r)).connections, r);

    NcclConnection cn;
    cn.at = at;
    cn.channel = 1;
    cn.conn_index = 1;
    cn.from_rank = 3;
    cn.dir = Dir::kReceive;
    cn.transport = NcclTransport::kCollNet;
    cn.net_name = "SHARP";
    cn.net_dev = 0;
    cn.gdrdma = true;
    cn.via = "COLLNET/SHARP/0/GDRDMA";
    ExpectOne(ParseLine(w.Connection(cn)).connections, cn);
  }
  // NET/IB : Using, NET/Socket : Using.
  {
    NcclNetUsing u;
    u.at = at;
    u.net_name = "IB";
    u.devices = {{0, "mlx5_0", 1, "RoCE", false, ""}, {1, "mlx5_11", 1, "IB", true, ""}};
    u.relaxed_ordering = era != NcclLogEra::kV2_12;
    u.oob_iface = "eth0";
    u.oob_ip = "10.0.0.1";
    u.oob_port = 0;
    ExpectOne(ParseLine(w.NetUsing(u)).net_using, u);
    NcclNetUsing s;
    s.at = at;
    s.net_name = "Socket";
    s.devices = {{0, "eth0", 0, "", false, "10.0.0.1"}, {1, "ib0", 0, "", false, "192.168.1.5"}};
    ExpectOne(ParseLine(w.NetUsing(s)).net_using, s);
  }
  // QPN lines (IB LID and RoCE GID variants, plus the peer's qpn).
  {
    NcclQpn q;
    q.at = at;
    q.dev = 1;
    q.port = 1;
    q.qpn = 3038;
    q.mtu = 5;
    q.lid = 37;
    if (era == NcclLogEra::kV2_26) {
      q.ib_dev = "NCCL Dev";
      q.ib_dev_index = 1;
      q.extra = "subnet-prefix 18338657682652659712  FLID 0 fifoRkey=0x1be5 fifoLkey=0x2f0a";
    }
    ExpectOne(ParseLine(w.Qpn(q)).qpns, q);
    NcclQpn g = q;
    g.lid = -1;
    g.gid = "3 (80FE/A288FFFE1234)";
    if (era == NcclLogEra::kV2_26) {
      g.ece = "supported=1, vendor_id=0x15b3, options=0x30000002, comp_mask=0x0";
      g.extra = "fifoRkey=0x1be5 fifoLkey=0x2f0a";
    }
    ExpectOne(ParseLine(w.Qpn(g)).qpns, g);
    if (era == NcclLogEra::kV2_26) {
      NcclQpn rem;
      rem.at = at;
      rem.remote = true;
      rem.ib_dev_index = 1;
      rem.port = 1;
      rem.qpn = 9999;
      rem.ece = "supported=1, vendor_id=0x15b3, options=0x30000002, comp_mask=0x0";
      ExpectOne(ParseLine(w.Qpn(rem)).qpns, rem);
      // Default tails when the simulator leaves them empty still parse.
      NcclQpn bare = q;
      bare.extra.clear();
      const NcclLog b = ParseLine(w.Qpn(bare));
      ASSERT_EQ(b.qpns.size(), 1u);
      EXPECT_EQ(b.qpns[0].qpn, 3038u);
      EXPECT_NE(b.qpns[0].extra.find("fifoRkey=0x"), std::string::npos);
    }
  }
}

TEST(NcclLogWriter, RoundTripV2_26) { RoundTripEra(NcclLogEra::kV2_26, true); }
TEST(NcclLogWriter, RoundTripV2_16) { RoundTripEra(NcclLogEra::kV2_16, false); }
TEST(NcclLogWriter, RoundTripV2_12) { RoundTripEra(NcclLogEra::kV2_12, false); }

TEST(NcclLogWriter, ExactLinesOfRealFixtures) {
  // The writer reproduces real lines byte for byte.
  NcclLogWriter w16(NcclLogEra::kV2_16, Pre("n013", 101855, 101885, 0));
  NcclRingOrder r;
  r.channel = 0;
  r.nchannels = 2;
  r.ranks = {0, 1};
  EXPECT_EQ(w16.RingOrder(r, 2), "n013:101855:101885 [0] NCCL INFO Channel 00/02 :    0   1\n");
  NcclTreeLine t;
  t.channel = 0;
  t.down = {1, -1, -1};
  t.me = 0;
  t.up = -1;
  NcclTreeLine t1 = t;
  t1.channel = 1;
  t1.down = {-1, -1, -1};
  t1.up = 1;
  EXPECT_EQ(w16.Trees({t, t1}),
            "n013:101855:101885 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->1\n");
  t.old_format = true;
  EXPECT_EQ(w16.Tree(t), "n013:101855:101885 [0] NCCL INFO Tree 0 : -1 -> 0 -> 1/-1/-1\n");
  EXPECT_EQ(w16.Version("2.16.5+cuda11.8"), "NCCL version 2.16.5+cuda11.8\n");

  // Every NCCL INFO line of the 2.16.5 fixture that the reader keeps is written back identically.
  Diagnostics diag;
  const std::string text = Slurp(k216);
  const NcclLog log = ParseOk(text, diag);
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) lines.push_back(l + "\n");
  for (const auto& c : log.connections) EXPECT_EQ(w16.Connection(c), lines[static_cast<size_t>(c.line - 1)]);
  for (const auto& q : log.qpns) EXPECT_EQ(w16.Qpn(q), lines[static_cast<size_t>(q.line - 1)]);
  for (const auto& u : log.net_using) EXPECT_EQ(w16.NetUsing(u), lines[static_cast<size_t>(u.line - 1)]);
  for (const auto& c : log.comms) EXPECT_EQ(w16.CommInit(c), lines[static_cast<size_t>(c.line - 1)]);
  for (const auto& g : log.rings) EXPECT_EQ(w16.Ring(g), lines[static_cast<size_t>(g.line - 1)]);

  // 2.26.2 fixtures.
  NcclLogWriter w26(NcclLogEra::kV2_26, NcclLogPrefix{});
  for (const std::string& path : {kRingsTrees, kConnect, kUsing}) {
    Diagnostics d2;
    const std::string t26 = Slurp(path);
    const NcclLog l26 = ParseOk(t26, d2);
    std::vector<std::string> ls;
    std::stringstream s2(t26);
    for (std::string l; std::getline(s2, l);) ls.push_back(l + "\n");
    for (const auto& o : l26.ring_orders) EXPECT_EQ(w26.RingOrder(o, 16), ls[static_cast<size_t>(o.line - 1)]);
    for (const auto& c : l26.comms) EXPECT_EQ(w26.CommInit(c), ls[static_cast<size_t>(c.line - 1)]);
    for (const auto& c : l26.connections) EXPECT_EQ(w26.Connection(c), ls[static_cast<size_t>(c.line - 1)]);
    for (const auto& u : l26.net_using) EXPECT_EQ(w26.NetUsing(u), ls[static_cast<size_t>(u.line - 1)]);
    // Trees: group the records of each line.
    std::map<int64_t, std::vector<NcclTreeLine>> by_line;
    for (const auto& t2 : l26.trees) by_line[t2.line].push_back(t2);
    for (const auto& [ln, ts] : by_line) EXPECT_EQ(w26.Trees(ts), ls[static_cast<size_t>(ln - 1)]);
  }
}

TEST(NcclLogWriter, RingOrderTruncationLikeNccl) {
  NcclLogWriter w26(NcclLogEra::kV2_26, Pre("h", 1, 2, 0));
  NcclRingOrder r;
  r.channel = 0;
  r.nchannels = 4;
  for (int i = 0; i < 100; ++i) r.ranks.push_back((i * 37) % 100);
  const std::string line = w26.RingOrder(r, 100);
  const std::string msg = line.substr(line.find("NCCL INFO ") + 10);
  EXPECT_EQ(msg.size(), 128u);  // 127 characters and '\n'
  EXPECT_EQ(msg.substr(124), "...\n");
  Diagnostics diag;
  const NcclLog log = ParseOk(line, diag);
  ASSERT_EQ(log.ring_orders.size(), 1u);
  EXPECT_TRUE(log.ring_orders[0].truncated);
  const auto& got = log.ring_orders[0].ranks;
  ASSERT_FALSE(got.empty());
  EXPECT_LT(got.size(), r.ranks.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], r.ranks[i]);

  // Pre-2.23: at most 20 ranks, silently.
  NcclLogWriter w16(NcclLogEra::kV2_16, Pre("h", 1, 2, 0));
  const NcclLog old = ParseOk(w16.RingOrder(r, 100), diag);
  ASSERT_EQ(old.ring_orders.size(), 1u);
  EXPECT_EQ(old.ring_orders[0].ranks.size(), 20u);
}

// ---------------------------------------------------------------------------------------------
// Bad input.

TEST(NcclLogBad, EmptyInput) {
  Diagnostics diag;
  const NcclLog log = ParseOk("", diag);
  ExpectCounts(log, 0, 0);
  EXPECT_FALSE(LooksLikeNcclLog(""));
}

TEST(NcclLogBad, BinaryGarbageIsAnError) {
  std::string bin(512, '\0');
  for (size_t i = 0; i < bin.size(); ++i) bin[i] = static_cast<char>((i * 131) & 0xFF);
  Diagnostics diag;
  auto log = ParseNcclLog(bin, "bin", diag);
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.error().message.find("binary"), std::string::npos);
  EXPECT_FALSE(LooksLikeNcclLog(bin));
}

TEST(NcclLogBad, OtherTextFormatParsesToNothing) {
  Diagnostics diag;
  const NcclLog log = ParseOk("GPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV18\t0-31\n", diag);
  ExpectCounts(log, 2, 0);
  EXPECT_EQ(log.ignored_lines, 2);
  EXPECT_EQ(log.nccl_lines, 0);
  EXPECT_FALSE(LooksLikeNcclLog("GPU0\tGPU1\n"));
}

TEST(NcclLogBad, MalformedTopologyLinesAreRejectedWithReasons) {
  const std::string text =
      "h:1:2 [0] NCCL INFO Channel 00/02 :  0 x 1\n"                              // 1 bad rank
      "h:1:2 [0] NCCL INFO Ring 00 : 7 0 -> 1\n"                                  // 2 missing ->
      "h:1:2 [0] NCCL INFO Ring 00 : 7 -> 99999999999 -> 1\n"                     // 3 out of range
      "h:1:2 [0] NCCL INFO Trees [0] 14/-1->13->12\n"                             // 4 two children
      "h:1:2 [0] NCCL INFO Channel 00/0 : 1[1] 0[0] via P2P/CUMEM\n"              // 5 missing ->
      "h:1:2 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [send] via NET/IB\n"       // 6 no dev
      "h:1:2 [0] NCCL INFO NET/IB: Dev 1 Port 1 qpn 99999999 mtu 5 LID 37\n"      // 7 qpn > 24 bits
      "h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0/IB ; OOB eth0:1.2.3.4<0>\n"   // 8 no port
      "h:1:2 [0] NCCL INFO comm 0x1 rank 5 nRanks 4 nNodes 1 localRanks 4 localRank 1 MNNVL 0\n"  // 9
      "h:1:2 [0] NCCL INFO comm 0x1 rank NaN nranks 4 cudaDev 0 busId 1000 - Init COMPLETE\n"    // 10
      "h:1:2 [0] NCCL INFO Channel 00/02 :\n"                                     // 11 no ranks
      "h:1:2 [0] NCCL INFO Tree 0 : 1 -> 0\n"                                     // 12 truncated
      "h:1:2 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via \n"                    // 13 empty via
      "h:1:2 [0] NCCL INFO Ring 00 : 1 -> 0 -> 1\n";                              // 14 good
  Diagnostics diag;
  const NcclLog log = ParseOk(text, diag);
  ExpectCounts(log, 14, 13);
  EXPECT_EQ(log.rings.size(), 1u);
  EXPECT_TRUE(log.ring_orders.empty() && log.trees.empty() && log.connections.empty());
  EXPECT_TRUE(log.qpns.empty() && log.net_using.empty() && log.comms.empty());
  ASSERT_EQ(diag.items().size(), 13u);
  for (size_t i = 0; i < diag.items().size(); ++i) {
    EXPECT_EQ(diag.items()[i].line, static_cast<int64_t>(i + 1));
    EXPECT_FALSE(diag.items()[i].reason.empty());
  }
  EXPECT_NE(diag.items()[0].reason.find("'x'"), std::string::npos) << diag.items()[0].reason;
  EXPECT_NE(diag.items()[1].reason.find("->"), std::string::npos) << diag.items()[1].reason;
  EXPECT_NE(diag.items()[2].reason.find("out of range"), std::string::npos) << diag.items()[2].reason;
  EXPECT_NE(diag.items()[6].reason.find("qpn"), std::string::npos) << diag.items()[6].reason;
  EXPECT_NE(diag.items()[8].reason.find("nranks"), std::string::npos) << diag.items()[8].reason;
}

TEST(NcclLogBad, TruncatedLastLineAndCrLf) {
  Diagnostics diag;
  const NcclLog log = ParseOk(
      "h:1:2 [0] NCCL INFO Ring 00 : 1 -> 0 -> 1\r\n"
      "h:1:2 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [rec",
      diag);
  ExpectCounts(log, 2, 1);
  EXPECT_EQ(log.rings.size(), 1u);
}

TEST(NcclLogBad, DuplicatesAndInterleavingAreKept) {
  const std::string line = "h:1:2 [0] NCCL INFO Ring 00 : 1 -> 0 -> 1\n";
  Diagnostics diag;
  const NcclLog log = ParseOk(line + line + "g:3:4 [1] NCCL INFO Ring 00 : 0 -> 1 -> 0\n" + line, diag);
  ExpectCounts(log, 4, 0);
  ASSERT_EQ(log.rings.size(), 4u);
  EXPECT_EQ(log.rings[2].at.host, "g");
  EXPECT_EQ(log.rings[3].line, 4);
}

TEST(NcclLogBad, NonTopologyNcclLinesAreIgnored) {
  const std::string text =
      "h:1:2 [0] NCCL INFO NVLS Trees : 1/2/3->4->5 1/2/3->4->5\n"
      "h:1:2 [0] NCCL INFO NET/Socket: Using 2 threads and 8 sockets per thread\n"
      "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Destroy COMPLETE\n"
      "h:1:2 [0] NCCL INFO NVLS comm 0x1 headRank 0 nHeads 1 buffSize 1 nvlsPerRankSize 1 nvlsTotalSize 1\n"
      "h:1:2 [0] NCCL INFO NET/IB: Subnet-aware routing: overriding dev 1 with dev 2\n"
      "h:1:2 [0] 12.5 ncclProxy:33 NCCL TRACE Ring 00 : 1[1] <- 0[0] via P2P/CUMEM\n"
      "h:1:2 [0] NCCL INFO \n";
  Diagnostics diag;
  const NcclLog log = ParseOk(text, diag);
  ExpectCounts(log, 7, 0);
  EXPECT_EQ(log.ignored_lines, 7);
}

TEST(NcclLogStreaming, SinkSeesEveryRecordInOrder) {
  auto in = OpenInput(kRingsTrees);
  ASSERT_TRUE(in.ok());
  LineReader lines(std::move(*in));
  Diagnostics diag;
  int64_t n = 0, last_line = 0;
  bool ordered = true;
  auto summary = ReadNcclLogRecords(lines, kRingsTrees, diag, [&](NcclLogRecord&& r) {
    ++n;
    const int64_t ln = std::visit([](const auto& x) { return x.line; }, r);
    ordered = ordered && ln >= last_line;
    last_line = ln;
  });
  ASSERT_TRUE(summary.ok());
  EXPECT_TRUE(summary->comms.empty());
  EXPECT_EQ(n, 14 + 16 + 240);
  EXPECT_TRUE(ordered);
  EXPECT_EQ(summary->counts.read, 130);
}

// Found by fuzzing: an old-form ring order ("Ring 00 : 3 3 2 1", no channel count) was written back
// as "Channel 00/-1 : ...", which the reader rejects; it is written back in its own form.
TEST(NcclLogWriter, RingOrderWithoutChannelCountWritesTheOldForm) {
  const std::string text = "gpu-a:100:101 [0] NCCL INFO Ring 00 : 3 3 2 1\n";
  Diagnostics diag;
  auto log = ParseNcclLog(text, "old", diag);
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->ring_orders.size(), 1u);
  const NcclRingOrder& r = log->ring_orders[0];
  EXPECT_EQ(r.nchannels, -1);
  NcclLogPrefix fallback;
  fallback.host = "w";
  for (const NcclLogEra era : {NcclLogEra::kV2_12, NcclLogEra::kV2_16, NcclLogEra::kV2_26}) {
    NcclLogWriter w(era, fallback);
    const std::string line = w.RingOrder(r, static_cast<int>(r.ranks.size()));
    EXPECT_NE(line.find("Ring 00 : 3 3 2 1"), std::string::npos) << line;
    Diagnostics d2;
    auto again = ParseNcclLog(line, "rewritten", d2);
    ASSERT_TRUE(again.ok()) << line;
    EXPECT_EQ(again->counts.rejected, 0) << line;
    ASSERT_EQ(again->ring_orders.size(), 1u) << line;
    EXPECT_EQ(again->ring_orders[0].ranks, r.ranks);
    EXPECT_EQ(again->ring_orders[0].channel, 0);
  }
}

}  // namespace nccl_log_test
}  // namespace toposcope::formats
