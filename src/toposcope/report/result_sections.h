// report/result_sections: parts of result.json on their own, for the commands that give one
// answer (`links`, `islands`, `identify --json`).
#pragma once

#include <string>
#include <vector>

#include "toposcope/analysis/result.h"

namespace toposcope::report {

// {"schema", "inputs", and the named top-level keys of result.json} as indented JSON text. A key
// the result does not have is left out.
std::string ResultSectionsText(const analysis::AnalysisResult& r, const std::vector<std::string>& keys);

// result.json's "architecture" object as indented JSON text, or "null" when there is none; with a
// trailing newline.
std::string ArchitectureJsonText(const analysis::AnalysisResult& r);

}  // namespace toposcope::report
