#include "toposcope/report/result_json.h"

#include <cmath>
#include <utility>

#include <tbb/parallel_invoke.h>

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
  // The sections that grow with the cluster (per link, GPU, host or input), built side by side
  // when there are threads to spare: an object's keys come out sorted whatever the order they
  // went in, so the text is the same.
  json inputs, gpus, islands, links, confidence, clocks, hypotheses;
  tbb::parallel_invoke([&] { links = LinksJson(r.links); },
                       [&] { confidence = ConfidenceJson(r.confidence); },
                       [&] {
                         clocks = ClocksJson(r.clocks);
                         hypotheses = HypothesesJson(r, probes);
                       },
                       [&] {
                         islands = IslandsJson(r.islands);
                         inputs = InputsJson(r.inputs);
                         gpus = GpusJson(r.gpus);
                       });
  json j;
  j["schema"] = kResultSchema;
  j["inputs"] = std::move(inputs);
  j["gpus"] = std::move(gpus);
  j["islands"] = std::move(islands);
  j["links"] = std::move(links);
  j["confidence"] = std::move(confidence);
  j["clocks"] = std::move(clocks);
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
  j["hypotheses"] = std::move(hypotheses);
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
