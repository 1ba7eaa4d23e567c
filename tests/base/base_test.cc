// Unit tests of base/: errors, diagnostics, text parsing, link types, names, compressed input.
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/last_lookup.h"
#include "toposcope/base/link_type.h"
#include "toposcope/base/names.h"
#include "toposcope/base/result.h"
#include "toposcope/base/rng.h"
#include "toposcope/base/text.h"
#include "toposcope/base/varint.h"

namespace toposcope {
namespace base_test {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("toposcope_base_test_" + name)).string();
}

TEST(LastLookup, LooksUpOnlyANewKeyAndKeepsNoMiss) {
  toposcope::LastLookup<int, std::string> last;
  int calls = 0;
  const auto lookup = [&calls](int k) -> std::optional<std::string> {
    ++calls;
    if (k < 0) return std::nullopt;
    return "v" + std::to_string(k);
  };
  EXPECT_EQ(last.Find(1, lookup), "v1");
  EXPECT_EQ(last.Find(1, lookup), "v1");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(last.Find(-1, lookup), std::nullopt);  // a miss is not kept: key 1 still is
  EXPECT_EQ(last.Find(1, lookup), "v1");
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(last.Find(2, lookup), "v2");
  EXPECT_EQ(last.Find(1, lookup), "v1");
  EXPECT_EQ(calls, 4);
}

TEST(Varint, RoundTripsAndRefusesCutOrOverlongBytes) {
  std::vector<uint8_t> bytes;
  const uint64_t values[] = {0, 1, 127, 128, 300, uint64_t{1} << 35, UINT64_MAX};
  for (uint64_t v : values) toposcope::AppendVarint(bytes, v);
  EXPECT_EQ(bytes[3], 0x80);  // 128: 0x80 0x01, lowest 7 bits first
  EXPECT_EQ(bytes[4], 0x01);
  const uint8_t* p = bytes.data();
  for (uint64_t v : values) {
    uint64_t got = 0;
    ASSERT_TRUE(toposcope::GetVarint(p, bytes.data() + bytes.size(), &got));
    EXPECT_EQ(got, v);
  }
  EXPECT_EQ(p, bytes.data() + bytes.size());
  uint64_t got = 0;
  const uint8_t cut[] = {0x80, 0x80};
  const uint8_t* q = cut;
  EXPECT_FALSE(toposcope::GetVarint(q, cut + 2, &got));
  const std::vector<uint8_t> overlong(11, 0x80);
  q = overlong.data();
  EXPECT_FALSE(toposcope::GetVarint(q, overlong.data() + overlong.size(), &got));
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, INT64_MIN, INT64_MAX}) {
    EXPECT_EQ(toposcope::UnZigZag(toposcope::ZigZag(v)), v);
  }
  EXPECT_EQ(toposcope::ZigZag(-1), 1u);
  EXPECT_EQ(toposcope::ZigZag(1), 2u);
}

TEST(Error, PrintsPathLineColMessageHint) {
  EXPECT_EQ(MakeError("a.txt", 3, 7, "bad cell", "use NV#").ToString(), "a.txt:3:7: error: bad cell (use NV#)");
  EXPECT_EQ(MakeError("a.txt", 3, 0, "bad").ToString(), "a.txt:3: error: bad");
  EXPECT_EQ(MakeError("no input").ToString(), "error: no input");
}

TEST(Result, HoldsValueOrError) {
  Result<int> ok = 5;
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 5);
  Result<int> bad = MakeError("x");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "x");
}

TEST(Diagnostics, KeepsRejectedRecordsAndCounts) {
  Diagnostics d(2);
  d.Reject("f", 1, "raw\x01text", "bad");
  d.Reject("f", 2, "r2", "bad");
  d.Reject("f", 3, "r3", "bad");  // counted, not kept
  d.Warn("g", 1, "w", "odd");
  EXPECT_EQ(d.rejected_total(), 3);
  EXPECT_EQ(d.RejectedFor("f"), 3);
  EXPECT_EQ(d.warnings_total(), 1);
  ASSERT_EQ(d.items().size(), 3U);
  EXPECT_EQ(d.items()[0].raw, "raw?text");
  EXPECT_EQ(d.items()[0].ToString(), "f:1: rejected: bad: \"raw?text\"");
}

