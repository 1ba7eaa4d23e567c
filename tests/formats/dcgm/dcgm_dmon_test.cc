// Golden tests of the `dcgmi dmon` reader on the four real DCGM 3.1.8 outputs and our synthetic
// samples of the later eras (entity widths 11 and 16, link rows) and `ts` prefixes, the writer
// (dcgmi's exact layout, round trips), streaming from a file, and malformed inputs.
#include "toposcope/formats/dcgm/dcgm_dmon.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "toposcope/base/text.h"
#include "toposcope/formats/dcgm/dcgm_fields.h"

namespace toposcope::formats {
namespace dcgm_dmon_test {

const std::string kReal = std::string(TOPOSCOPE_FIXTURES) + "/dcgmi_dmon/";
const std::string kSynth = std::string(TOPOSCOPE_TESTDATA) + "/dcgm/";
const std::string k8Gpu = kReal + "dcgm318_h800_8gpu_nvltx_nvlrx.txt";
const std::string kC5 = kReal + "dcgm318_h800_gpu0_nvl_pcie_c5.txt";
const std::string kGroup = kReal + "dcgm318_h800_group_gpu0_gpu7_nvl_pcie.txt";
const std::string k4Gpu = kReal + "dcgm318_4gpu_nvltx_nvlrx.txt";

constexpr int64_t kSec = 1000000000;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Parsed {
  Diagnostics diag;
  ReadCounts counts;
  Result<DmonLog> log = MakeError("not parsed");
  [[nodiscard]] std::string Reasons(Severity s = Severity::kRejected) const {
    std::string out;
    for (const Diagnostic& d : diag.items()) {
      if (d.severity == s) out += d.reason + "\n";
    }
    return out;
  }
};

Parsed Parse(const std::string& text, const DmonOptions& opts = {},
             const std::string& source = "t") {
  Parsed p;
  p.log = ParseDmonText(text, source, opts, p.diag, p.counts);
  EXPECT_TRUE(p.counts.Balanced()) << p.counts.read << " " << p.counts.accepted << " "
                                   << p.counts.rejected;
  EXPECT_EQ(p.diag.RejectedFor(source), p.counts.rejected);
  return p;
}

DmonEntity Gpu(int id) { return {DmonEntityKind::kGpu, id, -1}; }

// Rows equal (NaN == NaN).
bool SameRows(const std::vector<DmonRow>& a, const std::vector<DmonRow>& b, std::string* why) {
  if (a.size() != b.size()) {
    *why = "row count " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    const DmonRow& x = a[i];
    const DmonRow& y = b[i];
    const std::string at = "row " + std::to_string(i) + ": ";
    if (x.ts_ns != y.ts_ns) *why = at + "ts " + std::to_string(x.ts_ns) + " vs " + std::to_string(y.ts_ns);
    else if (!(x.entity == y.entity)) *why = at + "entity";
    else if (x.host != y.host) *why = at + "host";
    else if (x.iteration != y.iteration) *why = at + "iteration";
    else if (x.text != y.text) *why = at + "text";
    else if (x.values.size() != y.values.size()) *why = at + "value count";
    if (!why->empty()) return false;
    for (size_t k = 0; k < x.values.size(); ++k) {
      const double u = x.values[k];
      const double v = y.values[k];
      if (std::isnan(u) != std::isnan(v) || (!std::isnan(u) && u != v)) {
        *why = at + "value " + std::to_string(k) + ": " + std::to_string(u) + " vs " +
               std::to_string(v);
        return false;
      }
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Real fixtures (DCGM 3.1.8, H800).

TEST(DcgmDmon, GoldenH800EightGpus) {
  DmonOptions opts;
  opts.start_ts_ns = 1688000000 * kSec;
  opts.host = "h800-node";
  Parsed p = Parse(Slurp(k8Gpu), opts, k8Gpu);
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  const DmonLog& log = *p.log;
  EXPECT_EQ(p.counts.read, 16);
  EXPECT_EQ(p.counts.rejected, 0);
  ASSERT_EQ(log.rows.size(), 16u);
  EXPECT_EQ(log.summary.iterations, 2);
  EXPECT_EQ(log.summary.headers_seen, 1);
  EXPECT_FALSE(log.summary.stopped_by_signal);
  EXPECT_EQ(log.summary.timestamp_style, DmonTimestampStyle::kNone);
  const DmonHeader& h = log.summary.header;
  EXPECT_EQ(h.entity_width, 10);
  EXPECT_EQ(h.line, 1);
  ASSERT_EQ(h.fields.size(), 2u);
  EXPECT_EQ(h.fields[0].short_name, "NVLTX");
  EXPECT_EQ(h.fields[0].field_id, 1011);
  EXPECT_EQ(h.fields[0].width, 28);
  EXPECT_EQ(h.fields[1].short_name, "NVLRX");
  EXPECT_EQ(h.fields[1].field_id, 1012);
  EXPECT_EQ(h.fields[1].width, 0);  // trailing spaces trimmed in the source
  const DmonRow& r0 = log.rows[0];
  EXPECT_EQ(r0.entity, Gpu(7));
  EXPECT_EQ(r0.values[0], 30570603980.0);
  EXPECT_EQ(r0.values[1], 30638829242.0);
  EXPECT_TRUE(r0.text.empty());
  EXPECT_EQ(r0.ts_ns, opts.start_ts_ns);
  EXPECT_EQ(r0.host, "h800-node");
  EXPECT_EQ(r0.line, 3);
  EXPECT_EQ(r0.iteration, 0);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(log.rows[i].entity, Gpu(7 - i));
  const DmonRow& r8 = log.rows[8];
  EXPECT_EQ(r8.entity, Gpu(7));
  EXPECT_EQ(r8.iteration, 1);
  EXPECT_EQ(r8.ts_ns, opts.start_ts_ns + kSec);
  EXPECT_EQ(r8.values[0], 24371477520.0);
  const DmonRow& last = log.rows[15];
  EXPECT_EQ(last.entity, Gpu(0));
  EXPECT_EQ(last.values[0], 24669591596.0);
  EXPECT_EQ(last.values[1], 24669655619.0);
}

TEST(DcgmDmon, GoldenGpu0FirstTwoSamplesNa) {
  Parsed p = Parse(Slurp(kC5), {}, kC5);
  ASSERT_TRUE(p.log.ok());
  const DmonLog& log = *p.log;
  EXPECT_EQ(p.counts.read, 5);
  EXPECT_EQ(p.counts.accepted, 5);
  ASSERT_EQ(log.rows.size(), 5u);
  EXPECT_EQ(log.summary.iterations, 5);
  const DmonHeader& h = log.summary.header;
  ASSERT_EQ(h.fields.size(), 4u);
  const char* names[] = {"NVLTX", "NVLRX", "PCITX", "PCIRX"};
  const int ids[] = {1011, 1012, 1009, 1010};
  const int widths[] = {28, 28, 28, 13};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(h.fields[i].short_name, names[i]);
    EXPECT_EQ(h.fields[i].field_id, ids[i]);
    EXPECT_EQ(h.fields[i].width, widths[i]);
    EXPECT_EQ(h.fields[i].unit, "");
  }
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(log.rows[r].values[i])) << r << " " << i;
  }
  EXPECT_EQ(log.rows[2].values[0], 0.0);
  EXPECT_EQ(log.rows[2].values[2], 498948.0);
  EXPECT_EQ(log.rows[2].values[3], 1555.0);
  EXPECT_EQ(log.rows[3].values[2], 449138.0);
  EXPECT_EQ(log.rows[4].values[2], 548740.0);
  EXPECT_EQ(log.rows[4].values[3], 1555.0);
  for (const DmonRow& r : log.rows) {
    EXPECT_EQ(r.entity, Gpu(0));
    EXPECT_EQ(r.ts_ns, kNoTime);  // no prefix, no start time
  }
  EXPECT_EQ(log.rows[4].iteration, 4);
}

TEST(DcgmDmon, GoldenTwoGpuGroup) {
  Parsed p = Parse(Slurp(kGroup), {}, kGroup);
  ASSERT_TRUE(p.log.ok());
  const DmonLog& log = *p.log;
  ASSERT_EQ(log.rows.size(), 7u);
  EXPECT_EQ(p.counts.rejected, 0);
  EXPECT_EQ(log.summary.iterations, 4);
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(log.rows[i].entity, Gpu(i % 2 == 0 ? 7 : 0));
    EXPECT_EQ(log.rows[i].iteration, static_cast<int64_t>(i / 2));
  }
  for (int r = 0; r < 4; ++r) EXPECT_TRUE(std::isnan(log.rows[r].values[0]));
  EXPECT_EQ(log.rows[4].values[2], 499346.0);
  EXPECT_EQ(log.rows[4].values[3], 3629.0);
  EXPECT_EQ(log.rows[5].values[2], 498931.0);
  EXPECT_EQ(log.rows[6].values[3], 3111.0);
}

TEST(DcgmDmon, GoldenFourGpuGroupOrder) {
  DmonOptions opts;
  opts.start_ts_ns = 0;
  opts.delay_ms = 500;
  Parsed p = Parse(Slurp(k4Gpu), opts, k4Gpu);
  ASSERT_TRUE(p.log.ok());
  const DmonLog& log = *p.log;
  ASSERT_EQ(log.rows.size(), 24u);
  EXPECT_EQ(log.summary.iterations, 6);
  for (size_t i = 0; i < 24; ++i) {
    EXPECT_EQ(log.rows[i].entity, Gpu(3 - static_cast<int>(i % 4)));  // GPU 3,2,1,0
    EXPECT_EQ(log.rows[i].ts_ns, static_cast<int64_t>(i / 4) * 500000000);
  }
  EXPECT_EQ(log.rows[0].values[0], 19694075554.0);
  EXPECT_EQ(log.rows[14].entity, Gpu(1));
  EXPECT_EQ(log.rows[14].values[1], 50051.0);
  EXPECT_EQ(log.rows[15].values[0], 31802.0);
  EXPECT_EQ(log.rows[16].values[0], 0.0);
  EXPECT_EQ(log.rows[23].values[1], 23174848479.0);
}

TEST(DcgmDmon, WriterReproducesDcgm318LayoutByteForByte) {
  const std::string text = Slurp(kC5);
  Parsed p = Parse(text);
  ASSERT_TRUE(p.log.ok());
  DmonWriterOptions wo;
  const std::string written = WriteDmon(p.log->summary.header.fields, p.log->rows, wo);
  // The source's last line lost its trailing spaces (PROVENANCE); everything else is identical.
  auto trim_last = [](std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  };
  EXPECT_EQ(trim_last(written), trim_last(text));
  EXPECT_EQ(written.substr(0, written.size() - 8), text.substr(0, written.size() - 8));
  // The group file too.
  const std::string group = Slurp(kGroup);
  Parsed g = Parse(group);
  ASSERT_TRUE(g.log.ok());
  EXPECT_EQ(trim_last(WriteDmon(g.log->summary.header.fields, g.log->rows, wo)), trim_last(group));
}

TEST(DcgmDmon, RealFixturesRoundTripThroughWriter) {
  for (const std::string& path : {k8Gpu, kC5, kGroup, k4Gpu}) {
    DmonOptions opts;
    opts.start_ts_ns = 1700000000 * kSec;
    Parsed p = Parse(Slurp(path), opts);
    ASSERT_TRUE(p.log.ok()) << path;
    for (const auto style : {DmonTimestampStyle::kNone, DmonTimestampStyle::kTs,
                             DmonTimestampStyle::kTsRelative, DmonTimestampStyle::kEpoch,
                             DmonTimestampStyle::kIso}) {
      DmonWriterOptions wo;
      wo.timestamp_style = style;
      const std::string w = WriteDmon(p.log->summary.header.fields, p.log->rows, wo);
      Parsed q = Parse(w, opts);
      ASSERT_TRUE(q.log.ok()) << path;
      EXPECT_EQ(q.counts.rejected, 0) << q.Reasons();
      EXPECT_EQ(q.log->summary.timestamp_style, style);
      std::string why;
      EXPECT_TRUE(SameRows(p.log->rows, q.log->rows, &why))
          << path << " " << DmonTimestampStyleName(style) << ": " << why;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Synthetic eras and prefixes (testdata/dcgm).

TEST(DcgmDmon, SyntheticWidth11MigCpuCx) {
  Parsed p = Parse(Slurp(kSynth + "dcgm40_width11_mig_cpu_cx_SYNTHETIC.txt"));
  ASSERT_TRUE(p.log.ok());
  const DmonLog& log = *p.log;
  EXPECT_EQ(p.counts.rejected, 0) << p.Reasons();
  ASSERT_EQ(log.rows.size(), 24u);
  EXPECT_EQ(log.summary.iterations, 3);
  EXPECT_EQ(log.summary.headers_seen, 2);
  const DmonHeader& h = log.summary.header;
  EXPECT_EQ(h.entity_width, 11);
  ASSERT_EQ(h.fields.size(), 4u);
  EXPECT_EQ(h.fields[0].unit, "%");
  EXPECT_EQ(h.fields[1].unit, "C");
  EXPECT_EQ(h.fields[2].unit, "W");
  EXPECT_EQ(h.fields[3].unit, "");
  EXPECT_EQ(h.fields[2].field_id, 155);
  EXPECT_EQ(h.fields[3].field_id, 50);
  const DmonEntityKind kinds[] = {DmonEntityKind::kGpu, DmonEntityKind::kGpu,
                                  DmonEntityKind::kGpuI, DmonEntityKind::kGpuCi,
                                  DmonEntityKind::kCpu, DmonEntityKind::kCpuCore,
                                  DmonEntityKind::kCx, DmonEntityKind::kSwitch};
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(log.rows[i].entity.kind, kinds[i]) << i;
  EXPECT_EQ(log.rows[5].entity.id, 3);
  const DmonRow& g0 = log.rows[0];
  EXPECT_EQ(g0.values[0], 87.0);
  EXPECT_EQ(g0.values[2], 612.345);
  ASSERT_EQ(g0.text.size(), 4u);
  EXPECT_EQ(g0.text[3], "NVIDIA H100 80G...");  // a cut text with spaces, read by columns
  EXPECT_EQ(g0.text[0], "");
  EXPECT_TRUE(std::isnan(g0.values[3]));
  EXPECT_TRUE(log.rows[2].text.empty());
  EXPECT_EQ(log.rows[4].values[2], 250.5);
  EXPECT_EQ(log.rows[16].values[0], 89.0);
  EXPECT_EQ(log.rows[16].iteration, 2);
}

TEST(DcgmDmon, SyntheticWidth16LinkRows) {
  Parsed p = Parse(Slurp(kSynth + "dcgm46_width16_link_rows_SYNTHETIC.txt"));
  ASSERT_TRUE(p.log.ok());
  const DmonLog& log = *p.log;
  EXPECT_EQ(p.counts.rejected, 0) << p.Reasons();
  ASSERT_EQ(log.rows.size(), 12u);
  EXPECT_EQ(log.summary.iterations, 2);
  EXPECT_TRUE(log.summary.stopped_by_signal);
  EXPECT_EQ(log.summary.header.entity_width, 16);
  EXPECT_EQ(log.summary.header.fields[2].field_id, 1040);
  EXPECT_EQ(log.rows[1].entity, (DmonEntity{DmonEntityKind::kGpuLink, 0, 0}));
  EXPECT_EQ(log.rows[2].entity, (DmonEntity{DmonEntityKind::kGpuLink, 0, 17}));
  EXPECT_EQ(log.rows[2].values[2], 1698366000.0);
  EXPECT_TRUE(std::isnan(log.rows[2].values[0]));
  EXPECT_EQ(log.rows[5].entity, (DmonEntity{DmonEntityKind::kSwitchLink, 2, 61}));
  EXPECT_EQ(log.rows[6].entity, Gpu(0));
  EXPECT_EQ(log.rows[6].iteration, 1);
  EXPECT_EQ(log.rows[6].values[0], 30570604980.0);
}

TEST(DcgmDmon, SyntheticTsPrefix) {
  const std::string text = Slurp(kSynth + "dcgm318_ts_prefix_SYNTHETIC.txt");
  DmonOptions opts;
  opts.year = 2023;
  Parsed p = Parse(text, opts);
  ASSERT_TRUE(p.log.ok());
  const DmonLog& log = *p.log;
  EXPECT_EQ(p.counts.rejected, 0) << p.Reasons();
  ASSERT_EQ(log.rows.size(), 6u);
  EXPECT_EQ(log.summary.timestamp_style, DmonTimestampStyle::kTs);
  EXPECT_TRUE(log.summary.stopped_by_signal);
  EXPECT_EQ(log.summary.iterations, 3);
  const int64_t t0 = *ParseIsoTimeNs("2023-11-29T17:00:01Z");
  EXPECT_EQ(log.rows[0].ts_ns, t0);
  EXPECT_EQ(log.rows[1].ts_ns, t0);
  EXPECT_EQ(log.rows[2].ts_ns, t0 + kSec);
  EXPECT_EQ(log.rows[5].ts_ns, t0 + 2 * kSec);
  EXPECT_EQ(log.rows[0].entity, Gpu(7));
  EXPECT_EQ(log.rows[0].values[0], 30570603987.0);
  EXPECT_EQ(log.summary.header.fields[3].width, 13);
  // Year from start_ts_ns (the prefix wins over start + iteration * delay), else 1970.
  DmonOptions from_start;
  from_start.start_ts_ns = *ParseIsoTimeNs("2024-01-01T00:00:00Z");
  Parsed q = Parse(text, from_start);
  ASSERT_TRUE(q.log.ok());
  EXPECT_EQ(q.log->rows[0].ts_ns, *ParseIsoTimeNs("2024-11-29T17:00:01Z"));
  Parsed r = Parse(text);
  ASSERT_TRUE(r.log.ok());
  EXPECT_EQ(r.log->rows[0].ts_ns, *ParseIsoTimeNs("1970-11-29T17:00:01Z"));
}

TEST(DcgmDmon, SyntheticIsoRelativeEpochPrefixes) {
  {
    Parsed p = Parse(Slurp(kSynth + "dcgm318_iso_prefix_SYNTHETIC.txt"));
    ASSERT_TRUE(p.log.ok());
    EXPECT_EQ(p.counts.rejected, 0) << p.Reasons();
    ASSERT_EQ(p.log->rows.size(), 6u);
    EXPECT_EQ(p.log->summary.timestamp_style, DmonTimestampStyle::kIso);
    EXPECT_EQ(p.log->rows[0].ts_ns, *ParseIsoTimeNs("2024-05-01T12:00:00.123456Z"));
    EXPECT_EQ(p.log->rows[4].ts_ns, *ParseIsoTimeNs("2024-05-01T12:00:02.124001Z"));
  }
  {
    DmonOptions opts;
    opts.start_ts_ns = 1700000000 * kSec;
    Parsed p = Parse(Slurp(kSynth + "dcgm318_ts_relative_prefix_SYNTHETIC.txt"), opts);
    ASSERT_TRUE(p.log.ok());
    EXPECT_EQ(p.counts.rejected, 0) << p.Reasons();
    EXPECT_EQ(p.log->summary.timestamp_style, DmonTimestampStyle::kTsRelative);
    EXPECT_EQ(p.log->rows[0].ts_ns, opts.start_ts_ns);
    EXPECT_EQ(p.log->rows[2].ts_ns, opts.start_ts_ns + 1500000000);
    EXPECT_EQ(p.log->rows[4].ts_ns, opts.start_ts_ns + 3 * kSec);
    // Without a start: times since the start of the recording.
    Parsed q = Parse(Slurp(kSynth + "dcgm318_ts_relative_prefix_SYNTHETIC.txt"));
    ASSERT_TRUE(q.log.ok());
    EXPECT_EQ(q.log->rows[2].ts_ns, 1500000000);
  }
  {
    Parsed p = Parse(Slurp(kSynth + "dcgm318_epoch_prefix_SYNTHETIC.txt"));
    ASSERT_TRUE(p.log.ok());
    EXPECT_EQ(p.counts.rejected, 0) << p.Reasons();
    EXPECT_EQ(p.log->summary.timestamp_style, DmonTimestampStyle::kEpoch);
    EXPECT_EQ(p.log->rows[0].ts_ns, 1700000000 * kSec);
    EXPECT_EQ(p.log->rows[3].ts_ns, 1700000000 * kSec + 100000000);
    EXPECT_EQ(p.log->rows[5].ts_ns, 1700000000 * kSec + 200000000);
  }
}

TEST(DcgmDmon, IncrementalRelativeAndTwoWordIsoAndYearRollover) {
  const std::string head = "#Entity   GPUTL\nID\n";
  {
    DmonOptions opts;
    opts.relative_incremental = true;
    opts.start_ts_ns = 100 * kSec;
    Parsed p = Parse(
        "00:00:00 " + head + "00:00:00 GPU 0     1\n00:00:01 GPU 0     2\n00:00:01 GPU 0     3\n",
        opts);
    ASSERT_TRUE(p.log.ok());
    ASSERT_EQ(p.log->rows.size(), 3u);
    EXPECT_EQ(p.log->rows[2].ts_ns, 102 * kSec);
  }
  {
    Parsed p = Parse("2024-05-01 12:00:00.5 " + head + "2024-05-01 12:00:00.5 GPU 0     1\n");
    ASSERT_TRUE(p.log.ok());
    ASSERT_EQ(p.log->rows.size(), 1u);
    EXPECT_EQ(p.log->rows[0].ts_ns, *ParseIsoTimeNs("2024-05-01T12:00:00.5Z"));
  }
  {
    DmonOptions opts;
    opts.year = 2023;
    Parsed p = Parse("Dec 31 23:59:59 " + head + "Dec 31 23:59:59 GPU 0     1\n" +
                     "Jan 01 00:00:00 GPU 0     2\n");
    ASSERT_TRUE(p.log.ok());
    ASSERT_EQ(p.log->rows.size(), 2u);
    EXPECT_EQ(p.log->rows[1].ts_ns - p.log->rows[0].ts_ns, kSec);
  }
}

// ---------------------------------------------------------------------------------------------
// Writer.

std::vector<DmonRow> SyntheticRows(const std::vector<DmonEntity>& ents, size_t nfields,
                                   int iterations, int64_t start_ns, int64_t step_ns,
                                   bool with_text) {
  std::vector<DmonRow> rows;
  for (int it = 0; it < iterations; ++it) {
    for (size_t e = 0; e < ents.size(); ++e) {
      DmonRow r;
      r.ts_ns = start_ns == kNoTime ? kNoTime : start_ns + it * step_ns;
      r.entity = ents[e];
      r.iteration = it;
      for (size_t f = 0; f < nfields; ++f) {
        const int64_t k = it * 131 + static_cast<int64_t>(e) * 17 + static_cast<int64_t>(f);
        double v = static_cast<double>(30000000000LL + k * 7919);
        if (f == 1) v = static_cast<double>(k % 1000) + 0.125;  // a double with 3 decimals
        if ((k % 11) == 3) v = NAN;
        r.values.push_back(v);
      }
      if (with_text && e % 2 == 0) {
        r.text.assign(nfields, "");
        r.text[nfields - 1] = "GPU-1a2b c3d4";
        r.values[nfields - 1] = NAN;
      }
      rows.push_back(r);
    }
  }
  return rows;
}

TEST(DcgmDmon, WriterRoundTripAllErasAndStyles) {
  const std::vector<DmonEntity> ents = {
      Gpu(0), {DmonEntityKind::kGpuLink, 0, 0}, {DmonEntityKind::kGpuLink, 0, 17}, Gpu(1),
      {DmonEntityKind::kSwitch, 2, -1}, {DmonEntityKind::kSwitchLink, 2, 63},
      {DmonEntityKind::kCpuCore, 12, -1}, {DmonEntityKind::kCx, 1, -1},
      {DmonEntityKind::kGpuI, 3, -1}, {DmonEntityKind::kGpuCi, 4, -1}};
  // NVLTX (int64), POWER (double), an unknown field, and a text column.
  std::vector<DmonField> fields = {{"NVLTX", "B/s", 1011, 0}, {"POWER", "W", 155, 0},
                                   {"ZZZZZ", "", -1, 0}, {"UUID#", "", 54, 0}};
  fields[1].field_id = 155;
  const int64_t start = 1714564800 * kSec;
  for (const int ew : {10, 11, 16}) {
    for (const auto style : {DmonTimestampStyle::kNone, DmonTimestampStyle::kTs,
                             DmonTimestampStyle::kTsRelative, DmonTimestampStyle::kEpoch,
                             DmonTimestampStyle::kIso}) {
      for (const int64_t step : {kSec, int64_t{100000000}, int64_t{1234567}}) {
        if (style == DmonTimestampStyle::kNone && step != kSec) continue;
        DmonWriterOptions wo;
        wo.entity_width = ew;
        wo.timestamp_style = style;
        wo.write_stop_message = true;
        auto rows = SyntheticRows(ents, fields.size(), 30, start, step, true);
        // Text cells make value 1 of even rows NaN; keep values exactly representable.
        const std::string text = WriteDmon(fields, rows, wo);
        DmonOptions opts;
        opts.start_ts_ns = start;
        opts.delay_ms = step / 1000000;
        Parsed p = Parse(text, opts);
        ASSERT_TRUE(p.log.ok());
        EXPECT_EQ(p.counts.rejected, 0) << p.Reasons();
        EXPECT_TRUE(p.log->summary.stopped_by_signal);
        EXPECT_EQ(p.log->summary.headers_seen, 3);  // iterations 0, 14, 28
        EXPECT_EQ(p.log->summary.header.entity_width, ew);
        std::string why;
        EXPECT_TRUE(SameRows(rows, p.log->rows, &why))
            << "width " << ew << " style " << DmonTimestampStyleName(style) << " step " << step
            << ": " << why;
        // Header fields come back (names, units, ids; widths as written).
        ASSERT_EQ(p.log->summary.header.fields.size(), fields.size());
        for (size_t i = 0; i < fields.size(); ++i) {
          EXPECT_EQ(p.log->summary.header.fields[i].short_name, fields[i].short_name);
          EXPECT_EQ(p.log->summary.header.fields[i].unit, fields[i].unit);
          EXPECT_EQ(p.log->summary.header.fields[i].field_id, fields[i].field_id);
        }
      }
    }
  }
}

TEST(DcgmDmon, WriterLayoutDetails) {
  DmonWriterOptions wo;
  wo.entity_width = 16;
  wo.header_every = 0;
  DmonWriter w({{"NVLTX", "", 1011, 0}, {"POWER", "W", 155, 0}, {"DVNAM", "", 50, 20}}, wo);
  std::string out;
  w.BeginIteration(kNoTime, &out);
  w.WriteRow({DmonEntityKind::kGpuLink, 0, 3}, {12345.0, 250.0, NAN},
             {"", "", "NVIDIA H100 80GB HBM3 SXM5"}, &out);
  w.BeginIteration(kNoTime, &out);  // header_every = 0: no repeat
  w.WriteRow({DmonEntityKind::kGpu, 0, -1}, {NAN, 1.5, NAN}, {}, &out);
  w.WriteStop(&out);
  const std::string want =
      "#Entity         NVLTX                       POWER                       DVNAM               \n"
      "ID                                          W                                               \n"
      "GPU 0 LINK 3    12345                       250.000                     NVIDIA H100 80G...  \n"
      "GPU 0           N/A                         1.500                       N/A                 \n"
      "dmon was stopped due to receiving a signal\n";
  EXPECT_EQ(out, want);
}

TEST(DcgmDmon, EntityLabels) {
  struct Case {
    const char* label;
    DmonEntity e;
  };
  const Case cases[] = {
      {"GPU 0", Gpu(0)},
      {"GPU-I 3", {DmonEntityKind::kGpuI, 3, -1}},
      {"GPU-CI 12", {DmonEntityKind::kGpuCi, 12, -1}},
      {"Switch 1", {DmonEntityKind::kSwitch, 1, -1}},
      {"CPU 1", {DmonEntityKind::kCpu, 1, -1}},
      {"CPU Core 95", {DmonEntityKind::kCpuCore, 95, -1}},
      {"CX 2", {DmonEntityKind::kCx, 2, -1}},
      {"GPU 0 LINK 3", {DmonEntityKind::kGpuLink, 0, 3}},
      {"SW 1 LINK 7", {DmonEntityKind::kSwitchLink, 1, 7}},
  };
  for (const Case& c : cases) {
    DmonEntity e;
    EXPECT_TRUE(ParseDmonEntityLabel(c.label, &e)) << c.label;
    EXPECT_EQ(e, c.e) << c.label;
    EXPECT_EQ(DmonEntityLabel(c.e), c.label);
  }
  DmonEntity e;
  EXPECT_TRUE(ParseDmonEntityLabel("  GPU   7  ", &e));
  for (const char* bad : {"", "GPU", "GPU x", "GPU -1", "GPU 0 LINK", "SW 1", "CPU Core",
                          "NIC 0", "gpu 0", "GPU 0 1", "GPU 99999999999"}) {
    EXPECT_FALSE(ParseDmonEntityLabel(bad, &e)) << bad;
  }
}

// ---------------------------------------------------------------------------------------------
// Streaming, callbacks.

TEST(DcgmDmon, StreamsFromFileWithHeaderCallback) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "toposcope_dmon_stream_test.txt").string();
  {
    std::ofstream out(path, std::ios::binary);
    out << Slurp(k4Gpu);
  }
  auto in = OpenInput(path);
  ASSERT_TRUE(in.ok());
  LineReader lines(std::move(*in));
  Diagnostics diag;
  ReadCounts counts;
  int headers = 0;
  int64_t rows = 0;
  double sum = 0;
  DmonOptions opts;
  auto summary = ReadDmon(
      lines, path, opts, diag, counts,
      [&](const DmonRow& r) {
        ++rows;
        sum += r.values[0];
      },
      [&](const DmonHeader& h) {
        ++headers;
        EXPECT_EQ(h.fields.size(), 2u);
        EXPECT_EQ(rows, 0);  // announced before the first row
      });
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(headers, 1);
  EXPECT_EQ(rows, 24);
  EXPECT_EQ(counts.accepted, 24);
  EXPECT_GT(sum, 0);
  std::filesystem::remove(path);

  // The incremental parser exposes the header once read.
  Diagnostics d2;
  ReadCounts c2;
  DmonParser parser("inc", {}, d2, c2, nullptr);
  EXPECT_EQ(parser.header(), nullptr);
  parser.Feed("#Entity   TMPTR   POWER\r", 1);
  parser.Feed("ID        C       W", 2);
  ASSERT_NE(parser.header(), nullptr);
  EXPECT_EQ(parser.header()->fields[1].unit, "W");
  parser.Feed("GPU 0     41      85.312", 3);
  auto s = parser.Finish();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->rows, 1);
}

// ---------------------------------------------------------------------------------------------
// Bad inputs.

// A console capture: a shell prompt, pip output and Python logging (with a time of its own) before
// the header are preamble, no records, one warning naming their lines; the logging time does not
// become the rows' time prefix style. (Before: each a rejected row, and the logging line's date
// fixed a time prefix style that the rows then lacked.)
TEST(DcgmDmon, PreambleBeforeTheHeaderIsSkipped) {
  Parsed p = Parse(
      "$ pip install nvidia-ml-py\n"
      "Requirement already satisfied: nvidia-ml-py in /usr/lib/python3/dist-packages (12.535.133)\n"
      "2024-05-01 12:00:00,123 - root - INFO - starting dcgmi dmon\n"
      "#Entity   NVLTX                       NVLRX\n"
      "ID\n"
      "GPU 0     1                           2\n"
      "GPU 1     3                           4\n");
  ASSERT_TRUE(p.log.ok()) << p.Reasons();
  EXPECT_EQ(p.counts.read, 2);
  EXPECT_EQ(p.counts.accepted, 2);
  EXPECT_EQ(p.counts.rejected, 0) << p.Reasons();
  EXPECT_EQ(p.log->summary.timestamp_style, DmonTimestampStyle::kNone);
  EXPECT_NE(p.Reasons(Severity::kWarning).find("3 line(s) before the #Entity header (lines 1-3) are no dmon output"),
            std::string::npos)
      << p.Reasons(Severity::kWarning);
}

TEST(DcgmDmon, NotDmonAtAll) {
  EXPECT_FALSE(Parse("").log.ok());
  EXPECT_FALSE(Parse("\n\n   \n").log.ok());
  EXPECT_FALSE(Parse(std::string("\x00\x01\x02\xff garbage", 12)).log.ok());
  Parsed p = Parse(
      "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV18\t0-47\nGPU1\tNV18\t X \t0-47\n");  // nvidia-smi
  EXPECT_FALSE(p.log.ok());
  EXPECT_EQ(p.counts.read, 3);
  EXPECT_EQ(p.counts.rejected, 3);
  Parsed q = Parse("GPU 0     1     2\nGPU 1     3     4\n");  // rows but no header
  EXPECT_FALSE(q.log.ok());
  EXPECT_EQ(q.counts.rejected, 2);
  EXPECT_NE(q.Reasons().find("before the #Entity header"), std::string::npos);
}

// DCGM's documentation prints the header as `# Entity` and the units line as `Id` (a real copy
// in testdata/real/dcgmi_dmon, PROVENANCE.md): the same header and units, GPU and GPU-I rows read.
TEST(DcgmDmon, DocumentationStyleHashSpaceEntityHeaderAndIdUnits) {
  const std::string path = std::string(TOPOSCOPE_TESTDATA) +
                           "/real/dcgmi_dmon/mig_a100_gpu_and_gpu_i_rows_gract_tenso_dcgm_docs_feature_overview_excerpt.txt";
  Parsed p = Parse(Slurp(path));
  ASSERT_TRUE(p.log.ok()) << p.log.error().ToString();
  EXPECT_EQ(p.counts.rejected, 0) << p.Reasons();
  EXPECT_EQ(p.counts.read, 30);
  ASSERT_EQ(p.log->summary.header.fields.size(), 2u);
  EXPECT_EQ(p.log->summary.header.fields[0].short_name, "GRACT");
  EXPECT_EQ(p.log->summary.header.fields[1].short_name, "TENSO");
  EXPECT_EQ(p.log->summary.header.line, 1);
  ASSERT_EQ(p.log->rows.size(), 30u);
  EXPECT_EQ(p.log->rows[0].entity, Gpu(0));
  EXPECT_EQ(p.log->rows[2].entity, (DmonEntity{DmonEntityKind::kGpuI, 1, -1}));
  EXPECT_DOUBLE_EQ(p.log->rows[10].values[0], 0.986);  // GPU-I 0 at the fourth sample
  EXPECT_EQ(p.log->rows[29].iteration, 9);
  // `#Entity` and `# Entity` give the same rows; a `#` alone is still not a header.
  Parsed q = Parse("# Entity  SMACT\n      Id\n   GPU 0  0.5\n");
  ASSERT_TRUE(q.log.ok());
  EXPECT_EQ(q.counts.accepted, 1);
  Parsed r = Parse("#  SMACT\nGPU 0  0.5\n");
  EXPECT_FALSE(r.log.ok());
  EXPECT_EQ(r.counts.rejected, 2);
}

TEST(DcgmDmon, RejectsBadRowsAndCountsThem) {
  const std::string text =
      "#Entity   NVLTX                       NVLRX\n"
      "ID\n"
      "GPU 0     1                           2\n"
      "GPU 1     1                           2                           3\n"  // 3 values
      "GPU 2     1\n"                                                         // truncated
      "NIC 0     1                           2\n"                             // unknown label
      "GPU x     1                           2\n"                             // bad id
      "hello world, this is not dmon\n"                                       // garbage
      "GPU 3     nan                         2\n"                             // NaN literal
      "GPU 4     99999999999999999999999     2\n"                             // > int64
      "GPU 5     abc                         2\n"                             // text in int field
      "GPU 6     -5                          1e3\n"                           // accepted
      "GPU 7     N/A                         N/A\r\n"                         // CRLF, accepted
      "#Entity   NVLTX                       PCITX\n"                         // differing header
      "GPU 0     1                           2\n"                             // under it: rejected
      "#Entity   NVLTX                       NVLRX\n"                         // matching again
      "GPU 0     5                           6\n"
      "dmon was stopped due to receiving a signal\n"
      "GPU 1     5                           6\n";                           // after the stop
  Parsed p = Parse(text);
  ASSERT_TRUE(p.log.ok());
  const DmonLog& log = *p.log;
  EXPECT_EQ(p.counts.accepted, 4);
  EXPECT_EQ(p.counts.rejected, 11);
  EXPECT_EQ(p.counts.read, 15);
  ASSERT_EQ(log.rows.size(), 4u);
  EXPECT_EQ(log.rows[1].values[0], -5.0);
  EXPECT_EQ(log.rows[1].values[1], 1000.0);
  EXPECT_TRUE(std::isnan(log.rows[2].values[0]));
  EXPECT_EQ(log.rows[3].entity, Gpu(0));
  EXPECT_EQ(log.rows[3].iteration, 1);
  EXPECT_TRUE(log.summary.stopped_by_signal);
  EXPECT_EQ(log.summary.headers_seen, 3);
  const std::string reasons = p.Reasons();
  for (const char* want : {"3 values for 2 fields", "1 values for 2 fields", "unknown entity label",
                           "not a dmon line", "'nan' is not a number (field NVLTX is int64)",
                           "out of int64 range", "'abc' is not a number", "differs from the first",
                           "under a repeated #Entity header", "after 'dmon was stopped'"}) {
    EXPECT_NE(reasons.find(want), std::string::npos) << want << "\n" << reasons;
  }
}

TEST(DcgmDmon, DuplicatesAndOutOfOrderTimes) {
  const std::string text =
      "2024-05-01T12:00:01Z #Entity   NVLTX\n"
      "2024-05-01T12:00:01Z GPU 0     1\n"
      "2024-05-01T12:00:01Z GPU 1     2\n"
      "2024-05-01T12:00:01Z GPU 1     2\n"  // duplicate (same ts + entity)
      "2024-05-01T12:00:02Z GPU 0     3\n"
      "2024-05-01T12:00:00Z GPU 1     4\n"  // backwards: kept with a warning
      "GPU 0     5\n";                      // no prefix among prefixed lines
  Parsed p = Parse(text);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.accepted, 4);
  EXPECT_EQ(p.counts.rejected, 2);
  EXPECT_NE(p.Reasons().find("duplicate row: GPU 1"), std::string::npos) << p.Reasons();
  EXPECT_NE(p.Reasons().find("without a time prefix"), std::string::npos) << p.Reasons();
  EXPECT_NE(p.Reasons(Severity::kWarning).find("time goes backwards"), std::string::npos);
  EXPECT_EQ(p.log->rows[3].ts_ns, *ParseIsoTimeNs("2024-05-01T12:00:00Z"));
  EXPECT_EQ(p.log->summary.iterations, 2);
}

