// Tests of the DCGM CSV reader (long and wide forms, column aliases, RFC 4180 quoting, ISO and
// epoch timestamps, duplicates and out-of-order rows, bad inputs) and its writers (round trips).
#include "toposcope/formats/dcgm/dcgm_csv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "toposcope/base/file_io.h"

namespace toposcope::formats {
namespace dcgm_csv_test {

const std::string kData = std::string(TOPOSCOPE_TESTDATA) + "/prom";
constexpr int64_t kT0Ns = int64_t{1714564800} * 1000000000;  // 2024-05-01T12:00:00Z

struct Parsed {
  Diagnostics diag;
  ReadCounts counts;
  std::unique_ptr<Result<DcgmCsv>> r;
};

std::unique_ptr<Parsed> Parse(std::string_view text) {
  auto p = std::make_unique<Parsed>();
  p->r = std::make_unique<Result<DcgmCsv>>(ParseDcgmCsv(text, "test", p->diag, p->counts));
  EXPECT_TRUE(p->counts.Balanced());
  EXPECT_EQ(p->diag.rejected_total(), p->counts.rejected);
  return p;
}

std::unique_ptr<Parsed> ParseFile(const std::string& path) {
  auto text = ReadFileText(path);
  EXPECT_TRUE(text.ok()) << path;
  return Parse(text.ok() ? *text : std::string());
}

TEST(DcgmCsv, LongFormEpochMs) {
  auto p = ParseFile(kData + "/long.csv");
  ASSERT_TRUE(p->r->ok()) << p->r->error().ToString();
  const auto& c = **p->r;
  EXPECT_EQ(c.summary.layout, DcgmCsvLayout::kLong);
  EXPECT_EQ(p->counts.read, 6);
  EXPECT_EQ(p->counts.rejected, 0);
  ASSERT_EQ(c.samples.size(), 6u);
  EXPECT_EQ(c.summary.nan_values, 2);
  EXPECT_EQ(c.samples[0].ts_ns, kT0Ns);
  EXPECT_EQ(c.samples[0].host, "node-a");
  EXPECT_EQ(c.samples[0].gpu, 0);
  EXPECT_EQ(c.samples[0].field, "DCGM_FI_PROF_NVLINK_TX_BYTES");
  EXPECT_EQ(c.samples[0].value, 1000.0);
  EXPECT_EQ(c.samples[0].line, 3);
  EXPECT_EQ(c.samples[1].value, 2000.5);
  EXPECT_EQ(c.samples[2].field, "nvltx");
  EXPECT_TRUE(std::isnan(c.samples[2].value));
  EXPECT_TRUE(std::isnan(c.samples[4].value));
  EXPECT_EQ(c.samples[5].field, "1011");
  EXPECT_EQ(c.samples[5].ts_ns, kT0Ns + 1000000000);
}

TEST(DcgmCsv, WideFormIsoAliases) {
  auto p = ParseFile(kData + "/wide_iso.csv");
  ASSERT_TRUE(p->r->ok()) << p->r->error().ToString();
  const auto& c = **p->r;
  EXPECT_EQ(c.summary.layout, DcgmCsvLayout::kWide);
  EXPECT_EQ(c.summary.field_columns,
            (std::vector<std::string>{"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_PROF_NVLINK_TX_BYTES"}));
  EXPECT_EQ(p->counts.read, 4);
  EXPECT_EQ(c.summary.rows, 4);
  ASSERT_EQ(c.samples.size(), 8u);
  EXPECT_EQ(c.summary.nan_values, 1);
  EXPECT_EQ(c.samples[0].ts_ns, kT0Ns);
  EXPECT_EQ(c.samples[1].field, "DCGM_FI_PROF_NVLINK_TX_BYTES");
  EXPECT_EQ(c.samples[1].value, 1.5e9);
  EXPECT_TRUE(std::isnan(c.samples[3].value));
  EXPECT_EQ(c.samples[4].ts_ns, kT0Ns + 1250000000);
  EXPECT_EQ(c.samples[6].ts_ns, kT0Ns + 1250000000);  // "2024-05-01 12:00:01.25", no zone = UTC
  EXPECT_EQ(c.samples[6].gpu, 1);
  EXPECT_EQ(c.samples[7].value, 7.0);
}

TEST(DcgmCsv, QuotedFieldsAndInstanceHost) {
  auto p = ParseFile(kData + "/quoted.csv");
  ASSERT_TRUE(p->r->ok()) << p->r->error().ToString();
  const auto& c = **p->r;
  EXPECT_EQ(p->counts.read, 3);
  EXPECT_EQ(p->counts.rejected, 0);
  ASSERT_EQ(c.samples.size(), 3u);
  EXPECT_EQ(c.samples[0].host, "node-a");  // instance "node-a:9400" loses its port
  EXPECT_EQ(c.samples[0].gpu, 0);          // GPU0
  EXPECT_EQ(c.samples[0].ts_ns, kT0Ns);    // epoch seconds
  EXPECT_EQ(c.samples[1].host, "node,b");
  EXPECT_EQ(c.samples[1].field, "say \"hi\"");
  EXPECT_EQ(c.samples[2].field, "multi\nline");
  EXPECT_EQ(c.samples[2].line, 4);
  EXPECT_EQ(c.samples[2].value, 30.0);
}

TEST(DcgmCsv, EpochUnitsAndCaseInsensitiveHeader) {
  const std::string text =
      "TS,Host,GPU,Field_ID,VALUE\n"
      "1714564800,h,0,1011,1\n"
      "1714564800.5,h,0,1012,1\n"
      "1714564800000,h,1,1011,1\n"
      "1714564800000000,h,2,1011,1\n"
      "1714564800000000123,h,3,1011,1\n"
      "2024-05-01T14:00:00+02:00,h,4,1011,1\n";
  auto p = Parse(text);
  ASSERT_TRUE(p->r->ok());
  const auto& s = (*p->r)->samples;
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s[0].ts_ns, kT0Ns);
  EXPECT_EQ(s[1].ts_ns, kT0Ns + 500000000);
  EXPECT_EQ(s[2].ts_ns, kT0Ns);
  EXPECT_EQ(s[3].ts_ns, kT0Ns);
  EXPECT_EQ(s[4].ts_ns, kT0Ns + 123);
  EXPECT_EQ(s[5].ts_ns, kT0Ns);
}

TEST(DcgmCsv, NoHostColumnCommentsBlankLinesCrlfBom) {
  const std::string text = "\xEF\xBB\xBFtime,gpu_id,metric,value\r\n# comment\r\n\r\n1714564800,7,nvlrx,3.25\r\n";
  auto p = Parse(text);
  ASSERT_TRUE(p->r->ok()) << p->r->error().ToString();
  const auto& s = (*p->r)->samples;
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].host, "");
  EXPECT_EQ(s[0].gpu, 7);
  EXPECT_EQ(s[0].value, 3.25);
  EXPECT_EQ(s[0].line, 4);
}

