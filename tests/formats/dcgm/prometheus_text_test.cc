// Golden tests of the Prometheus text exposition reader on the real dcgm-exporter and NCCL
// Inspector scrapes, our synthetic inputs (MIG labels, both host label spellings, timestamps,
// concatenated scrapes), the writer (exporter layout, round trips), the DCGM view and bad inputs.
#include "toposcope/formats/dcgm/prometheus_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "toposcope/base/file_io.h"

namespace toposcope::formats {
namespace prometheus_text_test {

const std::string kFix = std::string(TOPOSCOPE_FIXTURES);
const std::string kA100 = kFix + "/dcgm_exporter/dcgm_issue149_dgxa100_exporter3.3.3_nvlink_PARTIAL.prom";
const std::string kH100 = kFix + "/dcgm_exporter/gpu_operator_p5_h100_8gpu_sampled_metrics.prom";
const std::string kInspector = kFix + "/nccl_inspector/nccl_inspector_readme_prometheus_v5.1_nvl72004_4rank.prom";
const std::string kData = std::string(TOPOSCOPE_TESTDATA) + "/prom";

// One parse with its diagnostics and counts.
struct Parsed {
  Diagnostics diag;
  ReadCounts counts;
  std::unique_ptr<Result<PromText>> r;
};

std::unique_ptr<Parsed> Parse(std::string_view text, const PromReadOptions& options = {}) {
  auto p = std::make_unique<Parsed>();
  p->r = std::make_unique<Result<PromText>>(ParsePromText(text, "test", p->diag, p->counts, options));
  EXPECT_TRUE(p->counts.Balanced());
  EXPECT_EQ(p->diag.rejected_total(), p->counts.rejected);
  return p;
}

std::unique_ptr<Parsed> ParseFile(const std::string& path) {
  auto text = ReadFileText(path);
  EXPECT_TRUE(text.ok()) << path;
  return Parse(text.ok() ? *text : std::string());
}

// Streams a file through the LineReader overload; returns the samples.
std::vector<PromSample> StreamFile(const std::string& path, ReadCounts* counts, PromReadSummary* summary) {
  auto in = OpenInput(path);
  EXPECT_TRUE(in.ok());
  LineReader lines(std::move(*in));
  Diagnostics diag;
  std::vector<PromSample> out;
  auto r = ReadPromText(lines, path, [&](const PromSample& s) { out.push_back(s); }, diag, *counts);
  EXPECT_TRUE(r.ok());
  if (r.ok()) *summary = *r;
  return out;
}

TEST(PromTextReal, A100PartialExporter333) {
  auto p = ParseFile(kA100);
  ASSERT_TRUE(p->r->ok()) << p->r->error().ToString();
  const PromText& t = **p->r;
  EXPECT_EQ(p->counts.read, 6);
  EXPECT_EQ(p->counts.accepted, 6);
  EXPECT_EQ(p->counts.rejected, 0);
  ASSERT_EQ(t.samples.size(), 4u);
  EXPECT_EQ(t.summary.scrapes, 1);
  ASSERT_EQ(t.summary.metrics.size(), 1u);
  EXPECT_EQ(t.summary.metrics[0].name, "DCGM_FI_PROF_NVLINK_TX_BYTES");
  EXPECT_EQ(t.summary.metrics[0].type, PromMetricType::kGauge);
  EXPECT_EQ(t.summary.metrics[0].help,
            "The rate of data not including protocol headers transmitted over NVLink (in B/s).");
  for (int g = 0; g < 4; ++g) {
    const PromSample& s = t.samples[static_cast<size_t>(g)];
    EXPECT_EQ(s.name, "DCGM_FI_PROF_NVLINK_TX_BYTES");
    EXPECT_EQ(s.labels.size(), 5u);
    EXPECT_EQ(*s.Label("gpu"), std::to_string(g));
    EXPECT_EQ(*s.Label("Hostname"), "axa");
    EXPECT_EQ(s.Label("pci_bus_id"), nullptr);  // added in exporter 3.3.7
    EXPECT_EQ(s.value, 0.0);
    EXPECT_EQ(s.ts_ms, kNoTime);
    EXPECT_EQ(s.scrape_index, 0);
    EXPECT_EQ(s.line, g + 3);
    const DcgmPromSample d = ToDcgmSample(s);
    EXPECT_EQ(d.gpu, g);
    EXPECT_EQ(d.host, "axa");
    EXPECT_EQ(d.model_name, "NVIDIA A100-SXM4-40GB");
    EXPECT_TRUE(d.mig_profile.empty());
    EXPECT_EQ(d.mig_instance, -1);
  }
  EXPECT_EQ(*t.samples[3].Label("UUID"), "GPU-7843f55f-a15b-1d4c-229c-39b5c439bd5e");
}

TEST(PromTextReal, H100GpuOperatorSampled) {
  auto p = ParseFile(kH100);
  ASSERT_TRUE(p->r->ok());
  const PromText& t = **p->r;
  EXPECT_EQ(p->counts.read, 30);
  EXPECT_EQ(p->counts.rejected, 0);
  ASSERT_EQ(t.samples.size(), 30u);
  EXPECT_TRUE(t.summary.metrics.empty());  // grep'd lines: no HELP/TYPE
  EXPECT_EQ(t.summary.scrapes, 1);
  EXPECT_EQ(t.summary.non_finite, 0);
  int temp = 0, power = 0, util = 0, copy = 0;
  for (const auto& s : t.samples) {
    EXPECT_EQ(*s.Label("Hostname"), "gpu-node-1");
    EXPECT_EQ(*s.Label("modelName"), "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(*s.Label("DCGM_FI_DRIVER_VERSION"), "580.105.08");
    EXPECT_TRUE(IsDcgmMetric(s.name));
    temp += s.name == "DCGM_FI_DEV_GPU_TEMP";
    power += s.name == "DCGM_FI_DEV_POWER_USAGE";
    util += s.name == "DCGM_FI_DEV_GPU_UTIL";
    copy += s.name == "DCGM_FI_DEV_MEM_COPY_UTIL";
  }
  EXPECT_EQ(temp, 8);
  EXPECT_EQ(power, 8);
  EXPECT_EQ(util, 8);
  EXPECT_EQ(copy, 6);
  // First sample: the pod attributes, with an empty pod_uid.
  const PromSample& s0 = t.samples[0];
  ASSERT_EQ(s0.labels.size(), 11u);
  EXPECT_EQ(s0.labels[0].first, "gpu");
  EXPECT_EQ(s0.labels[10].first, "pod_uid");
  EXPECT_EQ(s0.labels[10].second, "");
  EXPECT_EQ(*s0.Label("pod"), "vllm-agg-0-vllmdecodeworker-s65j5");
  EXPECT_EQ(s0.value, 30.0);
  EXPECT_EQ(t.samples[1].labels.size(), 7u);
  // DCGM_FI_DEV_POWER_USAGE on GPU 0 is 113.611000.
  const DcgmPromSample d = ToDcgmSample(t.samples[8]);
  EXPECT_EQ(d.field, "DCGM_FI_DEV_POWER_USAGE");
  EXPECT_EQ(d.gpu, 0);
  EXPECT_DOUBLE_EQ(d.value, 113.611);
  EXPECT_EQ(d.pci_bus_id, "00000000:53:00.0");
  EXPECT_EQ(d.uuid, "GPU-c4529c8d-69c4-b61d-e0bc-7b2460096005");
  EXPECT_EQ(d.host, "gpu-node-1");
  const DcgmPromSample d7 = ToDcgmSample(t.samples[15]);
  EXPECT_EQ(d7.gpu, 7);
  EXPECT_EQ(d7.pci_bus_id, "00000000:CA:00.0");
  EXPECT_DOUBLE_EQ(d7.value, 66.997);
  EXPECT_EQ(t.samples.back().name, "DCGM_FI_DEV_MEM_COPY_UTIL");
  EXPECT_EQ(*t.samples.back().Label("gpu"), "5");
}

TEST(PromTextReal, NcclInspectorPrometheus) {
  auto p = ParseFile(kInspector);
  ASSERT_TRUE(p->r->ok());
  const PromText& t = **p->r;
  EXPECT_EQ(p->counts.read, 4);
  ASSERT_EQ(t.samples.size(), 4u);
  EXPECT_EQ(t.samples[0].name, "nccl_bus_bandwidth_gbs");
  EXPECT_DOUBLE_EQ(t.samples[0].value, 678.263);
  EXPECT_EQ(*t.samples[0].Label("node"), "nvl72004-T01");
  EXPECT_EQ(*t.samples[0].Label("comm_name"), "DP Group 0");
  EXPECT_EQ(*t.samples[0].Label("algo_proto"), "Ring_ll");
  EXPECT_EQ(*t.samples[0].Label("message_size"), "4-5GB");
  EXPECT_DOUBLE_EQ(t.samples[1].value, 9498.47);
  EXPECT_EQ(*t.samples[2].Label("p2p_operation"), "Send");
  EXPECT_DOUBLE_EQ(t.samples[3].value, 1154.87);
  EXPECT_EQ(t.samples[3].labels.size(), 9u);
  EXPECT_FALSE(IsDcgmMetric(t.samples[0].name));
  EXPECT_EQ(ToDcgmSample(t.samples[0]).gpu, 0);  // gpu="GPU0"
}

TEST(PromTextReal, StreamingMatchesInMemory) {
  for (const auto& path : {kA100, kH100, kInspector}) {
    ReadCounts c;
    PromReadSummary sum;
    const auto streamed = StreamFile(path, &c, &sum);
    auto p = ParseFile(path);
    ASSERT_TRUE(p->r->ok());
    ASSERT_EQ(streamed.size(), (*p->r)->samples.size());
    for (size_t i = 0; i < streamed.size(); ++i) {
      EXPECT_TRUE(SamePromSample(streamed[i], (*p->r)->samples[i]));
      EXPECT_EQ(streamed[i].line, (*p->r)->samples[i].line);
    }
    EXPECT_EQ(c.read, p->counts.read);
  }
}

TEST(PromTextSynthetic, MigLowercaseHostnameTimestampsNonFinite) {
  auto p = ParseFile(kData + "/mig_hostname_ts.prom");
  ASSERT_TRUE(p->r->ok());
  const PromText& t = **p->r;
  EXPECT_EQ(p->counts.rejected, 0);
  ASSERT_EQ(t.samples.size(), 4u);
  EXPECT_EQ(t.summary.non_finite, 2);
  EXPECT_EQ(t.summary.with_timestamp, 3);
  EXPECT_EQ(t.summary.comments, 1);
  ASSERT_EQ(t.summary.metrics.size(), 2u);
  EXPECT_EQ(t.summary.metrics[1].name, "DCGM_FI_DEV_GPU_TEMP");
  EXPECT_FALSE(t.summary.metrics[1].has_help);
  EXPECT_TRUE(t.summary.metrics[1].has_type);

  const DcgmPromSample a = ToDcgmSample(t.samples[0]);
  EXPECT_EQ(a.host, "node-a");
  EXPECT_EQ(a.mig_profile, "3g.40gb");
  EXPECT_EQ(a.mig_instance, 1);
  EXPECT_EQ(a.value, 123456789.0);
  EXPECT_EQ(a.ts_ns, int64_t{1714564800000} * 1000000);
  EXPECT_EQ(t.samples[0].ts_ms, 1714564800000);
  const DcgmPromSample b = ToDcgmSample(t.samples[1]);
  EXPECT_EQ(b.mig_instance, 2);
  EXPECT_TRUE(std::isnan(b.value));
  // Labels in a different order, an escaped value, +Inf.
  EXPECT_EQ(t.samples[2].labels[0].first, "hostname");
  EXPECT_EQ(*t.samples[2].Label("note"), "say \"hi\"\\n\nend");
  EXPECT_TRUE(std::isnan(t.samples[2].value));
  EXPECT_EQ(ToDcgmSample(t.samples[2]).gpu, 1);
  // The old spelling Hostname.
  const DcgmPromSample d = ToDcgmSample(t.samples[3]);
  EXPECT_EQ(d.host, "node-b");
  EXPECT_DOUBLE_EQ(d.value, 250.5);
  EXPECT_EQ(d.ts_ns, kNoTime);
}

TEST(PromTextSynthetic, ConcatenatedScrapesWithRepeatedMetadata) {
  auto p = ParseFile(kData + "/two_scrapes.prom");
  ASSERT_TRUE(p->r->ok());
  const PromText& t = **p->r;
  ASSERT_EQ(t.samples.size(), 8u);
  EXPECT_EQ(t.summary.scrapes, 2);
  EXPECT_EQ(t.summary.metrics.size(), 2u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(t.samples[i].scrape_index, i < 4 ? 0 : 1) << i;
  EXPECT_EQ(t.samples[7].value, 1410.0);
}

TEST(PromTextSynthetic, ScrapeBoundaryOnRepeatedSeriesWithoutMetadata) {
  const std::string text =
      "a{x=\"1\",y=\"2\"} 1\nb 2\n"
      "a{y=\"2\",x=\"1\"} 3\nb 4\n"   // same series, other label order: scrape 1
      "c 5\na{x=\"1\",y=\"3\"} 6\n";  // new series: still scrape 1
  auto p = Parse(text, PromReadOptions{10});
  ASSERT_TRUE(p->r->ok());
  const auto& s = (*p->r)->samples;
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s[0].scrape_index, 10);
  EXPECT_EQ(s[1].scrape_index, 10);
  EXPECT_EQ(s[2].scrape_index, 11);
  EXPECT_EQ(s[3].scrape_index, 11);
  EXPECT_EQ(s[5].scrape_index, 11);
  EXPECT_EQ((*p->r)->summary.scrapes, 2);
}

TEST(PromTextSynthetic, SyntaxVariants) {
  const std::string text =
      "  spaced_name  {  a = \"1\" , b=\"2\", }   7.5e3  -5  \n"
      "m_inf -Inf\n"
      "m_nan nan\n"
      "m_ts 1 0\n"
      "no_labels{} 2\n"
      "colons:are:ok 3\r\n"
      "#HELP compact text with  spaces\n"
      "# TYPE compact counter\n";
  auto p = Parse(text);
  ASSERT_TRUE(p->r->ok());
  EXPECT_EQ(p->counts.rejected, 0) << (p->diag.items().empty() ? "" : p->diag.items()[0].ToString());
  const auto& t = **p->r;
  ASSERT_EQ(t.samples.size(), 6u);
  EXPECT_EQ(t.samples[0].name, "spaced_name");
  EXPECT_EQ(t.samples[0].labels.size(), 2u);
  EXPECT_EQ(t.samples[0].value, 7500.0);
  EXPECT_EQ(t.samples[0].ts_ms, -5);
  EXPECT_EQ(t.samples[3].ts_ms, 0);
  EXPECT_TRUE(t.samples[4].labels.empty());
  EXPECT_EQ(t.samples[5].name, "colons:are:ok");
  EXPECT_EQ(t.summary.non_finite, 2);
  ASSERT_EQ(t.summary.metrics.size(), 1u);
  EXPECT_EQ(t.summary.metrics[0].help, "text with  spaces");
  EXPECT_EQ(t.summary.metrics[0].type, PromMetricType::kCounter);
}

TEST(PromTextBad, MalformedLinesRejectedWithLineNumbers) {
  const std::string text =
      "ok 1\n"                          // 1
      "bad{gpu=0} 1\n"                  // 2 unquoted label value
      "bad{gpu=\"0\" 1\n"               // 3 missing ',' or '}'
      "bad{gpu=\"0} 1\n"                // 4 unterminated value
      "bad{gpu=\"0\"}\n"                // 5 missing value
      "bad 1 2 3\n"                     // 6 junk after the timestamp
      "bad abc\n"                       // 7 not a number
      "bad 1 1.5\n"                     // 8 float timestamp
      "bad 1e999\n"                     // 9 out of range
      "bad{a=\"1\",a=\"2\"} 1\n"        // 10 duplicate label
      "bad{a=\"\\x\"} 1\n"              // 11 bad escape
      "0bad 1\n"                        // 12 bad metric name
      "bad-name 1\n"                    // 13
      "# TYPE foo bogus\n"              // 14 unknown type
      "# HELP\n"                        // 15 no name
      "bad{1a=\"x\"} 1\n"               // 16 bad label name
      "bad 1 99999999999999999999\n"    // 17 timestamp overflow
      "bad\n"                           // 18 missing value
      "bad 1 +-5\n";                    // 19 bad timestamp
  auto p = Parse(text);
  ASSERT_TRUE(p->r->ok());
  EXPECT_EQ(p->counts.read, 19);
  EXPECT_EQ(p->counts.accepted, 1);
  EXPECT_EQ(p->counts.rejected, 18);
  std::vector<int64_t> lines;
  for (const auto& d : p->diag.items()) lines.push_back(d.line);
  std::vector<int64_t> expected;
  for (int64_t i = 2; i <= 19; ++i) expected.push_back(i);
  EXPECT_EQ(lines, expected);
  EXPECT_NE(p->diag.items()[0].reason.find("label"), std::string::npos);
  EXPECT_NE(p->diag.items()[4].reason.find("junk after the timestamp"), std::string::npos);
  EXPECT_NE(p->diag.items()[5].reason.find("not a number"), std::string::npos);
  EXPECT_NE(p->diag.items()[8].reason.find("duplicate label"), std::string::npos);
}

TEST(PromTextBad, EmptyCommentsOnlyGarbageAndWrongFormat) {
  {
    auto p = Parse("");
    ASSERT_TRUE(p->r->ok());
    EXPECT_EQ((*p->r)->summary.scrapes, 0);
  }
  {
    auto p = Parse("# just a comment\n\n");
    ASSERT_TRUE(p->r->ok());
    EXPECT_EQ(p->counts.read, 0);
  }
  {
    const char raw[] = "\x00\x01\xff\xfe{{\"\n\x7f\x03 1 2 3\n";
    const std::string garbage(raw, sizeof(raw) - 1);
    auto p = Parse(garbage);
    EXPECT_FALSE(p->r->ok());
    EXPECT_GT(p->counts.rejected, 0);
  }
  {
    auto p = Parse("ts,host,gpu,field,value\n1,a,0,x,1\n");  // a CSV
    EXPECT_FALSE(p->r->ok());
    EXPECT_EQ(p->counts.read, 2);
    EXPECT_EQ(p->counts.rejected, 2);
  }
  {
    auto p = Parse("m{a=\"1\"} 1\nm{a=\"2");  // truncated last line
    ASSERT_TRUE(p->r->ok());
    EXPECT_EQ(p->counts.accepted, 1);
    EXPECT_EQ(p->counts.rejected, 1);
  }
}

TEST(PromWriter, ExporterLayout) {
  PromSample s;
  s.name = "DCGM_FI_DEV_GPU_TEMP";
  s.labels = {{"pod", "p"}, {"hostname", "h"}, {"GPU_I_ID", "3"}, {"modelName", "NVIDIA H100"},
              {"gpu", "2"}, {"UUID", "GPU-x"}, {"device", "nvidia2"}, {"pci_bus_id", "00000000:18:00.0"},
              {"GPU_I_PROFILE", "1g.10gb"}};
  s.value = 41;
  EXPECT_EQ(WritePromSample(s),
            "DCGM_FI_DEV_GPU_TEMP{gpu=\"2\",UUID=\"GPU-x\",pci_bus_id=\"00000000:18:00.0\",device=\"nvidia2\","
            "modelName=\"NVIDIA H100\",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"3\",hostname=\"h\",pod=\"p\"} 41\n");
  s.labels = {{"gpu", "0"}, {"note", "a\"b\\c\nd"}};
  s.value = 113.611;
  s.ts_ms = 1714564800123;
  EXPECT_EQ(WritePromSample(s), "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",note=\"a\\\"b\\\\c\\nd\"} 113.611000 1714564800123\n");
  EXPECT_EQ(WritePromSample(s, PromValueStyle::kExact),
            "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",note=\"a\\\"b\\\\c\\nd\"} 113.611 1714564800123\n");
  s.labels.clear();
  s.value = NAN;
  s.ts_ms = kNoTime;
  EXPECT_EQ(WritePromSample(s), "DCGM_FI_DEV_GPU_TEMP NaN\n");
}

TEST(PromWriter, RoundTripRealFixturesExactly) {
  for (const auto& path : {kA100, kH100, kInspector}) {
    auto text = ReadFileText(path);
    ASSERT_TRUE(text.ok());
    auto p = Parse(*text);
    ASSERT_TRUE(p->r->ok());
    const auto& t = **p->r;
    const std::string written = WritePromText(t.samples, t.summary.metrics);
    // The dcgm-exporter fixtures are in exporter layout already, so the text comes back as is.
    if (path != kInspector) {
      EXPECT_EQ(written, *text) << path;
    }
    auto q = Parse(written);
    ASSERT_TRUE(q->r->ok());
    ASSERT_EQ((*q->r)->samples.size(), t.samples.size());
    for (size_t i = 0; i < t.samples.size(); ++i) {
      PromSample want = t.samples[i];
      want.labels = ExporterLabelOrder(want.labels);  // the Inspector's gpu label moves first
      EXPECT_TRUE(SamePromSample((*q->r)->samples[i], want)) << path << " " << i;
    }
    EXPECT_EQ((*q->r)->summary.metrics, t.summary.metrics);
  }
}

TEST(PromWriter, RoundTripScrapesMetadataTimestamps) {
  std::vector<PromMetricInfo> meta = {
      {"DCGM_FI_PROF_NVLINK_TX_BYTES", "NVLink tx\\rate\nsecond line", PromMetricType::kGauge, true, true},
      {"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "", PromMetricType::kCounter, false, true}};
  std::vector<PromSample> samples;
  for (int scrape = 0; scrape < 3; ++scrape) {
    for (int g = 0; g < 4; ++g) {
      for (const auto& m : meta) {
        PromSample s;
        s.name = m.name;
        s.labels = {{"gpu", std::to_string(g)}, {"UUID", std::string("GPU-").append(std::to_string(g))},
                    {"GPU_I_PROFILE", "7g.80gb"}, {"GPU_I_ID", "0"}, {"hostname", "n\"1"}};
        s.value = scrape == 1 && g == 2 ? NAN : 1e9 * g + 0.25 * scrape + 1.0 / 3;
        s.ts_ms = 1714564800000 + 1000 * scrape;
        s.scrape_index = scrape;
        samples.push_back(s);
      }
    }
  }
  for (auto style : {PromValueStyle::kExporter, PromValueStyle::kExact}) {
    const std::string text = WritePromText(samples, meta, style);
    auto p = Parse(text);
    ASSERT_TRUE(p->r->ok());
    EXPECT_EQ(p->counts.rejected, 0);
    const auto& t = **p->r;
    EXPECT_EQ(t.summary.scrapes, 3);
    EXPECT_EQ(t.summary.metrics, meta);
    EXPECT_EQ(t.summary.non_finite, 2);
    ASSERT_EQ(t.samples.size(), samples.size());
    for (size_t i = 0; i < samples.size(); ++i) {
      EXPECT_TRUE(SamePromSample(t.samples[i], samples[i], style == PromValueStyle::kExact ? 0 : 1e-6)) << i;
    }
    EXPECT_EQ(WritePromText(t.samples, t.summary.metrics, style), text);
  }
}

TEST(PromWriter, MetadataOncePerMetricPerScrape) {
  PromWriter w;
  w.SetMetadata({"m", "help", PromMetricType::kGauge, true, true});
  PromSample s;
  s.name = "m";
  s.value = 1;
  std::string out;
  w.BeginScrape();
  w.Append(&out, s);
  s.labels = {{"gpu", "1"}};
  w.Append(&out, s);
  w.BeginScrape();
  s.labels.clear();
  w.Append(&out, s);
  EXPECT_EQ(out, "# HELP m help\n# TYPE m gauge\nm 1\nm{gpu=\"1\"} 1\n# HELP m help\n# TYPE m gauge\nm 1\n");
}

}  // namespace prometheus_text_test
}  // namespace toposcope::formats
