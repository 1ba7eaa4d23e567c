// analysis/pipeline/options: every analysis option, pass by pass, in one value.
#pragma once

#include "toposcope/analysis/fabric/architecture.h"
#include "toposcope/analysis/fabric/leaf_inference.h"
#include "toposcope/analysis/fabric/link_weights.h"
#include "toposcope/analysis/fabric/path_entropy.h"
#include "toposcope/analysis/node/confidence.h"
#include "toposcope/analysis/node/links.h"
#include "toposcope/analysis/time/anchors.h"
#include "toposcope/analysis/time/timesync.h"
#include "toposcope/analysis/traffic/collective_bench.h"
#include "toposcope/analysis/traffic/qp_patterns.h"
#include "toposcope/analysis/traffic/rdma.h"
#include "toposcope/analysis/traffic/traffic_matrix.h"
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
  CollectiveBenchOptions collectives;
};

}  // namespace toposcope::analysis
