// Golden tests of the Prometheus query API reader on answers captured from a real Prometheus 2.42
// (Debian) scraping a real dcgm-exporter scrape (testdata/prom/query_range/README.md): labels,
// times (whole and fractional seconds), values, the DCGM view; Prometheus's own error answers;
// bad input with a clear message and balanced counts; the API's time parameters.
#include "toposcope/formats/dcgm/prometheus_query.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "toposcope/base/file_io.h"

namespace toposcope::formats {
namespace prometheus_query_test {

const std::string kDir = std::string(TOPOSCOPE_TESTDATA) + "/prom/query_range";

struct Read {
  Diagnostics diag;
  ReadCounts counts;
  Result<PromQueryAnswer> r = MakeError("unset");
};

void ParseInto(std::string_view text, Read* out) {
  out->r = ParsePromQueryResponse(text, "http://prom:9090", out->diag, out->counts);
  EXPECT_TRUE(out->counts.Balanced());
  EXPECT_EQ(out->diag.rejected_total(), out->counts.rejected);
}

std::string FileText(const std::string& name) {
  auto t = ReadFileText(kDir + "/" + name);
  EXPECT_TRUE(t.ok()) << name;
  return t.ok() ? *t : std::string();
}

TEST(PromQueryReal, RangeOfEveryDcgmFieldAtOneSecond) {
  Read p;
  ParseInto(FileText("dcgm_all_step1s.json"), &p);
  ASSERT_TRUE(p.r.ok()) << p.r.error().ToString();
  EXPECT_EQ(p.r->info.result_type, "matrix");
  EXPECT_EQ(p.r->info.series, 30);
  EXPECT_EQ(p.r->info.samples, 150);
  EXPECT_EQ(p.counts.read, 150);
  EXPECT_EQ(p.counts.rejected, 0);
  ASSERT_EQ(p.r->samples.size(), 150u);
  const PromSample& first = p.r->samples[0];
  EXPECT_EQ(first.name, "DCGM_FI_DEV_GPU_TEMP");
  EXPECT_EQ(first.ts_ms, int64_t{1796469756000});
  EXPECT_EQ(first.value, 26);
  ASSERT_NE(first.Label("instance"), nullptr);
  EXPECT_EQ(*first.Label("instance"), "127.0.0.1:56731");
  EXPECT_EQ(first.Label("__name__"), nullptr);
  const DcgmPromSample d = ToDcgmSample(first);
  EXPECT_EQ(d.host, "gpu-node-1");
  EXPECT_EQ(d.gpu, 7);
  EXPECT_EQ(d.uuid, "GPU-04d228d3-3b5a-3534-f5cf-969706647d56");
  EXPECT_EQ(d.model_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.ts_ns, int64_t{1796469756000} * 1000000);
  // GPU 0's power: the series with the pod labels, five steps of the same scrape value.
  int found = 0;
  for (const PromSample& s : p.r->samples) {
    const DcgmPromSample g = ToDcgmSample(s);
    if (g.field != "DCGM_FI_DEV_POWER_USAGE" || g.gpu != 0) continue;
    EXPECT_DOUBLE_EQ(g.value, 113.611);
    EXPECT_EQ(s.ts_ms, int64_t{1796469756000} + 1000 * found);
    EXPECT_EQ(s.scrape_index, found);
    ASSERT_NE(s.Label("pod"), nullptr);
    ++found;
  }
  EXPECT_EQ(found, 5);
}

TEST(PromQueryReal, FractionalTimesAtHalfSeconds) {
  Read p;
  ParseInto(FileText("power_step500ms.json"), &p);
  ASSERT_TRUE(p.r.ok()) << p.r.error().ToString();
  EXPECT_EQ(p.r->info.series, 8);
  ASSERT_EQ(p.r->samples.size(), 48u);
  EXPECT_EQ(p.r->samples[0].ts_ms, int64_t{1796469761125});
  EXPECT_EQ(p.r->samples[1].ts_ms, int64_t{1796469761625});
  EXPECT_DOUBLE_EQ(p.r->samples[0].value, 66.997);
}

TEST(PromQueryReal, InstantVector) {
  Read p;
  ParseInto(FileText("instant_vector.json"), &p);
  ASSERT_TRUE(p.r.ok()) << p.r.error().ToString();
  EXPECT_EQ(p.r->info.result_type, "vector");
  ASSERT_EQ(p.r->samples.size(), 1u);
  EXPECT_EQ(p.r->samples[0].ts_ms, int64_t{1796469764277});
  EXPECT_EQ(ToDcgmSample(p.r->samples[0]).gpu, 0);
}

TEST(PromQueryReal, ErrorAnswersFailWithPrometheusWords) {
  for (const auto& [file, words] : {std::pair<std::string, std::string>{"error_bad_query.json", "parse error"},
                                    {"error_too_many_points.json", "11,000 points"}}) {
    Read p;
    ParseInto(FileText(file), &p);
    ASSERT_FALSE(p.r.ok()) << file;
    const std::string msg = p.r.error().ToString();
    EXPECT_NE(msg.find("Prometheus answered error (bad_data)"), std::string::npos) << msg;
    EXPECT_NE(msg.find(words), std::string::npos) << msg;
    EXPECT_NE(msg.find("http://prom:9090"), std::string::npos) << msg;
  }
}

TEST(PromQueryBad, NotJsonOrNotAnAnswer) {
  for (const char* text : {"", "<html>502 Bad Gateway</html>", "[1,2]", "{\"status\":\"success\"}",
                           "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\"}}",
                           "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":{}}}"}) {
    Read p;
    ParseInto(text, &p);
    EXPECT_FALSE(p.r.ok()) << text;
  }
  Read html;
  ParseInto("<html>502 Bad Gateway</html>", &html);
  ASSERT_FALSE(html.r.ok());
  EXPECT_NE(html.r.error().ToString().find("not JSON"), std::string::npos);
}

TEST(PromQueryBad, ScalarIsNotSeries) {
  Read p;
  ParseInto(R"({"status":"success","data":{"resultType":"scalar","result":[1796469764.277,"8"]}})", &p);
  ASSERT_FALSE(p.r.ok());
  EXPECT_NE(p.r.error().ToString().find("scalar, not series"), std::string::npos);
}

TEST(PromQueryBad, BadPairsAreRejectedTheRestKept) {
  Read p;
  ParseInto(R"({"status":"success","warnings":["too many series"],"data":{"resultType":"matrix","result":[
      {"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","gpu":"0","Hostname":"n1"},
       "values":[[1796469756,"30"],[1796469757,"x"],["1796469758","31"],[1796469759],[1796469760,"NaN"],[1e300,"1"]]},
      {"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","gpu":1},"values":[[1796469756,"30"]]},
      {"metric":{"__name__":"up"},"histograms":[[1796469756,{"count":"1"}]]},
      7]}})", &p);
  ASSERT_TRUE(p.r.ok()) << p.r.error().ToString();
  EXPECT_EQ(p.counts.accepted, 2);
  EXPECT_EQ(p.counts.rejected, 7);
  EXPECT_EQ(p.r->info.non_finite, 1);
  EXPECT_TRUE(std::isnan(p.r->samples[1].value));
  ASSERT_EQ(p.r->info.warnings.size(), 1u);
  EXPECT_EQ(p.r->info.warnings[0], "too many series");
  bool named = false;
  for (const auto& d : p.diag.items()) {
    if (d.reason.find("DCGM_FI_DEV_GPU_TEMP{Hostname=\"n1\",gpu=\"0\"}, value 1: the value is not a number") != std::string::npos) {
      named = true;
    }
  }
  EXPECT_TRUE(named);
}

