// analysis/node/confidence: how far to trust inferred edges and paths (seed §2.5). Measurement noise is
// a truncated alpha-stable relative error; a sample taken every T ms averages T / base_period raw
// counter updates, so its error eps(T) is the q-quantile of |mean| of that many draws. A path of
// edges keeps the bound delta >= 1 - sum_i w_i eps_i (w_i = 1 per edge); the longest path with
// delta >= delta_min is the "max hops" of a sampling period. Everything is computed, never copied.
#pragma once

#include <vector>

#include "toposcope/stats/alpha_stable.h"
#include <cmath>
#include <string>
#include "toposcope/analysis/node/links.h"

namespace toposcope::analysis {
struct SamplingRow {
  double period_ms = 0;
  double per_hop_error = 0;  // relative error bound of one edge's measurement (quantile)
  int max_hops = 0;          // longest path whose delta bound stays >= delta_min
};

struct PathConfidence {
  std::string a, b;          // GPU ids
  std::vector<std::string> hops;  // the devices the path crosses, endpoints included
  double delta = NAN;        // 1 - sum w_i eps_i
};

struct ConfidenceReport {
  double alpha = 0, beta = 0, scale = 0, truncation = 0, location = 0;  // the noise model used
  bool noise_fitted = false;   // alpha, beta, scale fitted to the data (else the prior)
  int noise_samples = 0;       // residuals the fit saw
  std::string noise_source;    // NoiseFit::source
  std::string noise_note;      // why the prior was kept ("" when fitted)
  double quantile = 0;       // quantile used for eps
  double delta_min = 0;      // confidence a path must keep
  double base_period_ms = 0; // period of the raw counter updates that a sample averages
  std::vector<SamplingRow> sampling;
  std::vector<PathConfidence> paths;
};

struct ConfidenceOptions {
  std::vector<double> periods_ms = {10, 20, 50, 100, 200, 500, 1000};
  double base_period_ms = 10.0;   // raw update period that one sample averages over
  double quantile = 0.95;         // eps = this quantile of |relative error|
  double delta_min = 0.75;        // a path is trusted while delta >= this
  double path_period_ms = 100.0;  // sampling period used for the per-path delta
};

// Number of edges a path of this type crosses between two GPUs of one node (1 for kUnknown). Never
// fails.
int PathEdges(LinkType t);

// The per-period error bounds and max hops under the noise (MeasuredNoise: fitted, or the prior; its
// Monte Carlo seeded from the data), and the delta of every link's path at opt.path_period_ms.
// Returns the report; never fails.
ConfidenceReport AnalyzeConfidence(const std::vector<LinkReport>& links, const NoiseFit& noise,
                                   const ConfidenceOptions& opt = {});
// The same under a given noise model (reported as the prior, seed 777). Never fails.
ConfidenceReport AnalyzeConfidence(const std::vector<LinkReport>& links, const stats::NoiseModel& noise,
                                   const ConfidenceOptions& opt = {});

}  // namespace toposcope::analysis