TEST(Text, ParsesNumbersStrictly) {
  EXPECT_EQ(ParseDouble("  26.34 "), 26.34);
  EXPECT_FALSE(ParseDouble("nan"));
  EXPECT_FALSE(ParseDouble("inf"));
  EXPECT_FALSE(ParseDouble("1e999"));
  EXPECT_FALSE(ParseDouble("12x"));
  EXPECT_FALSE(ParseDouble(""));
  EXPECT_EQ(ParseInt("0x1f"), 31);
  EXPECT_EQ(ParseInt("-4"), -4);
  EXPECT_FALSE(ParseInt("99999999999999999999999"));
  EXPECT_FALSE(ParseInt("4.5"));
  EXPECT_EQ(SplitWhitespace(" a\tb  c ").size(), 3U);
  EXPECT_EQ(Split("a,,b", ',').size(), 3U);
  EXPECT_TRUE(LooksBinary(std::string("ab\0cd", 5)));
  EXPECT_FALSE(LooksBinary("GPU0\tGPU1\n"));
  EXPECT_EQ(FormatFixed(-0.0001, 2), "0.00");
}

TEST(LinkType, OrderedBestToWorstAndParsed) {
  EXPECT_LT(LinkType::kNvlink, LinkType::kNvswitch);
  EXPECT_LT(LinkType::kPix, LinkType::kSys);
  EXPECT_LT(LinkType::kSys, LinkType::kNet);
  auto nv = ParseNvsmiCell("NV18");
  ASSERT_TRUE(nv);
  EXPECT_EQ(nv->type, LinkType::kNvlink);
  EXPECT_EQ(nv->lanes, 18);
  EXPECT_EQ(ParseNvsmiCell("NODE")->type, LinkType::kNode);
  EXPECT_FALSE(ParseNvsmiCell("X"));
  EXPECT_FALSE(ParseNvsmiCell("NVx"));
  EXPECT_EQ(NvsmiCell({LinkType::kNvswitch, 12}), "NV12");
  EXPECT_EQ(ParseLinkTypeName("nvswitch"), LinkType::kNvswitch);
  EXPECT_EQ(LinkTypeName(LinkType::kPxb), "PXB");
}

TEST(Names, CanonicalForms) {
  EXPECT_EQ(GpuName("node001", 3), "node001/gpu3");
  EXPECT_EQ(NicName("node001", "mlx5_2"), "node001/mlx5_2");
  auto g = ParseGpuName("a/b/gpu12");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->host, "a/b");
  EXPECT_EQ(g->index, 12);
  EXPECT_FALSE(ParseGpuName("node/mlx5_0"));
}

TEST(Rng, DeterministicAndUniform) {
  Rng a(42), b(42);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.NextU64(), b.NextU64());
  Rng c(7);
  double s = 0;
  for (int i = 0; i < 10000; ++i) s += c.Uniform();
  EXPECT_NEAR(s / 10000, 0.5, 0.02);
}

TEST(FileIo, ReadsPlainGzipAndZstdTransparently) {
  const std::string text = "line one\r\nline two\nlast";
  const std::string plain = TempPath("plain.txt");
  ASSERT_TRUE(WriteFileText(plain, text).ok());
  // gzip
  const std::string gz = TempPath("text.gz");
  gzFile g = gzopen(gz.c_str(), "wb");
  gzwrite(g, text.data(), static_cast<unsigned>(text.size()));
  gzclose(g);
  // zstd
  std::string z(ZSTD_compressBound(text.size()), '\0');
  z.resize(ZSTD_compress(z.data(), z.size(), text.data(), text.size(), 3));
  const std::string zst = TempPath("text.zst");
  ASSERT_TRUE(WriteFileText(zst, z).ok());
  for (const auto& p : {plain, gz, zst}) {
    auto r = ReadFileText(p);
    ASSERT_TRUE(r.ok()) << p << ": " << r.error().ToString();
    EXPECT_EQ(*r, text) << p;
    auto in = OpenInput(p);
    ASSERT_TRUE(in.ok());
    LineReader lr(std::move(*in));
    std::string_view line;
    std::vector<std::string> lines;
    while (lr.Next(&line)) lines.emplace_back(line);
    ASSERT_EQ(lines.size(), 3U) << p;
    EXPECT_EQ(lines[0], "line one");
    EXPECT_EQ(lines[2], "last");
    EXPECT_EQ(lr.error(), nullptr);
  }
}

TEST(FileIo, TruncatedGzipIsAClearError) {
  std::string big(100000, 'a');
  for (size_t i = 0; i < big.size(); i += 7) big[i] = static_cast<char>('a' + (i % 26));
  const std::string gz = TempPath("trunc.gz");
  gzFile g = gzopen(gz.c_str(), "wb");
  gzwrite(g, big.data(), static_cast<unsigned>(big.size()));
  gzclose(g);
  auto whole = ReadFileText(gz);
  ASSERT_TRUE(whole.ok());
  std::filesystem::resize_file(gz, std::filesystem::file_size(gz) / 2);
  auto cut = ReadFileText(gz);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().ToString().find("gzip"), std::string::npos) << cut.error().ToString();
}

