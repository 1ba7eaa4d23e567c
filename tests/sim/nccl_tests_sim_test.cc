// The simulator's nccl-tests answers: read back by the real reader without a rejected line, laid
// out as the real fixture is, the slowest member's factor in the bus bandwidth, noise of the
// stated size, and the same bytes for the same inputs.
#include "toposcope/sim/nccl_tests_sim.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "toposcope/formats/nccl/nccl_tests.h"

namespace toposcope::sim {
namespace nccl_tests_sim_test {

formats::NcclTestsReport Parse(const std::string& text) {
  Diagnostics diag;
  auto r = formats::ParseNcclTests(text, "sim", diag);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
  if (!r.ok()) return {};
  EXPECT_EQ(r->counts.rejected, 0);
  EXPECT_TRUE(r->counts.Balanced());
  return *r;
}

double BusbwAtLargest(const formats::NcclTestsReport& r) {
  return r.runs.back().rows.back().out_of_place.busbw_gbps;
}

TEST(NcclTestsSim, ReadsBackLikeTheRealFile) {
  const std::vector<std::string> hosts = SimHostNames(3);
  EXPECT_EQ(hosts, (std::vector<std::string>{"node0001", "node0002", "node0003"}));
  const std::string text = AllReducePerfText(hosts, {}, 1, 1);
  const formats::NcclTestsReport r = Parse(text);
  ASSERT_EQ(r.runs.size(), 1u);
  const formats::NcclTestsRun& run = r.runs[0];
  EXPECT_EQ(run.devices.size(), 24u);
  std::set<std::string> named;
  for (const auto& d : run.devices) named.insert(d.host);
  EXPECT_EQ(named, std::set<std::string>(hosts.begin(), hosts.end()));
  EXPECT_EQ(run.rows.size(), 31u);  // 8 B .. 8 GiB by 2
  EXPECT_EQ(run.rows.back().size_bytes, int64_t{8} << 30);
  EXPECT_EQ(run.max_bytes, int64_t{8} << 30);
  ASSERT_TRUE(run.avg_busbw_gbps.has_value());
  ASSERT_TRUE(run.out_of_bounds.has_value());
  EXPECT_EQ(*run.out_of_bounds, 0);
  EXPECT_NEAR(BusbwAtLargest(r), 340, 340 * 0.05);
  // The table's header lines are the real file's, byte for byte.
  std::ifstream in(std::string(TOPOSCOPE_FIXTURES) + "/nccl_tests/gcp_a3mega_h100_2node16gpu_all_reduce_perf.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string real = ss.str();
  for (const char* key : {"#       size         count      type   redop    root     time   algbw   busbw #wrong",
                          "# Out of bounds values : 0 OK", "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592"}) {
    EXPECT_NE(real.find(key), std::string::npos) << key;
    EXPECT_NE(text.find(key), std::string::npos) << key;
  }
  // A row lines up with the real rows: the same column widths.
  const std::string real_row = real.substr(real.find("           8             2     float     sum      -1"), 60);
  EXPECT_NE(text.find(real_row.substr(0, 52)), std::string::npos);
}

TEST(NcclTestsSim, SlowestMemberSetsTheBandwidth) {
  const std::vector<std::string> hosts = SimHostNames(16);
  const SlowNodeTruth t = DrawSlowNodes(hosts, 2, 5);
  ASSERT_EQ(t.slow.size(), 2u);
  for (double f : t.factor) {
    EXPECT_GE(f, 0.5);
    EXPECT_LT(f, 0.85);
  }
  const double healthy = BusbwAtLargest(Parse(AllReducePerfText({"node0099", "node0098"}, t, 5, 1)));
  const double one = BusbwAtLargest(Parse(AllReducePerfText({t.slow[0], "node0098"}, t, 5, 1)));
  const double both = BusbwAtLargest(Parse(AllReducePerfText({t.slow[0], t.slow[1]}, t, 5, 1)));
  EXPECT_NEAR(one / healthy, t.factor[0], 0.02);
  EXPECT_NEAR(both / healthy, std::min(t.factor[0], t.factor[1]), 0.02);
}

TEST(NcclTestsSim, NoiseAndDeterminism) {
  const std::vector<std::string> hosts = SimHostNames(4);
  EXPECT_EQ(AllReducePerfText(hosts, {}, 9, 3), AllReducePerfText(hosts, {}, 9, 3));
  EXPECT_NE(AllReducePerfText(hosts, {}, 9, 3), AllReducePerfText(hosts, {}, 9, 4));
  std::vector<double> v;
  for (int id = 1; id <= 200; ++id) v.push_back(BusbwAtLargest(Parse(AllReducePerfText(hosts, {}, 9, id))));
  double mean = 0;
  for (double x : v) mean += x / v.size();
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean) / (v.size() - 1);
  const double rel = std::sqrt(var) / mean;
  EXPECT_GT(rel, 0.003);  // 0.5 % noise, the dips and the per-size wobble
  EXPECT_LT(rel, 0.02);
}

}  // namespace nccl_tests_sim_test
}  // namespace toposcope::sim
