// report/result_json: renders an AnalysisResult as `result.json` (schema toposcope.result/1,
// documented in docs/result_schema.md): keys sorted, numbers rounded to fixed precision, so the same
// inputs give byte-identical output.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "toposcope/analysis/result.h"

namespace toposcope::report {

inline constexpr const char* kResultSchema = "toposcope.result/1";

// Rounds to `decimals` places; NaN and infinities become null.
nlohmann::json Num(double v, int decimals = 3);

nlohmann::json ResultToJson(const analysis::AnalysisResult& r);
// The text written to result.json (2-space indent, trailing newline).
std::string ResultJsonText(const analysis::AnalysisResult& r);
// Dumps a JSON object with 2-space indent, sorted keys, but "schema" first (so format detection
// finds it in the first bytes), and a trailing newline.
std::string DumpSchemaFirst(nlohmann::json j);

// A short human summary for the terminal.
std::string ResultSummaryText(const analysis::AnalysisResult& r);

}  // namespace toposcope::report
