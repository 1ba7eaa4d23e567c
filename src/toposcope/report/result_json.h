// report/result_json: renders an AnalysisResult as `result.json` (schema toposcope.result/1,
// documented in docs/result_schema.md): keys sorted, numbers rounded to fixed precision, so the same
// inputs give byte-identical output.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "toposcope/analysis/result.h"
#include "toposcope/base/json_stream.h"
#include "toposcope/formats/fabric/path_probe.h"
#include "toposcope/report/text/summary.h"  // ResultSummaryText, for the callers that find it here

namespace toposcope::report {

inline constexpr const char* kResultSchema = "toposcope.result/1";

// Returns `v` rounded to `decimals` places (never "-0"); null when `v` is NaN or infinite.
nlohmann::json Num(double v, int decimals = 3);

// Returns the whole result as a JSON object of schema kResultSchema, one key per section (the
// sections are in report/json/). Never fails: absent passes leave their sections out.
// `probes` (may be null): the dataset's path probes, which only the "hypotheses" section reads (its
// flapping-cable evidence); `analyze` passes them.
nlohmann::json ResultToJson(const analysis::AnalysisResult& r, const std::vector<formats::PathProbe>* probes = nullptr);
// Returns the text written to result.json: ResultToJson through DumpSchemaFirst. Never fails.
std::string ResultJsonText(const analysis::AnalysisResult& r, const std::vector<formats::PathProbe>* probes = nullptr);
// Returns `j` dumped with 2-space indent, sorted keys, but "schema" first (so format detection
// finds it in the first bytes), and a trailing newline; a value that is not an object or has no
// "schema" is dumped as it is. Never fails.
std::string DumpSchemaFirst(const nlohmann::json& j);
// The same text handed to `w` piece by piece (a writer of indent 2, nothing written yet), so a large
// result is never whole in memory as text.
void WriteSchemaFirst(const nlohmann::json& j, JsonStreamWriter* w);

}  // namespace toposcope::report
