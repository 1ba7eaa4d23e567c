// Tests of the helpers the readers and passes share from base: in-memory line stepping, CSV data
// lines and header columns, name tables, Cat / EqualsIgnoreCase / FormatPercent, error kinds, the
// diagnostics a dump carries, json_io's lossless round trip, hex digits, FNV-1a and floor division.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "toposcope/base/csv.h"
#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/hash.h"
#include "toposcope/base/json_io.h"
#include "toposcope/base/result.h"
#include "toposcope/base/text.h"
#include "toposcope/base/time.h"

namespace toposcope {

// A struct made dumpable the way the pass outputs are.
struct DumpSample {
  enum class Kind { kA, kB };
  std::string name;
  double x = 0;
  std::vector<double> xs;
  std::map<std::pair<int, std::string>, int64_t> by_pair;
  std::map<std::string, std::set<int>> by_name;
  std::optional<int> maybe;
  Kind kind = Kind::kA;
  uint64_t big = 0;
  IpAddress ip;
};
TOPOSCOPE_JSON_FIELDS(DumpSample, name, x, xs, by_pair, by_name, maybe, kind, big, ip)

namespace shared_helpers_test {

TEST(TextLines, StepsThroughMemory) {
  TextLines lines("a\r\n\n  b  \nc");
  std::string_view l;
  std::vector<std::string> got;
  while (lines.Next(&l)) got.emplace_back(l);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "", "  b  ", "c"}));
  TextLines again("\n  b  \n\n");
  std::string_view raw, t;
  ASSERT_TRUE(again.NextNonBlank(&raw, &t));
  EXPECT_EQ(raw, "  b  ");
  EXPECT_EQ(t, "b");
  EXPECT_FALSE(again.NextNonBlank(&raw, &t));
  EXPECT_TRUE(SplitLines("").empty());
  EXPECT_EQ(SplitLines("x\n").size(), 1U);
}

TEST(Csv, DataLinesAndHeaderColumns) {
  LineReader lines = TextLineReader("\xEF\xBB\xBFts,host\n\n# note\n 1,a \n");
  std::string_view raw, t;
  ASSERT_TRUE(NextCsvLine(lines, &raw, &t));
  EXPECT_EQ(t, "ts,host");
  ASSERT_TRUE(NextCsvLine(lines, &raw, &t));
  EXPECT_EQ(t, "1,a");
  EXPECT_FALSE(NextCsvLine(lines, &raw, &t));

  int ts = -1, host = -1, gpu = -1;
  std::vector<size_t> unknown;
  EXPECT_EQ(FindCsvColumns({"TS_NS", "Host", "extra"}, {{"ts|ts_ns", &ts}, {"host", &host}, {"gpu", &gpu}}, &unknown),
            -1);
  EXPECT_EQ(ts, 0);
  EXPECT_EQ(host, 1);
  EXPECT_EQ(gpu, -1);
  EXPECT_EQ(unknown, (std::vector<size_t>{2}));
  int a = -1;
  EXPECT_EQ(FindCsvColumns({"ts", "time"}, {{"ts|time", &a}}), 1);  // two cells name one column
}

TEST(Text, SharedHelpers) {
  EXPECT_EQ(Cat({"a", "", "bc"}), "abc");
  EXPECT_TRUE(EqualsIgnoreCase("NVLink", "nvLINK"));
  EXPECT_FALSE(EqualsIgnoreCase("nvlink", "nvlinks"));
  EXPECT_EQ(FormatPercent(0.256), "26%");
  EXPECT_EQ(FormatPercent(0), "0%");
  std::string out = "n=";
  AppendDecimal(&out, -42);
  EXPECT_EQ(out, "n=-42");
  enum class Color { kRed, kBlue };
  static constexpr NamedValue<Color> kColors[] = {{Color::kRed, "red"}, {Color::kBlue, "blue"}};
  EXPECT_EQ(NameIn(kColors, Color::kBlue, "?"), "blue");
  EXPECT_EQ(ValueIn(kColors, "red"), Color::kRed);
  EXPECT_FALSE(ValueIn(kColors, "green").has_value());
}

TEST(Text, StripAnsi) {
  EXPECT_EQ(StripAnsi("\x1b[1;32mGPU0\x1b[0m\tX"), "GPU0\tX");
  EXPECT_EQ(StripAnsi("a\x1b(Bb"), "aBb");    // two-byte ESC x: ESC and '(' go, 'B' stays
  EXPECT_EQ(StripAnsi("plain"), "plain");
  EXPECT_EQ(StripAnsi("cut\x1b["), "cut");    // a sequence cut at the end of the text
}

