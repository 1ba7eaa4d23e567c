// report/text/architecture_text: the architecture identification (analysis/fabric/architecture)
// as the text `toposcope architecture` prints.
#pragma once

#include <string>

#include "toposcope/analysis/result.h"

namespace toposcope::report {

// Returns the architecture, its confidence, metrics and evidence as text (one line without a fabric
// dump or path probes in the inputs), each line ending in a newline. Never fails; metrics that are
// not finite read "n/a".
std::string ArchitectureText(const analysis::AnalysisResult& r);

}  // namespace toposcope::report
