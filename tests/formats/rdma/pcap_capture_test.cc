// Tests of the pcap/pcapng capture reader and the pcap writer: golden on the real (derived) Soft-RoCE
// capture and on our synthetic captures in testdata/pcap (pcap nano/usec, SLL2, pcapng with a custom
// block), writer round trips and determinism, hand-built pcapng bytes, and broken inputs.
#include "toposcope/formats/rdma/pcap_capture.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "roce_frames.h"

namespace toposcope::formats {
namespace pcap_capture_test {

const std::string kDerived =
    std::string(TOPOSCOPE_FIXTURES) + "/pcap/derived/pcapplusplus_pr1603_softroce_rdma_read_req.pcap";
const std::string kData = std::string(TOPOSCOPE_TESTDATA) + "/pcap/";
constexpr int64_t kT0 = 1700000000123456789;

std::vector<uint8_t> Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Read {
  Diagnostics diag;
  std::vector<RocePacket> packets;
  Result<CaptureSummary> summary = MakeError("not read");
};

std::unique_ptr<Read> ReadFile(const std::string& path, CaptureOptions opts = {}) {
  auto r = std::make_unique<Read>();
  r->summary = ReadCapture(
      path, [&](const RocePacket& p) { r->packets.push_back(p); }, r->diag, opts);
  if (r->summary.ok()) {
    const auto& s = *r->summary;
    EXPECT_TRUE(s.counts.Balanced());
    EXPECT_EQ(s.counts.read, s.records);
    EXPECT_EQ(s.counts.accepted, s.roce + s.not_roce);
    EXPECT_EQ(s.counts.rejected, s.malformed + (s.broke_off ? 1 : 0));
    EXPECT_EQ(r->diag.rejected_total(), s.counts.rejected);
    EXPECT_EQ(static_cast<int64_t>(r->packets.size()), s.roce);
  }
  return r;
}

std::unique_ptr<Read> ReadBytes(const std::vector<uint8_t>& bytes, CaptureOptions opts = {}) {
  auto r = std::make_unique<Read>();
  r->summary = ReadCaptureBytes(
      bytes, "mem", [&](const RocePacket& p) { r->packets.push_back(p); }, r->diag, opts);
  if (r->summary.ok()) {
    const auto& s = *r->summary;
    EXPECT_TRUE(s.counts.Balanced());
    EXPECT_EQ(s.counts.read, s.records);
    EXPECT_EQ(r->diag.rejected_total(), s.counts.rejected);
  }
  return r;
}

TEST(PcapCapture, RealDerivedSoftRoceCapture) {
  auto r = ReadFile(kDerived, {.check_icrc = true, .capture_index = 2});
  ASSERT_TRUE(r->summary.ok()) << r->summary.error().ToString();
  const auto& s = *r->summary;
  EXPECT_EQ(s.path, kDerived);
  EXPECT_EQ(s.dlt, 1);
  EXPECT_FALSE(s.pcapng);
  EXPECT_EQ(s.snaplen, 65535u);
  EXPECT_EQ(s.records, 1);
  EXPECT_EQ(s.roce, 1);
  EXPECT_EQ(s.not_roce, 0);
  EXPECT_EQ(s.malformed, 0);
  EXPECT_EQ(s.bytes_read, 74);
  EXPECT_FALSE(s.broke_off);
  EXPECT_EQ(s.first_ts_ns, 0);
  EXPECT_EQ(s.icrc_bad, 0);
  ASSERT_EQ(r->packets.size(), 1u);
  const RocePacket& p = r->packets[0];
  EXPECT_EQ(p.capture_index, 2);
  EXPECT_EQ(p.ts_ns, 0);
  EXPECT_EQ(p.src_ip.ToString(), "192.168.56.129");
  EXPECT_EQ(p.dst_ip.ToString(), "192.168.56.131");
  EXPECT_EQ(p.udp_src_port, 57236);
  EXPECT_EQ(p.opcode, 0x0c);
  EXPECT_EQ(p.dest_qp, 0x11u);
  EXPECT_EQ(p.psn, 5557091u);
  EXPECT_EQ(p.pkey, 0xffff);
  EXPECT_TRUE(p.ack_req);
  EXPECT_TRUE(p.has_reth);
  EXPECT_EQ(p.reth_va, 0x7fee260fb000ULL);
  EXPECT_EQ(p.reth_rkey, 0x2b8u);
  EXPECT_EQ(p.reth_dma_len, 65536u);
  EXPECT_EQ(p.icrc, RocePacket::Icrc::kOk);
  EXPECT_TRUE(r->diag.items().empty());
}

TEST(PcapCapture, MixedSyntheticCapture) {
  const std::string path = kData + "mixed_v4_vlan.pcap";
  auto r = ReadFile(path, {.check_icrc = true});
  ASSERT_TRUE(r->summary.ok()) << r->summary.error().ToString();
  const auto& s = *r->summary;
  EXPECT_EQ(s.records, 10);
  EXPECT_EQ(s.roce, 7);
  EXPECT_EQ(s.not_roce, 2);   // ARP, UDP 53
  EXPECT_EQ(s.malformed, 1);  // opcode 0x15
  EXPECT_EQ(s.truncated, 1);
  EXPECT_EQ(s.icrc_bad, 1);
  EXPECT_FALSE(s.broke_off);
  EXPECT_EQ(s.first_ts_ns, kT0);
  EXPECT_EQ(s.last_ts_ns, kT0 + 9000);
  // The reserved opcode is rejected at its record's byte offset (24 + records before it).
  ASSERT_EQ(r->diag.rejected_total(), 1);
  const Diagnostic* rej = nullptr;
  const Diagnostic* warn = nullptr;
  for (const auto& d : r->diag.items()) (d.severity == Severity::kRejected ? rej : warn) = &d;
  ASSERT_NE(rej, nullptr);
  EXPECT_EQ(rej->byte_offset, 751);
  EXPECT_NE(rej->reason.find("reserved BTH opcode 0x15"), std::string::npos) << rej->reason;
  ASSERT_NE(warn, nullptr);
  EXPECT_NE(warn->reason.find("record at byte 825: ICRC"), std::string::npos) << warn->reason;

  ASSERT_EQ(r->packets.size(), 7u);
  const auto& p = r->packets;
  EXPECT_EQ(p[0].opcode, 0x04);
  EXPECT_EQ(p[0].vlan_ids, std::vector<uint16_t>{100});
  EXPECT_EQ(p[0].src_ip.ToString(), "10.0.0.1");
  EXPECT_EQ(p[0].dst_ip.ToString(), "10.0.1.1");
  EXPECT_EQ(p[0].ip_dscp, 26);
  EXPECT_EQ(p[0].dest_qp, 0x123u);
  EXPECT_EQ(p[0].psn, 100u);
  EXPECT_EQ(p[0].payload_bytes, 64u);
  EXPECT_EQ(p[0].icrc, RocePacket::Icrc::kOk);
  EXPECT_EQ(p[0].ts_ns, kT0);
  EXPECT_TRUE(IsAck(p[1].opcode));
  EXPECT_EQ(p[1].aeth_syndrome, 0x1f);
  EXPECT_EQ(p[1].aeth_msn, 7u);
  EXPECT_FALSE(IsNak(p[1]));
  EXPECT_TRUE(IsNak(p[2]));
  EXPECT_EQ(p[2].psn, 101u);
  EXPECT_EQ(p[3].opcode, 0x06);  // cut at 80 of 334 bytes
  EXPECT_TRUE(p[3].truncated);
  EXPECT_EQ(p[3].psn, 0xffffffu);
  EXPECT_TRUE(p[3].has_reth);  // Eth 14 + VLAN 4 + IP 20 + UDP 8 + BTH 12 + RETH 16 = 74 <= 80
  EXPECT_EQ(p[3].reth_dma_len, 4096u);
  EXPECT_EQ(p[3].reth_rkey, 0x1234u);
  EXPECT_EQ(p[3].payload_bytes, 256u);
  EXPECT_EQ(p[3].wire_len, 334u);
  EXPECT_EQ(p[3].cap_len, 80u);
  EXPECT_EQ(p[3].icrc, RocePacket::Icrc::kMissing);
  EXPECT_EQ(p[4].opcode, 0x64);
  EXPECT_TRUE(p[4].has_deth);
  EXPECT_EQ(p[4].deth_qkey, 0x80010000u);
  EXPECT_EQ(p[4].deth_src_qp, 0xabu);
  EXPECT_EQ(p[4].payload_bytes, 32u);
  EXPECT_EQ(p[5].opcode, 0x81);
  EXPECT_EQ(TransportOf(p[5].opcode), RoceTransport::kCnp);
  EXPECT_TRUE(p[5].becn);
  EXPECT_EQ(p[5].payload_bytes, 0u);
  EXPECT_EQ(p[6].opcode, 0x0c);
  EXPECT_EQ(p[6].icrc, RocePacket::Icrc::kBad);
  EXPECT_EQ(p[6].ts_ns, kT0 + 9000);

  // Without the ICRC check: same counts, no warning.
  auto r2 = ReadFile(path);
  ASSERT_TRUE(r2->summary.ok());
  EXPECT_EQ(r2->summary->roce, 7);
  EXPECT_EQ(r2->summary->icrc_bad, 0);
  EXPECT_EQ(r2->diag.warnings_total(), 0);
}

TEST(PcapCapture, BrokenTailKeepsRecordsBefore) {
  const std::string path = kData + "broken_tail_usec.pcap";
  auto r = ReadFile(path);
  ASSERT_TRUE(r->summary.ok());
  const auto& s = *r->summary;
  EXPECT_TRUE(s.broke_off);
  EXPECT_EQ(s.records, 4);
  EXPECT_EQ(s.roce, 3);
  EXPECT_EQ(s.counts.rejected, 1);
  ASSERT_EQ(r->packets.size(), 3u);
  EXPECT_EQ(r->packets[0].ts_ns, kT0 - 789);  // microsecond file: ns rounded down to us
  EXPECT_EQ(r->packets[2].psn, 12u);
  ASSERT_EQ(r->diag.items().size(), 1u);
  EXPECT_EQ(r->diag.items()[0].byte_offset, 678);
  EXPECT_NE(r->diag.items()[0].reason.find("breaks off"), std::string::npos);
  EXPECT_NE(r->diag.items()[0].reason.find("truncated"), std::string::npos) << r->diag.items()[0].reason;
}

TEST(PcapCapture, LinuxCookedV2Ipv6) {
  auto r = ReadFile(kData + "sll2_ipv6.pcap", {.check_icrc = true});
  ASSERT_TRUE(r->summary.ok());
  EXPECT_EQ(r->summary->dlt, kDltLinuxSll2);
  ASSERT_EQ(r->packets.size(), 2u);
  EXPECT_EQ(r->packets[1].src_ip.ToString(), "fd02::1");
  EXPECT_EQ(r->packets[1].dst_ip.ToString(), "fd02::2");
  EXPECT_EQ(r->packets[1].ip_flow_label, 0x12345u);
  EXPECT_EQ(r->packets[1].dest_qp, 0x42u);
  EXPECT_EQ(r->packets[1].psn, 1u);
  EXPECT_EQ(r->packets[1].payload_bytes, 1024u);
  EXPECT_EQ(r->packets[1].icrc, RocePacket::Icrc::kOk);
  EXPECT_EQ(r->packets[1].ts_ns, kT0 + 1);
}

TEST(PcapCapture, PcapngFile) {
  auto r = ReadFile(kData + "ipv6_qinq.pcapng", {.check_icrc = true});
  ASSERT_TRUE(r->summary.ok()) << r->summary.error().ToString();
  const auto& s = *r->summary;
  EXPECT_TRUE(s.pcapng);
  EXPECT_EQ(s.records, 3);  // the custom and statistics blocks are not records
  EXPECT_EQ(s.roce, 3);
  ASSERT_EQ(r->packets.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const auto& p = r->packets[i];
    EXPECT_EQ(p.vlan_ids, (std::vector<uint16_t>{10, 20}));
    EXPECT_EQ(p.opcode, 0x12);
    EXPECT_TRUE(p.has_aeth);
    EXPECT_TRUE(p.has_atomic_ack_eth);
    EXPECT_EQ(p.atomic_ack_orig, 0xdeadu);
    EXPECT_EQ(p.aeth_msn, static_cast<uint32_t>(i));
    EXPECT_EQ(p.psn, 300u + i);
    EXPECT_EQ(p.ts_ns, kT0 + 500 * i);
    EXPECT_EQ(p.icrc, RocePacket::Icrc::kOk);
  }
}

// --- hand-built pcapng ---------------------------------------------------------------------------

void Le32(std::vector<uint8_t>& v, uint32_t x) {
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
}
void Le16(std::vector<uint8_t>& v, uint16_t x) {
  v.push_back(static_cast<uint8_t>(x));
  v.push_back(static_cast<uint8_t>(x >> 8));
}
void Block(std::vector<uint8_t>& out, uint32_t type, std::vector<uint8_t> body) {
  while (body.size() % 4) body.push_back(0);
  const uint32_t n = static_cast<uint32_t>(12 + body.size());
  Le32(out, type);
  Le32(out, n);
  out.insert(out.end(), body.begin(), body.end());
  Le32(out, n);
}

std::vector<uint8_t> Frame(uint8_t opcode, uint32_t qp, uint32_t psn) { return TestRoceFrame(opcode, qp, psn); }

TEST(PcapCapture, HandBuiltPcapngWithSimplePacketBlock) {
  std::vector<uint8_t> ng;
  std::vector<uint8_t> shb;
  Le32(shb, 0x1a2b3c4d);
  Le16(shb, 1);
  Le16(shb, 0);
  Le32(shb, 0xffffffff);
  Le32(shb, 0xffffffff);
  Block(ng, 0x0a0d0d0a, shb);
  std::vector<uint8_t> idb;  // Ethernet, snaplen 0 (unlimited), default microsecond resolution
  Le16(idb, 1);
  Le16(idb, 0);
  Le32(idb, 0);
  Block(ng, 1, idb);
  const auto f1 = Frame(0x04, 0x10, 1);
  std::vector<uint8_t> epb;
  Le32(epb, 0);
  const uint64_t ts_us = 1700000000000001ULL;
  Le32(epb, static_cast<uint32_t>(ts_us >> 32));
  Le32(epb, static_cast<uint32_t>(ts_us));
  Le32(epb, static_cast<uint32_t>(f1.size()));
  Le32(epb, static_cast<uint32_t>(f1.size()));
  epb.insert(epb.end(), f1.begin(), f1.end());
  Block(ng, 6, epb);
  const auto f2 = Frame(0x11, 0x20, 2);
  std::vector<uint8_t> spb;
  Le32(spb, static_cast<uint32_t>(f2.size()));
  spb.insert(spb.end(), f2.begin(), f2.end());
  Block(ng, 3, spb);
  auto r = ReadBytes(ng);
  ASSERT_TRUE(r->summary.ok()) << r->summary.error().ToString();
  EXPECT_TRUE(r->summary->pcapng);
  EXPECT_EQ(r->summary->records, 2);
  ASSERT_EQ(r->packets.size(), 2u);
  EXPECT_EQ(r->packets[0].ts_ns, 1700000000000001000);
  EXPECT_EQ(r->packets[0].dest_qp, 0x10u);
  EXPECT_EQ(r->packets[1].opcode, 0x11);
  EXPECT_EQ(r->packets[1].ts_ns, 0);  // SPBs have no timestamp
  EXPECT_EQ(r->packets[1].payload_bytes, 100u);

  // Cut in the middle of the SPB: the EPB's packet is kept, one diagnostic.
  std::vector<uint8_t> cut(ng.begin(), ng.end() - 30);
  auto r2 = ReadBytes(cut);
  ASSERT_TRUE(r2->summary.ok());
  EXPECT_TRUE(r2->summary->broke_off);
  EXPECT_EQ(r2->summary->roce, 1);
  ASSERT_EQ(r2->diag.items().size(), 1u);
  EXPECT_GT(r2->diag.items()[0].byte_offset, 0);
}

// --- writer --------------------------------------------------------------------------------------

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("toposcope_pcap_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(PcapWriter, RoundTripAndDeterministic) {
  std::mt19937_64 rng(4);
  std::vector<std::pair<int64_t, std::vector<uint8_t>>> frames;
  for (int i = 0; i < 50; ++i) {
    frames.emplace_back(kT0 + 137 * i, Frame(i % 2 ? 0x0a : 0x11, static_cast<uint32_t>(rng() & 0xffffff),
                                             static_cast<uint32_t>(rng() & 0xffffff)));
  }
  const std::string a = TempPath("a/x.pcap");  // parent directory is created
  const std::string b = TempPath("b.pcap");
  for (const auto& path : {a, b}) {
    auto w = PcapWriter::Open(path, 96);
    ASSERT_TRUE(w.ok()) << w.error().ToString();
    for (const auto& [ts, f] : frames) ASSERT_TRUE(w->Write(ts, f).ok());
    EXPECT_EQ(w->records_written(), 50);
    ASSERT_TRUE(w->Close().ok());
    EXPECT_FALSE(w->Write(0, frames[0].second).ok());  // closed
  }
  const auto bytes = Slurp(a);
  EXPECT_EQ(bytes, Slurp(b));
  ASSERT_GE(bytes.size(), 24u);
  EXPECT_EQ(bytes[0], 0x4d);  // a1b23c4d little-endian
  EXPECT_EQ(bytes[1], 0x3c);
  EXPECT_EQ(bytes[2], 0xb2);
  EXPECT_EQ(bytes[3], 0xa1);
  auto r = ReadFile(a, {.check_icrc = true});
  ASSERT_TRUE(r->summary.ok());
  EXPECT_EQ(r->summary->snaplen, 96u);
  ASSERT_EQ(r->packets.size(), 50u);
  for (size_t i = 0; i < frames.size(); ++i) {
    RocePacket want;
    ASSERT_EQ(DecodeRoceFrame(frames[i].second, static_cast<uint32_t>(frames[i].second.size()), kDltEn10Mb,
                              false, &want)
                  .verdict,
              FrameVerdict::kRoce);
    EXPECT_EQ(r->packets[i].ts_ns, frames[i].first);
    EXPECT_EQ(r->packets[i].dest_qp, want.dest_qp);
    EXPECT_EQ(r->packets[i].psn, want.psn);
    EXPECT_EQ(r->packets[i].payload_bytes, want.payload_bytes);
    EXPECT_TRUE(r->packets[i].truncated);  // 96-byte snaplen
    EXPECT_EQ(r->packets[i].cap_len, 96u);
    EXPECT_EQ(r->packets[i].wire_len, frames[i].second.size());
  }
  std::filesystem::remove_all(std::filesystem::path(a).parent_path());
  std::filesystem::remove(b);
}

TEST(PcapWriter, RejectsBadTimestampsAndPaths) {
  const std::string path = TempPath("ts.pcap");
  auto w = PcapWriter::Open(path);
  ASSERT_TRUE(w.ok());
  const auto f = Frame(0x04, 1, 1);
  EXPECT_FALSE(w->Write(-1, f).ok());
  EXPECT_FALSE(w->Write(int64_t{1} << 62, f).ok());
  EXPECT_TRUE(w->Write(0, f).ok());
  EXPECT_TRUE(w->Close().ok());
  EXPECT_TRUE(w->Close().ok());  // idempotent
  std::filesystem::remove(path);
  EXPECT_FALSE(PcapWriter::Open("/proc/definitely/not/here.pcap").ok());
}

// --- bad inputs ----------------------------------------------------------------------------------

TEST(PcapCapture, UnusableInputsAreErrors) {
  Diagnostics diag;
  auto sink = [](const RocePacket&) {};
  auto missing = ReadCapture("/nonexistent/x.pcap", sink, diag);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().ToString().find("/nonexistent/x.pcap"), std::string::npos);
  auto empty = ReadCaptureBytes({}, "empty.pcap", sink, diag);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().ToString().find("byte 0"), std::string::npos);
  const std::string text = "timestamp,gpu,value\n1,0,3\n";
  auto csv =
      ReadCaptureBytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()),
                       "x.csv", sink, diag);
  ASSERT_FALSE(csv.ok());
  EXPECT_NE(csv.error().ToString().find("x.csv"), std::string::npos);
  EXPECT_NE(csv.error().ToString().find("byte 0: not a pcap or pcapng capture"), std::string::npos)
      << csv.error().ToString();
  std::vector<uint8_t> header;
  AppendPcapFileHeader(header, 65535);
  std::vector<uint8_t> cut(header.begin(), header.begin() + 10);
  auto truncated = ReadCaptureBytes(cut, "cut.pcap", sink, diag);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().ToString().find("cut.pcap"), std::string::npos);
  EXPECT_EQ(diag.rejected_total(), 0);
  // A header alone is a valid, empty capture.
  auto r = ReadBytes(header);
  ASSERT_TRUE(r->summary.ok());
  EXPECT_EQ(r->summary->records, 0);
  EXPECT_FALSE(r->summary->broke_off);
}