TEST(ErrorKind, DefaultsToInputAndCarries) {
  EXPECT_EQ(MakeError("x").kind, ErrorKind::kInput);
  EXPECT_EQ(MakeKindError(ErrorKind::kUsage, "bad flag").kind, ErrorKind::kUsage);
  EXPECT_EQ(WithKind(MakeError("f", 1, 0, "m"), ErrorKind::kOutput).kind, ErrorKind::kOutput);
  EXPECT_EQ(ErrorKindName(ErrorKind::kInternal), "internal");
  // A file that cannot be written is an output error.
  const Status st = WriteFileText("/dev/null/cannot/be/here.txt", "x");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::kOutput);
}

TEST(Diagnostics, AbsorbKeepsTotalsAndCuts) {
  Diagnostics a(1);
  a.Reject("f", 1, "x", "bad");
  a.Reject("f", 2, "y", "bad");
  a.Warn("g", 3, "z", "odd");
  Diagnostics b(1);
  b.Absorb(a.items(), a.rejected_total(), a.warnings_total(), a.rejected_per_source());
  EXPECT_EQ(b.rejected_total(), 2);
  EXPECT_EQ(b.warnings_total(), 1);
  EXPECT_EQ(b.RejectedFor("f"), 2);
  EXPECT_EQ(b.items().size(), a.items().size());
  const auto back = json_io::FromJsonText<Diagnostics>(json_io::ToJsonText(a), "d");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->rejected_total(), 2);
  EXPECT_EQ(back->items().size(), 2U);
  EXPECT_EQ(back->items()[0].ToString(), a.items()[0].ToString());
}

TEST(JsonIo, RoundTripIsLossless) {
  DumpSample s;
  s.name = "n";
  s.x = 0.1 + 0.2;  // not representable in few digits
  s.xs = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity(), -0.0, 1e-310};
  s.by_pair = {{{1, "a"}, 7}, {{0, "b"}, -9000000000000000000LL}};
  s.by_name = {{"k", {3, 1}}};
  s.maybe = 5;
  s.kind = DumpSample::Kind::kB;
  s.big = 18446744073709551615ULL;
  s.ip = *IpAddress::Parse("fd02::1");
  const std::string text = json_io::ToJsonText(s);
  auto back = json_io::FromJsonText<DumpSample>(text, "sample");
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_EQ(json_io::ToJsonText(*back), text);
  EXPECT_EQ(back->x, s.x);
  EXPECT_TRUE(std::isnan(back->xs[0]));
  EXPECT_TRUE(std::isinf(back->xs[1]) && back->xs[1] > 0);
  EXPECT_TRUE(std::signbit(back->xs[3]));
  EXPECT_EQ(back->xs[4], 1e-310);
  EXPECT_EQ(back->by_pair, s.by_pair);
  EXPECT_EQ(back->by_name, s.by_name);
  EXPECT_EQ(back->maybe, 5);
  EXPECT_EQ(back->kind, DumpSample::Kind::kB);
  EXPECT_EQ(back->big, s.big);
  EXPECT_EQ(back->ip, s.ip);
}

