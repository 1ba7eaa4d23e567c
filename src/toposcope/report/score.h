// report/score: compares a result with the simulator's ground truth (truth.json) and measures
// each method: island ARI, link-type accuracy, degraded-link precision and recall, clocks,
// telemetry detections, flows, rings, entropy, fabric, tomography, architecture and the traffic
// matrix (the sections are in report/score/).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "toposcope/base/result.h"

namespace toposcope::report {

// Scores `result` (toposcope.result/1) against `truth` (toposcope.truth/1) and returns the score
// document (toposcope.score/1). Never throws. Fails when either document lacks its schema, or has
// a key of a type the scorer cannot read; the Error's path names the document ("truth.json" or
// "result.json") and its message the key, e.g. "key 'links[3].lanes' is a string, not a number".
Result<nlohmann::json> Score(const nlohmann::json& truth, const nlohmann::json& result);
// Reads both files (gz/zst accepted) and scores them. Fails when a file cannot be read or is not
// valid JSON (the Error is positioned where parsing stopped), or as Score does, with the Error's
// path the file's. A ring plan (ring_plan.json, `toposcope plan-ring`) in the result's directory
// adds the "ring_plan" section (report/score/ring_plan_score.h); one that is not valid JSON fails.
Result<nlohmann::json> ScoreFiles(const std::string& truth_path, const std::string& result_path);

// The headline figures of a score document for the terminal: one line per section, its numbers and
// booleans at the first level (at most `per_line`; nested objects are left to score.json). Never fails.
std::string ScoreHeadlineText(const nlohmann::json& score, size_t per_line = 5);

}  // namespace toposcope::report
