// report/score/score_sections: the sections of a score (report/score), one function per section,
// grouped by domain: node (node_score.cc), time (time_score.cc), traffic (traffic_score.cc), fabric
// (fabric_score.cc), and the helpers they share. Internal to Score: each reads a truth
// (toposcope.truth/1) and a result (toposcope.result/1) whose shape CheckTruthShape /
// CheckResultShape (input_shape.h) accepted, and none reports an error itself: a value of an
// unexpected type still throws nlohmann's exception, which Score catches (call Score, not these).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace toposcope::report::score_internal {

// Returns j[key] when `j` is an object whose `key` is a string; else "".
std::string StrField(const nlohmann::json& j, const char* key);
// Returns an undirected link id ("a~b", "a--b") with its two ends in one order whatever order the
// writer chose (ends are ordered by name, and renaming a dataset changes that order); any other id
// as it is. Never fails.
std::string UndirectedId(const std::string& id);
// Returns num / den; 1 when den is not positive (nothing to get wrong).
double Ratio(double num, double den);
// Returns {"precision", "recall", "true_positives", "false_positives", "false_negatives"} of the
// counts, the two ratios rounded to 6 places.
nlohmann::json DetectionJson(int64_t tp, int64_t fp, int64_t fn);

// node_score.cc
// Returns "islands": the ARI of the result's islands over the truth's GPUs.
nlohmann::json ScoreIslands(const nlohmann::json& truth, const nlohmann::json& result);
// Returns "links": type, bandwidth-class and lane accuracy, degraded precision and recall.
nlohmann::json ScoreLinks(const nlohmann::json& truth, const nlohmann::json& result);

// time_score.cc
// Returns the clock alignment error per model on the truth's check instants; {} without checks.
nlohmann::json ScoreClocks(const nlohmann::json& truth, const nlohmann::json& result);
// Returns precision and recall per kind of injected telemetry fault; {} without faults.
nlohmann::json ScoreDetections(const nlohmann::json& truth, const nlohmann::json& result);

// traffic_score.cc
// Sets "flows", "rings" and "entropy" in `out` for what truth["rdma"] holds.
void ScoreRdma(const nlohmann::json& truth, const nlohmann::json& result, nlohmann::json& out);
// Sets "traffic_matrix" in `out` when the truth has a traffic matrix.
void ScoreTrafficMatrixJson(const nlohmann::json& truth, const nlohmann::json& result, nlohmann::json& out);

// fabric_score.cc
// Sets "patterns", "paths", "fabric" (leaf and pod accuracy) and "tomography" in `out` for what
// truth["fabric"] holds.
void ScoreFabric(const nlohmann::json& truth, const nlohmann::json& result, nlohmann::json& out);
// Sets "architecture" in `out` when the truth names one.
void ScoreArchitecture(const nlohmann::json& truth, const nlohmann::json& result, nlohmann::json& out);

// hypotheses_score.cc
// Sets "hypotheses" in `out` when the result has a hypothesis tree: top-1 / top-3 accuracy over the
// truth's injected root causes (by kind too), the highest fault probability, and on a truth without
// any root cause "clean_max_probability" (else null).
void ScoreHypotheses(const nlohmann::json& truth, const nlohmann::json& result, nlohmann::json& out);

}  // namespace toposcope::report::score_internal
