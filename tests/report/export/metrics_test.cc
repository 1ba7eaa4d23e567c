// Unit tests of report/export/metrics: the metric families of a small hand-made result (labels
// split from GPU and cable ids, units converted, NaN left out, sorted and de-duplicated samples).
#include "toposcope/report/export/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace toposcope::report {
namespace metrics_test {

const MetricFamily* Find(const std::vector<MetricFamily>& fs, const std::string& name) {
  for (const auto& f : fs) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// The value of the sample with exactly these labels; NaN when there is none.
double Value(const std::vector<MetricFamily>& fs, const std::string& name,
             const std::vector<std::pair<std::string, std::string>>& labels) {
  const MetricFamily* f = Find(fs, name);
  if (!f) return NAN;
  for (const auto& s : f->samples) {
    if (s.labels == labels) return s.value;
  }
  return NAN;
}

analysis::AnalysisResult SmallResult() {
  analysis::AnalysisResult r;
  r.inputs.push_back({"/d/h1/topo.txt", "nvidia-smi-topo", "h1", 10, 2, false, ""});
  r.inputs.push_back({"/d/h2/topo.txt", "nvidia-smi-topo", "h2", 5, 0, false, ""});
  r.inputs.push_back({"/d/truth.json", "toposcope-truth", "", 0, 0, true, "ground truth"});
  r.gpus = {{"h1/gpu0", "h1", 0, "h1/island0"}, {"h1/gpu1", "h1", 1, "h1/island0"}, {"h2/gpu0", "h2", 0, "h2/island0"}};
  analysis::IslandReport island;
  island.id = "h1/island0";
  island.host = "h1";
  island.members = {"h1/gpu0", "h1/gpu1"};
  r.islands.push_back(island);
  analysis::LinkReport link;
  link.a = "h1/gpu0";
  link.b = "h1/gpu1";
  link.type = LinkType::kNvlink;
  link.bandwidth_gbps = 100;
  link.expected_gbps = 400;
  link.degraded = true;
  r.links.push_back(link);
  analysis::HostClockFit fit;
  fit.host = "h1";
  analysis::ClockModel m;
  m.kind = analysis::ClockModelKind::kRobust;
  m.segments.push_back({0, 10, 0, 2500.0, 0, 0});  // 2.5 µs
  m.mean_abs_residual_us = 0.5;
  m.p99_abs_residual_us = NAN;
  fit.models.push_back(m);
  r.clocks.push_back(fit);
  r.link_weights.present = true;
  r.link_weights.tomography.links.push_back({"h1--leaf1", 1.5, 2.0, true, "", 3});
  r.link_weights.tomography.links.push_back({"leaf1--spine1", NAN, NAN, false, "uncovered", 0});
  r.fabric.present = true;
  r.fabric.hosts = {"h1", "h2"};
  analysis::LinkEntropySummary es;
  es.link = "h1~h2";
  es.seed_bits_median = 3.25;
  es.qps = 4;
  r.rdma.entropy.links.push_back(es);
  r.rejected_total = 2;
  return r;
}

TEST(Metrics, InputAccounting) {
  const auto fs = ResultMetrics(SmallResult());
  const std::vector<std::pair<std::string, std::string>> l = {{"path", "/d/h1/topo.txt"}, {"format", "nvidia-smi-topo"}, {"host", "h1"}};
  EXPECT_EQ(Value(fs, "toposcope_input_read_records", l), 10);
  EXPECT_EQ(Value(fs, "toposcope_input_accepted_records", l), 8);
  EXPECT_EQ(Value(fs, "toposcope_input_rejected_records", l), 2);
  EXPECT_EQ(Value(fs, "toposcope_format_read_records", {{"format", "nvidia-smi-topo"}}), 15);
  EXPECT_EQ(Value(fs, "toposcope_format_accepted_records", {{"format", "nvidia-smi-topo"}}), 13);
  EXPECT_EQ(Value(fs, "toposcope_input_files", {{"format", "toposcope-truth"}, {"status", "skipped"}}), 1);
  EXPECT_EQ(Value(fs, "toposcope_input_files", {{"format", "nvidia-smi-topo"}, {"status", "read"}}), 2);
  EXPECT_EQ(Value(fs, "toposcope_rejected_records", {}), 2);
  // the skipped file has no per-file series
  EXPECT_EQ(Find(fs, "toposcope_input_read_records")->samples.size(), 2u);
}

TEST(Metrics, NodeFamiliesSplitGpuIds) {
  const auto fs = ResultMetrics(SmallResult());
  EXPECT_EQ(Value(fs, "toposcope_host_gpus", {{"host", "h1"}}), 2);
  EXPECT_EQ(Value(fs, "toposcope_host_gpus", {{"host", "h2"}}), 1);
  EXPECT_EQ(Value(fs, "toposcope_host_islands", {{"host", "h1"}}), 1);
  EXPECT_EQ(Value(fs, "toposcope_island_gpus", {{"host", "h1"}, {"island", "island0"}}), 2);
  EXPECT_EQ(Value(fs, "toposcope_host_degraded_gpu_links", {{"host", "h1"}}), 1);
  const std::vector<std::pair<std::string, std::string>> l = {{"host", "h1"}, {"gpu", "gpu0"}, {"peer_gpu", "gpu1"}, {"type", "NVLINK"}};
  EXPECT_EQ(Value(fs, "toposcope_gpu_link_degraded", l), 1);
  EXPECT_DOUBLE_EQ(Value(fs, "toposcope_gpu_link_bandwidth_bytes_per_second", l), 100e9);
  EXPECT_DOUBLE_EQ(Value(fs, "toposcope_gpu_link_expected_bandwidth_bytes_per_second", l), 400e9);
}

TEST(Metrics, ClocksInSecondsAndNaNLeftOut) {
  const auto fs = ResultMetrics(SmallResult());
  EXPECT_DOUBLE_EQ(Value(fs, "toposcope_clock_offset_seconds", {{"host", "h1"}, {"model", "robust"}}), 2.5e-6);
  EXPECT_DOUBLE_EQ(Value(fs, "toposcope_clock_fit_error_seconds", {{"host", "h1"}, {"model", "robust"}, {"statistic", "mean"}}), 0.5e-6);
  EXPECT_EQ(Find(fs, "toposcope_clock_fit_error_seconds")->samples.size(), 1u);  // p99 was NaN
}

TEST(Metrics, CablesGetHostAndSwitchLabels) {
  const auto fs = ResultMetrics(SmallResult());
  EXPECT_DOUBLE_EQ(Value(fs, "toposcope_cable_latency_seconds", {{"link", "h1--leaf1"}, {"host", "h1"}, {"switch", "leaf1"}}), 1.5e-6);
  EXPECT_EQ(Find(fs, "toposcope_cable_latency_seconds")->samples.size(), 1u);  // the uncovered cable has none
  EXPECT_EQ(Value(fs, "toposcope_cable_identifiable", {{"link", "leaf1--spine1"}, {"switch", "leaf1"}, {"peer_switch", "spine1"}}), 0);
  EXPECT_EQ(Value(fs, "toposcope_link_entropy_bit", {{"link", "h1~h2"}, {"estimator", "seed_header"}}), 3.25);
  EXPECT_EQ(Value(fs, "toposcope_link_queue_pairs", {{"link", "h1~h2"}}), 4);
}

TEST(Metrics, HypothesesOfTheDegradedLink) {
  const auto fs = ResultMetrics(SmallResult());
  const MetricFamily* p = Find(fs, "toposcope_hypothesis_probability");
  ASSERT_NE(p, nullptr);
  ASSERT_FALSE(p->samples.empty());
  for (const auto& s : p->samples) {
    EXPECT_GE(s.value, 0);
    EXPECT_LE(s.value, 1);
  }
  EXPECT_GT(Value(fs, "toposcope_fault_probability_max", {}), 0);
}

TEST(Metrics, SortedUniqueAndDeterministic) {
  MetricFamily f;
  f.Add({{"a", "2"}}, 1);
  f.Add({{"a", "1"}}, 2);
  f.Add({{"a", "2"}}, 3);
  f.Add({{"a", "3"}, {"b", ""}}, NAN);
  f.Add({{"a", "4"}, {"b", ""}}, 4);
  f.Add({{"a", "bad\xff"}}, 5);
  std::vector<MetricFamily> fs = {f};
  NormaliseFamilies(fs);
  ASSERT_EQ(fs[0].samples.size(), 4u);
  EXPECT_EQ(fs[0].samples[0].labels[0].second, "1");
  EXPECT_EQ(fs[0].samples[1].value, 1);  // the first of the two a="2"
  EXPECT_EQ(fs[0].samples[2].labels.size(), 1u);  // the empty label dropped
  EXPECT_EQ(fs[0].samples[3].labels[0].second, "bad\xEF\xBF\xBD");
  const auto a = ResultMetrics(SmallResult());
  const auto b = ResultMetrics(SmallResult());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    ASSERT_EQ(a[i].samples.size(), b[i].samples.size());
    for (size_t j = 0; j < a[i].samples.size(); ++j) EXPECT_EQ(a[i].samples[j].labels, b[i].samples[j].labels);
  }
}

}  // namespace metrics_test
}  // namespace toposcope::report
