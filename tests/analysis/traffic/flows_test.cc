// Tests of the flow table (PSN gaps and retransmissions with 24-bit wrap, NAKs, capture points),
// the host map (inventory, show_gids, NCCL OOB lines), source-QP pairing by each method on its own
// and their precedence, and AnalyzeFlows end to end over a written capture with its second pass.
#include "toposcope/analysis/traffic/flows.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "toposcope/base/file_io.h"
#include "toposcope/formats/rdma/inventory_csv.h"
#include "toposcope/formats/nccl/nccl_log.h"
#include "toposcope/formats/rdma/pcap_capture.h"
#include "toposcope/formats/rdma/rdma_tools.h"

namespace toposcope::analysis {
namespace flows_test {

using formats::RocePacket;
namespace op = formats::roce_op;

constexpr int64_t kT0 = 1700000000000000000LL;
const uint8_t kMacA[6] = {0x02, 0, 0, 0, 0, 1};
const uint8_t kMacB[6] = {0x02, 0, 0, 0, 0, 2};

IpAddress Ip(const char* s) { return *IpAddress::Parse(s); }

RocePacket Pkt(const char* src, const char* dst, uint32_t dest_qp, uint32_t psn, uint8_t opcode,
               int64_t ts_ns, uint16_t sport = 0xc001, uint32_t payload = 0) {
  RocePacket p;
  p.ts_ns = ts_ns;
  p.src_ip = Ip(src);
  p.dst_ip = Ip(dst);
  p.udp_src_port = sport;
  p.udp_dst_port = formats::kRoceV2UdpPort;
  p.opcode = opcode;
  p.dest_qp = dest_qp;
  p.psn = psn & 0xffffff;
  p.payload_bytes = payload;
  p.wire_len = 14 + 20 + 8 + 12 + payload + 4;
  if (opcode == op::kAcknowledge || opcode == op::kAtomicAcknowledge || opcode == op::kReadResponseFirst ||
      opcode == op::kReadResponseLast || opcode == op::kReadResponseOnly) {
    p.has_aeth = true;
    p.aeth_syndrome = 0x1f;
  }
  if (opcode == op::kReadRequest || opcode == op::kWriteFirst || opcode == op::kWriteOnly) p.has_reth = true;
  return p;
}

RocePacket Ack(const char* src, const char* dst, uint32_t dest_qp, uint32_t psn, int64_t ts, uint8_t syndrome,
               uint16_t sport = 0xc001) {
  RocePacket p = Pkt(src, dst, dest_qp, psn, op::kAcknowledge, ts, sport);
  p.aeth_syndrome = syndrome;
  return p;
}

Flow Only(const FlowTable& t) {
  auto flows = t.Flows();
  EXPECT_EQ(flows.size(), 1u);
  return flows.empty() ? Flow{} : flows.front();
}

TEST(FlowsBasics, UdpSportHashIsSymmetricAndInRange) {
  for (uint32_t a : {1u, 0x11u, 3038u, 0xabcdefu, 0xffffffu}) {
    for (uint32_t b : {2u, 0x12u, 3039u, 0x123456u}) {
      EXPECT_EQ(RoceUdpSourcePort(a, b), RoceUdpSourcePort(b, a));
      EXPECT_GE(RoceUdpSourcePort(a, b), 0xC000);
    }
  }
  // fl = 0x11 * 0x12 = 0x132 -> sport = 0x132 | 0xc000.
  EXPECT_EQ(RoceUdpSourcePort(0x11, 0x12), 0xc132);
  // fl = 3038 * 3039 = 9232482 = 0x8ce062; ^>>20 -> 0x8ce06a; & 0xfffff -> 0xce06a;
  // (0xce06a & 0x3fff) ^ ((0xce06a & 0xfc000) >> 14) = 0x206a ^ 0x33 = 0x2059 -> 0xe059.
  EXPECT_EQ(RoceUdpSourcePort(3038, 3039), 0xe059);
}

TEST(FlowsBasics, NamesAndClasses) {
  EXPECT_EQ(QpPairingName(QpPairing::kNone), "none");
  EXPECT_EQ(QpPairingName(QpPairing::kReverseAck), "reverse_ack");
  EXPECT_EQ(QpPairingName(QpPairing::kUdpSourcePort), "udp_sport");
  EXPECT_EQ(QpPairingName(QpPairing::kNcclLog), "nccl_log");
  EXPECT_EQ(QpPairingName(QpPairing::kRdmaTool), "rdma_tool");
  EXPECT_EQ(QpPairingName(QpPairing::kDeth), "deth");
  EXPECT_EQ(QpPairingName(QpPairing::kReversePsn), "reverse_psn");
  EXPECT_GT(QpPairingRank(QpPairing::kDeth), QpPairingRank(QpPairing::kReversePsn));
  EXPECT_GT(QpPairingRank(QpPairing::kReversePsn), QpPairingRank(QpPairing::kReverseAck));
  EXPECT_EQ(OpClassOf(op::kSendOnly), kOpSend);
  EXPECT_EQ(OpClassOf(0x64), kOpSend);  // UD SEND Only
  EXPECT_EQ(OpClassOf(0x2a), kOpWrite);  // UC WRITE Only
  EXPECT_EQ(OpClassOf(op::kWriteMiddle), kOpWrite);
  EXPECT_EQ(OpClassOf(op::kReadRequest), kOpReadReq);
  EXPECT_EQ(OpClassOf(op::kReadResponseMiddle), kOpReadResp);
  EXPECT_EQ(OpClassOf(op::kAcknowledge), kOpAck);
  EXPECT_EQ(OpClassOf(op::kAtomicAcknowledge), kOpAck);
  EXPECT_EQ(OpClassOf(op::kFetchAdd), kOpAtomic);
  EXPECT_EQ(OpClassOf(op::kCnp), kOpCnp);
  EXPECT_EQ(OpClassOf(op::kSendOnlyInv), kOpSend);
  EXPECT_EQ(OpClassOf(0x15), kOpOther);
  EXPECT_EQ(OpClassOf(0x44), kOpOther);  // RD
  EXPECT_EQ(OpClassName(kOpReadResp), "read_resp");
  EXPECT_EQ(OpClassName(99), "other");
}

TEST(FlowTable, InOrderAcross24BitWrapHasNoGaps) {
  FlowTable t;
  for (uint32_t psn : {0xfffffdu, 0xfffffeu, 0xffffffu, 0u, 1u, 2u}) {
    t.Add(Pkt("10.0.0.1", "10.0.0.2", 0x100, psn, op::kWriteMiddle, kT0 + psn, 0xc001, 4096));
  }
  Flow f = Only(t);
  EXPECT_EQ(f.packets, 6);
  EXPECT_EQ(f.psn_gaps, 0);
  EXPECT_EQ(f.retransmissions, 0);
  EXPECT_EQ(f.opcode_mix[kOpWrite], 6);
  EXPECT_EQ(f.payload_bytes, 6 * 4096);
  EXPECT_EQ(f.data_bytes, 6 * 4096);
  EXPECT_EQ(f.bytes, 6 * (14 + 20 + 8 + 12 + 4096 + 4));
}

TEST(FlowTable, GapsAndRetransmissionsWithWrap) {
  {
    FlowTable t;  // 5 6 9: 7 and 8 missing
    for (uint32_t psn : {5u, 6u, 9u}) t.Add(Pkt("10.0.0.1", "10.0.0.2", 1, psn, op::kSendOnly, kT0));
    EXPECT_EQ(Only(t).psn_gaps, 2);
  }
  {
    FlowTable t;  // go-back-N after a NAK: 5 6 7 | 6 7 | 8
    for (uint32_t psn : {5u, 6u, 7u, 6u, 7u, 8u}) t.Add(Pkt("10.0.0.1", "10.0.0.2", 1, psn, op::kSendOnly, kT0));
    Flow f = Only(t);
    EXPECT_EQ(f.psn_gaps, 0);
    EXPECT_EQ(f.retransmissions, 2);
  }
  {
    FlowTable t;  // a gap across the wrap: 0xfffffe -> 1 skips 0xffffff and 0
    for (uint32_t psn : {0xfffffeu, 1u}) t.Add(Pkt("10.0.0.1", "10.0.0.2", 1, psn, op::kSendOnly, kT0));
    EXPECT_EQ(Only(t).psn_gaps, 2);
  }
  {
    FlowTable t;  // a retransmission across the wrap: 0xffffff 0 1 | 0xffffff 0 | 2
    for (uint32_t psn : {0xffffffu, 0u, 1u, 0xffffffu, 0u, 2u}) {
      t.Add(Pkt("10.0.0.1", "10.0.0.2", 1, psn, op::kSendOnly, kT0));
    }
    Flow f = Only(t);
    EXPECT_EQ(f.retransmissions, 2);
    EXPECT_EQ(f.psn_gaps, 0);
  }
  {
    FlowTable t;  // a duplicate of the newest packet is a retransmission too
    for (uint32_t psn : {10u, 10u}) t.Add(Pkt("10.0.0.1", "10.0.0.2", 1, psn, op::kSendOnly, kT0));
    EXPECT_EQ(Only(t).retransmissions, 1);
  }
}

TEST(FlowTable, ReadRequestReservesResponsePsns) {
  FlowTable t;
  RocePacket rd = Pkt("10.0.0.1", "10.0.0.2", 7, 100, op::kReadRequest, kT0);
  rd.reth_dma_len = 3 * 4096;  // 3 responses at MTU 4096 (48 at MTU 256)
  t.Add(rd);
  t.Add(Pkt("10.0.0.1", "10.0.0.2", 7, 103, op::kWriteOnly, kT0 + 1, 0xc001, 64));  // next request
  t.Add(Pkt("10.0.0.1", "10.0.0.2", 7, 110, op::kWriteOnly, kT0 + 2, 0xc001, 64));  // 6 missing
  Flow f = Only(t);
  EXPECT_EQ(f.psn_gaps, 6);
  EXPECT_EQ(f.retransmissions, 0);
  EXPECT_EQ(f.opcode_mix[kOpReadReq], 1);
  EXPECT_EQ(f.opcode_mix[kOpWrite], 2);
  // Responses do not disturb the request space; ACK PSNs (coalesced) are not tracked.
  FlowTable r;
  for (uint32_t psn : {100u, 101u, 102u}) {
    r.Add(Pkt("10.0.0.2", "10.0.0.1", 9, psn, psn == 100 ? op::kReadResponseFirst : op::kReadResponseMiddle,
              kT0, 0xc001, 4096));
  }
  r.Add(Ack("10.0.0.2", "10.0.0.1", 9, 160, kT0, 0x1f));
  Flow g = Only(r);
  EXPECT_EQ(g.psn_gaps, 0);
  EXPECT_EQ(g.opcode_mix[kOpReadResp], 3);
  EXPECT_EQ(g.data_bytes, 3 * 4096);
  EXPECT_EQ(g.responses(), 4);
  EXPECT_EQ(g.requests(), 0);
}

TEST(FlowTable, AckNakRnrCountsAndCongestionBits) {
  FlowTable t;
  t.Add(Ack("10.0.0.2", "10.0.0.1", 0x200, 5, kT0, 0x1f));      // ACK, unlimited credits
  t.Add(Ack("10.0.0.2", "10.0.0.1", 0x200, 6, kT0 + 1, 0x00));  // ACK, 0 credits
  t.Add(Ack("10.0.0.2", "10.0.0.1", 0x200, 7, kT0 + 2, 0x60));  // NAK PSN sequence error
  t.Add(Ack("10.0.0.2", "10.0.0.1", 0x200, 7, kT0 + 3, 0x63));  // NAK remote operational error
  t.Add(Ack("10.0.0.2", "10.0.0.1", 0x200, 7, kT0 + 4, 0x2e));  // RNR NAK
  RocePacket cnp = Pkt("10.0.0.2", "10.0.0.1", 0x200, 0, op::kCnp, kT0 + 5);
  cnp.becn = true;
  t.Add(cnp);
  RocePacket ce = Ack("10.0.0.2", "10.0.0.1", 0x200, 8, kT0 + 6, 0x1f);
  ce.ip_ecn_ce = true;
  ce.fecn = true;
  t.Add(ce);
  Flow f = Only(t);
  EXPECT_EQ(f.acks, 3);
  EXPECT_EQ(f.naks, 2);
  EXPECT_EQ(f.rnr_naks, 1);
  EXPECT_EQ(f.opcode_mix[kOpAck], 6);
  EXPECT_EQ(f.opcode_mix[kOpCnp], 1);
  EXPECT_EQ(f.becn, 1);
  EXPECT_EQ(f.ecn_ce, 1);
  EXPECT_EQ(f.fecn, 1);
  EXPECT_EQ(f.first_ns, kT0);
  EXPECT_EQ(f.last_ns, kT0 + 6);
  EXPECT_EQ(f.psn_gaps, 0);
}

TEST(FlowTable, SeveralCapturePointsDoNotLookLikeRetransmissions) {
  FlowTable t;
  // Point 0 sees PSN 1..4, point 1 (downstream) sees 1, 2, 4: one loss between them.
  for (uint32_t psn : {1u, 2u, 3u, 4u}) {
    RocePacket p = Pkt("10.0.0.1", "10.0.0.2", 5, psn, op::kWriteMiddle, kT0 + psn, 0xc001, 1024);
    p.capture_index = 0;
    t.Add(p);
  }
  for (uint32_t psn : {1u, 2u, 4u}) {
    RocePacket p = Pkt("10.0.0.1", "10.0.0.2", 5, psn, op::kWriteMiddle, kT0 + 100 + psn, 0xc001, 1024);
    p.capture_index = 3;
    t.Add(p);
  }
  EXPECT_EQ(t.packets(), 7);
  Flow f = Only(t);
  EXPECT_EQ(f.capture_points, (std::vector<int>{0, 3}));
  EXPECT_EQ(f.packets, 4);  // from the most complete point
  EXPECT_EQ(f.retransmissions, 0);
  EXPECT_EQ(f.psn_gaps, 0);
  EXPECT_EQ(f.first_ns, kT0 + 1);
  EXPECT_EQ(f.last_ns, kT0 + 104);
  auto found = t.Find(FlowKey{Ip("10.0.0.1"), Ip("10.0.0.2"), 5});
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->packets, 4);
  EXPECT_FALSE(t.Find(FlowKey{Ip("10.0.0.1"), Ip("10.0.0.2"), 6}).has_value());
}

TEST(FlowTable, UdSourceQpsAndPorts) {
  FlowTable t;
  for (uint32_t psn : {1u, 2u, 3u}) {
    RocePacket p = Pkt("10.0.0.1", "10.0.0.2", 1, psn, 0x64, kT0, 0xd000, 256);
    p.has_deth = true;
    p.deth_src_qp = 0x77;
    t.Add(p);
  }
  // Another UD sender QP to the same destination QP: its PSNs are not compared with the first's.
  RocePacket other = Pkt("10.0.0.1", "10.0.0.2", 1, 900, 0x64, kT0, 0xd001, 256);
  other.has_deth = true;
  other.deth_src_qp = 0x78;
  t.Add(other);
  Flow f = Only(t);
  EXPECT_EQ(f.transport, formats::RoceTransport::kUd);
  EXPECT_EQ(f.deth_packets, 4);
  EXPECT_EQ(f.deth_src_qp, 0x77u);
  EXPECT_TRUE(f.deth_mixed);
  EXPECT_EQ(f.psn_gaps, 0);
  EXPECT_EQ(f.udp_src_port, 0xd000);
  EXPECT_TRUE(f.udp_src_port_mixed);
}

// ---------------------------------------------------------------------------------------------
// Host map
// ---------------------------------------------------------------------------------------------

formats::Inventory Inv(const std::string& csv) {
  Diagnostics d;
  auto r = formats::ParseInventoryCsv(csv, "inv.csv", d);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : formats::Inventory{};
}

formats::NcclLog Log(const std::string& text) {
  Diagnostics d;
  auto r = formats::ParseNcclLog(text, "nccl.log", d);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : formats::NcclLog{};
}

TEST(HostMap, FromInventoryGidsAndNcclLogs) {
  model::Dataset ds;
  ds.inventory = Inv(
      "host,ip,nic,gid\n"
      "node-a,10.0.0.1,mlx5_0,\n"
      "node-b,10.0.0.2,mlx5_3,fd02::2\n");
  ds.nccl_logs.push_back(Log(
      "node-c:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.3<0>\n"
      "node-x:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n"));
  formats::GidEntry g;
  g.dev = "mlx5_1";
  g.port = 1;
  g.index = 3;
  g.gid = "0000:0000:0000:0000:0000:ffff:c0a8:d3f2";
  g.ipv4 = "192.168.211.242";
  g.version = "v2";
  ds.Host("node-d").gids.push_back(g);
  HostMap m = BuildHostMap(ds);
  EXPECT_EQ(m.HostOf(Ip("10.0.0.1")), "node-a");  // inventory beats the NCCL log
  EXPECT_EQ(m.HostOf(Ip("10.0.0.2")), "node-b");
  EXPECT_EQ(m.HostOf(Ip("fd02::2")), "node-b");  // the inventory's gid column
  EXPECT_EQ(m.HostOf(Ip("10.0.0.3")), "node-c");
  EXPECT_EQ(m.HostOf(Ip("192.168.211.242")), "node-d");
  EXPECT_EQ(m.HostOf(Ip("10.9.9.9")), "");
  EXPECT_EQ(m.ip_host_source.at(Ip("10.0.0.1")).second, "inventory");
  EXPECT_EQ(m.ip_host_source.at(Ip("10.0.0.3")).second, "nccl_log");
  EXPECT_EQ(m.ip_host_source.at(Ip("192.168.211.242")).second, "show_gids");
  EXPECT_EQ(m.NicOf(Ip("10.0.0.2")), "mlx5_3");
  EXPECT_EQ(m.NicOf(Ip("192.168.211.242")), "mlx5_1");
  EXPECT_EQ(m.NicOf(Ip("10.0.0.3")), "eth0");
  ASSERT_EQ(m.conflicts.size(), 1u);
  EXPECT_EQ(m.conflicts[0], "10.0.0.1: inventory says node-a, nccl_log says node-x");
}

TEST(HostMap, RealNcclLogOobAddress) {
  model::Dataset ds;
  Diagnostics d;
  auto text = std::string(TOPOSCOPE_FIXTURES) + "/nccl_debug_log/nccl2.16.5_2node_a100pcie_roce_ib_graph_ring_tree_qpn.log";
  auto body = ReadFileText(text);
  ASSERT_TRUE(body.ok());
  auto log = formats::ParseNcclLog(*body, text, d);
  ASSERT_TRUE(log.ok());
  ds.nccl_logs.push_back(*log);
  HostMap m = BuildHostMap(ds);
  EXPECT_EQ(m.HostOf(Ip("10.128.3.13")), "n013");
  EXPECT_EQ(m.NicOf(Ip("10.128.3.13")), "ibp209s0f0");
  EXPECT_EQ(m.ip_host_source.size(), 1u);
}

TEST(HostMap, GidToIp) {
  EXPECT_EQ(GidToIp("0000:0000:0000:0000:0000:ffff:c0a8:d3f2"), Ip("192.168.211.242"));
  EXPECT_EQ(GidToIp("::ffff:10.0.0.1"), Ip("10.0.0.1"));
  EXPECT_EQ(GidToIp("fe80:0000:0000:0000:0ac0:ebff:fe21:03da"), Ip("fe80::ac0:ebff:fe21:3da"));
  EXPECT_EQ(GidToIp("fd02:0:0:58::1"), Ip("fd02:0:0:58::1"));
  EXPECT_FALSE(GidToIp("0000:0000:0000:0000:0000:0000:0000:0000").has_value());
  EXPECT_FALSE(GidToIp("10.0.0.1").has_value());
  EXPECT_FALSE(GidToIp("garbage").has_value());
}

// ---------------------------------------------------------------------------------------------
// Pairing
// ---------------------------------------------------------------------------------------------

const Flow& Get(const std::vector<Flow>& flows, const char* src, const char* dst, uint32_t qp) {
  static const Flow kMissing;
  for (const auto& f : flows) {
    if (f.key == FlowKey{Ip(src), Ip(dst), qp}) return f;
  }
  ADD_FAILURE() << "no flow " << src << "->" << dst << " qp " << qp;
  return kMissing;
}

// A->B RDMA WRITEs to qB = 0x100 and B->A ACKs to qA = 0x200, both on UDP source port `sport`.
void AddConnection(FlowTable& t, const char* a, const char* b, uint32_t qa, uint32_t qb, uint16_t sport,
                   bool with_acks = true, int64_t t0 = kT0) {
  for (uint32_t psn = 0; psn < 8; ++psn) {
    t.Add(Pkt(a, b, qb, 1000 + psn, op::kWriteMiddle, t0 + psn * 1000, sport, 4096));
  }
  if (with_acks) {
    t.Add(Ack(b, a, qa, 1003, t0 + 3500, 0x1f, sport));
    t.Add(Ack(b, a, qa, 1007, t0 + 7500, 0x1f, sport));
  } else {
    t.Add(Pkt(b, a, qa, 50, op::kWriteOnly, t0 + 2000, sport, 64));  // NCCL's fifo write, no ACK seen
  }
}

TEST(Pairing, ReverseAckOnItsOwn) {
  FlowTable t;
  AddConnection(t, "10.0.0.1", "10.0.0.2", 0x200, 0x100, 0x1234);  // port below 0xC000: no hash
  AddConnection(t, "10.0.0.1", "10.0.0.2", 0x201, 0x101, 0x1235);  // a second QP pair, other port
  auto flows = t.Flows();
  model::Dataset ds;
  EXPECT_EQ(PairFlows(flows, ds, HostMap{}), 0);
  const Flow& ab = Get(flows, "10.0.0.1", "10.0.0.2", 0x100);
  EXPECT_EQ(ab.pairing, QpPairing::kReverseAck);
  EXPECT_EQ(ab.src_qp, 0x200u);
  EXPECT_FALSE(ab.pairing_conflict);
  EXPECT_NE(ab.pairing_detail.find("with responses"), std::string::npos);
  const Flow& ba = Get(flows, "10.0.0.2", "10.0.0.1", 0x200);
  EXPECT_EQ(ba.pairing, QpPairing::kReverseAck);
  EXPECT_EQ(ba.src_qp, 0x100u);
  EXPECT_EQ(Get(flows, "10.0.0.1", "10.0.0.2", 0x101).src_qp, 0x201u);
  EXPECT_EQ(Get(flows, "10.0.0.2", "10.0.0.1", 0x201).src_qp, 0x101u);
}

TEST(Pairing, ReverseFlowsMustOverlapInTime) {
  FlowTable t;
  for (uint32_t psn = 0; psn < 4; ++psn) t.Add(Pkt("10.0.0.1", "10.0.0.2", 0x100, psn, op::kSendOnly, kT0 + psn, 0x1234));
  // The reverse direction's only packets come 10 s later, on the same port.
  t.Add(Ack("10.0.0.2", "10.0.0.1", 0x300, 5, kT0 + 10'000'000'000LL, 0x1f, 0x1234));
  auto flows = t.Flows();
  model::Dataset ds;
  PairingOptions o;
  o.use_udp_sport_hash = false;
  PairFlows(flows, ds, HostMap{}, o);
  EXPECT_EQ(Get(flows, "10.0.0.1", "10.0.0.2", 0x100).pairing, QpPairing::kNone);
  EXPECT_EQ(Get(flows, "10.0.0.2", "10.0.0.1", 0x300).pairing, QpPairing::kNone);
  // Within a wider slack they pair.
  auto flows2 = t.Flows();
  o.overlap_slack_ns = 20'000'000'000LL;
  PairFlows(flows2, ds, HostMap{}, o);
  EXPECT_EQ(Get(flows2, "10.0.0.1", "10.0.0.2", 0x100).pairing, QpPairing::kReverseAck);
  EXPECT_EQ(Get(flows2, "10.0.0.1", "10.0.0.2", 0x100).src_qp, 0x300u);
}

TEST(Pairing, SoleReverseFlowWithoutPortMatch) {
  FlowTable t;
  for (uint32_t psn = 0; psn < 4; ++psn) t.Add(Pkt("10.0.0.1", "10.0.0.2", 0x100, psn, op::kSendOnly, kT0 + psn, 0x1111));
  t.Add(Ack("10.0.0.2", "10.0.0.1", 0x200, 3, kT0 + 5, 0x1f, 0x2222));
  auto flows = t.Flows();
  model::Dataset ds;
  PairFlows(flows, ds, HostMap{});
  EXPECT_EQ(Get(flows, "10.0.0.1", "10.0.0.2", 0x100).pairing, QpPairing::kReverseAck);
  EXPECT_EQ(Get(flows, "10.0.0.1", "10.0.0.2", 0x100).src_qp, 0x200u);
}

// One QP pair of a NIC pair as ConnectX puts it on the wire: A->B RDMA WRITEs (PSNs from psn0,
// one every 1 us from t0) on A's own UDP port, B->A ACKs of every 8th PSN 2 us later on B's port.
void AddQpPair(FlowTable& t, uint32_t qa, uint32_t qb, uint32_t psn0, int64_t t0, uint16_t sport_a,
               uint16_t sport_b, int packets = 64, int req_point = 0, int ack_point = 0) {
  for (int k = 0; k < packets; ++k) {
    RocePacket p = Pkt("10.0.0.1", "10.0.0.2", qb, psn0 + k, op::kWriteMiddle, t0 + k * 1000, sport_a, 4096);
    p.capture_index = req_point;
    t.Add(p);
    if (k % 8 == 7) {
      RocePacket a = Ack("10.0.0.2", "10.0.0.1", qa, psn0 + k, t0 + k * 1000 + 2000, 0x1f, sport_b);
      a.capture_index = ack_point;
      t.Add(a);
    }
  }
}

PairingOptions NoHash() {
  PairingOptions o;
  o.use_udp_sport_hash = false;
  return o;
}

TEST(PsnPairing, SeveralQpsOfOneNicPairWithTheirOwnPorts) {
  // Four QPs between the same two NICs, random initial PSNs (one of them wrapping), every
  // direction its own port: no port matches, the PSNs pair every flow.
  FlowTable t;
  const uint32_t psn0[4] = {0x3a11c2, 0xfffff0, 0x0012ab, 0x9e0001};
  for (uint32_t i = 0; i < 4; ++i) {
    AddQpPair(t, 0x200 + i, 0x100 + i, psn0[i], kT0 + i * 300, static_cast<uint16_t>(0xc100 + i),
              static_cast<uint16_t>(0xd200 + i));
  }
  auto flows = t.Flows();
  const auto ev = t.PsnEvidence();
  model::Dataset ds;
  EXPECT_EQ(PairFlows(flows, ds, HostMap{}, NoHash(), &ev), 0);
  for (uint32_t i = 0; i < 4; ++i) {
    const Flow& ab = Get(flows, "10.0.0.1", "10.0.0.2", 0x100 + i);
    EXPECT_EQ(ab.pairing, QpPairing::kReversePsn) << i;
    EXPECT_EQ(ab.src_qp, 0x200 + i);
    EXPECT_NE(ab.pairing_detail.find("8 of 8 ACK PSNs"), std::string::npos) << ab.pairing_detail;
    const Flow& ba = Get(flows, "10.0.0.2", "10.0.0.1", 0x200 + i);
    EXPECT_EQ(ba.pairing, QpPairing::kReversePsn);
    EXPECT_EQ(ba.src_qp, 0x100 + i);
  }
  // Without the PSN evidence, four flows each way and no port match: nothing pairs.
  auto flows2 = t.Flows();
  PairFlows(flows2, ds, HostMap{}, NoHash());
  EXPECT_EQ(Get(flows2, "10.0.0.1", "10.0.0.2", 0x100).pairing, QpPairing::kNone);
}

TEST(PsnPairing, OverlappingPsnRunsAreDecidedByTiming) {
  // Two QPs whose PSN runs overlap (1000..1063 and 1010..1073) but are sent 1 ms apart: only
  // timing tells whose ACKs are whose.
  FlowTable t;
  AddQpPair(t, 0x200, 0x100, 1000, kT0, 0xc100, 0xd200);
  AddQpPair(t, 0x201, 0x101, 1010, kT0 + 1'000'000, 0xc101, 0xd201);
  auto flows = t.Flows();
  const auto ev = t.PsnEvidence();
  model::Dataset ds;
  PairFlows(flows, ds, HostMap{}, NoHash(), &ev);
  for (uint32_t i = 0; i < 2; ++i) {
    const Flow& ab = Get(flows, "10.0.0.1", "10.0.0.2", 0x100 + i);
    EXPECT_EQ(ab.pairing, QpPairing::kReversePsn) << i;
    EXPECT_EQ(ab.src_qp, 0x200 + i);
    EXPECT_NE(ab.pairing_detail.find("timing chose it"), std::string::npos) << ab.pairing_detail;
    EXPECT_EQ(Get(flows, "10.0.0.2", "10.0.0.1", 0x200 + i).src_qp, 0x100 + i);
  }
}

TEST(PsnPairing, AmbiguousWithoutACommonCapturePoint) {
  // The same overlap, but the requests and the ACKs were captured at different points: nothing
  // times them, the pairing is left open and said to be ambiguous.
  FlowTable t;
  AddQpPair(t, 0x200, 0x100, 1000, kT0, 0xc100, 0xd200, 64, 0, 1);
  AddQpPair(t, 0x201, 0x101, 1010, kT0 + 1'000'000, 0xc101, 0xd201, 64, 0, 1);
  auto flows = t.Flows();
  const auto ev = t.PsnEvidence();
  model::Dataset ds;
  PairFlows(flows, ds, HostMap{}, NoHash(), &ev);
  const Flow& ab = Get(flows, "10.0.0.1", "10.0.0.2", 0x100);
  EXPECT_EQ(ab.pairing, QpPairing::kNone);
  EXPECT_NE(ab.pairing_detail.find("reverse_psn ambiguous between qp 0x200 0x201"), std::string::npos)
      << ab.pairing_detail;
  EXPECT_EQ(Get(flows, "10.0.0.2", "10.0.0.1", 0x201).pairing, QpPairing::kNone);
}

TEST(PsnPairing, CaptureStartingInsideAStreamAndReadResponses) {
  FlowTable t;
  // The capture begins after PSN 5000 was sent: the first ACK (of 5000) precedes every request
  // seen, the second acknowledges one of them.
  t.Add(Ack("10.0.0.2", "10.0.0.1", 0x200, 5000, kT0, 0x1f, 0xd200));
  for (uint32_t k = 1; k <= 4; ++k) t.Add(Pkt("10.0.0.1", "10.0.0.2", 0x100, 5000 + k, op::kWriteMiddle, kT0 + k * 100, 0xc100, 4096));
  t.Add(Ack("10.0.0.2", "10.0.0.1", 0x200, 5004, kT0 + 2000, 0x1f, 0xd200));
  // A second QP of the pair: an RDMA READ of 8 KiB (PSN 70000) answered by two response packets.
  RocePacket rd = Pkt("10.0.0.1", "10.0.0.2", 0x101, 70000, op::kReadRequest, kT0 + 50, 0xc101);
  rd.reth_dma_len = 8192;
  t.Add(rd);
  t.Add(Pkt("10.0.0.2", "10.0.0.1", 0x201, 70000, op::kReadResponseFirst, kT0 + 1500, 0xd201, 4096));
  t.Add(Pkt("10.0.0.2", "10.0.0.1", 0x201, 70001, op::kReadResponseLast, kT0 + 1600, 0xd201, 4096));
  auto flows = t.Flows();
  const auto ev = t.PsnEvidence();
  model::Dataset ds;
  PairFlows(flows, ds, HostMap{}, NoHash(), &ev);
  EXPECT_EQ(Get(flows, "10.0.0.1", "10.0.0.2", 0x100).pairing, QpPairing::kReversePsn);
  EXPECT_EQ(Get(flows, "10.0.0.1", "10.0.0.2", 0x100).src_qp, 0x200u);
  EXPECT_EQ(Get(flows, "10.0.0.2", "10.0.0.1", 0x200).src_qp, 0x100u);
  EXPECT_EQ(Get(flows, "10.0.0.1", "10.0.0.2", 0x101).pairing, QpPairing::kReversePsn);
  EXPECT_EQ(Get(flows, "10.0.0.1", "10.0.0.2", 0x101).src_qp, 0x201u);
  EXPECT_EQ(Get(flows, "10.0.0.2", "10.0.0.1", 0x201).src_qp, 0x101u);
}

TEST(PsnPairing, EvidenceIsBoundedWhateverThePacketCount) {
  FlowTable t;
  // 100000 requests with a PSN gap every 1000 (60 gaps, more than kMaxPsnRuns) and 12500 ACKs.
  uint32_t psn = 0xff0000;
  for (int k = 0; k < 100000; ++k) {
    if (k % 1000 == 999) psn += 3;
    t.Add(Pkt("10.0.0.1", "10.0.0.2", 0x100, psn, op::kWriteMiddle, kT0 + k * 100, 0xc100, 4096));
    if (k % 8 == 7) t.Add(Ack("10.0.0.2", "10.0.0.1", 0x200, psn, kT0 + k * 100 + 900, 0x1f, 0xd200));
    ++psn;
  }
  const auto ev = t.PsnEvidence();
  ASSERT_EQ(ev.size(), 2u);
  const FlowPsnEvidence& ab = ev[0].key.src == Ip("10.0.0.1") ? ev[0] : ev[1];
  const FlowPsnEvidence& ba = ev[0].key.src == Ip("10.0.0.1") ? ev[1] : ev[0];
  EXPECT_EQ(ab.runs.size(), kMaxPsnRuns);
  ASSERT_EQ(ab.points.size(), 1u);
  EXPECT_LE(ab.points[0].requests.size(), kMaxPsnSamples);
  EXPECT_GE(ab.points[0].requests.size(), kMaxPsnSamples / 2);
  EXPECT_EQ(ab.points[0].requests.front().psn, 0xff0000u);
  EXPECT_LE(ba.points[0].acks.size(), kMaxPsnSamples);
  EXPECT_GE(ba.points[0].acks.size(), kMaxPsnSamples / 2);
  // The samples span the whole stream: the last ACK sample is in the last eighth.
  EXPECT_GT(ba.points[0].acks.back().ts_ns, kT0 + 100000LL * 100 * 7 / 8);
  auto flows = t.Flows();
  model::Dataset ds;
  PairFlows(flows, ds, HostMap{}, NoHash(), &ev);
  EXPECT_EQ(Get(flows, "10.0.0.1", "10.0.0.2", 0x100).pairing, QpPairing::kReversePsn);
  EXPECT_EQ(Get(flows, "10.0.0.1", "10.0.0.2", 0x100).src_qp, 0x200u);
}

TEST(Pairing, UdpSourcePortSymmetryWithoutResponses) {
  FlowTable t;
  AddConnection(t, "10.0.0.1", "10.0.0.2", 0x200, 0x100, 0x1234, false);
  auto flows = t.Flows();
  model::Dataset ds;
  PairFlows(flows, ds, HostMap{});
  const Flow& ab = Get(flows, "10.0.0.1", "10.0.0.2", 0x100);
  EXPECT_EQ(ab.pairing, QpPairing::kUdpSourcePort);
  EXPECT_EQ(ab.src_qp, 0x200u);
}

TEST(Pairing, UdpSourcePortHash) {
  // Only A->B is captured; A's QP 0x345 is known because C sends to it. The port is the kernel's
  // hash of (0x345, 0x100).
  FlowTable t;
  const uint16_t sport = RoceUdpSourcePort(0x345, 0x100);
  for (uint32_t psn = 0; psn < 4; ++psn) t.Add(Pkt("10.0.0.1", "10.0.0.2", 0x100, psn, op::kWriteMiddle, kT0 + psn, sport, 4096));
  t.Add(Pkt("10.0.0.3", "10.0.0.1", 0x345, 9, op::kSendOnly, kT0, 0xc777, 64));
  t.Add(Pkt("10.0.0.3", "10.0.0.1", 0x346, 9, op::kSendOnly, kT0, 0xc778, 64));
  auto flows = t.Flows();
  model::Dataset ds;
  PairFlows(flows, ds, HostMap{});
  const Flow& ab = Get(flows, "10.0.0.1", "10.0.0.2", 0x100);
  EXPECT_EQ(ab.pairing, QpPairing::kUdpSourcePort);
  EXPECT_EQ(ab.src_qp, 0x345u);
  EXPECT_NE(ab.pairing_detail.find("hash"), std::string::npos);
  // With the hash switched off nothing pairs it.
  auto flows2 = t.Flows();
  PairingOptions o;
  o.use_udp_sport_hash = false;
  PairFlows(flows2, ds, HostMap{}, o);
  EXPECT_EQ(Get(flows2, "10.0.0.1", "10.0.0.2", 0x100).pairing, QpPairing::kNone);
}

TEST(Pairing, DethOnItsOwn) {
  FlowTable t;
  RocePacket p = Pkt("10.0.0.1", "10.0.0.2", 1, 5, 0x64, kT0, 0x1000, 256);
  p.has_deth = true;
  p.deth_src_qp = 0xabc;
  t.Add(p);
  auto flows = t.Flows();
  model::Dataset ds;
  PairFlows(flows, ds, HostMap{});
  EXPECT_EQ(flows[0].pairing, QpPairing::kDeth);
  EXPECT_EQ(flows[0].src_qp, 0xabcu);
}

model::Dataset TwoHosts() {
  model::Dataset ds;
  ds.inventory = Inv("host,ip,nic\nnode-a,10.0.0.1,mlx5_0\nnode-b,10.0.0.2,mlx5_1\n");
  return ds;
}

formats::RdmaQp Qp(const char* dev, uint32_t lqpn, std::optional<uint32_t> rqpn) {
  formats::RdmaQp q;
  q.dev = dev;
  q.port = 1;
  q.lqpn = lqpn;
  q.rqpn = rqpn;
  q.type = "RC";
  q.state = "RTS";
  return q;
}

TEST(Pairing, RdmaToolOnItsOwn) {
  FlowTable t;
  for (uint32_t psn = 0; psn < 4; ++psn) t.Add(Pkt("10.0.0.1", "10.0.0.2", 0x100, psn, op::kWriteMiddle, kT0 + psn, 0x1234, 4096));
  // B's table: lqpn 0x100 <-> rqpn 0x200 on the NIC of 10.0.0.2; the same lqpn on another NIC
  // (another connection) is ignored.
  model::Dataset ds = TwoHosts();
  ds.Host("node-b").rdma_qps = {Qp("mlx5_1", 0x100, 0x200), Qp("mlx5_7", 0x100, 0x999), Qp("mlx5_1", 0x101, std::nullopt)};
  auto flows = t.Flows();
  PairFlows(flows, ds, BuildHostMap(ds));
  EXPECT_EQ(flows[0].src_host, "node-a");
  EXPECT_EQ(flows[0].dst_host, "node-b");
  EXPECT_EQ(flows[0].pairing, QpPairing::kRdmaTool);
  EXPECT_EQ(flows[0].src_qp, 0x200u);
  // Only A's table: lqpn 0x201 with rqpn 0x100.
  model::Dataset ds2 = TwoHosts();
  ds2.Host("node-a").rdma_qps = {Qp("mlx5_0", 0x201, 0x100)};
  auto flows2 = t.Flows();
  PairFlows(flows2, ds2, BuildHostMap(ds2));
  EXPECT_EQ(flows2[0].pairing, QpPairing::kRdmaTool);
  EXPECT_EQ(flows2[0].src_qp, 0x201u);
}

TEST(Pairing, NcclLogOnItsOwn) {
  FlowTable t;
  for (uint32_t psn = 0; psn < 4; ++psn) t.Add(Pkt("10.0.0.1", "10.0.0.2", 0x100, psn, op::kWriteMiddle, kT0 + psn, 0x1234, 4096));
  {
    // 2.16: the only local qpn of node-a (3038).
    model::Dataset ds = TwoHosts();
    ds.nccl_logs.push_back(Log("node-a:1:3 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 3038 mtu 5 LID 37\n"));
    auto flows = t.Flows();
    PairFlows(flows, ds, BuildHostMap(ds));
    EXPECT_EQ(flows[0].pairing, QpPairing::kNcclLog);
    EXPECT_EQ(flows[0].src_qp, 3038u);
  }
  {
    // 2.21+: node-b's local QP 0x100 (256) and the peer's QP 4343 printed right after it.
    model::Dataset ds = TwoHosts();
    ds.nccl_logs.push_back(Log(
        "node-b:1:3 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 256 mtu 5 LID 12 subnet-prefix 0  FLID 0 fifoRkey=0x1 fifoLkey=0x2\n"
        "node-b:1:3 [0] NCCL INFO NET/IB: IbDev 0 Port 1 qpn 4343 set_ece={supported=1, vendor_id=0x15b3, options=0x30000002, comp_mask=0x0}\n"
        "node-a:1:3 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 11 mtu 5 LID 37\n"
        "node-a:1:3 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 12 mtu 5 LID 37\n"));
    auto flows = t.Flows();
    PairFlows(flows, ds, BuildHostMap(ds));
    EXPECT_EQ(flows[0].pairing, QpPairing::kNcclLog);
    EXPECT_EQ(flows[0].src_qp, 4343u);
    EXPECT_NE(flows[0].pairing_detail.find("pair"), std::string::npos);
  }
  {
    // 2.16 with connections: node-a has two qpns; the send connections zip them to peer ranks,
    // only the second goes to a rank on node-b.
    model::Dataset ds = TwoHosts();
    ds.nccl_logs.push_back(Log(
        "node-a:1:2 [0] NCCL INFO Channel 00/0 : 0[81000] -> 2[81000] [send] via NET/IB/0/GDRDMA\n"
        "node-a:1:2 [0] NCCL INFO Channel 01/0 : 0[81000] -> 1[81000] [send] via NET/IB/0/GDRDMA\n"
        "node-a:1:3 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 21 mtu 5 LID 37\n"
        "node-a:1:3 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 22 mtu 5 LID 37\n"
        "node-b:5:6 [0] NCCL INFO Channel 01/0 : 0[81000] -> 1[81000] [receive] via NET/IB/0/GDRDMA\n"
        "node-c:7:8 [0] NCCL INFO Channel 00/0 : 0[81000] -> 2[81000] [receive] via NET/IB/0/GDRDMA\n"));
    auto flows = t.Flows();
    PairFlows(flows, ds, BuildHostMap(ds));
    EXPECT_EQ(flows[0].pairing, QpPairing::kNcclLog);
    EXPECT_EQ(flows[0].src_qp, 22u);
  }
}

TEST(Pairing, NcclQpnsOfAConnectionLeftOverByTheWire) {
  // Two QPs per connection: node-a logs both qpns (31, 32) of its one send connection. The wire
  // pairs 0x100 with 31 (PSNs); 0x101's ACKs were not captured, so the NCCL log's other qpn is it.
  FlowTable t;
  for (uint32_t k = 0; k < 16; ++k) {
    t.Add(Pkt("10.0.0.1", "10.0.0.2", 0x100, 7000 + k, op::kWriteMiddle, kT0 + k * 1000, 0xc100, 4096));
    t.Add(Pkt("10.0.0.1", "10.0.0.2", 0x101, 9000 + k, op::kWriteMiddle, kT0 + k * 1000 + 10, 0xc101, 4096));
  }
  t.Add(Ack("10.0.0.2", "10.0.0.1", 31, 7015, kT0 + 17000, 0x1f, 0xd200));
  model::Dataset ds = TwoHosts();
  ds.nccl_logs.push_back(Log(
      "node-a:1:2 [0] NCCL INFO Channel 00/0 : 0[81000] -> 1[81000] [send] via NET/IB/0/GDRDMA\n"
      "node-a:1:3 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 31 mtu 5 LID 37\n"
      "node-a:1:3 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 32 mtu 5 LID 37\n"
      "node-b:5:6 [0] NCCL INFO Channel 00/0 : 0[81000] -> 1[81000] [receive] via NET/IB/0/GDRDMA\n"));
  auto flows = t.Flows();
  const auto ev = t.PsnEvidence();
  PairFlows(flows, ds, BuildHostMap(ds), NoHash(), &ev);
  const Flow& first = Get(flows, "10.0.0.1", "10.0.0.2", 0x100);
  EXPECT_EQ(first.pairing, QpPairing::kReversePsn);
  EXPECT_EQ(first.src_qp, 31u);
  const Flow& second = Get(flows, "10.0.0.1", "10.0.0.2", 0x101);
  EXPECT_EQ(second.pairing, QpPairing::kNcclLog);
  EXPECT_EQ(second.src_qp, 32u);
  EXPECT_NE(second.pairing_detail.find("not already paired from the wire"), std::string::npos) << second.pairing_detail;
}

TEST(Pairing, PrecedenceAgreeAndDisagree) {
  FlowTable t;
  AddConnection(t, "10.0.0.1", "10.0.0.2", 0x200, 0x100, 0x1234);
  {
    // reverse_ack and rdma_tool agree: reverse_ack reported, both kept, no conflict.
    model::Dataset ds = TwoHosts();
    ds.Host("node-b").rdma_qps = {Qp("mlx5_1", 0x100, 0x200)};
    auto flows = t.Flows();
    EXPECT_EQ(PairFlows(flows, ds, BuildHostMap(ds)), 0);
    const Flow& ab = Get(flows, "10.0.0.1", "10.0.0.2", 0x100);
    EXPECT_EQ(ab.pairing, QpPairing::kReverseAck);
    ASSERT_EQ(ab.candidates.size(), 2u);
    EXPECT_EQ(ab.candidates[1], std::make_pair(QpPairing::kRdmaTool, 0x200u));
    EXPECT_FALSE(ab.pairing_conflict);
  }
  {
    // rdma_tool disagrees (a stale snapshot): reverse_ack wins, the conflict is flagged.
    model::Dataset ds = TwoHosts();
    ds.Host("node-b").rdma_qps = {Qp("mlx5_1", 0x100, 0x555)};
    auto flows = t.Flows();
    EXPECT_EQ(PairFlows(flows, ds, BuildHostMap(ds)), 1);
    const Flow& ab = Get(flows, "10.0.0.1", "10.0.0.2", 0x100);
    EXPECT_EQ(ab.pairing, QpPairing::kReverseAck);
    EXPECT_EQ(ab.src_qp, 0x200u);
    EXPECT_TRUE(ab.pairing_conflict);
    EXPECT_NE(ab.pairing_detail.find("conflicts with rdma_tool 0x555"), std::string::npos);
  }
  {
    // rdma_tool beats nccl_log.
    FlowTable one;
    for (uint32_t psn = 0; psn < 4; ++psn) one.Add(Pkt("10.0.0.1", "10.0.0.2", 0x100, psn, op::kWriteMiddle, kT0 + psn, 0x1234, 4096));
    model::Dataset ds = TwoHosts();
    ds.Host("node-b").rdma_qps = {Qp("mlx5_1", 0x100, 0x200)};
    ds.nccl_logs.push_back(Log("node-a:1:3 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 3038 mtu 5 LID 37\n"));
    auto flows = one.Flows();
    EXPECT_EQ(PairFlows(flows, ds, BuildHostMap(ds)), 1);
    EXPECT_EQ(flows[0].pairing, QpPairing::kRdmaTool);
    EXPECT_EQ(flows[0].src_qp, 0x200u);
    ASSERT_EQ(flows[0].candidates.size(), 2u);
    EXPECT_EQ(flows[0].candidates[1], std::make_pair(QpPairing::kNcclLog, 3038u));
  }
  {
    // DETH beats everything.
    FlowTable ud;
    RocePacket p = Pkt("10.0.0.1", "10.0.0.2", 0x100, 1, 0x64, kT0, 0x1234, 64);
    p.has_deth = true;
    p.deth_src_qp = 0x42;
    ud.Add(p);
    ud.Add(Ack("10.0.0.2", "10.0.0.1", 0x200, 1, kT0, 0x1f, 0x1234));
    model::Dataset ds;
    auto flows = ud.Flows();
    EXPECT_EQ(PairFlows(flows, ds, HostMap{}), 1);
    const Flow& ab = Get(flows, "10.0.0.1", "10.0.0.2", 0x100);
    EXPECT_EQ(ab.pairing, QpPairing::kDeth);
    EXPECT_EQ(ab.src_qp, 0x42u);
    EXPECT_TRUE(ab.pairing_conflict);
  }
}

TEST(Pairing, WeakProposalsNamingOneQpForTwoFlowsAreDropped) {
  // node-a's only NCCL qpn would be proposed for both of its flows: neither gets it.
  FlowTable t;
  for (uint32_t psn = 0; psn < 4; ++psn) {
    t.Add(Pkt("10.0.0.1", "10.0.0.2", 0x100, psn, op::kWriteMiddle, kT0 + psn, 0x1234, 4096));
    t.Add(Pkt("10.0.0.1", "10.0.0.2", 0x101, psn, op::kWriteMiddle, kT0 + psn, 0x1235, 4096));
  }
  model::Dataset ds = TwoHosts();
  ds.nccl_logs.push_back(Log("node-a:1:3 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 3038 mtu 5 LID 37\n"));
  auto flows = t.Flows();
  PairFlows(flows, ds, BuildHostMap(ds));
  EXPECT_EQ(flows[0].pairing, QpPairing::kNone);
  EXPECT_EQ(flows[1].pairing, QpPairing::kNone);

  // The hash would name A's QP 0x200 for a flow to C, but reverse ACKs already tie 0x200 to the
  // flow to B: the weak proposal is dropped.
  FlowTable u;
  AddConnection(u, "10.0.0.1", "10.0.0.2", 0x200, 0x100, 0x1234);
  const uint16_t sport = RoceUdpSourcePort(0x200, 0x500);
  for (uint32_t psn = 0; psn < 4; ++psn) u.Add(Pkt("10.0.0.1", "10.0.0.3", 0x500, psn, op::kWriteMiddle, kT0 + psn, sport, 64));
  auto flows2 = u.Flows();
  model::Dataset none;
  PairFlows(flows2, none, HostMap{});
  EXPECT_EQ(Get(flows2, "10.0.0.1", "10.0.0.2", 0x100).src_qp, 0x200u);
  EXPECT_EQ(Get(flows2, "10.0.0.1", "10.0.0.3", 0x500).pairing, QpPairing::kNone);
}

// ---------------------------------------------------------------------------------------------
// AnalyzeFlows end to end
// ---------------------------------------------------------------------------------------------

TEST(AnalyzeFlows, WrittenCaptureTwoPassesAndHosts) {
  const auto dir = std::filesystem::temp_directory_path() / ("flows_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "leaf0.pcap").string();
  {
    auto w = formats::PcapWriter::Open(path, 128);
    ASSERT_TRUE(w.ok());
    FlowTable unused;
    std::vector<RocePacket> pkts;
    for (uint32_t psn = 0; psn < 6; ++psn) {
      if (psn == 3) continue;  // lost
      pkts.push_back(Pkt("10.0.0.1", "10.0.0.2", 0x100, 0xfffffd + psn, op::kWriteMiddle, kT0 + psn * 1000, 0xc0de, 1024));
    }
    pkts.push_back(Ack("10.0.0.2", "10.0.0.1", 0x200, 0xffffff, kT0 + 2500, 0x60, 0xc0de));  // NAK
    pkts.push_back(Pkt("10.0.0.1", "10.0.0.2", 0x100, 0x000000, op::kWriteMiddle, kT0 + 6000, 0xc0de, 1024));  // resent
    pkts.push_back(Ack("10.0.0.2", "10.0.0.1", 0x200, 0x000002, kT0 + 7000, 0x1f, 0xc0de));
    for (const auto& p : pkts) {
      auto frame = formats::EncodeRoceFrame(p, kMacA, kMacB);
      ASSERT_TRUE(w->Write(p.ts_ns, frame).ok());
    }
    ASSERT_TRUE(w->Close().ok());
  }
  model::Dataset ds = TwoHosts();
  ds.captures.push_back(model::CaptureInput{path, "", "leaf0", 0});
  ds.captures.push_back(model::CaptureInput{(dir / "missing.pcap").string(), "", "missing", 1});
  Diagnostics diag;
  std::map<uint32_t, int> src_qps;  // src QP -> packets
  int64_t second = 0;
  auto r = AnalyzeFlows(ds, diag, [&](const RocePacket& p, uint32_t src_qp, const Flow& f) {
    ++second;
    ++src_qps[src_qp];
    EXPECT_EQ(f.key, KeyOf(p));
  });
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->packets, 8);
  EXPECT_EQ(second, 8);
  ASSERT_EQ(r->captures.size(), 1u);
  EXPECT_EQ(r->captures[0].roce, 8);
  EXPECT_EQ(diag.RejectedFor((dir / "missing.pcap").string()), 1);
  ASSERT_EQ(r->flows.size(), 2u);
  const Flow& ab = Get(r->flows, "10.0.0.1", "10.0.0.2", 0x100);
  EXPECT_EQ(ab.src_host, "node-a");
  EXPECT_EQ(ab.dst_host, "node-b");
  EXPECT_EQ(ab.packets, 6);
  EXPECT_EQ(ab.psn_gaps, 1);
  EXPECT_EQ(ab.retransmissions, 1);
  EXPECT_EQ(ab.payload_bytes, 6 * 1024);
  EXPECT_EQ(ab.udp_src_port, 0xc0de);
  // The ACK PSNs (NAK 0xffffff, ACK 0x000002) lie in the WRITE PSNs: reverse_psn wins, and the
  // port match (reverse_ack) agrees.
  EXPECT_EQ(ab.pairing, QpPairing::kReversePsn);
  EXPECT_EQ(ab.src_qp, 0x200u);
  EXPECT_FALSE(ab.pairing_conflict);
  ASSERT_EQ(ab.candidates.size(), 2u);
  EXPECT_EQ(ab.candidates[1], std::make_pair(QpPairing::kReverseAck, 0x200u));
  const Flow& ba = Get(r->flows, "10.0.0.2", "10.0.0.1", 0x200);
  EXPECT_EQ(ba.naks, 1);
  EXPECT_EQ(ba.acks, 1);
  EXPECT_EQ(ba.src_qp, 0x100u);
  EXPECT_EQ(r->pairing_counts.at("reverse_psn"), 2);
  EXPECT_EQ(src_qps[0x200], 6);
  EXPECT_EQ(src_qps[0x100], 2);
  EXPECT_EQ(FindFlow(*r, ab.key), &ab);
  EXPECT_EQ(FindFlow(*r, FlowKey{Ip("1.1.1.1"), Ip("2.2.2.2"), 3}), nullptr);
  // A later replay gives the same.
  int64_t replayed = 0;
  ASSERT_TRUE(ReplayPackets(ds, *r, [&](const RocePacket&, uint32_t, const Flow&) { ++replayed; }).ok());
  EXPECT_EQ(replayed, 8);
  std::filesystem::remove_all(dir);
}

// What a second-pass consumer reads of a packet, as text.
std::string ReplayedText(const RocePacket& p, uint32_t src_qp, const Flow& f) {
  std::ostringstream o;
  o << p.ts_ns << " " << p.capture_index << " " << p.src_ip.ToString() << ">" << p.dst_ip.ToString() << " qp "
    << p.dest_qp << " psn " << p.psn << " op " << int{p.opcode} << " pay " << p.payload_bytes << " sport "
    << p.udp_src_port << " reth " << p.has_reth << "/" << p.reth_dma_len << " deth " << p.has_deth << "/"
    << p.deth_src_qp << " ecn " << p.ip_ecn_ce << p.fecn << p.becn << " src_qp " << src_qp << " flow "
    << f.key.src.ToString() << ">" << f.key.dst.ToString() << "/" << f.key.dest_qp << "\n";
  return o.str();
}

TEST(AnalyzeFlows, KeptPacketsReplayAsTheCapturesDo) {
  // Two captures of several flows and kinds of packet (RETH, UD with DETH, ECN and BECN marks, a
  // CNP): the second pass from the packets the first pass kept hands the consumer what reading the
  // captures again does, packet for packet, and reads no capture (they are gone by then).
  const auto dir = std::filesystem::temp_directory_path() / ("flows_log_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  model::Dataset ds = TwoHosts();
  for (int c = 0; c < 2; ++c) {
    const std::string path = (dir / ("cap" + std::to_string(c) + ".pcap")).string();
    auto w = formats::PcapWriter::Open(path, 256);
    ASSERT_TRUE(w.ok());
    std::vector<RocePacket> pkts;
    for (uint32_t i = 0; i < 40; ++i) {
      const int64_t t = kT0 + c * 100000 + i * 997;
      RocePacket p = Pkt("10.0.0.1", "10.0.0.2", 0x100 + i % 3, 10 + i, i % 5 == 0 ? op::kWriteFirst : op::kWriteMiddle, t,
                         static_cast<uint16_t>(0xc000 + i % 2), 512);
      if (p.has_reth) p.reth_dma_len = 4096 + i;
      p.ip_ecn_ce = i % 7 == 0;
      p.becn = i % 11 == 0;
      pkts.push_back(p);
      pkts.push_back(Ack("10.0.0.2", "10.0.0.1", 0x200 + i % 3, 10 + i, t + 300, 0x1f, 0xc000));
    }
    RocePacket ud = Pkt("10.0.0.2", "10.0.0.1", 0x300, 5, 0x64, kT0 + c * 100000 + 50000, 0xc100, 64);
    ud.has_deth = true;
    ud.deth_src_qp = 0x321;
    ud.deth_qkey = 0x80010000u;
    pkts.push_back(ud);
    pkts.push_back(Pkt("10.0.0.2", "10.0.0.1", 0x100, 0, 0x81, kT0 + c * 100000 + 60000));
    for (const auto& p : pkts) ASSERT_TRUE(w->Write(p.ts_ns, formats::EncodeRoceFrame(p, kMacA, kMacB)).ok());
    ASSERT_TRUE(w->Close().ok());
    ds.captures.push_back(model::CaptureInput{path, "", "leaf" + std::to_string(c), c});
  }
  Diagnostics diag;
  auto reread = AnalyzeFlows(ds, diag, FlowOptions{}, nullptr);
  ASSERT_TRUE(reread.ok()) << reread.error().ToString();
  std::string from_captures;
  ASSERT_TRUE(ReplayPackets(ds, *reread, [&](const RocePacket& p, uint32_t q, const Flow& f) {
                from_captures += ReplayedText(p, q, f);
              }).ok());
  PacketLog log;
  ASSERT_TRUE(log.usable());
  Diagnostics diag2;
  auto kept = AnalyzeFlows(ds, diag2, FlowOptions{}, &log);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(log.packets(), kept->packets);
  EXPECT_EQ(kept->packets, 2 * 82);
  std::filesystem::remove_all(dir);
  std::string from_log;
  ASSERT_TRUE(ReplayPackets(ds, *kept, [&](const RocePacket& p, uint32_t q, const Flow& f) {
                from_log += ReplayedText(p, q, f);
              }, false, &log).ok());
  EXPECT_FALSE(from_captures.empty());
  EXPECT_EQ(from_log, from_captures);
  // Without the captures, a replay that must read them fails.
  EXPECT_FALSE(ReplayPackets(ds, *kept, [](const RocePacket&, uint32_t, const Flow&) {}).ok());
}

TEST(PacketLog, KeepsWhatTheSecondPassReadsAndRenumbersFlows) {
  PacketLog log;
  ASSERT_TRUE(log.usable());
  RocePacket p = Pkt("10.0.0.1", "10.0.0.2", 0xabcdef, 0x123456, op::kReadRequest, kT0, 0xc0de, 0);
  p.reth_dma_len = 65536;
  p.capture_index = 3;
  p.fecn = true;
  for (uint32_t flow = 0; flow < 10000; ++flow) {
    p.psn = flow;
    log.Add(p, flow % 4);
  }
  EXPECT_EQ(log.packets(), 10000);
  log.Renumber({7, 6, 5});  // flow 3 is past the end
  int64_t n = 0;
  std::map<uint32_t, int64_t> flows;
  ASSERT_TRUE(log.ForEach([&](const RocePacket& q, uint32_t flow) {
    EXPECT_EQ(q.ts_ns, kT0);
    EXPECT_EQ(q.capture_index, 3);
    EXPECT_EQ(q.dest_qp, 0xabcdefu);
    EXPECT_EQ(q.psn, static_cast<uint32_t>(n));
    EXPECT_EQ(q.opcode, op::kReadRequest);
    EXPECT_TRUE(q.has_reth);
    EXPECT_EQ(q.reth_dma_len, 65536u);
    EXPECT_TRUE(q.fecn);
    EXPECT_FALSE(q.becn);
    EXPECT_EQ(q.udp_src_port, 0xc0de);
    EXPECT_EQ(q.src_ip, IpAddress());  // addresses are the flow's, not kept
    ++flows[flow];
    ++n;
  }));
  EXPECT_EQ(n, 10000);
  EXPECT_EQ(flows[7], 2500);
  EXPECT_EQ(flows[5], 2500);
  EXPECT_EQ(flows[0xffffffffu], 2500);
  // Read again, and kept packets added after a read come after the first ones.
  log.Add(p, 0);
  n = 0;
  ASSERT_TRUE(log.ForEach([&](const RocePacket&, uint32_t) { ++n; }));
  EXPECT_EQ(n, 10001);
}

TEST(AnalyzeFlows, NoCapturesAndUnreadableCaptures) {
  model::Dataset ds;
  Diagnostics diag;
  auto r = AnalyzeFlows(ds, diag);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->flows.empty());
  EXPECT_EQ(r->packets, 0);
  ds.captures.push_back(model::CaptureInput{"/nonexistent/x.pcap", "", "x", 0});
  auto bad = AnalyzeFlows(ds, diag);
  EXPECT_FALSE(bad.ok());
  // A file that is not a capture at all.
  const auto tmp = std::filesystem::temp_directory_path() / ("flows_test_txt_" + std::to_string(::getpid()));
  {
    FILE* f = std::fopen(tmp.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("hello, not a pcap\n", f);
    std::fclose(f);
  }
  model::Dataset ds2;
  ds2.captures.push_back(model::CaptureInput{tmp.string(), "", "t", 0});
  Diagnostics d2;
  EXPECT_FALSE(AnalyzeFlows(ds2, d2).ok());
  EXPECT_EQ(d2.RejectedFor(tmp.string()), 1);
  std::filesystem::remove(tmp);
}

}  // namespace flows_test
}  // namespace toposcope::analysis
