// Unit tests of report/score/traffic_matrix_score on hand-built estimates: relative errors,
// coverage by the error bars, missing hosts, the floor and the pairs below it.
#include "toposcope/report/score/traffic_matrix_score.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace toposcope::report {
namespace traffic_matrix_score_test {

analysis::PairTraffic Pair(int src, int dst, double bytes_per_s, double err_bytes_per_s) {
  analysis::PairTraffic p;
  p.src_gpu = src;
  p.dst_gpu = dst;
  p.bytes_per_s = bytes_per_s;
  p.err_bytes_per_s = err_bytes_per_s;
  return p;
}

TEST(TrafficMatrixScore, ErrorsCoverageMissingHostsAndFloor) {
  analysis::TrafficMatrixReport rep;
  rep.present = true;
  analysis::HostTrafficMatrix h;
  h.host = "h0";
  h.estimable = true;
  h.pairs = {Pair(0, 1, 110, 20), Pair(1, 0, 50, 10), Pair(1, 2, 3, 1)};
  rep.hosts.push_back(h);
  analysis::HostTrafficMatrix skipped;
  skipped.host = "h1";
  skipped.estimable = false;
  skipped.pairs = {Pair(0, 1, 100, 1)};
  rep.hosts.push_back(skipped);
  // h0: 0->1 at 100 (10 % off, covered), 1->0 at 100 (50 % off, not covered), 1->2 at 0.5 (under
  // 1 % of 100: not scored, its error 2.5 counts below the floor); h1 is not estimable: missing.
  const std::vector<TruePairTraffic> truth = {
      {"h0", 0, 1, 100}, {"h0", 1, 0, 100}, {"h0", 1, 2, 0.5}, {"h1", 0, 1, 100}};
  const TrafficMatrixScore sc = ScoreTrafficMatrix(rep, truth);
  EXPECT_EQ(sc.pairs_scored, 3);
  EXPECT_EQ(sc.pairs_missing, 1);
  EXPECT_DOUBLE_EQ(sc.median_rel_error, 0.5);  // of 0.1, 0.5 and 1 (missing)
  EXPECT_DOUBLE_EQ(sc.p90_rel_error, 1.0);
  EXPECT_DOUBLE_EQ(sc.coverage, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(sc.max_abs_error_below_floor, 2.5);
}

TEST(TrafficMatrixScore, NothingScoredIsNaN) {
  const TrafficMatrixScore sc = ScoreTrafficMatrix(analysis::TrafficMatrixReport{}, {});
  EXPECT_EQ(sc.pairs_scored, 0);
  EXPECT_TRUE(std::isnan(sc.median_rel_error));
  EXPECT_TRUE(std::isnan(sc.coverage));
}

}  // namespace traffic_matrix_score_test
}  // namespace toposcope::report
