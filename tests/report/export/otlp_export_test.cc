// Unit tests of report/export/otlp_export: the OTLP/JSON structure (resourceMetrics / scopeMetrics /
// metrics / gauge or sum / dataPoints with attributes), integers as strings, empty families left out.
#include "toposcope/report/export/otlp_export.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace toposcope::report {
namespace otlp_export_test {

TEST(OtlpExport, GaugesAndSums) {
  MetricFamily g;
  g.name = "toposcope_clock_offset_seconds";
  g.help = "offset";
  g.unit = "s";
  g.Add({{"host", "h1"}, {"model", "robust"}}, 2.5e-6);
  MetricFamily c;
  c.name = "toposcope_serve_analyses_total";
  c.help = "analyses";
  c.unit = "1";
  c.type = MetricType::kCounter;
  c.Add({}, 3);
  MetricFamily empty;
  empty.name = "toposcope_nothing";
  OtlpOptions opt;
  opt.time_unix_nano = 1700000000000000000ULL;
  const std::string text = OtlpMetricsJson({g, c, empty}, opt);
  ASSERT_EQ(text.back(), '\n');
  const auto j = nlohmann::json::parse(text);
  const auto& rm = j.at("resourceMetrics").at(0);
  EXPECT_EQ(rm.at("resource").at("attributes").at(0).at("key"), "service.name");
  EXPECT_EQ(rm.at("resource").at("attributes").at(0).at("value").at("stringValue"), "toposcope");
  const auto& sm = rm.at("scopeMetrics").at(0);
  EXPECT_EQ(sm.at("scope").at("name"), "toposcope");
  const auto& ms = sm.at("metrics");
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].at("name"), "toposcope_clock_offset_seconds");
  EXPECT_EQ(ms[0].at("unit"), "s");
  const auto& p = ms[0].at("gauge").at("dataPoints").at(0);
  EXPECT_EQ(p.at("timeUnixNano"), "1700000000000000000");
  EXPECT_DOUBLE_EQ(p.at("asDouble").get<double>(), 2.5e-6);
  EXPECT_EQ(p.at("attributes").at(0).at("key"), "host");
  EXPECT_EQ(p.at("attributes").at(0).at("value").at("stringValue"), "h1");
  EXPECT_EQ(p.at("attributes").at(1).at("key"), "model");
  EXPECT_EQ(ms[1].at("sum").at("aggregationTemporality"), 2);
  EXPECT_EQ(ms[1].at("sum").at("isMonotonic"), true);
  EXPECT_EQ(ms[1].at("sum").at("dataPoints").at(0).at("attributes").size(), 0u);
  EXPECT_EQ(text, OtlpMetricsJson({g, c, empty}, opt));  // deterministic
}

TEST(OtlpExport, SameFamiliesAsPrometheus) {
  analysis::AnalysisResult r;
  r.gpus = {{"h1/gpu0", "h1", 0, "h1/island0"}, {"h2/gpu0", "h2", 0, "h2/island0"}};
  const auto fs = ResultMetrics(r);
  const auto j = nlohmann::json::parse(OtlpMetricsJson(fs));
  bool found = false;
  for (const auto& m : j["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]) {
    if (m["name"] != "toposcope_host_gpus") continue;
    found = true;
    EXPECT_EQ(m["gauge"]["dataPoints"].size(), 2u);
  }
  EXPECT_TRUE(found);
}

}  // namespace otlp_export_test
}  // namespace toposcope::report
