// Tests of analysis/traffic/collective_bench: per-run summaries, host sets compared with their
// peers only (same test, ranks, hosts and size), slow host sets and failed validations.
#include "toposcope/analysis/traffic/collective_bench.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace toposcope::analysis {
namespace collective_bench_test {

using formats::NcclTestsReport;
using formats::NcclTestsRun;

// A run of `ranks` ranks spread evenly over `hosts`, with rows up to 1 GiB whose bus bandwidth
// grows to `busbw` at the largest size; `wrong` values wrong at the largest size.
NcclTestsRun MakeRun(const std::vector<std::string>& hosts, int ranks, double busbw, int64_t wrong = 0) {
  NcclTestsRun run;
  run.test = "all_reduce_perf";
  for (int r = 0; r < ranks; ++r) {
    formats::NcclTestsDevice d;
    d.rank = r;
    d.host = hosts[static_cast<size_t>(r) * hosts.size() / static_cast<size_t>(ranks)];
    d.device = r;
    d.gpu_name = "NVIDIA H100 80GB HBM3";
    run.devices.push_back(d);
  }
  for (int64_t size = 1 << 20; size <= (int64_t{1} << 30); size *= 4) {
    formats::NcclTestsRow row;
    row.size_bytes = size;
    row.count = size / 4;
    row.type = "float";
    row.out_of_place.present = row.in_place.present = true;
    row.out_of_place.busbw_gbps = busbw * static_cast<double>(size) / static_cast<double>(int64_t{1} << 30);
    row.in_place.busbw_gbps = row.out_of_place.busbw_gbps;
    row.out_of_place.wrong = size == (int64_t{1} << 30) ? wrong : 0;
    row.in_place.wrong = 0;
    run.rows.push_back(row);
  }
  return run;
}

NcclTestsReport Report(std::vector<NcclTestsRun> runs) {
  NcclTestsReport rep;
  rep.source = "bench.txt";
  rep.runs = std::move(runs);
  return rep;
}

TEST(CollectiveBench, RunSummaryHasHostsLargestSizeAndValidation) {
  const auto out = SummarizeNcclTests({Report({MakeRun({"b", "a"}, 16, 180.0)})});
  ASSERT_EQ(out.runs.size(), 1u);
  const CollectiveRun& r = out.runs[0];
  EXPECT_EQ(r.hosts, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.ranks, 16);
  EXPECT_EQ(r.largest_bytes, int64_t{1} << 30);
  EXPECT_DOUBLE_EQ(r.busbw_at_largest_gbps, 180.0);
  EXPECT_DOUBLE_EQ(r.peak_busbw_gbps, 180.0);
  EXPECT_EQ(r.validation, "passed");
  EXPECT_EQ(r.gpu_models, (std::vector<std::string>{"NVIDIA H100 80GB HBM3"}));
  EXPECT_TRUE(out.findings.empty());
}

TEST(CollectiveBench, SlowHostSetStandsOutFromItsPeers) {
  std::vector<NcclTestsRun> runs;
  const double bw[] = {181.0, 179.5, 180.2, 178.9, 120.0};
  for (int i = 0; i < 5; ++i) {
    runs.push_back(MakeRun({"n" + std::to_string(2 * i), "n" + std::to_string(2 * i + 1)}, 16, bw[i]));
  }
  const auto out = SummarizeNcclTests({Report(runs)});
  ASSERT_EQ(out.host_sets.size(), 5u);
  int slow = 0;
  for (const auto& s : out.host_sets) {
    EXPECT_EQ(s.peers, 4);
    if (s.slow) {
      ++slow;
      EXPECT_EQ(s.hosts, (std::vector<std::string>{"n8", "n9"}));
      EXPECT_LT(s.z, -3);
    }
  }
  EXPECT_EQ(slow, 1);
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].kind, "slow_host_set");
}

TEST(CollectiveBench, EqualHostSetsAreNotSlowAndIntraNodeRunsAreNotPeers) {
  std::vector<NcclTestsRun> runs;
  for (int i = 0; i < 3; ++i) runs.push_back(MakeRun({"n" + std::to_string(2 * i), "n" + std::to_string(2 * i + 1)}, 16, 180));
  // One host with 16 ranks on NVLink is much faster: a different scale, not a peer.
  runs.push_back(MakeRun({"solo"}, 16, 450));
  const auto out = SummarizeNcclTests({Report(runs)});
  for (const auto& s : out.host_sets) EXPECT_FALSE(s.slow);
  for (const auto& s : out.host_sets) EXPECT_EQ(s.peers, s.hosts.size() == 1 ? 0 : 2);
}

TEST(CollectiveBench, WrongValuesAreAFailedValidation) {
  const auto out = SummarizeNcclTests({Report({MakeRun({"a", "b"}, 16, 180, 3)})});
  ASSERT_EQ(out.runs.size(), 1u);
  EXPECT_EQ(out.runs[0].validation, "failed");
  EXPECT_EQ(out.runs[0].wrong, 3);
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].kind, "validation_failed");
}

TEST(CollectiveBench, ValidationOffAndEmptyRuns) {
  NcclTestsRun off = MakeRun({"a", "b"}, 16, 180);
  for (auto& row : off.rows) row.out_of_place.wrong = row.in_place.wrong = -1;
  NcclTestsRun empty;
  const auto out = SummarizeNcclTests({Report({off, empty})});
  ASSERT_EQ(out.runs.size(), 2u);
  EXPECT_EQ(out.runs[0].validation, "off");
  EXPECT_EQ(out.runs[1].sizes, 0);
  EXPECT_EQ(out.host_sets.size(), 1u);  // the run without rows measures nothing
}

}  // namespace collective_bench_test
}  // namespace toposcope::analysis