TEST(PcapCapture, AbsurdRecordLengthIsOneDiagnostic) {
  std::vector<uint8_t> b;
  AppendPcapFileHeader(b, 65535);
  const auto f = Frame(0x04, 7, 7);
  AppendPcapRecord(b, 1, f, 65535);
  const size_t bad_at = b.size();
  Le32(b, 0);
  Le32(b, 0);
  Le32(b, 300000);  // caplen > 256 KiB
  Le32(b, 300000);
  b.insert(b.end(), 64, 0xab);
  auto r = ReadBytes(b);
  ASSERT_TRUE(r->summary.ok());
  EXPECT_TRUE(r->summary->broke_off);
  EXPECT_EQ(r->summary->roce, 1);
  EXPECT_EQ(r->summary->records, 2);
  ASSERT_EQ(r->diag.items().size(), 1u);
  EXPECT_EQ(r->diag.items()[0].byte_offset, static_cast<int64_t>(bad_at));
  EXPECT_NE(r->diag.items()[0].reason.find("300000"), std::string::npos) << r->diag.items()[0].reason;
}

TEST(PcapCapture, RecordLongerThanSnaplenIsCut) {
  // caplen 200 in a file whose snaplen is 100 (but under libpcap's 256 KiB limit): libpcap keeps the
  // first 100 bytes and goes on with the next record.
  std::vector<uint8_t> b;
  AppendPcapFileHeader(b, 100);
  const auto f = Frame(0x0a, 9, 9);
  AppendPcapRecord(b, 5, f, 100000);  // written with its full length
  AppendPcapRecord(b, 6, Frame(0x04, 10, 10), 100000);
  auto r = ReadBytes(b);
  ASSERT_TRUE(r->summary.ok());
  EXPECT_FALSE(r->summary->broke_off);
  ASSERT_EQ(r->packets.size(), 2u);
  EXPECT_LE(r->packets[0].cap_len, 100u);
  EXPECT_EQ(r->packets[1].dest_qp, 10u);
}

TEST(PcapCapture, GarbageAfterHeaderNeverCrashes) {
  std::mt19937_64 rng(8);
  std::vector<uint8_t> base;
  AppendPcapFileHeader(base, 65535);
  for (int i = 0; i < 20; ++i)
    AppendPcapRecord(base, i, Frame(static_cast<uint8_t>(i % 2 ? 0x0c : 0x10), i, i), 65535);
  for (int round = 0; round < 300; ++round) {
    auto b = base;
    for (int k = 0; k < 6; ++k) b[24 + rng() % (b.size() - 24)] = static_cast<uint8_t>(rng());
    b.resize(24 + rng() % (b.size() - 23));
    auto r = ReadBytes(b, {.check_icrc = true});
    ASSERT_TRUE(r->summary.ok());
  }
}

}  // namespace pcap_capture_test
}  // namespace toposcope::formats