TEST(DcgmDmon, UnitsLineMismatchWarns) {
  Parsed p = Parse("#Entity   A  B  C\nID        x  y\nGPU 0     1  2  3\n");
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.accepted, 1);
  EXPECT_EQ(p.diag.warnings_total(), 1);
  Parsed q = Parse("ID  x\n#Entity   A\nGPU 0     1\n");
  ASSERT_TRUE(q.log.ok());
  EXPECT_EQ(q.counts.rejected, 1);
}

TEST(DcgmDmon, ControlCharactersAreRejected) {
  std::string text = "#Entity   DVNAM\n";
  text += std::string("GPU 0     abc\x01" "def\n");
  text += std::string("GPU 1     fine\n");
  text += "#Entity   DV\x1f" "AM\n";
  text += "GPU 2     x\n";
  Parsed p = Parse(text);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.accepted, 1);
  EXPECT_EQ(p.counts.rejected, 3);
  EXPECT_NE(p.Reasons().find("control characters in a text value"), std::string::npos);
  EXPECT_NE(p.Reasons().find("control characters in the #Entity header"), std::string::npos);
  ASSERT_EQ(p.log->rows.size(), 1u);
  EXPECT_EQ(p.log->rows[0].text[0], "fine");
}

TEST(DcgmDmon, HugeAndWeirdInputsDoNotCrash) {
  std::string text = "#Entity   NVLTX\n";
  text += "GPU 0     " + std::string(100000, '9') + "\n";
  text += "GPU 1     " + std::string(5000, 'x') + "\n";
  text += "GPU 99999999999 1\n";
  text += "Nov 99 99:99:99 GPU 0 1\n";
  text += "99:99:99 GPU 0 1\n";
  text += "CPU Core\n";
  text += "SW 1 LINK\n";
  text += std::string(3, '\t') + "\n";
  Parsed p = Parse(text);
  ASSERT_TRUE(p.log.ok());
  EXPECT_EQ(p.counts.accepted, 0);
  EXPECT_EQ(p.counts.rejected, 7);
}

