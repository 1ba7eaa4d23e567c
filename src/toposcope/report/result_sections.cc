#include "toposcope/report/result_sections.h"

#include <nlohmann/json.hpp>

#include "toposcope/base/json_io.h"
#include "toposcope/report/result_json.h"

namespace toposcope::report {

std::string ResultSectionsText(const analysis::AnalysisResult& r, const std::vector<std::string>& keys) {
  const nlohmann::json j = ResultToJson(r);
  nlohmann::json out;
  out["schema"] = kResultSchema;
  out["inputs"] = j["inputs"];
  for (const std::string& k : keys) {
    if (j.contains(k)) out[k] = j[k];
  }
  return DumpSchemaFirst(out);
}

std::string ArchitectureJsonText(const analysis::AnalysisResult& r) {
  const nlohmann::json j = ResultToJson(r);
  return (j.contains("architecture") ? json_io::DumpText(j["architecture"], 2) : std::string("null")) + "\n";
}

}  // namespace toposcope::report
