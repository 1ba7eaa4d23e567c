// Tests of the RoCEv2 frame decoder and encoder: golden on the real Soft-RoCE packet (the PcapPlusPlus
// fixture), encode -> decode round trips for every opcode over IPv4/IPv6/VLAN/QinQ, ICRC, other link
// types, IP options and IPv6 extension headers, truncation and malformed/non-RoCE frames.
#include "toposcope/formats/rdma/roce_packet.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace toposcope::formats {
namespace roce_packet_test {

const std::string kHex =
    std::string(TOPOSCOPE_FIXTURES) + "/pcap/pcapplusplus_pr1603_softroce_rdma_read_req.hex";
const uint8_t kSrcMac[6] = {0x02, 0, 0, 0, 0, 1};
const uint8_t kDstMac[6] = {0x02, 0, 0, 0, 0, 2};

std::vector<uint8_t> ReadHexFrame(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string hex((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint8_t> out;
  int nibble = -1;
  for (char c : hex) {
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    if (v < 0) continue;
    if (nibble < 0) {
      nibble = v;
    } else {
      out.push_back(static_cast<uint8_t>(nibble * 16 + v));
      nibble = -1;
    }
  }
  return out;
}

FrameDecode Decode(const std::vector<uint8_t>& f, RocePacket* p, int dlt = kDltEn10Mb, bool icrc = true) {
  return DecodeRoceFrame(f, static_cast<uint32_t>(f.size()), dlt, icrc, p);
}

TEST(RocePacket, RealSoftRoceReadRequest) {
  const auto frame = ReadHexFrame(kHex);
  ASSERT_EQ(frame.size(), 74u);
  RocePacket p;
  p.ts_ns = 42;
  p.capture_index = 3;
  const auto d = Decode(frame, &p);
  ASSERT_EQ(d.verdict, FrameVerdict::kRoce) << d.reason;
  EXPECT_EQ(p.ts_ns, 42);  // kept
  EXPECT_EQ(p.capture_index, 3);
  EXPECT_EQ(p.wire_len, 74u);
  EXPECT_EQ(p.cap_len, 74u);
  EXPECT_TRUE(p.vlan_ids.empty());
  EXPECT_EQ(p.src_ip.ToString(), "192.168.56.129");
  EXPECT_EQ(p.dst_ip.ToString(), "192.168.56.131");
  EXPECT_EQ(p.ip_dscp, 0);
  EXPECT_FALSE(p.ip_ecn_ce);
  EXPECT_EQ(p.ip_ttl, 64);
  EXPECT_EQ(p.udp_src_port, 57236);
  EXPECT_EQ(p.udp_dst_port, 4791);
  EXPECT_EQ(p.opcode, 0x0c);
  EXPECT_EQ(OpcodeName(p.opcode), "RC RDMA READ Request");
  EXPECT_EQ(TransportOf(p.opcode), RoceTransport::kRc);
  EXPECT_FALSE(p.solicited);
  EXPECT_FALSE(p.mig_req);
  EXPECT_EQ(p.pad_count, 0);
  EXPECT_EQ(p.tver, 0);
  EXPECT_EQ(p.pkey, 0xffff);
  EXPECT_FALSE(p.fecn);
  EXPECT_FALSE(p.becn);
  EXPECT_EQ(p.dest_qp, 0x11u);
  EXPECT_TRUE(p.ack_req);
  EXPECT_EQ(p.psn, 5557091u);
  ASSERT_TRUE(p.has_reth);
  EXPECT_EQ(p.reth_va, 0x7fee260fb000ULL);
  EXPECT_EQ(p.reth_rkey, 0x2b8u);
  EXPECT_EQ(p.reth_dma_len, 65536u);
  EXPECT_FALSE(p.has_aeth || p.has_deth || p.has_imm || p.has_ieth || p.has_atomic_eth ||
               p.has_atomic_ack_eth);
  EXPECT_EQ(p.payload_bytes, 0u);
  EXPECT_FALSE(p.truncated);
  // The Soft-RoCE packet carries a valid ICRC: bytes 08 c6 15 4a, i.e. CRC-32 0x4a15c608 stored LSB first.
  EXPECT_EQ(p.icrc, RocePacket::Icrc::kOk);
  EXPECT_EQ(p.icrc_wire, 0x4a15c608u);
  EXPECT_EQ(ComputeIcrc(std::span<const uint8_t>(frame).subspan(14, 56)), 0x4a15c608u);
  EXPECT_TRUE(IsRequest(p.opcode));
  EXPECT_FALSE(IsAck(p.opcode));
  EXPECT_FALSE(IsNak(p));

  EXPECT_EQ(p.ip_id, 0xbe10);
  // Re-encoding gives the real frame back, byte for byte (checksum and ICRC included).
  const auto again = EncodeRoceFrame(p, frame.data() + 6, frame.data());
  EXPECT_EQ(again, frame);
  RocePacket q;
  ASSERT_EQ(Decode(again, &q).verdict, FrameVerdict::kRoce);
  EXPECT_EQ(q.icrc, RocePacket::Icrc::kOk);
}

TEST(RocePacket, IcrcIgnoresVariantFieldsOnly) {
  const auto frame = ReadHexFrame(kHex);
  RocePacket p;
  auto f = frame;
  f[14 + 8] = 3;       // TTL
  f[14 + 1] = 0x1b;    // TOS (ECN CE)
  f[14 + 10] ^= 0x55;  // IP checksum
  f[34 + 6] = 0x12;    // UDP checksum
  f[42 + 4] = 0xc0;    // FECN + BECN
  ASSERT_EQ(Decode(f, &p).verdict, FrameVerdict::kRoce);
  EXPECT_EQ(p.icrc, RocePacket::Icrc::kOk);
  EXPECT_TRUE(p.fecn);
  EXPECT_TRUE(p.becn);
  EXPECT_TRUE(p.ip_ecn_ce);
  EXPECT_EQ(p.ip_dscp, 6);
  for (size_t at : {size_t{42}, size_t{47}, size_t{55}, size_t{69}, size_t{14 + 12}, size_t{34}}) {
    f = frame;
    f[at] ^= 1;
    const auto d = Decode(f, &p);
    ASSERT_EQ(d.verdict, FrameVerdict::kRoce) << at << " " << d.reason;
    EXPECT_EQ(p.icrc, RocePacket::Icrc::kBad) << at;
  }
  f = frame;
  ASSERT_EQ(Decode(f, &p, kDltEn10Mb, false).verdict, FrameVerdict::kRoce);
  EXPECT_EQ(p.icrc, RocePacket::Icrc::kNotChecked);
}

// A packet with every field random, for opcode `op`.
RocePacket RandomPacket(std::mt19937_64& rng, uint8_t op, bool v6, int vlans) {
  RocePacket p;
  p.opcode = op;
  auto r = [&rng](uint64_t mod) { return rng() % mod; };
  if (v6) {
    uint8_t a[16], b[16];
    for (int i = 0; i < 16; ++i) {
      a[i] = static_cast<uint8_t>(r(256));
      b[i] = static_cast<uint8_t>(r(256));
    }
    p.src_ip = IpAddress::V6(a);
    p.dst_ip = IpAddress::V6(b);
    p.ip_flow_label = static_cast<uint32_t>(r(1u << 20));
  } else {
    p.src_ip = IpAddress::V4(static_cast<uint32_t>(rng()));
    p.dst_ip = IpAddress::V4(static_cast<uint32_t>(rng()));
  }
  for (int i = 0; i < vlans; ++i) p.vlan_ids.push_back(static_cast<uint16_t>(r(4096)));
  p.ip_dscp = static_cast<uint8_t>(r(64));
  p.ip_ecn = static_cast<uint8_t>(r(4));
  p.ip_ecn_ce = p.ip_ecn == 3;
  p.ip_ttl = static_cast<uint8_t>(1 + r(255));
  if (!v6) p.ip_id = static_cast<uint16_t>(r(65536));
  p.udp_src_port = static_cast<uint16_t>(0xc000 | r(0x4000));
  p.udp_dst_port = 4791;
  p.solicited = r(2);
  p.mig_req = r(2);
  p.pad_count = static_cast<uint8_t>(r(4));
  p.pkey = static_cast<uint16_t>(r(65536));
  p.fecn = r(2);
  p.becn = r(2);
  p.dest_qp = static_cast<uint32_t>(r(1u << 24));
  p.ack_req = r(2);
  p.psn = static_cast<uint32_t>(r(1u << 24));
  const int ext = ExtensionHeaderBytes(op);
  p.has_reth = op == 0x06 || op == 0x0a || op == 0x0b || op == 0x0c || op == 0x26 || op == 0x2a || op == 0x2b;
  if (p.has_reth) {
    p.reth_va = rng();
    p.reth_rkey = static_cast<uint32_t>(rng());
    p.reth_dma_len = static_cast<uint32_t>(rng());
  }
  p.has_aeth = op == 0x0d || op == 0x0f || op == 0x10 || op == 0x11 || op == 0x12;
  if (p.has_aeth) {
    p.aeth_syndrome = static_cast<uint8_t>(r(256));
    p.aeth_msn = static_cast<uint32_t>(r(1u << 24));
  }
  p.has_deth = op == 0x64 || op == 0x65;
  if (p.has_deth) {
    p.deth_qkey = static_cast<uint32_t>(rng());
    p.deth_src_qp = static_cast<uint32_t>(r(1u << 24));
  }
  const uint8_t low = op & 0x1f;
  p.has_imm = op != roce_op::kCnp && (low == 0x03 || low == 0x05 || low == 0x09 || low == 0x0b);
  if (p.has_imm) p.imm_data = static_cast<uint32_t>(rng());
  p.has_ieth = op == 0x16 || op == 0x17;
  if (p.has_ieth) p.ieth_rkey = static_cast<uint32_t>(rng());
  p.has_atomic_eth = op == 0x13 || op == 0x14;
  if (p.has_atomic_eth) {
    p.atomic_va = rng();
    p.atomic_rkey = static_cast<uint32_t>(rng());
    p.atomic_swap_add = rng();
    p.atomic_compare = rng();
  }
  p.has_atomic_ack_eth = op == 0x12;
  if (p.has_atomic_ack_eth) p.atomic_ack_orig = rng();
  EXPECT_GE(ext, 0);
  // Packets with no payload by their nature keep 0; others get up to 4096 bytes.
  const bool no_payload =
      op == 0x0c || op == 0x11 || op == 0x12 || op == 0x13 || op == 0x14 || op == roce_op::kCnp;
  p.payload_bytes = no_payload ? 0 : static_cast<uint32_t>(r(4097));
  return p;
}

void ExpectSame(const RocePacket& a, const RocePacket& b) {
  EXPECT_EQ(a.vlan_ids, b.vlan_ids);
  EXPECT_EQ(a.src_ip, b.src_ip);
  EXPECT_EQ(a.dst_ip, b.dst_ip);
  EXPECT_EQ(a.ip_dscp, b.ip_dscp);
  EXPECT_EQ(a.ip_ecn, b.ip_ecn);
  EXPECT_EQ(a.ip_ecn_ce, b.ip_ecn_ce);
  EXPECT_EQ(a.ip_ttl, b.ip_ttl);
  EXPECT_EQ(a.ip_id, b.ip_id);
  EXPECT_EQ(a.src_ip.is_v6() ? a.ip_flow_label : 0u, b.ip_flow_label);
  EXPECT_EQ(a.udp_src_port, b.udp_src_port);
  EXPECT_EQ(a.udp_dst_port, b.udp_dst_port);
  EXPECT_EQ(a.opcode, b.opcode);
  EXPECT_EQ(a.solicited, b.solicited);
  EXPECT_EQ(a.mig_req, b.mig_req);
  EXPECT_EQ(a.pad_count, b.pad_count);
  EXPECT_EQ(a.tver, b.tver);
  EXPECT_EQ(a.pkey, b.pkey);
  EXPECT_EQ(a.fecn, b.fecn);
  EXPECT_EQ(a.becn, b.becn);
  EXPECT_EQ(a.dest_qp, b.dest_qp);
  EXPECT_EQ(a.ack_req, b.ack_req);
  EXPECT_EQ(a.psn, b.psn);
  EXPECT_EQ(a.has_reth, b.has_reth);
  EXPECT_EQ(a.reth_va, b.reth_va);
  EXPECT_EQ(a.reth_rkey, b.reth_rkey);
  EXPECT_EQ(a.reth_dma_len, b.reth_dma_len);
  EXPECT_EQ(a.has_aeth, b.has_aeth);
  EXPECT_EQ(a.aeth_syndrome, b.aeth_syndrome);
  EXPECT_EQ(a.aeth_msn, b.aeth_msn);
  EXPECT_EQ(a.has_deth, b.has_deth);
  EXPECT_EQ(a.deth_qkey, b.deth_qkey);
  EXPECT_EQ(a.deth_src_qp, b.deth_src_qp);
  EXPECT_EQ(a.has_imm, b.has_imm);
  EXPECT_EQ(a.imm_data, b.imm_data);
  EXPECT_EQ(a.has_ieth, b.has_ieth);
  EXPECT_EQ(a.ieth_rkey, b.ieth_rkey);
  EXPECT_EQ(a.has_atomic_eth, b.has_atomic_eth);
  EXPECT_EQ(a.atomic_va, b.atomic_va);
  EXPECT_EQ(a.atomic_rkey, b.atomic_rkey);
  EXPECT_EQ(a.atomic_swap_add, b.atomic_swap_add);
  EXPECT_EQ(a.atomic_compare, b.atomic_compare);
  EXPECT_EQ(a.has_atomic_ack_eth, b.has_atomic_ack_eth);
  EXPECT_EQ(a.atomic_ack_orig, b.atomic_ack_orig);
  EXPECT_EQ(a.payload_bytes, b.payload_bytes);
}

std::vector<uint8_t> AllKnownOpcodes() {
  std::vector<uint8_t> ops;
  for (int op = 0; op < 256; ++op) {
    if (IsKnownOpcode(static_cast<uint8_t>(op))) ops.push_back(static_cast<uint8_t>(op));
  }
  return ops;
}

TEST(RocePacket, KnownOpcodeSet) {
  const auto ops = AllKnownOpcodes();
  // RC 0x00-0x14, 0x16, 0x17 (23) + UC 0x20-0x2b (12) + UD 0x64, 0x65 + CNP 0x81.
  EXPECT_EQ(ops.size(), 23u + 12u + 2u + 1u);
  EXPECT_FALSE(IsKnownOpcode(0x15));
  EXPECT_FALSE(IsKnownOpcode(0x2c));  // UC has no READ
  EXPECT_FALSE(IsKnownOpcode(0x31));  // UC has no ACK
  EXPECT_FALSE(IsKnownOpcode(0x4c));  // RD
  EXPECT_FALSE(IsKnownOpcode(0x60));  // UD has only SEND Only[ with Immediate]
  EXPECT_FALSE(IsKnownOpcode(0x80));
  EXPECT_FALSE(IsKnownOpcode(0xc0));
  EXPECT_EQ(ExtensionHeaderBytes(0x0c), 16);
  EXPECT_EQ(ExtensionHeaderBytes(0x0b), 20);
  EXPECT_EQ(ExtensionHeaderBytes(0x11), 4);
  EXPECT_EQ(ExtensionHeaderBytes(0x12), 12);
  EXPECT_EQ(ExtensionHeaderBytes(0x13), 28);
  EXPECT_EQ(ExtensionHeaderBytes(0x65), 12);
  EXPECT_EQ(ExtensionHeaderBytes(0x81), 16);
  EXPECT_EQ(ExtensionHeaderBytes(0x15), -1);
  EXPECT_EQ(OpcodeName(0x04), "RC SEND Only");
  EXPECT_EQ(OpcodeName(0x2b), "UC RDMA WRITE Only with Immediate");
  EXPECT_EQ(OpcodeName(0x64), "UD SEND Only");
  EXPECT_EQ(OpcodeName(0x11), "RC Acknowledge");
  EXPECT_EQ(OpcodeName(0x12), "RC ATOMIC Acknowledge");
  EXPECT_EQ(OpcodeName(0x13), "RC CmpSwap");
  EXPECT_EQ(OpcodeName(0x17), "RC SEND Only with Invalidate");
  EXPECT_EQ(OpcodeName(0x81), "CNP");
  EXPECT_EQ(OpcodeName(0x15), "Unknown");
  EXPECT_EQ(TransportOf(0x81), RoceTransport::kCnp);
  EXPECT_EQ(TransportOf(0x2a), RoceTransport::kUc);
  EXPECT_EQ(TransportOf(0x4c), RoceTransport::kRd);
  EXPECT_EQ(TransportOf(0x64), RoceTransport::kUd);
  EXPECT_EQ(TransportOf(0x90), RoceTransport::kUnknown);
  EXPECT_TRUE(IsAck(0x11));
  EXPECT_FALSE(IsAck(0x12));
  EXPECT_TRUE(IsResponse(0x0d));
  EXPECT_TRUE(IsResponse(0x12));
  EXPECT_FALSE(IsResponse(0x13));
  EXPECT_TRUE(IsRequest(0x0c));
  EXPECT_TRUE(IsRequest(0x13));
  EXPECT_TRUE(IsRequest(0x24));
  EXPECT_TRUE(IsRequest(0x65));
  EXPECT_FALSE(IsRequest(0x10));
  EXPECT_FALSE(IsRequest(0x11));
  EXPECT_FALSE(IsRequest(0x81));
  EXPECT_FALSE(IsRequest(0x15));
  RocePacket p;
  p.has_aeth = true;
  p.aeth_syndrome = 0x60;
  EXPECT_TRUE(IsNak(p));
  EXPECT_FALSE(IsRnrNak(p));
  p.aeth_syndrome = 0x1f;
  EXPECT_FALSE(IsNak(p));
  p.aeth_syndrome = 0x2e;
  EXPECT_TRUE(IsRnrNak(p));
  p.has_aeth = false;
  p.aeth_syndrome = 0x60;
  EXPECT_FALSE(IsNak(p));
}

TEST(RocePacket, EncodeDecodeRoundTripEveryOpcode) {
  std::mt19937_64 rng(7);
  int n = 0;
  for (uint8_t op : AllKnownOpcodes()) {
    for (bool v6 : {false, true}) {
      for (int vlans : {0, 1, 2}) {
        const RocePacket p = RandomPacket(rng, op, v6, vlans);
        const auto frame = EncodeRoceFrame(p, kSrcMac, kDstMac);
        const size_t expect_len = 14 + 4 * vlans + (v6 ? 40 : 20) + 8 + 12 + ExtensionHeaderBytes(op) +
                                  p.payload_bytes + p.pad_count + 4;
        ASSERT_EQ(frame.size(), expect_len);
        if (vlans == 2) {
          EXPECT_EQ(frame[12], 0x88);
          EXPECT_EQ(frame[13], 0xa8);
          EXPECT_EQ(frame[16], 0x81);
        }
        RocePacket q;
        const auto d = Decode(frame, &q);
        ASSERT_EQ(d.verdict, FrameVerdict::kRoce) << OpcodeName(op) << ": " << d.reason;
        SCOPED_TRACE(std::string(OpcodeName(op)) + (v6 ? " v6" : " v4") + " vlans=" + std::to_string(vlans));
        ExpectSame(p, q);
        EXPECT_EQ(q.icrc, RocePacket::Icrc::kOk);
        EXPECT_FALSE(q.truncated);
        EXPECT_EQ(EncodeRoceFrame(q, kSrcMac, kDstMac), frame);  // deterministic, lossless
        ++n;
      }
    }
  }
  EXPECT_EQ(n, 38 * 6);
}

uint16_t Csum(const uint8_t* p, size_t n) {
  uint32_t s = 0;
  for (size_t i = 0; i + 1 < n; i += 2) s += (p[i] << 8) | p[i + 1];
  if (n % 2) s += p[n - 1] << 8;
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return static_cast<uint16_t>(~s);
}

TEST(RocePacket, EncodedChecksumsAreValid) {
  std::mt19937_64 rng(11);
  RocePacket p = RandomPacket(rng, 0x0a, false, 0);
  auto f = EncodeRoceFrame(p, kSrcMac, kDstMac);
  EXPECT_EQ(Csum(f.data() + 14, 20), 0);  // IPv4 header checksum verifies
  EXPECT_EQ(f[14 + 6], 0x40);             // DF
  EXPECT_EQ(f[34 + 6] | f[34 + 7], 0);    // UDP checksum 0 over IPv4
  p = RandomPacket(rng, 0x0a, true, 0);
  f = EncodeRoceFrame(p, kSrcMac, kDstMac);
  // IPv6 UDP checksum: pseudo header + UDP segment sums to 0xffff.
  std::vector<uint8_t> pseudo(f.begin() + 22, f.begin() + 54);
  const size_t udp_len = f.size() - 54;
  pseudo.insert(pseudo.end(),
                {0, 0, static_cast<uint8_t>(udp_len >> 8), static_cast<uint8_t>(udp_len), 0, 0, 0, 17});
  pseudo.insert(pseudo.end(), f.begin() + 54, f.end());
  EXPECT_EQ(Csum(pseudo.data(), pseudo.size()), 0);
}

TEST(RocePacket, OtherLinkTypes) {
  std::mt19937_64 rng(3);
  for (bool v6 : {false, true}) {
    const RocePacket p = RandomPacket(rng, 0x04, v6, 0);
    const auto eth = EncodeRoceFrame(p, kSrcMac, kDstMac);
    const std::vector<uint8_t> ip(eth.begin() + 14, eth.end());
    RocePacket q;
    for (int dlt : {kDltRaw, kLinktypeRaw, kDltRawOpenBsd, v6 ? kDltIpv6 : kDltIpv4}) {
      ASSERT_EQ(Decode(ip, &q, dlt).verdict, FrameVerdict::kRoce) << dlt;
      ExpectSame(p, q);
      EXPECT_EQ(q.icrc, RocePacket::Icrc::kOk);
    }
    std::vector<uint8_t> sll = {0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0};
    sll.push_back(eth[12]);
    sll.push_back(eth[13]);
    sll.insert(sll.end(), ip.begin(), ip.end());
    ASSERT_EQ(Decode(sll, &q, kDltLinuxSll).verdict, FrameVerdict::kRoce);
    ExpectSame(p, q);
    std::vector<uint8_t> sll2 = {eth[12], eth[13], 0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0};
    sll2.insert(sll2.end(), ip.begin(), ip.end());
    ASSERT_EQ(Decode(sll2, &q, kDltLinuxSll2).verdict, FrameVerdict::kRoce);
    ExpectSame(p, q);
    std::vector<uint8_t> null = {static_cast<uint8_t>(v6 ? 30 : 2), 0, 0, 0};
    null.insert(null.end(), ip.begin(), ip.end());
    ASSERT_EQ(Decode(null, &q, kDltNull).verdict, FrameVerdict::kRoce);
    ExpectSame(p, q);
    EXPECT_EQ(Decode(ip, &q, 147).verdict, FrameVerdict::kNotRoce);  // DLT_USER0
  }
}

TEST(RocePacket, Ipv4OptionsAndIpv6ExtensionHeaders) {
  std::mt19937_64 rng(5);
  // IPv4 with IHL 6 (one 4-byte option: NOPs + end).
  RocePacket p = RandomPacket(rng, 0x0a, false, 1);
  auto f = EncodeRoceFrame(p, kSrcMac, kDstMac);
  const size_t ip = 18;
  f.insert(f.begin() + ip + 20, {1, 1, 1, 0});
  f[ip] = 0x46;
  const uint16_t total = static_cast<uint16_t>(((f[ip + 2] << 8) | f[ip + 3]) + 4);
  f[ip + 2] = static_cast<uint8_t>(total >> 8);
  f[ip + 3] = static_cast<uint8_t>(total);
  uint32_t icrc = ComputeIcrc(std::span<const uint8_t>(f).subspan(ip, f.size() - ip - 4));
  for (int i = 0; i < 4; ++i) f[f.size() - 4 + i] = static_cast<uint8_t>(icrc >> (8 * i));
  RocePacket q;
  auto d = Decode(f, &q);
  ASSERT_EQ(d.verdict, FrameVerdict::kRoce) << d.reason;
  ExpectSame(p, q);
  EXPECT_EQ(q.icrc, RocePacket::Icrc::kOk);

  // IPv6 with hop-by-hop (8 B) and destination options (16 B) headers.
  p = RandomPacket(rng, 0x65, true, 0);
  f = EncodeRoceFrame(p, kSrcMac, kDstMac);
  const size_t ip6 = 14;
  f[ip6 + 6] = 0;  // next: hop-by-hop
  std::vector<uint8_t> ext = {60, 0, 1, 4, 0, 0, 0, 0, 17, 1, 1, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  f.insert(f.begin() + ip6 + 40, ext.begin(), ext.end());
  const uint16_t plen = static_cast<uint16_t>(((f[ip6 + 4] << 8) | f[ip6 + 5]) + ext.size());
  f[ip6 + 4] = static_cast<uint8_t>(plen >> 8);
  f[ip6 + 5] = static_cast<uint8_t>(plen);
  icrc = ComputeIcrc(std::span<const uint8_t>(f).subspan(ip6, f.size() - ip6 - 4), 40 + ext.size());
  for (int i = 0; i < 4; ++i) f[f.size() - 4 + i] = static_cast<uint8_t>(icrc >> (8 * i));
  d = Decode(f, &q);
  ASSERT_EQ(d.verdict, FrameVerdict::kRoce) << d.reason;
  ExpectSame(p, q);
  EXPECT_EQ(q.icrc, RocePacket::Icrc::kOk);
  // An ESP header ends the walk: not RoCE.
  f[ip6 + 40] = 50;
  EXPECT_EQ(Decode(f, &q).verdict, FrameVerdict::kNotRoce);
}

TEST(RocePacket, TruncatedBySnaplen) {
  std::mt19937_64 rng(9);
  RocePacket p = RandomPacket(rng, 0x06, false, 0);  // RDMA WRITE First: RETH
  p.payload_bytes = 1000;
  p.pad_count = 0;
  const auto full = EncodeRoceFrame(p, kSrcMac, kDstMac);
  RocePacket q;
  // Cut inside the RETH: BTH kept, RETH not.
  std::span<const uint8_t> cut(full.data(), 14 + 20 + 8 + 12 + 8);
  auto d = DecodeRoceFrame(cut, static_cast<uint32_t>(full.size()), kDltEn10Mb, true, &q);
  ASSERT_EQ(d.verdict, FrameVerdict::kRoce) << d.reason;
  EXPECT_TRUE(q.truncated);
  EXPECT_EQ(q.dest_qp, p.dest_qp);
  EXPECT_EQ(q.psn, p.psn);
  EXPECT_FALSE(q.has_reth);
  EXPECT_EQ(q.reth_va, 0u);
  EXPECT_EQ(q.payload_bytes, 1000u);
  EXPECT_EQ(q.wire_len, full.size());
  EXPECT_EQ(q.cap_len, cut.size());
  EXPECT_EQ(q.icrc, RocePacket::Icrc::kMissing);
  // Cut after the RETH (a 128-byte snaplen): RETH kept.
  d = DecodeRoceFrame(std::span<const uint8_t>(full.data(), 128), static_cast<uint32_t>(full.size()),
                      kDltEn10Mb, false, &q);
  ASSERT_EQ(d.verdict, FrameVerdict::kRoce);
  EXPECT_TRUE(q.truncated);
  EXPECT_TRUE(q.has_reth);
  EXPECT_EQ(q.reth_rkey, p.reth_rkey);
  EXPECT_EQ(q.icrc, RocePacket::Icrc::kNotChecked);
  // Cut inside the BTH: unusable.
  d = DecodeRoceFrame(std::span<const uint8_t>(full.data(), 14 + 20 + 8 + 5),
                      static_cast<uint32_t>(full.size()), kDltEn10Mb, true, &q);
  EXPECT_EQ(d.verdict, FrameVerdict::kMalformed);
  EXPECT_NE(d.reason.find("inside the BTH"), std::string::npos) << d.reason;
  // Cut inside the UDP header after the ports: malformed; before the port: malformed too.
  d = DecodeRoceFrame(std::span<const uint8_t>(full.data(), 14 + 20 + 5), static_cast<uint32_t>(full.size()),
                      kDltEn10Mb, true, &q);
  EXPECT_EQ(d.verdict, FrameVerdict::kMalformed);
}

TEST(RocePacket, MalformedAndNotRoce) {
  const auto real = ReadHexFrame(kHex);
  RocePacket q;
  auto expect = [&](std::vector<uint8_t> f, FrameVerdict v, const std::string& reason_part) {
    const auto d = Decode(f, &q);
    EXPECT_EQ(d.verdict, v) << d.reason;
    EXPECT_NE(d.reason.find(reason_part), std::string::npos)
        << "reason: " << d.reason << " wanted: " << reason_part;
  };
  auto f = real;
  f[42] = 0x15;
  expect(f, FrameVerdict::kMalformed, "reserved BTH opcode 0x15");
  f[42] = 0x4c;
  expect(f, FrameVerdict::kMalformed, "RD transport");
  f[42] = 0xc0;
  expect(f, FrameVerdict::kMalformed, "opcode 0xc0");
  f = real;
  f[43] = 0x01;
  expect(f, FrameVerdict::kMalformed, "TVer 1");
  // UDP length too short for the RETH of a READ request.
  f = real;
  f[34 + 5] = 8 + 12 + 8 + 4;
  expect(f, FrameVerdict::kMalformed, "too short for BTH + RC RDMA READ Request headers");
  f[34 + 5] = 8 + 10;
  expect(f, FrameVerdict::kMalformed, "too short for BTH + ICRC");
  f[34 + 5] = 4;
  expect(f, FrameVerdict::kMalformed, "UDP length 4 below 8");
  f = real;
  f[34 + 5] = 0x40;  // UDP length past the IP payload
  expect(f, FrameVerdict::kMalformed, "exceeds the IP payload");
  f = real;
  f[14 + 3] = 0xff;  // IP total length past the frame
  expect(f, FrameVerdict::kMalformed, "runs past the frame");
  f = real;
  f[14] = 0x44;
  expect(f, FrameVerdict::kMalformed, "IHL 4");
  f = real;
  f[14 + 6] = 0x20;  // MF: first fragment
  expect(f, FrameVerdict::kMalformed, "fragment");
  f[14 + 6] = 0x00;
  f[14 + 7] = 0x10;  // later fragment
  expect(f, FrameVerdict::kNotRoce, "later IPv4 fragment");
  f = real;
  f[36] = 0x00;
  f[37] = 53;  // DNS
  expect(f, FrameVerdict::kNotRoce, "UDP port 53");
  f = real;
  f[14 + 9] = 6;  // TCP
  expect(f, FrameVerdict::kNotRoce, "IP protocol 6");
  f = real;
  f[12] = 0x08;
  f[13] = 0x06;  // ARP
  expect(f, FrameVerdict::kNotRoce, "ethertype 0x0806");
  f[13] = 0x00;
  f[12] = 0x89;
  f[13] = 0x15;
  expect(f, FrameVerdict::kNotRoce, "RoCEv1");
  expect({1, 2, 3}, FrameVerdict::kMalformed, "shorter than an Ethernet header");
  expect({}, FrameVerdict::kMalformed, "shorter than an Ethernet header");
  f.assign(real.begin(), real.begin() + 20);
  expect(f, FrameVerdict::kMalformed, "inside the IPv4 header");
}

TEST(RocePacket, GarbageNeverCrashes) {
  std::mt19937_64 rng(1);
  const auto real = ReadHexFrame(kHex);
  RocePacket q;
  int roce = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> f = real;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) f[rng() % f.size()] = static_cast<uint8_t>(rng());
    f.resize(rng() % (f.size() + 1));
    for (int dlt : {kDltEn10Mb, kDltRaw, kDltLinuxSll, kDltLinuxSll2, kDltNull}) {
      const auto d = DecodeRoceFrame(f, static_cast<uint32_t>(rng() % 100), dlt, true, &q);
      if (d.verdict == FrameVerdict::kRoce) {
        ++roce;
        EXPECT_LE(q.dest_qp, 0xffffffu);
        EXPECT_TRUE(d.reason.empty());
      } else {
        EXPECT_FALSE(d.reason.empty());
      }
    }
  }
  EXPECT_GT(roce, 0);
}

}  // namespace roce_packet_test
}  // namespace toposcope::formats
