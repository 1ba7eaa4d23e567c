// report/export/otlp_export: OTLP/JSON metrics (see otlp_export.h).
#include "toposcope/report/export/otlp_export.h"

#include <nlohmann/json.hpp>

namespace toposcope::report {
namespace {

using nlohmann::ordered_json;

ordered_json StringAttribute(const std::string& key, const std::string& value) {
  return {{"key", key}, {"value", {{"stringValue", value}}}};
}

ordered_json DataPoints(const MetricFamily& f, const OtlpOptions& opt) {
  ordered_json points = ordered_json::array();
  for (const MetricSample& s : f.samples) {
    ordered_json attrs = ordered_json::array();
    for (const auto& [k, v] : s.labels) attrs.push_back(StringAttribute(k, v));
    points.push_back({{"attributes", attrs}, {"timeUnixNano", std::to_string(opt.time_unix_nano)}, {"asDouble", s.value}});
  }
  return points;
}

}  // namespace

std::string OtlpMetricsJson(const std::vector<MetricFamily>& families, const OtlpOptions& opt) {
  ordered_json metrics = ordered_json::array();
  for (const MetricFamily& f : families) {
    if (f.samples.empty()) continue;
    ordered_json m = {{"name", f.name}, {"description", f.help}, {"unit", f.unit}};
    if (f.type == MetricType::kCounter) {
      m["sum"] = {{"dataPoints", DataPoints(f, opt)}, {"aggregationTemporality", 2}, {"isMonotonic", true}};
    } else {
      m["gauge"] = {{"dataPoints", DataPoints(f, opt)}};
    }
    metrics.push_back(std::move(m));
  }
  ordered_json scope = {{"scope", {{"name", "toposcope"}, {"version", opt.scope_version}}}, {"metrics", metrics}};
  ordered_json resource = {{"attributes", ordered_json::array({StringAttribute("service.name", opt.service_name)})}};
  ordered_json root = {{"resourceMetrics", ordered_json::array({{{"resource", resource}, {"scopeMetrics", ordered_json::array({scope})}}})}};
  return root.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace toposcope::report
