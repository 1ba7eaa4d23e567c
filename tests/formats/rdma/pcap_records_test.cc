// Tests of the classic pcap record walker against libpcap: the same captures read both ways (in
// memory and from a file, through the walker and through libpcap) must give the same records,
// timestamps, packets, counts and diagnostics, byte for byte, on well-formed captures of either
// byte order and timestamp unit, on records cut by the snapshot length, on every truncation of a
// capture, on absurd lengths and timestamps, on random damage, on files longer than the walker's
// buffer, and on the real Soft-RoCE capture and the classic pcaps of testdata.
#include "toposcope/formats/rdma/pcap_records.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "roce_frames.h"
#include "toposcope/formats/rdma/pcap_capture.h"

namespace toposcope::formats {
namespace pcap_records_test {

struct Rec {
  uint32_t sec = 0, frac = 0, caplen = 0, len = 0;
  std::vector<uint8_t> data;
};

void Put32(std::vector<uint8_t>& v, uint32_t x, bool big) {
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<uint8_t>(x >> (big ? 8 * (3 - i) : 8 * i)));
}
void Put16(std::vector<uint8_t>& v, uint16_t x, bool big) {
  v.push_back(static_cast<uint8_t>(big ? x >> 8 : x));
  v.push_back(static_cast<uint8_t>(big ? x : x >> 8));
}

std::vector<uint8_t> Capture(bool big, bool nano, uint32_t snaplen, const std::vector<Rec>& recs) {
  std::vector<uint8_t> b;
  Put32(b, nano ? 0xa1b23c4du : 0xa1b2c3d4u, big);
  Put16(b, 2, big);
  Put16(b, 4, big);
  Put32(b, 0, big);
  Put32(b, 0, big);
  Put32(b, snaplen, big);
  Put32(b, 1, big);  // Ethernet
  for (const Rec& r : recs) {
    Put32(b, r.sec, big);
    Put32(b, r.frac, big);
    Put32(b, r.caplen, big);
    Put32(b, r.len, big);
    b.insert(b.end(), r.data.begin(), r.data.end());
  }
  return b;
}

std::vector<uint8_t> Frame(uint8_t opcode, uint32_t qp, uint32_t psn, uint32_t payload) {
  return TestRoceFrame(opcode, qp, psn, payload);
}

Rec Whole(uint32_t sec, uint32_t frac, std::vector<uint8_t> f) {
  Rec r{sec, frac, static_cast<uint32_t>(f.size()), static_cast<uint32_t>(f.size()), std::move(f)};
  return r;
}

// Everything a reading yields, as text (the source's name left out).
std::string Fingerprint(const Result<CaptureSummary>& s, const Diagnostics& diag, const std::vector<RocePacket>& pkts) {
  std::ostringstream o;
  if (!s.ok()) {
    o << "error " << s.error().message;
    return o.str();
  }
  o << "dlt " << s->dlt << " snap " << s->snaplen << " records " << s->records << " roce " << s->roce << " not "
    << s->not_roce << " bad " << s->malformed << " trunc " << s->truncated << " icrc " << s->icrc_bad << " bytes "
    << s->bytes_read << " broke " << s->broke_off << " ts " << s->first_ts_ns << ".." << s->last_ts_ns << "\n";
  for (const Diagnostic& d : diag.items()) {
    o << "diag " << static_cast<int>(d.severity) << " @" << d.byte_offset << " " << d.raw << " " << d.reason << "\n";
  }
  for (const RocePacket& p : pkts) {
    o << p.ts_ns << " " << int{p.opcode} << " " << p.dest_qp << " " << p.psn << " " << p.cap_len << "/" << p.wire_len
      << " " << static_cast<int>(p.icrc) << "\n";
  }
  return o.str();
}

std::string ReadMem(const std::vector<uint8_t>& bytes, bool through_libpcap) {
  Diagnostics diag;
  std::vector<RocePacket> pkts;
  const Result<CaptureSummary> s = ReadCaptureBytes(
      bytes, "capture", [&](const RocePacket& p) { pkts.push_back(p); }, diag,
      {.check_icrc = true, .capture_index = 0, .through_libpcap = through_libpcap});
  return Fingerprint(s, diag, pkts);
}

std::string ReadPath(const std::string& path, bool through_libpcap) {
  Diagnostics diag;
  std::vector<RocePacket> pkts;
  const Result<CaptureSummary> s = ReadCapture(
      path, [&](const RocePacket& p) { pkts.push_back(p); }, diag,
      {.check_icrc = true, .capture_index = 0, .through_libpcap = through_libpcap});
  return Fingerprint(s, diag, pkts);
}

// A file of this test's own (ctest runs the tests of this file side by side).
std::string TempPath(const std::string& name) {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  return (std::filesystem::temp_directory_path() /
          ("toposcope_pcap_records_" + test + "_" + std::to_string(getpid()) + "_" + name))
      .string();
}

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// The four readings agree; returns the walker's (for checks of its own).
std::string ExpectSameAsLibpcap(const std::vector<uint8_t>& bytes, const std::string& what) {
  const std::string walked = ReadMem(bytes, false);
  EXPECT_EQ(walked, ReadMem(bytes, true)) << what;
  const std::string path = TempPath("same.pcap");
  WriteFile(path, bytes);
  EXPECT_EQ(ReadPath(path, false), walked) << what << " (file)";
  EXPECT_EQ(ReadPath(path, true), walked) << what << " (file, libpcap)";
  std::filesystem::remove(path);
  return walked;
}

std::vector<Rec> SomeRecords() {
  std::vector<Rec> recs;
  for (uint32_t i = 0; i < 12; ++i) {
    recs.push_back(Whole(1700000000 + i, 1000 * i + 7, Frame(i % 3 ? 0x04 : 0x0a, 0x100 + i, i, 20 + 30 * i)));
  }
  return recs;
}

TEST(PcapRecords, ParsesTheFileHeader) {
  ClassicPcapHeader h;
  const std::vector<uint8_t> le = Capture(false, true, 65535, {});
  ASSERT_TRUE(ParseClassicPcapHeader(le, &h));
  EXPECT_FALSE(h.swapped);
  EXPECT_TRUE(h.nanoseconds);
  EXPECT_EQ(h.version_major, 2);
  EXPECT_EQ(h.version_minor, 4);
  const std::vector<uint8_t> be = Capture(true, false, 65535, {});
  ASSERT_TRUE(ParseClassicPcapHeader(be, &h));
  EXPECT_TRUE(h.swapped);
  EXPECT_FALSE(h.nanoseconds);
  EXPECT_EQ(h.version_minor, 4);
  EXPECT_FALSE(ParseClassicPcapHeader(std::span<const uint8_t>(le.data(), 23), &h));
  std::vector<uint8_t> ng = le;
  ng[0] = 0x0a;
  EXPECT_FALSE(ParseClassicPcapHeader(ng, &h));
}

TEST(PcapRecords, RealAndTestCapturesReadAsThroughLibpcap) {
  // The real Soft-RoCE capture and every classic pcap in testdata: walked (in memory and from the
  // file) exactly as libpcap reads them, broken tail and cut records included.
  std::vector<std::string> paths = {std::string(TOPOSCOPE_FIXTURES) +
                                    "/pcap/derived/pcapplusplus_pr1603_softroce_rdma_read_req.pcap"};
  for (const auto& e : std::filesystem::directory_iterator(std::string(TOPOSCOPE_TESTDATA) + "/pcap")) {
    if (e.path().extension() == ".pcap") paths.push_back(e.path().string());
  }
  ASSERT_GE(paths.size(), 4u);
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(bytes.size(), 24u) << path;
    const std::string walked = ReadMem(bytes, false);
    EXPECT_EQ(walked, ReadMem(bytes, true)) << path;
    EXPECT_EQ(ReadPath(path, false), walked) << path;
    EXPECT_EQ(ReadPath(path, true), walked) << path;
    EXPECT_EQ(walked.find("error"), std::string::npos) << path;
  }
}