TEST(DcgmCsv, DuplicatesRejectedOutOfOrderWarned) {
  const std::string text =
      "ts,host,gpu,field,value\n"
      "1714564801000,h,0,a,1\n"  // 2
      "1714564801000,h,0,b,1\n"  // 3 other series: fine
      "1714564801000,h,0,a,2\n"  // 4 duplicate
      "1714564800000,h,0,a,3\n"  // 5 out of order: warned, accepted
      "1714564800000,h,0,a,3\n"  // 6 duplicate of the last ts
      "1714564801000,h,1,a,1\n"  // 7 other gpu: fine
      "1714564801000,g,0,a,1\n"; // 8 other host: fine
  auto p = Parse(text);
  ASSERT_TRUE(p->r->ok());
  EXPECT_EQ(p->counts.read, 7);
  EXPECT_EQ(p->counts.accepted, 5);
  EXPECT_EQ(p->counts.rejected, 2);
  EXPECT_EQ((*p->r)->summary.out_of_order, 1);
  EXPECT_EQ(p->diag.warnings_total(), 1);
  std::vector<int64_t> rejected;
  for (const auto& d : p->diag.items()) {
    if (d.severity == Severity::kRejected) rejected.push_back(d.line);
  }
  EXPECT_EQ(rejected, (std::vector<int64_t>{4, 6}));

  // Wide: a repeated (ts, host, gpu) row is a duplicate.
  auto w = Parse("ts,host,gpu,x,y\n1,h,0,1,2\n1,h,0,1,2\n2,h,0,1,2\n");
  ASSERT_TRUE(w->r->ok());
  EXPECT_EQ(w->counts.rejected, 1);
  EXPECT_EQ((*w->r)->samples.size(), 4u);
}

