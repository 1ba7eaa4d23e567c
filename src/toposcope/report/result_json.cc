#include "toposcope/report/result_json.h"

#include <cmath>

#include "toposcope/base/json_io.h"
#include "toposcope/base/json_stream.h"
#include "toposcope/report/json/result_sections.h"

namespace toposcope::report {

using nlohmann::json;

json Num(double v, int decimals) {
  if (!std::isfinite(v)) return nullptr;
  const double p = std::pow(10.0, decimals);
  double r = std::round(v * p) / p;
  if (r == 0) r = 0;  // no "-0"
  return r;
}

json ResultToJson(const analysis::AnalysisResult& r, const std::vector<formats::PathProbe>* probes) {
  json j;
  j["schema"] = kResultSchema;
  j["inputs"] = InputsJson(r.inputs);
  j["gpus"] = GpusJson(r.gpus);
  j["islands"] = IslandsJson(r.islands);
  j["links"] = LinksJson(r.links);
  j["confidence"] = ConfidenceJson(r.confidence);
  j["clocks"] = ClocksJson(r.clocks);
  if (!r.servo.series.empty()) j["servo"] = ServoJson(r.servo);
  if (r.anchors.present) j["clock_anchors"] = ClockAnchorsJson(r.anchors);
  AddTelemetryJson(r.telemetry, j);
  if (r.rdma.present) AddRdmaJson(r.rdma, j);
  if (r.fabric.present) j["fabric"] = FabricJson(r.fabric);
  if (r.leaves_inferred) AddInferredLeavesJson(r.inferred_leaves, j);  // after "fabric": completes it
  if (r.patterns_present) AddPatternsJson(r.patterns, j);
  if (r.paths_present) j["paths"] = PathsJson(r.paths);
  if (r.architecture_present) j["architecture"] = ArchitectureJson(r.architecture);
  if (r.nics.present) j["nic_ports"] = NicsJson(r.nics);
  if (r.port_counters.present) j["port_counters"] = PortCountersJson(r.port_counters);
  if (r.collectives_present) j["collective_benchmarks"] = CollectivesJson(r.collectives);
  if (r.traffic_matrix.present) j["traffic_matrix"] = TrafficMatrixJson(r.traffic_matrix);
  if (r.link_weights.present) AddLinkWeightsJson(r.link_weights, j);
  if (r.timeline.present) j["timeline"] = TimelineJson(r.timeline);
  j["hypotheses"] = HypothesesJson(r, probes);
  j["thresholds"] = ThresholdsJson(r.thresholds);
  j["diagnostics"] = {{"rejected", r.rejected_total}, {"warnings", r.warnings_total}, {"kept", r.diagnostics}};
  return j;
}

void WriteSchemaFirst(const json& j, JsonStreamWriter* w) {
  if (!j.is_object() || !j.contains("schema")) {
    w->Value({}, j);
  } else {
    w->BeginObject();
    w->Value("schema", j["schema"]);
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() != "schema") w->Value(it.key(), it.value());
    }
    w->End();
  }
  w->Raw("\n");
}

std::string DumpSchemaFirst(const json& j) {
  std::string out;
  JsonStreamWriter w(
      [&out](std::string_view piece) {
        out.append(piece);
        return Status{};
      },
      2);
  WriteSchemaFirst(j, &w);
  (void)w.Finish();  // the sink never fails
  return out;
}

std::string ResultJsonText(const analysis::AnalysisResult& r, const std::vector<formats::PathProbe>* probes) {
  return DumpSchemaFirst(ResultToJson(r, probes));
}

}  // namespace toposcope::report
