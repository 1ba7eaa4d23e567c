// Golden tests of the dcgm-exporter counters CSV reader on both shipped configs, the writer's round
// trip, and malformed inputs.
#include "toposcope/formats/dcgm/dcgm_exporter_config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace toposcope::formats {
namespace dcgm_exporter_config_test {

const std::string kDir = std::string(TOPOSCOPE_FIXTURES) + "/dcgm_exporter/";
const std::string kDefault = kDir + "dcgm-exporter_default-counters.csv";
const std::string kDcp = kDir + "dcgm-exporter_dcp-metrics-included.csv";

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
  Result<std::vector<ExporterCounter>> entries = MakeError("not parsed");
};

Parsed Parse(const std::string& text, const std::string& source = "t") {
  Parsed p;
  p.entries = ParseExporterCountersCsv(text, source, p.diag, p.counts);
  EXPECT_TRUE(p.counts.Balanced());
  EXPECT_EQ(p.diag.RejectedFor(source), p.counts.rejected);
  return p;
}

void CheckShippedConfig(const std::string& path, int64_t xid_line) {
  Parsed p = Parse(Slurp(path), path);
  ASSERT_TRUE(p.entries.ok()) << p.entries.error().ToString();
  const auto& e = *p.entries;
  ASSERT_EQ(e.size(), 26u);
  EXPECT_EQ(p.counts.read, 26);
  EXPECT_EQ(p.counts.rejected, 0);
  EXPECT_EQ(p.diag.warnings_total(), 0);
  EXPECT_EQ(e[0].field_name, "DCGM_FI_DEV_SM_CLOCK");
  EXPECT_EQ(e[0].field_id, 100);
  EXPECT_EQ(e[0].type, ExporterMetricType::kGauge);
  EXPECT_EQ(e[0].help, "SM clock frequency (in MHz).");
  EXPECT_EQ(e[0].line, 6);
  EXPECT_EQ(e[3].field_name, "DCGM_FI_DEV_GPU_TEMP");
  EXPECT_EQ(e[3].field_id, 150);
  EXPECT_EQ(e[5].field_name, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION");
  EXPECT_EQ(e[5].type, ExporterMetricType::kCounter);
  EXPECT_EQ(e[10].field_name, "DCGM_FI_DEV_DEC_UTIL");  // written `DCGM_FI_DEV_DEC_UTIL ,`
  EXPECT_EQ(e[10].field_id, 207);
  EXPECT_EQ(e[11].field_name, "DCGM_FI_DEV_XID_ERRORS");
  EXPECT_EQ(e[11].line, xid_line);
  EXPECT_EQ(e[11].help, "Value of the last XID error encountered.");
  int labels = 0, counters = 0, gauges = 0;
  for (const auto& c : e) {
    EXPECT_GT(c.field_id, 0) << c.field_name;
    labels += c.type == ExporterMetricType::kLabel;
    counters += c.type == ExporterMetricType::kCounter;
    gauges += c.type == ExporterMetricType::kGauge;
  }
  EXPECT_EQ(labels, 1);
  EXPECT_EQ(counters, 5);
  EXPECT_EQ(gauges, 20);
  const auto& drv = e[20];
  EXPECT_EQ(drv.field_name, "DCGM_FI_DRIVER_VERSION");
  EXPECT_EQ(drv.type, ExporterMetricType::kLabel);
  EXPECT_EQ(drv.field_id, 1);
  EXPECT_EQ(e[15].field_name, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL");
  EXPECT_EQ(e[15].field_id, 449);
  EXPECT_EQ(e[25].field_name, "DCGM_FI_PROF_PCIE_RX_BYTES");
  EXPECT_EQ(e[25].field_id, 1010);
  EXPECT_EQ(e[25].help,
            "The rate of data received over the PCIe bus - including both protocol headers and "
            "data payloads - in bytes per second.");

  // Round trip through the writer.
  const std::string written = WriteExporterCountersCsv(e);
  Parsed q = Parse(written);
  ASSERT_TRUE(q.entries.ok());
  ASSERT_EQ(q.entries->size(), e.size());
  for (size_t i = 0; i < e.size(); ++i) {
    ExporterCounter a = e[i];
    ExporterCounter b = (*q.entries)[i];
    a.line = b.line = 0;
    EXPECT_EQ(a, b) << i;
  }
}

TEST(DcgmExporterConfig, GoldenDefaultCounters) { CheckShippedConfig(kDefault, 29); }
TEST(DcgmExporterConfig, GoldenDcpMetricsIncluded) { CheckShippedConfig(kDcp, 29); }

TEST(DcgmExporterConfig, QuotesExporterFieldsAndWriterQuoting) {
  const std::string text =
      "DCGM_FI_DEV_GPU_TEMP_CELSIUS, gauge, \"GPU temperature, in C\"\n"
      "DCGM_EXP_XID_ERRORS_COUNT, counter, reported XIDs during last window\n"
      "DCGM_FI_DEV_SOMETHING_NEW, gauge, unknown to the catalog\n"
      "DCGM_FI_PROF_SM_ACTIVE, histogram,\n"
      "DCGM_FI_PROF_SM_OCCUPANCY,summary,\"say \"\"hi\"\"\"\n";
  Parsed p = Parse(text);
  ASSERT_TRUE(p.entries.ok());
  ASSERT_EQ(p.entries->size(), 5u);
  const auto& e = *p.entries;
  EXPECT_EQ(e[0].field_id, 150);
  EXPECT_EQ(e[0].help, "GPU temperature, in C");
  EXPECT_EQ(e[1].field_id, -1);
  EXPECT_EQ(e[2].field_id, -1);
  EXPECT_EQ(p.diag.warnings_total(), 1);  // only the unknown DCGM_FI_ name
  EXPECT_EQ(e[3].type, ExporterMetricType::kHistogram);
  EXPECT_EQ(e[3].help, "");
  EXPECT_EQ(e[4].help, "say \"hi\"");
  Parsed q = Parse(WriteExporterCountersCsv(e));
  ASSERT_TRUE(q.entries.ok());
  ASSERT_EQ(q.entries->size(), 5u);
  for (size_t i = 0; i < e.size(); ++i) {
    EXPECT_EQ(e[i].help, (*q.entries)[i].help);
    EXPECT_EQ(e[i].type, (*q.entries)[i].type);
  }
}

TEST(DcgmExporterConfig, BadInput) {
  EXPECT_FALSE(Parse("").entries.ok());
  EXPECT_FALSE(Parse("# only comments\n\n# here\n").entries.ok());
  EXPECT_FALSE(Parse(std::string("\x00\x01\x02\x03", 4)).entries.ok());
  EXPECT_FALSE(Parse("#Entity NVLTX\nGPU 0 1\n").entries.ok());  // wrong format: all rejected
  const std::string text =
      "DCGM_FI_DEV_GPU_TEMP, gauge, ok\n"
      "DCGM_FI_DEV_GPU_UTIL, rate, unknown type\n"
      "DCGM_FI_DEV_FB_USED, gauge\n"
      "DCGM_FI_DEV_FB_FREE, gauge, help, extra\n"
      "GPU_TEMP, gauge, not a DCGM name\n"
      "DCGM_FI_DEV_GPU_TEMP, counter, duplicate\n"
      "DCGM_FI_DEV_POWER_USAGE, gauge, \"unterminated\n"
      "DCGM_FI_DEV_MEM_CLOCK, gauge, bare \" quote\n"
      "DCGM_FI_DEV_SM_CLOCK, Gauge, case matters\n"
      "DCGM_FI_DEV_SM_CLOCK, gauge, bell\x07 in help\n"
      "DCGM_FI_DEV_SM_CLOCK, gauge, fine\r\n";
  Parsed p = Parse(text);
  ASSERT_TRUE(p.entries.ok());
  EXPECT_EQ(p.entries->size(), 2u);
  EXPECT_EQ(p.counts.read, 11);
  EXPECT_EQ(p.counts.rejected, 9);
  EXPECT_EQ((*p.entries)[1].help, "fine");
  std::string reasons;
  for (const auto& d : p.diag.items()) reasons += d.reason + "\n";
  EXPECT_NE(reasons.find("unknown metric type 'rate'"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("duplicate field DCGM_FI_DEV_GPU_TEMP"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("got 2 cells"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("malformed quoting"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("control characters"), std::string::npos) << reasons;
}

}  // namespace dcgm_exporter_config_test
}  // namespace toposcope::formats
