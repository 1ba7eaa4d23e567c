// analysis/analyze: runs every node-level analysis over a Dataset and gathers the findings.
#pragma once

#include "toposcope/analysis/time/anchors.h"
#include "toposcope/analysis/node/confidence.h"
#include "toposcope/analysis/fabric/path_entropy.h"
#include "toposcope/analysis/traffic/qp_patterns.h"
#include "toposcope/analysis/result.h"
#include "toposcope/analysis/time/timesync.h"
#include "toposcope/model/dataset.h"
#include "toposcope/stats/alpha_stable.h"

namespace toposcope::analysis {

struct AnalyzeOptions {
  Thresholds thresholds;
  stats::NoiseModel noise;
  ConfidenceOptions confidence;
  TimesyncOptions timesync;
  AnchorOptions anchors;
  RdmaOptions rdma;
  QpPatternOptions qp_patterns;
  PathOptions paths;
  LinkWeightOptions link_weights;
  LeafInferenceOptions leaf_inference;
  TrafficMatrixOptions traffic_matrix;
  ArchitectureOptions architecture;
};

// Fits the clock models of every host that has synchronised sync records.
std::vector<HostClockFit> FitClocks(const model::Dataset& ds, const TimesyncOptions& opt);

AnalysisResult Analyze(const model::Dataset& ds, const AnalyzeOptions& opt);

}  // namespace toposcope::analysis