TEST(FileIo, MissingFileAndDirectoryAreErrors) {
  auto r = ReadFileText("/nonexistent/file.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().ToString().find("/nonexistent/file.txt"), std::string::npos);
  auto d = ReadFileText("/tmp");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("directory"), std::string::npos);
}

}  // namespace base_test
}  // namespace toposcope

#include "toposcope/base/time.h"

namespace toposcope {
namespace base_test {

TEST(Time, ParsesIsoAndEpochForms) {
  EXPECT_EQ(ParseIsoTimeNs("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseIsoTimeNs("2024-05-01T12:00:00.5Z"), 1714564800500000000LL);
  EXPECT_EQ(ParseIsoTimeNs("2024-05-01 14:00:00+02:00"), 1714564800000000000LL);
  EXPECT_EQ(ParseIsoTimeNs("2024-05-01T12:00:00.123456789Z"), 1714564800123456789LL);
  EXPECT_FALSE(ParseIsoTimeNs("2024-13-01T00:00:00Z"));
  EXPECT_FALSE(ParseIsoTimeNs("yesterday"));
  EXPECT_EQ(ParseEpochAutoNs("1714564800"), 1714564800000000000LL);
  EXPECT_EQ(ParseEpochAutoNs("1714564800.25"), 1714564800250000000LL);
  EXPECT_EQ(ParseEpochAutoNs("1714564800123"), 1714564800123000000LL);
  EXPECT_EQ(ParseEpochAutoNs("1714564800123456789"), 1714564800123456789LL);
  EXPECT_EQ(FormatIsoTimeNs(1714564800123456789LL), "2024-05-01T12:00:00.123456789Z");
  EXPECT_EQ(ParseIsoTimeNs(FormatIsoTimeNs(-1500000000LL)), -1500000000LL);
  LocalNs a{5};
  LocalNs b{7};
  EXPECT_LT(a, b);
}

}  // namespace base_test
}  // namespace toposcope

namespace toposcope {
TEST(Text, SplitCsvLineAndControlChars) {
  std::vector<std::string> c;
  ASSERT_TRUE(SplitCsvLine(" a , \"b,\"\"c\"\" \" ,", c));
  EXPECT_EQ(c, (std::vector<std::string>{"a", "b,\"c\" ", ""}));
  EXPECT_FALSE(SplitCsvLine("\"open", c));
  EXPECT_FALSE(SplitCsvLine("\"x\" y", c));
  ASSERT_TRUE(SplitCsvLine("", c));
  EXPECT_EQ(c, (std::vector<std::string>{""}));
  EXPECT_TRUE(HasControlChars(std::string_view("a\x01", 2)));
  EXPECT_TRUE(HasControlChars("a\x7f"));
  EXPECT_FALSE(HasControlChars("plain text"));
}
}  // namespace toposcope

TEST(Text, EditDistanceAndClosestName) {
  EXPECT_EQ(toposcope::EditDistance("", ""), 0u);
  EXPECT_EQ(toposcope::EditDistance("analyse", "analyze"), 1u);
  EXPECT_EQ(toposcope::EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(toposcope::EditDistance("abc", ""), 3u);
  const std::vector<std::string> names = {"analyze", "align", "links", "islands", "identify", "topo"};
  EXPECT_EQ(toposcope::ClosestName("analyse", names), "analyze");
  EXPECT_EQ(toposcope::ClosestName("link", names), "links");
  EXPECT_EQ(toposcope::ClosestName("top", names), "topo");
  EXPECT_EQ(toposcope::ClosestName("frobnicate", names), "");
  EXPECT_EQ(toposcope::ClosestName("xy", names), "");  // two edits of a two-letter word is no typo
}

TEST(FileIo, PrepareOutputDirSaysWhy) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "toposcope_prepare_output_dir_test";
  fs::remove_all(dir);
  EXPECT_TRUE(toposcope::PrepareOutputDir((dir / "a" / "b").string()).ok());
  EXPECT_TRUE(fs::is_directory(dir / "a" / "b"));
  ASSERT_TRUE(toposcope::WriteFileText((dir / "file").string(), "x").ok());
  const toposcope::Status on_file = toposcope::PrepareOutputDir((dir / "file").string());
  ASSERT_FALSE(on_file.ok());
  EXPECT_EQ(on_file.error().kind, toposcope::ErrorKind::kOutput);
  EXPECT_NE(on_file.error().message.find("it is a file, not a directory"), std::string::npos);
  const toposcope::Status under_file = toposcope::PrepareOutputDir((dir / "file" / "out").string());
  ASSERT_FALSE(under_file.ok());
  EXPECT_NE(under_file.error().message.find((dir / "file").string() + " is a file"), std::string::npos);
  fs::remove_all(dir);
}
