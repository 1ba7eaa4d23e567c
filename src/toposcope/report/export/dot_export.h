// report/export/dot_export: the reconstructed topology as Graphviz DOT graphs (`analyze --dot DIR`):
// fabric.dot, the switched fabric (spines, leaves, hosts and their cables; cables slower than their
// tier or whose ends disagree drawn red and dashed as degraded, switches where the probed paths
// bottleneck drawn orange as congested), and one <host>.dot per host with GPUs, its GPU graph
// (edges labelled NV#, PIX, ... as reconstructed; degraded links red and dashed). Deterministic: the
// result's order, sorted names.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "toposcope/analysis/result.h"

namespace toposcope::report {

// The files (name in the directory, DOT text): "fabric.dot" first, then "<host>.dot" by host
// (a host name's characters other than letters, digits, '.', '_' and '-' become '_'). Never fails:
// a result without a fabric gives a fabric.dot with the hosts alone.
std::vector<std::pair<std::string, std::string>> DotFiles(const analysis::AnalysisResult& r);

// One host's GPU graph.
std::string HostDot(const analysis::AnalysisResult& r, const std::string& host);
// The fabric graph.
std::string FabricDot(const analysis::AnalysisResult& r);

}  // namespace toposcope::report