TEST(DcgmCsv, BadRows) {
  const std::string text =
      "ts,host,gpu,field,value\n"
      "1714564800,h,0,a,1\n"          // 2 ok
      "1714564800,h,0,a\n"            // 3 wrong column count
      "yesterday,h,0,b,1\n"           // 4 bad ts
      ",h,0,b,1\n"                    // 5 missing ts
      "1714564800,h,x,b,1\n"          // 6 bad gpu
      "1714564800,h,0,b,abc\n"        // 7 bad number
      "1714564800,h,0,b,1e999\n"      // 8 out of range
      "1714564800,h,0,b,inf\n"        // 9 infinity
      "1714564800,h,0,,1\n"           // 10 empty field
      "1714564800,\"h\"x,0,b,1\n"     // 11 junk after a closing quote
      "1714564800,h\"x,0,b,1\n"       // 12 quote in an unquoted field
      "1714564800,h,0,b,1,extra\n"    // 13 wrong column count
      "1714564800,h,-1,b,1\n"         // 14 bad gpu
      "1714564800,h,0,\"b";           // 15 unterminated quote at the end
  auto p = Parse(text);
  ASSERT_TRUE(p->r->ok());
  EXPECT_EQ(p->counts.read, 14);
  EXPECT_EQ(p->counts.accepted, 1);
  EXPECT_EQ(p->counts.rejected, 13);
  std::vector<int64_t> lines;
  for (const auto& d : p->diag.items()) lines.push_back(d.line);
  std::vector<int64_t> expected;
  for (int64_t i = 3; i <= 15; ++i) expected.push_back(i);
  EXPECT_EQ(lines, expected);
  EXPECT_NE(p->diag.items()[0].reason.find("wrong column count"), std::string::npos);
  EXPECT_NE(p->diag.items()[1].reason.find("bad ts"), std::string::npos);
  EXPECT_NE(p->diag.items()[4].reason.find("bad number"), std::string::npos);

  // Wide: one bad cell rejects the row.
  auto w = Parse("ts,host,gpu,x,y\n1714564800,h,0,1,zz\n1714564801,h,0,1,2\n");
  ASSERT_TRUE(w->r->ok());
  EXPECT_EQ(w->counts.rejected, 1);
  EXPECT_NE(w->diag.items()[0].reason.find("'y'"), std::string::npos);
}

TEST(DcgmCsv, UnusableInputs) {
  EXPECT_FALSE(Parse("")->r->ok());
  EXPECT_FALSE(Parse("# only a comment\n")->r->ok());
  EXPECT_FALSE(Parse("a,b,c\n1,2,3\n")->r->ok());           // no ts/gpu columns
  EXPECT_FALSE(Parse("ts,host,gpu\n1,h,0\n")->r->ok());     // no fields at all
  EXPECT_FALSE(Parse("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 30\n")->r->ok());  // Prometheus text
  const char raw[] = "\x00\x01\x02ts,gpu\xff\n\x00\x00";
  EXPECT_FALSE(Parse(std::string(raw, sizeof(raw) - 1))->r->ok());
  // Header only: fine, no samples.
  auto h = Parse("ts,host,gpu,field,value\n");
  ASSERT_TRUE(h->r->ok());
  EXPECT_TRUE((*h->r)->samples.empty());
  // Every row bad: unusable, but still counted.
  auto b = Parse("ts,host,gpu,field,value\nx,h,0,a,1\n");
  EXPECT_FALSE(b->r->ok());
  EXPECT_EQ(b->counts.rejected, 1);
}