TEST(PcapRecords, SameAsLibpcapInEitherByteOrderAndUnit) {
  for (const bool big : {false, true}) {
    for (const bool nano : {false, true}) {
      const std::string what = std::string(big ? "big" : "little") + (nano ? " nano" : " micro");
      const std::string text = ExpectSameAsLibpcap(Capture(big, nano, 65535, SomeRecords()), what);
      EXPECT_NE(text.find("records 12 roce 12"), std::string::npos) << text;
    }
  }
}

TEST(PcapRecords, SameAsLibpcapOnOddTimestamps) {
  // Seconds past 2^31 (libpcap reads them signed), fractions past a second, and the largest
  // fields: each record is read, or rejected, exactly as libpcap hands it.
  for (const bool nano : {false, true}) {
    std::vector<Rec> recs;
    for (const uint32_t sec : {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu}) {
      for (const uint32_t frac : {0u, 999999u, 1000000u, 999999999u, 0x80000000u, 0xffffffffu}) {
        recs.push_back(Whole(sec, frac, Frame(0x04, 1, 2, 8)));
      }
    }
    ExpectSameAsLibpcap(Capture(false, nano, 65535, recs), nano ? "nano" : "micro");
  }
}

TEST(PcapRecords, SameAsLibpcapOnRecordsLongerThanTheSnapshot) {
  for (const uint32_t snaplen : {0u, 60u, 100u, 262144u, 300000u}) {
    std::vector<Rec> recs = SomeRecords();
    Rec longer = Whole(1700000100, 5, Frame(0x0a, 9, 9, 400));
    recs.insert(recs.begin() + 3, longer);
    // One byte over the snapshot length, and exactly at it.
    const uint32_t at = snaplen == 0 || snaplen > 262144 ? 262144 : snaplen;
    recs.push_back(Rec{1700000101, 6, at + 1, at + 1, std::vector<uint8_t>(at + 1, 0x22)});
    recs.push_back(Rec{1700000102, 7, at, at + 9, std::vector<uint8_t>(at, 0x33)});
    recs.push_back(Whole(1700000103, 8, Frame(0x04, 12, 12, 16)));
    const std::string text = ExpectSameAsLibpcap(Capture(false, true, snaplen, recs), "snaplen " + std::to_string(snaplen));
    // Past libpcap's largest record (262144 bytes) the capture breaks off instead.
    EXPECT_NE(text.find(at < 262144 ? "records 16" : "records 14"), std::string::npos) << text;
  }
}