TEST(JsonIo, PackedBytesRoundTripBitForBit) {
  DumpSample s;
  s.name = std::string("n\0with a nul", 12);
  s.x = 0.1 + 0.2;
  s.xs = {std::nan("0x123"), std::numeric_limits<double>::infinity(), -0.0, 5e-324};
  s.by_pair = {{{1, "a"}, 7}, {{0, "b"}, -9000000000000000000LL}};
  s.by_name = {{"k", {3, 1}}, {"", {}}};
  s.maybe = 5;
  s.kind = DumpSample::Kind::kB;
  s.big = 18446744073709551615ULL;
  s.ip = *IpAddress::Parse("fd02::1");
  const std::string bytes = json_io::ToPackedBytes(s);
  auto back = json_io::FromPackedBytes<DumpSample>(bytes, "sample");
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_EQ(json_io::ToPackedBytes(*back), bytes);
  EXPECT_EQ(json_io::ToJsonText(*back), json_io::ToJsonText(s));
  EXPECT_EQ(back->name, s.name);
  uint64_t want = 0, got = 0;
  std::memcpy(&want, &s.xs[0], 8);
  std::memcpy(&got, &back->xs[0], 8);
  EXPECT_EQ(got, want);  // the NaN's payload too
  EXPECT_TRUE(std::signbit(back->xs[2]));
  EXPECT_EQ(back->by_pair, s.by_pair);
  EXPECT_EQ(back->by_name, s.by_name);
  EXPECT_EQ(back->maybe, 5);
  EXPECT_EQ(back->kind, DumpSample::Kind::kB);
  EXPECT_EQ(back->ip, s.ip);
  s.ip = *IpAddress::Parse("10.1.2.3");
  s.maybe.reset();
  back = json_io::FromPackedBytes<DumpSample>(json_io::ToPackedBytes(s), "sample");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->ip, s.ip);
  EXPECT_FALSE(back->maybe.has_value());
  // Bytes cut anywhere, or followed by more, or holding a count past their end, are errors that
  // name their source.
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto cut = json_io::FromPackedBytes<DumpSample>(std::string_view(bytes).substr(0, n), "rank 2");
    ASSERT_FALSE(cut.ok()) << n;
    EXPECT_NE(cut.error().ToString().find("rank 2"), std::string::npos);
  }
  EXPECT_FALSE(json_io::FromPackedBytes<DumpSample>(bytes + "x", "x").ok());
  std::string absurd = bytes;
  const uint64_t huge = uint64_t{1} << 60;
  std::memcpy(absurd.data(), &huge, 8);  // the name's length
  auto bad = json_io::FromPackedBytes<DumpSample>(absurd, "x");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().ToString().find("past the bytes left"), std::string::npos);
}

TEST(JsonIo, BadTextIsAnErrorNamingTheSource) {
  auto a = json_io::FromJsonText<DumpSample>("{\"name\": 3}", "dump.json");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().ToString().find("dump.json"), std::string::npos);
  EXPECT_NE(a.error().ToString().find("name"), std::string::npos);
  EXPECT_FALSE((json_io::FromJsonText<DumpSample>("[", "x").ok()));
  EXPECT_FALSE((json_io::FromJsonText<DumpSample>("{\"ip\": \"not an ip\"}", "x").ok()));
  EXPECT_FALSE((json_io::FromJsonText<DumpSample>("{\"big\": -1}", "x").ok()));
  // Missing fields keep their defaults.
  auto d = json_io::FromJsonText<DumpSample>("{}", "x");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->name, "");
}


TEST(Text, HexDigitsAndNumbers) {
  EXPECT_EQ(HexDigitValue('0'), 0);
  EXPECT_EQ(HexDigitValue('a'), 10);
  EXPECT_EQ(HexDigitValue('F'), 15);
  EXPECT_EQ(HexDigitValue('g'), -1);
  EXPECT_EQ(ParseHexU64("0002c90200417670"), std::optional<uint64_t>(0x0002c90200417670ULL));
  EXPECT_EQ(ParseHexU64("FFFFFFFFFFFFFFFF"), std::optional<uint64_t>(~0ULL));
  EXPECT_FALSE(ParseHexU64(""));
  EXPECT_FALSE(ParseHexU64("10000000000000000"));  // 17 digits
  EXPECT_FALSE(ParseHexU64("0x10"));                // no prefix taken
  EXPECT_FALSE(ParseHexU64("12 "));
}

TEST(Text, CsvBareQuoteIsAChoice) {
  std::vector<std::string> cells;
  EXPECT_TRUE(SplitCsvLine("a,b\"c", cells));
  EXPECT_EQ(cells, (std::vector<std::string>{"a", "b\"c"}));
  EXPECT_FALSE(SplitCsvLine("a,b\"c", cells, CsvBareQuote::kReject));
  EXPECT_TRUE(SplitCsvLine(" \"x,\"\"y\" , z ,", cells, CsvBareQuote::kReject));
  EXPECT_EQ(cells, (std::vector<std::string>{"x,\"y", "z", ""}));
}

TEST(Hash, Fnv1aKnownVectors) {
  // The published 64-bit FNV-1a test vectors.
  EXPECT_EQ(Fnv1a(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a("foobar"), 0x85944171f73967e8ULL);
}

TEST(Time, FloorDivRoundsDown) {
  EXPECT_EQ(FloorDiv(7, 2), 3);
  EXPECT_EQ(FloorDiv(-7, 2), -4);
  EXPECT_EQ(FloorDiv(-8, 2), -4);
  EXPECT_EQ(FloorDiv(7, -2), -4);
  EXPECT_EQ(FloorDiv(-1, 86400), -1);
}

}  // namespace shared_helpers_test
}  // namespace toposcope
