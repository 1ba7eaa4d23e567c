// Unit tests of report/export/prometheus_export: the text exposition format (HELP/TYPE lines,
// escaping, numbers, order) and, where promtool is installed (Debian: prometheus), that
// `promtool check metrics` accepts the metrics of a small result.
#include "toposcope/report/export/prometheus_export.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace toposcope::report {
namespace prometheus_export_test {

TEST(PrometheusExport, Escaping) {
  EXPECT_EQ(EscapePrometheusLabel("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(EscapePrometheusHelp("a\\b\"c\nd"), "a\\\\b\"c\\nd");
}

TEST(PrometheusExport, Numbers) {
  EXPECT_EQ(PrometheusNumber(0), "0");
  EXPECT_EQ(PrometheusNumber(-0.0), "0");
  EXPECT_EQ(PrometheusNumber(3), "3");
  EXPECT_EQ(PrometheusNumber(0.1), "0.1");
  EXPECT_EQ(PrometheusNumber(2.5e-6), "2.5e-06");
  EXPECT_EQ(PrometheusNumber(1e11), "100000000000");
  EXPECT_EQ(PrometheusNumber(NAN), "NaN");
  EXPECT_EQ(PrometheusNumber(INFINITY), "+Inf");
  EXPECT_EQ(PrometheusNumber(-INFINITY), "-Inf");
}

TEST(PrometheusExport, FamiliesAndSamples) {
  MetricFamily g;
  g.name = "toposcope_x_seconds";
  g.help = "line one\nline two";
  g.Add({{"host", "h\"1"}, {"gpu", "gpu0"}}, 1.5);
  g.Add({}, 2);
  MetricFamily c;
  c.name = "toposcope_y_total";
  c.help = "a counter";
  c.type = MetricType::kCounter;
  MetricFamily empty;
  empty.name = "toposcope_z";
  empty.help = "no samples";
  std::vector<MetricFamily> fs = {g, c, empty};
  fs[1].Add({{"endpoint", "/metrics"}}, 7);
  NormaliseFamilies(fs);
  EXPECT_EQ(PrometheusText(fs),
            "# HELP toposcope_x_seconds line one\\nline two\n"
            "# TYPE toposcope_x_seconds gauge\n"
            "toposcope_x_seconds 2\n"
            "toposcope_x_seconds{host=\"h\\\"1\",gpu=\"gpu0\"} 1.5\n"
            "# HELP toposcope_y_total a counter\n"
            "# TYPE toposcope_y_total counter\n"
            "toposcope_y_total{endpoint=\"/metrics\"} 7\n"
            "# HELP toposcope_z no samples\n"
            "# TYPE toposcope_z gauge\n");
}

// Every family of a result: names with the prefix, valid label names, promtool's lint clean.
TEST(PrometheusExport, PromtoolAcceptsAResult) {
  analysis::AnalysisResult r;
  r.inputs.push_back({"/d/h\"1/we\\ird\nname.txt", "nvidia-smi-topo", "h1", 10, 2, false, ""});
  r.gpus = {{"h1/gpu0", "h1", 0, "h1/island0"}};
  analysis::LinkReport link;
  link.a = "h1/gpu0";
  link.b = "h1/gpu1";
  link.bandwidth_gbps = 20;
  link.degraded = true;
  r.links.push_back(link);
  const std::string text = PrometheusText(ResultMetrics(r));
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t e = text.find('\n', pos);
    ASSERT_NE(e, std::string::npos);
    const std::string line = text.substr(pos, e - pos);
    pos = e + 1;
    if (line.rfind("# ", 0) == 0) continue;
    EXPECT_EQ(line.rfind("toposcope_", 0), 0u) << line;
  }
  if (!std::filesystem::exists("/usr/bin/promtool")) GTEST_SKIP() << "promtool not installed (Debian: prometheus)";
  const auto dir = std::filesystem::temp_directory_path() / ("toposcope_prom_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "metrics.prom";
  std::ofstream(file) << text;
  const std::string cmd = "/usr/bin/promtool check metrics < " + file.string() + " > " + (dir / "out.txt").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(dir / "out.txt");
  const std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 0) << out << "\n" << text;
  EXPECT_EQ(out, "") << text;
  std::filesystem::remove_all(dir);
}

}  // namespace prometheus_export_test
}  // namespace toposcope::report