// The value a cell of a field of unknown type takes by the general rule: an integer (int64) when
// it is one, else a number when from_chars reads one, else text (NaN).
double GeneralValue(std::string_view c) {
  if (c == "N/A") return NAN;
  if (AllDigits(c[0] == '-' ? c.substr(1) : c)) {
    int64_t iv = 0;
    const auto r = std::from_chars(c.data(), c.data() + c.size(), iv);
    if (r.ec == std::errc() && r.ptr == c.data() + c.size()) return static_cast<double>(iv);
  }
  if (auto d = ParseDouble(c)) return *d;
  return NAN;
}

// Values are read exactly as the general rule reads them, bit for bit (the common shapes take a
// shorter path), whatever whitespace separates them and wherever the cells fall in the line.
TEST(DcgmDmon, ValuesMatchTheGeneralRuleBitForBit) {
  std::vector<std::string> cells = {
      "0", "-0", "007", "0.000", "-0.000", "00.50", "123456789012345678", "-123456789012345678",
      "1234567890123456789", "9223372036854775807", "-9223372036854775808", "99999999999999999999",
      "1.", ".5", "-.5", "1e3", "+5", "0.1", "0.3", "3.14159265358979", "3.141592653589793",
      "-12.5", "1.2.3", "-", "N/A", "12a", "999999999999999.9", "0.000000000000001", "-7",
      "4294967296", "1.7976931348623157e308", "inf", "nan", "0x10"};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 4000; ++i) {
    std::string c = rng() % 4 == 0 ? "-" : "";
    const int int_digits = 1 + static_cast<int>(rng() % 19);
    for (int k = 0; k < int_digits; ++k) c.push_back(static_cast<char>('0' + rng() % 10));
    if (rng() % 2 == 0) {
      c.push_back('.');
      const int frac = 1 + static_cast<int>(rng() % 17);
      for (int k = 0; k < frac; ++k) c.push_back(static_cast<char>('0' + rng() % 10));
    }
    cells.push_back(c);
  }
  constexpr size_t kFields = 7;
  std::string text = "#Entity   ";
  for (size_t f = 0; f < kFields; ++f) text += "XFLD" + std::to_string(f) + " ";
  text += "\nID\n";
  std::vector<std::vector<double>> want;
  for (size_t b = 0; b < cells.size(); b += kFields) {
    text += "GPU " + std::to_string(want.size());
    want.emplace_back();
    for (size_t f = 0; f < kFields; ++f) {
      const std::string& c = cells[(b + f) % cells.size()];
      const int gap = 1 + static_cast<int>(rng() % 70);
      for (int k = 0; k < gap; ++k) text.push_back(rng() % 5 == 0 ? '\t' : ' ');
      text += c;
      want.back().push_back(GeneralValue(c));
    }
    text += std::string(rng() % 3, ' ') + "\n";
  }
  Parsed p = Parse(text);
  ASSERT_TRUE(p.log.ok());
  ASSERT_EQ(p.counts.rejected, 0) << p.Reasons();
  ASSERT_EQ(p.log->rows.size(), want.size());
  for (size_t r = 0; r < want.size(); ++r) {
    for (size_t f = 0; f < kFields; ++f) {
      const double got = p.log->rows[r].values[f];
      const double exp = want[r][f];
      uint64_t gb = 0;
      uint64_t eb = 0;
      std::memcpy(&gb, &got, 8);
      std::memcpy(&eb, &exp, 8);
      ASSERT_TRUE(std::isnan(got) ? std::isnan(exp) : gb == eb)
          << "row " << r << " field " << f << " cell '" << cells[(r * kFields + f) % cells.size()]
          << "': " << got << " vs " << exp;
    }
  }
}

}  // namespace dcgm_dmon_test
}  // namespace toposcope::formats