std::vector<CsvSample> SyntheticSamples() {
  std::vector<CsvSample> out;
  const std::vector<std::string> fields = {"DCGM_FI_PROF_NVLINK_TX_BYTES", "nvl,rx \"q\"", "1011"};
  for (int t = 0; t < 3; ++t) {
    for (const std::string host : {"node-a", "node b,2", ""}) {
      for (int g = 0; g < 2; ++g) {
        for (const auto& f : fields) {
          CsvSample s;
          s.ts_ns = kT0Ns + t * 1000000007LL;
          s.host = host;
          s.gpu = g;
          s.field = f;
          s.value = (t == 1 && g == 1) ? NAN : 1e9 / 3 * (t + 1) + g - 0.1;
          out.push_back(s);
        }
      }
    }
  }
  return out;
}

void ExpectSame(const std::vector<CsvSample>& got, const std::vector<CsvSample>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(SameCsvSample(got[i], want[i])) << i;
}

TEST(DcgmCsvWriter, LongRoundTrip) {
  const auto samples = SyntheticSamples();
  for (auto style : {CsvTimeStyle::kEpochNs, CsvTimeStyle::kIso}) {
    const std::string text = WriteDcgmCsvLong(samples, style);
    auto p = Parse(text);
    ASSERT_TRUE(p->r->ok());
    EXPECT_EQ(p->counts.rejected, 0);
    ExpectSame((*p->r)->samples, samples);
    EXPECT_EQ(WriteDcgmCsvLong((*p->r)->samples, style), text);
  }
  // Milliseconds drop the sub-ms part.
  auto p = Parse(WriteDcgmCsvLong(samples, CsvTimeStyle::kEpochMs));
  ASSERT_TRUE(p->r->ok());
  EXPECT_EQ((*p->r)->samples[18 * 1].ts_ns, kT0Ns + 1000000000);
}

TEST(DcgmCsvWriter, WideRoundTrip) {
  const auto samples = SyntheticSamples();
  const std::string text = WriteDcgmCsvWide(samples);
  EXPECT_EQ(text.substr(0, text.find('\n')), "ts,host,gpu,DCGM_FI_PROF_NVLINK_TX_BYTES,\"nvl,rx \"\"q\"\"\",1011");
  auto p = Parse(text);
  ASSERT_TRUE(p->r->ok());
  EXPECT_EQ((*p->r)->summary.layout, DcgmCsvLayout::kWide);
  EXPECT_EQ((*p->r)->summary.rows, 18);
  ExpectSame((*p->r)->samples, samples);
  EXPECT_EQ(WriteDcgmCsvWide((*p->r)->samples), text);
}

TEST(DcgmCsvWriter, RowAppenders) {
  std::string out;
  AppendDcgmCsvHeader(&out, DcgmCsvLayout::kWide, {"a", "b"});
  AppendDcgmCsvWideRow(&out, kT0Ns, "h", 3, {1.5, NAN});
  EXPECT_EQ(out, "ts,host,gpu,a,b\n1714564800000000000,h,3,1.5,\n");
  out.clear();
  AppendDcgmCsvLongRow(&out, CsvSample{kT0Ns + 1, " padded ", 0, "f", 2e20, 0}, CsvTimeStyle::kIso);
  EXPECT_EQ(out, "2024-05-01T12:00:00.000000001Z,\" padded \",0,f,2e+20\n");
}

// A host name with a control character is rejected the same way (a CR before a line end inside a
// quoted host was lost on the way back), in both layouts; the rows that remain write back the same.
TEST(DcgmCsv, ControlCharacterHostNamesRejected) {
  for (int c : {0, 1, int{'\r'}, int{'\t'}, 0x1b, 0x7f}) {
    const std::string host = "\"node" + std::string(1, static_cast<char>(c)) + "a\"";
    for (const std::string& text :
         {"ts,host,gpu,field,value\n1714564800," + host + ",0,f,1\n1714564800,h,0,f,2\n",
          "ts,host,gpu,DCGM_FI_DEV_GPU_UTIL\n1714564800," + host + ",0,1\n1714564800,h,0,2\n"}) {
      auto p = Parse(text);
      ASSERT_TRUE(p->r->ok()) << c;
      EXPECT_EQ(p->counts.rejected, 1) << c;
      ASSERT_EQ(p->diag.items().size(), 1u) << c;
      EXPECT_EQ(p->diag.items()[0].line, 2) << c;
      EXPECT_NE(p->diag.items()[0].reason.find("host name has a control character"), std::string::npos) << c;
      ASSERT_EQ((*p->r)->samples.size(), 1u) << c;
      EXPECT_EQ((*p->r)->samples[0].host, "h");
    }
  }
  // The fuzzed case: CR LF inside a quoted host that spans lines.
  auto p = Parse("ts,host,gpu,field,value\n1714564800,\"no\r\r\nde\",0,f,1\n1714564800,h,0,f,2\n");
  ASSERT_TRUE(p->r->ok());
  EXPECT_EQ(p->counts.rejected, 1);
}

