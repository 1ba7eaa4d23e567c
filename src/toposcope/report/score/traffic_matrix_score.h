// report/score/traffic_matrix_score: an estimated GPU-pair traffic matrix (analysis/traffic/
// traffic_matrix) against a known one (the simulator's truth).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "toposcope/analysis/traffic/traffic_matrix.h"

namespace toposcope::report {

// One true GPU pair of a host and its rate.
struct TruePairTraffic {
  std::string host;
  int src_gpu = -1, dst_gpu = -1;
  double bytes_per_s = 0;
};

// The score of an estimated matrix; the error figures are NaN when no pair was scored.
struct TrafficMatrixScore {
  double median_rel_error = NAN;  // |est - true| / true over the scored pairs
  double p90_rel_error = NAN;
  double coverage = NAN;          // share of scored pairs with |est - true| <= err_bytes_per_s
  int pairs_scored = 0;
  int pairs_missing = 0;          // scored pairs on hosts the report did not estimate
  double max_abs_error_below_floor = 0;  // bytes/s, true pairs under the floor (incl. zero pairs)
};

// Scores the estimable hosts of `report` against `truth` over the pairs whose true rate is at least
// `floor_bytes_per_s` (absolute) or `floor_share` of the host's largest true pair; a scored pair
// the report lacks counts as a relative error of 1. Returns the score; never fails.
TrafficMatrixScore ScoreTrafficMatrix(const analysis::TrafficMatrixReport& report,
                                      const std::vector<TruePairTraffic>& truth, double floor_share = 0.01,
                                      double floor_bytes_per_s = 0);

}  // namespace toposcope::report
