// report/text/topo_matrix: one host's GPU links as the analyzer reconstructed them, drawn as an
// `nvidia-smi topo -m` style matrix (GPU0..N by GPU0..N, cells NV#, PIX, PXB, PHB, NODE, SYS, X),
// degraded links marked with '*', then a legend and one line per degraded link. `toposcope topo`
// prints it.
#pragma once

#include <string>
#include <vector>

#include "toposcope/analysis/result.h"
#include "toposcope/base/result.h"

namespace toposcope::report {

// The hosts the result has GPUs of, sorted.
std::vector<std::string> TopoHosts(const analysis::AnalysisResult& r);

// The matrix of `host`. Fails (kUsage) when the result has no GPU of that host, naming the hosts it has.
Result<std::string> TopoMatrixText(const analysis::AnalysisResult& r, const std::string& host);

}  // namespace toposcope::report
