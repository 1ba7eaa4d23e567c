// report/score: compares a result with the simulator's ground truth (truth.json) and measures
// each method: island ARI, link-type accuracy, degraded-link precision and recall.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "toposcope/base/result.h"

namespace toposcope::report {

// Scores `result` (toposcope.result/1) against `truth` (toposcope.truth/1). Fails when either
// document lacks its schema.
Result<nlohmann::json> Score(const nlohmann::json& truth, const nlohmann::json& result);
// Reads both files (gz/zst accepted) and scores them.
Result<nlohmann::json> ScoreFiles(const std::string& truth_path, const std::string& result_path);

}  // namespace toposcope::report