TEST(PromQueryBad, NothingReadable) {
  Read p;
  ParseInto(R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"a"]]}]}})", &p);
  EXPECT_FALSE(p.r.ok());
  EXPECT_EQ(p.counts.rejected, 1);
}

TEST(PromQueryBad, EmptyResultIsAnAnswer) {
  Read p;
  ParseInto(R"({"status":"success","data":{"resultType":"matrix","result":[]}})", &p);
  ASSERT_TRUE(p.r.ok());
  EXPECT_EQ(p.r->info.series, 0);
  EXPECT_EQ(p.counts.read, 0);
}

TEST(PromApiTime, UnixSecondsAndRfc3339) {
  EXPECT_EQ(ParsePromApiTimeNs("1796469756"), int64_t{1796469756} * 1000000000);
  EXPECT_EQ(ParsePromApiTimeNs("1796469756.125"), int64_t{1796469756125} * 1000000);
  EXPECT_EQ(ParsePromApiTimeNs("2026-12-05T11:22:36Z"), int64_t{1796469756} * 1000000000);
  EXPECT_EQ(ParsePromApiTimeNs("2026-12-05T12:22:36.5+01:00"), int64_t{1796469756500} * 1000000);
  for (const char* bad : {"", "abc", "1.2.3", "12x", "99999999999999999999", "-"}) {
    EXPECT_FALSE(ParsePromApiTimeNs(bad).has_value()) << bad;
  }
}

}  // namespace prometheus_query_test
}  // namespace toposcope::formats