TEST(PcapRecords, SameAsLibpcapOnAbsurdLengths) {
  for (const uint32_t caplen : {262144u, 262145u, 300000u, 0xffffffffu}) {
    for (const uint32_t snaplen : {65535u, 262144u, 0x7fffffffu}) {
      std::vector<Rec> recs = SomeRecords();
      Rec absurd{1700000200, 1, caplen, caplen, std::vector<uint8_t>(100, 0xab)};
      recs.insert(recs.begin() + 2, absurd);
      ExpectSameAsLibpcap(Capture(false, false, snaplen, recs),
                          "caplen " + std::to_string(caplen) + " snaplen " + std::to_string(snaplen));
    }
  }
}

TEST(PcapRecords, SameAsLibpcapAtEveryTruncation) {
  const std::vector<uint8_t> whole = Capture(false, true, 100, SomeRecords());
  for (size_t n = 24; n <= whole.size(); ++n) {
    const std::vector<uint8_t> cut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_EQ(ReadMem(cut, false), ReadMem(cut, true)) << "cut at " << n;
  }
}

TEST(PcapRecords, SameAsLibpcapOnRandomDamage) {
  std::mt19937_64 rng(11);
  const std::vector<uint8_t> base = Capture(false, false, 65535, SomeRecords());
  for (int round = 0; round < 400; ++round) {
    std::vector<uint8_t> b = base;
    const int flips = 1 + static_cast<int>(rng() % 6);
    for (int k = 0; k < flips; ++k) b[24 + rng() % (b.size() - 24)] = static_cast<uint8_t>(rng());
    if (rng() % 2) b.resize(24 + rng() % (b.size() - 23));
    EXPECT_EQ(ReadMem(b, false), ReadMem(b, true)) << "round " << round;
  }
}

TEST(PcapRecords, FileLongerThanTheBufferIsReadWhole) {
  // About 4 MB of records of many sizes: the walker refills its buffer mid-record many times.
  std::mt19937_64 rng(5);
  std::vector<Rec> recs;
  for (uint32_t i = 0; i < 3000; ++i) {
    recs.push_back(Whole(1700000000 + i / 100, (i % 100) * 1000, Frame(0x04, i, i, static_cast<uint32_t>(rng() % 2600))));
  }
  recs.push_back(Rec{1700000300, 0, 70000, 70000, std::vector<uint8_t>(70000, 0x11)});  // not RoCE, long
  const std::vector<uint8_t> bytes = Capture(false, true, 262144, recs);
  ASSERT_GT(bytes.size(), size_t{3} << 20);
  const std::string path = TempPath("long.pcap");
  WriteFile(path, bytes);
  const std::string walked = ReadPath(path, false);
  EXPECT_EQ(walked, ReadPath(path, true));
  EXPECT_NE(walked.find("records 3001 roce 3000 not 1"), std::string::npos) << walked.substr(0, 200);
  // Cut in the middle of a record far into the file.
  WriteFile(path, std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(bytes.size() * 2 / 3)));
  EXPECT_EQ(ReadPath(path, false), ReadPath(path, true));
  std::filesystem::remove(path);
}

}  // namespace pcap_records_test
}  // namespace toposcope::formats
