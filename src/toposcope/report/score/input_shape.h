// report/score/input_shape: checks that a truth or result document has the shape the scorer reads
// (report/score), so that a malformed document gives an Error naming the key instead of an
// exception. Keys are optional (a section without its keys is not scored); a key that is present
// must hold the type the scorer reads.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "toposcope/base/result.h"

namespace toposcope::report {

// Checks `truth` (toposcope.truth/1). Returns an Error with path `name` (e.g. "truth.json") and a
// message naming the first key of the wrong type, e.g. "key 'links[3].lanes' is a string, not a
// number"; ok otherwise.
Status CheckTruthShape(const nlohmann::json& truth, const std::string& name);
// The same for `result` (toposcope.result/1).
Status CheckResultShape(const nlohmann::json& result, const std::string& name);

}  // namespace toposcope::report
