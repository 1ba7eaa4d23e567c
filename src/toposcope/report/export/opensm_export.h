// report/export/opensm_export: tomography hop weights (analysis/fabric/tomography) as an OpenSM
// `--hop_weights_file`.
#pragma once

#include <string>
#include <vector>

#include "toposcope/analysis/fabric/tomography.h"

namespace toposcope::report {

// Returns the hop-weights file text: a header comment, then one line "<port GUID> <port> <weight>"
// per entry in the given order, the GUID normalised to 0x + 16 hex digits. Never fails: entries
// with an unparsable GUID, a port outside 0..254 or a weight < 1 are skipped and listed in a
// trailing comment.
std::string WriteOpenSmHopWeights(const std::vector<analysis::HopWeight>& w);

}  // namespace toposcope::report
