// Tests of app/exporter_command: the exporter series of a simulated dataset (every GPU sample of
// its dmon, exporter and CSV files once, under DCGM_FI_* names, with the exporter's labels in its
// order, one series per host, GPU, link and field), and RunSimulateExporter's usage and input errors.
#include "toposcope/app/exporter_command.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include "toposcope/app/simulate_command.h"

namespace toposcope::app {
namespace exporter_command_test {

namespace fs = std::filesystem;

class ExporterCommandTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fs::temp_directory_path() / ("toposcope_exporter_cmd_" + std::to_string(::getpid())); }
  void TearDown() override { fs::remove_all(dir_); }
  static sim::SimOptions Small() {
    sim::SimOptions o = SimulateDefaults();
    o.hosts = 8;  // hosts 3, 5, 6 write exporter scrapes and CSV, the others dmon
    o.seed = 3;
    o.with_rdma = false;
    o.with_fabric = false;
    return o;
  }
  fs::path dir_;
};

TEST_F(ExporterCommandTest, SeriesOfEveryDcgmFileWithExporterLabels) {
  ASSERT_TRUE(RunSimulate(Small(), (dir_ / "sim").string()).ok());
  auto ds = model::LoadPaths({(dir_ / "sim").string()}, model::LoadOptions{});
  ASSERT_TRUE(ds.ok());
  auto data = ExporterDataOf(*ds);
  ASSERT_TRUE(data.ok()) << data.error().ToString();
  ASSERT_FALSE(data->series.empty());
  std::set<std::string> hosts, names, keys;
  int64_t points = 0;
  for (const serve::ExporterSeries& s : data->series) {
    EXPECT_EQ(s.name.rfind("DCGM_FI_", 0), 0u) << s.name;
    ASSERT_GE(s.labels.size(), 4u);
    EXPECT_EQ(s.labels[0].first, "gpu");
    EXPECT_EQ(s.labels[1].first, "UUID");
    EXPECT_EQ(s.labels[1].second.rfind("GPU-", 0), 0u);
    const std::string* host = nullptr;
    for (const auto& [k, v] : s.labels) {
      if (k == "Hostname") host = &v;
    }
    ASSERT_NE(host, nullptr);
    hosts.insert(*host);
    names.insert(s.name);
    std::string key = s.name;
    for (const auto& [k, v] : s.labels) key += "," + k + "=" + v;
    EXPECT_TRUE(keys.insert(key).second) << "two series " << key;
    points += static_cast<int64_t>(s.points.size());
  }
  EXPECT_EQ(hosts.size(), 8u);
  for (const char* n : {"DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_PROF_SM_ACTIVE"}) {
    EXPECT_EQ(names.count(n), 1u) << n;
  }
  EXPECT_EQ(data->metadata.size(), names.size());
  // Every GPU sample the loader counted, once.
  int64_t gpu_points = 0;
  for (const auto& [key, s] : ds->dcgm.series) {
    if (key.IsGpu() && key.gpu >= 0) gpu_points += s.count;
  }
  EXPECT_EQ(points, gpu_points);
}

TEST_F(ExporterCommandTest, UsageAndInputErrors) {
  ExporterRequest req;
  req.listen = "nonsense";
  Status st = RunSimulateExporter(Small(), (dir_ / "a").string(), req, stdout);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::kUsage);
  sim::SimOptions o = Small();
  o.with_telemetry = false;
  req.listen = "127.0.0.1:0";
  std::FILE* null = std::fopen("/dev/null", "w");
  st = RunSimulateExporter(o, (dir_ / "b").string(), req, null);
  std::fclose(null);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().ToString().find("no DCGM samples"), std::string::npos) << st.error().ToString();
}

}  // namespace exporter_command_test
}  // namespace toposcope::app
