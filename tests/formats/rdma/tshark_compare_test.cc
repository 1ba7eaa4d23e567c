// Cross-check of our RoCEv2 decoder against Wireshark: writes a simulated capture of a few hundred
// packets (every opcode class, random QPs/PSNs, IPv4/IPv6, VLAN/QinQ) with PcapWriter, runs
// `tshark -T fields -e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.bth.opcode ...` and
// checks that every packet's three fields (and RETH DMA length, AETH syndrome, DETH source QP where
// present) agree with ReadCapture. Skipped when /usr/bin/tshark is absent.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "toposcope/formats/rdma/pcap_capture.h"

namespace toposcope::formats {
namespace tshark_compare_test {

constexpr const char* kTshark = "/usr/bin/tshark";

struct Expected {
  uint32_t dest_qp, psn;
  uint8_t opcode;
};

// A capture of `n` random RoCE packets; returns what each holds.
std::vector<Expected> WriteSimulatedCapture(const std::string& path, int n) {
  std::vector<uint8_t> ops;
  for (int op = 0; op < 256; ++op) {
    if (IsKnownOpcode(static_cast<uint8_t>(op))) ops.push_back(static_cast<uint8_t>(op));
  }
  std::mt19937_64 rng(2024);
  auto w = PcapWriter::Open(path);
  EXPECT_TRUE(w.ok());
  std::vector<Expected> want;
  const uint8_t src_mac[6] = {0x02, 0, 0, 0, 0, 1}, dst_mac[6] = {0x02, 0, 0, 0, 0, 2};
  int64_t ts = 1700000000000000000;
  for (int i = 0; i < n; ++i) {
    RocePacket p;
    p.opcode = ops[rng() % ops.size()];
    const bool v6 = rng() % 4 == 0;
    if (v6) {
      uint8_t a[16] = {0xfd, 0x02}, b[16] = {0xfd, 0x02};
      a[15] = static_cast<uint8_t>(rng());
      b[15] = static_cast<uint8_t>(rng());
      p.src_ip = IpAddress::V6(a);
      p.dst_ip = IpAddress::V6(b);
    } else {
      p.src_ip = IpAddress::V4(0x0a000000u | static_cast<uint32_t>(rng() % 65536));
      p.dst_ip = IpAddress::V4(0x0a000000u | static_cast<uint32_t>(rng() % 65536));
    }
    for (int v = static_cast<int>(rng() % 3); v > 0; --v)
      p.vlan_ids.push_back(static_cast<uint16_t>(1 + rng() % 4094));
    p.udp_src_port = static_cast<uint16_t>(0xc000 | (rng() & 0x3fff));
    p.dest_qp = static_cast<uint32_t>(rng() & 0xffffff);
    p.psn = static_cast<uint32_t>(rng() & 0xffffff);
    p.pkey = 0xffff;
    p.ack_req = rng() % 2;
    p.pad_count = static_cast<uint8_t>(rng() % 4);
    p.payload_bytes = static_cast<uint32_t>(rng() % 1024);
    p.reth_dma_len = p.payload_bytes;
    p.aeth_syndrome = rng() % 2 ? 0x1f : 0x60;
    p.deth_src_qp = static_cast<uint32_t>(rng() & 0xffffff);
    ts += 1000 + static_cast<int64_t>(rng() % 100000);
    const auto frame = EncodeRoceFrame(p, src_mac, dst_mac);
    EXPECT_TRUE(w->Write(ts, frame).ok());
    want.push_back({p.dest_qp, p.psn, p.opcode});
  }
  EXPECT_TRUE(w->Close().ok());
  return want;
}

TEST(TsharkCompare, EveryPacketAgrees) {
  if (access(kTshark, X_OK) != 0) GTEST_SKIP() << "tshark not installed";
  const std::string path =
      (std::filesystem::temp_directory_path() / ("toposcope_tshark_" + std::to_string(::getpid()) + ".pcap"))
          .string();
  const auto want = WriteSimulatedCapture(path, 400);

  std::vector<RocePacket> ours;
  Diagnostics diag;
  auto summary =
      ReadCapture(path, [&](const RocePacket& p) { ours.push_back(p); }, diag, {.check_icrc = true});
  ASSERT_TRUE(summary.ok());
  ASSERT_EQ(ours.size(), want.size());
  EXPECT_EQ(summary->icrc_bad, 0);

  const std::string cmd =
      std::string(kTshark) + " -r '" + path +
      "' -T fields -e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.bth.opcode "
      "-e infiniband.reth.dmalen -e infiniband.aeth.syndrome -e infiniband.deth.srcqp 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::vector<std::string> lines;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) {
    std::string line(buf);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    lines.push_back(line);
  }
  ASSERT_EQ(pclose(pipe), 0);
  ASSERT_EQ(lines.size(), want.size());
  int agree = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    unsigned long qp = 0, psn = 0, op = 0;
    ASSERT_EQ(std::sscanf(lines[i].c_str(), "%lx\t%lu\t%lu", &qp, &psn, &op), 3)
        << "packet " << i << " (" << OpcodeName(want[i].opcode) << "): tshark printed '" << lines[i] << "'";
    EXPECT_EQ(qp, ours[i].dest_qp) << "packet " << i;
    EXPECT_EQ(psn, ours[i].psn) << "packet " << i;
    EXPECT_EQ(op, ours[i].opcode) << "packet " << i;
    EXPECT_EQ(ours[i].dest_qp, want[i].dest_qp);
    EXPECT_EQ(ours[i].psn, want[i].psn);
    EXPECT_EQ(ours[i].opcode, want[i].opcode);
    agree += qp == ours[i].dest_qp && psn == ours[i].psn && op == ours[i].opcode;
    // The extension headers tshark prints (empty when the opcode has none).
    std::vector<std::string> cols;
    size_t start = 0;
    for (size_t tab; (tab = lines[i].find('\t', start)) != std::string::npos; start = tab + 1) {
      cols.push_back(lines[i].substr(start, tab - start));
    }
    cols.push_back(lines[i].substr(start));
    ASSERT_EQ(cols.size(), 6u) << lines[i];
    EXPECT_EQ(!cols[3].empty(), ours[i].has_reth) << "packet " << i;
    if (ours[i].has_reth) {
      EXPECT_EQ(std::stoul(cols[3], nullptr, 0), ours[i].reth_dma_len);
    }
    EXPECT_EQ(!cols[4].empty(), ours[i].has_aeth) << "packet " << i;
    if (ours[i].has_aeth) {
      EXPECT_EQ(std::stoul(cols[4], nullptr, 0), ours[i].aeth_syndrome);
    }
    EXPECT_EQ(!cols[5].empty(), ours[i].has_deth) << "packet " << i;
    if (ours[i].has_deth) {
      EXPECT_EQ(std::stoul(cols[5], nullptr, 0), ours[i].deth_src_qp);
    }
  }
  EXPECT_EQ(agree, static_cast<int>(want.size()));
  std::filesystem::remove(path);
}

}  // namespace tshark_compare_test
}  // namespace toposcope::formats