// A field name with a control character (any byte below 0x20 but the newline a quoted cell may hold,
// or 0x7f) is rejected, in the long form as a bad row and in the wide form as a header that cannot
// be used; what the reader accepts, its writers write back into the same samples.
TEST(DcgmCsv, ControlCharacterFieldNamesRejected) {
  for (int c = 0; c < 0x80; ++c) {
    const bool control = (c < 0x20 && c != '\n') || c == 0x7f;
    if (!control && c != '\n' && c != ' ' && c != 'x') continue;
    const std::string ch(1, static_cast<char>(c));
    for (const std::string& name : {ch, "a" + ch + "b", ch + "z"}) {
      const std::string quoted = "\"" + name + "\"";
      const std::string long_text = "ts,host,gpu,field,value\n1714564800,h,0," + quoted + ",1\n1714564800,h,0,ok,2\n";
      auto l = Parse(long_text);
      ASSERT_TRUE(l->r->ok()) << c;
      if (control) {
        EXPECT_EQ(l->counts.rejected, 1) << c;
        ASSERT_EQ(l->diag.items().size(), 1u) << c;
        EXPECT_EQ(l->diag.items()[0].line, 2) << c;
        EXPECT_NE(l->diag.items()[0].reason.find("control character"), std::string::npos) << c;
      }
      const auto& ls = (*l->r)->samples;
      auto back = Parse(WriteDcgmCsvLong(ls, CsvTimeStyle::kIso));
      ASSERT_TRUE(back->r->ok()) << c;
      EXPECT_EQ(back->counts.rejected, 0) << c;
      ExpectSame((*back->r)->samples, ls);

      // A header long enough that one control byte does not make it look binary.
      const std::string wide_text = "ts,host,gpu,DCGM_FI_PROF_NVLINK_TX_BYTES," + quoted + "\n1714564800,h,0,1,2\n";
      auto w = Parse(wide_text);
      if (control) {
        ASSERT_FALSE(w->r->ok()) << c;
        EXPECT_EQ(w->r->error().line, 1) << c;
        if (c == 0) continue;  // a NUL byte makes the header binary data, before any column is looked at
        EXPECT_NE(w->r->error().message.find("control character"), std::string::npos) << w->r->error().ToString();
        EXPECT_NE(w->r->error().message.find("column 5"), std::string::npos) << w->r->error().ToString();
        continue;
      }
      ASSERT_TRUE(w->r->ok()) << c;
      auto wback = Parse(WriteDcgmCsvWide((*w->r)->samples, CsvTimeStyle::kIso));
      ASSERT_TRUE(wback->r->ok()) << c;
      EXPECT_EQ(wback->counts.rejected, 0) << c;
      ExpectSame((*wback->r)->samples, (*w->r)->samples);
    }
  }
}

TEST(DcgmCsv, StreamingFromFile) {
  auto in = OpenInput(kData + "/quoted.csv");
  ASSERT_TRUE(in.ok());
  LineReader lines(std::move(*in));
  Diagnostics diag;
  ReadCounts counts;
  std::vector<CsvSample> got;
  auto r = ReadDcgmCsv(lines, "quoted.csv", [&](const CsvSample& s) { got.push_back(s); }, diag, counts);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2].field, "multi\nline");
  EXPECT_EQ(got[2].line, 4);
}

}  // namespace dcgm_csv_test
}  // namespace toposcope::formats
