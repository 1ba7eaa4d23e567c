// Tests of probe/nvml/collector against the fake libnvidia-ml: the dmon text reads back through
// formats/dcgm with every column where it belongs, interval metrics start on the second
// iteration, GPM and the counter fallback, the stop flag, limits and errors.
#include "toposcope/probe/nvml/collector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "toposcope/base/diagnostics.h"

namespace toposcope::probe {
namespace collector_test {

class CollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : {"FAKE_NVML_FAIL", "FAKE_NVML_GPM", "FAKE_NVML_NO_FIELDS", "FAKE_NVML_DEVICES"}) unsetenv(v);
  }
  void TearDown() override { SetUp(); }

  // Runs the collector and reads its text back.
  formats::DmonLog Collect(const CollectOptions& o, CollectSummary* sum = nullptr) {
    auto nvml = NvmlLibrary::Load(TOPOSCOPE_FAKE_NVML);
    EXPECT_TRUE(nvml.ok());
    std::string text;
    std::atomic<bool> stop{false};
    auto s = RunCollector(*nvml, o, [&](std::string_view t) { text += t; return true; }, stop);
    EXPECT_TRUE(s.ok()) << s.error().ToString();
    if (sum != nullptr && s.ok()) *sum = *s;
    Diagnostics diag;
    ReadCounts counts;
    auto log = formats::ParseDmonText(text, "collect.txt", {}, diag, counts);
    EXPECT_TRUE(log.ok());
    EXPECT_EQ(counts.rejected, 0) << text;
    text_ = text;
    return log.ok() ? *log : formats::DmonLog{};
  }
  static int Col(const formats::DmonLog& log, const std::string& name) {
    const auto& f = log.summary.header.fields;
    for (size_t i = 0; i < f.size(); ++i) {
      if (f[i].short_name == name) return static_cast<int>(i);
    }
    return -1;
  }
  std::string text_;
};

TEST_F(CollectorTest, WritesDmonTextWithTimesThatReadsBack) {
  CollectOptions o;
  o.hz = 200;
  o.max_iterations = 3;
  CollectSummary sum;
  const formats::DmonLog log = Collect(o, &sum);
  EXPECT_EQ(sum.iterations, 3);
  EXPECT_EQ(sum.rows, 6);
  ASSERT_EQ(log.rows.size(), 6u);
  EXPECT_EQ(log.summary.timestamp_style, formats::DmonTimestampStyle::kEpoch);
  EXPECT_GT(log.rows[5].ts_ns, log.rows[0].ts_ns);
  EXPECT_EQ(log.rows[1].entity.id, 1);
  const auto& r = log.rows[3];  // GPU 1, second iteration
  EXPECT_EQ(r.values[Col(log, "SMCLK")], 1980);
  EXPECT_EQ(r.values[Col(log, "MMCLK")], 2619);
  EXPECT_EQ(r.values[Col(log, "TMPTR")], 41);
  EXPECT_EQ(r.values[Col(log, "POWER")], 101);
  EXPECT_EQ(r.values[Col(log, "GPUTL")], 50);
  EXPECT_EQ(r.values[Col(log, "MCUTL")], 20);
  EXPECT_EQ(r.values[Col(log, "PCITX")], 1000 * 1024);  // nvmlDeviceGetPcieThroughput, KB/s
  EXPECT_EQ(r.values[Col(log, "PCIRX")], 2000 * 1024);
  // NVLink from the cumulative counters: N/A first, then 100 MiB per interval over its length.
  EXPECT_TRUE(std::isnan(log.rows[1].values[Col(log, "NVLTX")]));
  const double tx = r.values[Col(log, "NVLTX")], rx = r.values[Col(log, "NVLRX")];
  EXPECT_GT(tx, 0);
  EXPECT_NEAR(rx / tx, 2, 0.01);
  EXPECT_TRUE(std::isnan(r.values[Col(log, "SMACT")]));  // no GPM on this fake
  EXPECT_FALSE(sum.gpm);
  EXPECT_NE(std::find(sum.unavailable.begin(), sum.unavailable.end(), "SMACT"), sum.unavailable.end());
}

