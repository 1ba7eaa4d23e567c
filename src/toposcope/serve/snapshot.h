// serve/snapshot: everything `toposcope serve` answers from one analysis, rendered once when the
// analysis finishes (the metrics text, result.json, each host's part, the report page) so that a
// request only copies bytes. The server swaps a whole snapshot in at once: a request sees one
// analysis, never a mix.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "toposcope/analysis/result.h"
#include "toposcope/formats/fabric/path_probe.h"

namespace toposcope::serve {

// What one analysis hands the server (app/serve_command fills it from app::RunAnalyze).
struct AnalysisOutput {
  analysis::AnalysisResult result;
  std::vector<formats::PathProbe> probes;  // the dataset's path probes (hypotheses' evidence)
  std::string report_html;                 // the HTML report of the run, when one was written
};

struct Snapshot {
  std::string metrics_text;   // Prometheus text of the result's families (report/export)
  std::string result_json;    // result.json, byte for byte as `analyze` writes it
  std::string hosts_json;     // {"hosts": [...]}: the hosts /api/hosts/<host> knows
  std::map<std::string, std::string> host_json;  // host -> its part of result.json
  std::string report_html;    // empty when the run wrote none
  int64_t generation = 0;     // 1 for the first analysis, +1 per re-analysis
};

// The hosts a result names: those with GPUs, islands, clock fits or a fabric adapter. Sorted.
std::vector<std::string> ResultHosts(const analysis::AnalysisResult& r);

// The part of result.json (`result`, an object) about one host of `hosts`: every element of an
// array section, or of an array inside an object section ("fabric.links", "hypotheses.symptoms"),
// that names the host in its host, a, b, id, link, entity, name, node or peer field: the host
// itself, "HOST/..." (a GPU or island), or one end of "A--B" / "A~B" (a cable, a host pair).
// Returns host -> {"schema": "toposcope.host/1", "host": h, "<section>": [...]} for every host,
// sections without an element left out. Never fails.
std::map<std::string, std::string> HostParts(const std::string& result_json_text, const std::vector<std::string>& hosts);

// Renders the snapshot of one analysis. Never fails.
Snapshot BuildSnapshot(const AnalysisOutput& out, int64_t generation);

}  // namespace toposcope::serve