TEST_F(CollectorTest, GpmGivesSmActivityAndIntervalRates) {
  setenv("FAKE_NVML_GPM", "1", 1);
  CollectOptions o;
  o.hz = 200;
  o.max_iterations = 2;
  CollectSummary sum;
  const formats::DmonLog log = Collect(o, &sum);
  ASSERT_EQ(log.rows.size(), 4u);
  EXPECT_TRUE(sum.gpm);
  EXPECT_TRUE(std::isnan(log.rows[0].values[Col(log, "SMACT")]));
  const auto& r = log.rows[2];
  EXPECT_NEAR(r.values[Col(log, "SMACT")], 0.75, 1e-9);
  EXPECT_NEAR(r.values[Col(log, "SMOCC")], 0.30, 1e-9);
  EXPECT_NEAR(r.values[Col(log, "DRAMA")], 0.40, 1e-9);
  EXPECT_EQ(r.values[Col(log, "PCITX")], 10 * 1048576);
  EXPECT_EQ(r.values[Col(log, "NVLTX")], 100 * 1048576);
  EXPECT_EQ(r.values[Col(log, "NVLRX")], 200 * 1048576);
}

TEST_F(CollectorTest, WithoutCountersNvlinkStaysNa) {
  setenv("FAKE_NVML_NO_FIELDS", "1", 1);
  CollectOptions o;
  o.hz = 200;
  o.max_iterations = 2;
  CollectSummary sum;
  const formats::DmonLog log = Collect(o, &sum);
  ASSERT_EQ(log.rows.size(), 4u);
  EXPECT_TRUE(std::isnan(log.rows[3].values[Col(log, "NVLTX")]));
  EXPECT_NE(std::find(sum.unavailable.begin(), sum.unavailable.end(), "NVLTX"), sum.unavailable.end());
}

TEST_F(CollectorTest, StopFlagEndsWithDmonsStopMessage) {
  auto nvml = NvmlLibrary::Load(TOPOSCOPE_FAKE_NVML);
  ASSERT_TRUE(nvml.ok());
  std::atomic<bool> stop{false};
  std::string text;
  CollectOptions o;
  o.hz = 100;
  int writes = 0;
  auto s = RunCollector(*nvml, o,
                        [&](std::string_view t) {
                          text += t;
                          if (++writes == 4) stop = true;  // as SIGINT would, mid-run
                          return true;
                        },
                        stop);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->stopped_by_signal);
  EXPECT_EQ(s->iterations, 4);
  Diagnostics diag;
  ReadCounts counts;
  auto log = formats::ParseDmonText(text, "c.txt", {}, diag, counts);
  ASSERT_TRUE(log.ok());
  EXPECT_TRUE(log->summary.stopped_by_signal);
  EXPECT_EQ(counts.rejected, 0);
}

TEST_F(CollectorTest, DurationRateAndDevices) {
  CollectOptions o;
  o.hz = 50;
  o.duration_s = 0.2;
  o.devices = {1};
  CollectSummary sum;
  const formats::DmonLog log = Collect(o, &sum);
  EXPECT_GE(sum.iterations, 5);
  EXPECT_LE(sum.iterations, 12);
  for (const auto& r : log.rows) EXPECT_EQ(r.entity.id, 1);
  EXPECT_NE(CollectSummaryText(sum).find("GPU 1  Fake GPU 1"), std::string::npos);
}

TEST_F(CollectorTest, ErrorsAreClear) {
  auto nvml = NvmlLibrary::Load(TOPOSCOPE_FAKE_NVML);
  ASSERT_TRUE(nvml.ok());
  std::atomic<bool> stop{false};
  auto sink = [](std::string_view) { return true; };
  CollectOptions o;
  o.devices = {5};
  auto bad = RunCollector(*nvml, o, sink, stop);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kUsage);
  EXPECT_NE(bad.error().message.find("GPU 5 does not exist"), std::string::npos);
  o.devices.clear();
  o.hz = 0;
  EXPECT_EQ(RunCollector(*nvml, o, sink, stop).error().kind, ErrorKind::kUsage);
  o.hz = 10;
  o.max_iterations = 1;
  auto full = RunCollector(*nvml, o, [](std::string_view) { return false; }, stop);
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().kind, ErrorKind::kOutput);
  // A query that fails while sampling leaves its value N/A; the run goes on.
  setenv("FAKE_NVML_FAIL", "nvmlDeviceGetTemperature", 1);
  const formats::DmonLog log = Collect(o);
  ASSERT_EQ(log.rows.size(), 2u);
  EXPECT_TRUE(std::isnan(log.rows[0].values[Col(log, "TMPTR")]));
  setenv("FAKE_NVML_FAIL", "nvmlDeviceGetCount_v2", 1);
  auto count = RunCollector(*nvml, o, sink, stop);
  ASSERT_FALSE(count.ok());
  EXPECT_NE(count.error().message.find("nvmlDeviceGetCount_v2: Unknown Error"), std::string::npos);
}

}  // namespace collector_test
}  // namespace toposcope::probe
