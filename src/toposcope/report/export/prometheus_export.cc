// report/export/prometheus_export: the Prometheus text exposition format (see prometheus_export.h).
#include "toposcope/report/export/prometheus_export.h"

#include <fmt/format.h>

#include <cmath>

namespace toposcope::report {

std::string EscapePrometheusLabel(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string EscapePrometheusHelp(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string PrometheusNumber(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return "0";
  return fmt::format("{}", v);
}

std::string PrometheusText(const std::vector<MetricFamily>& families) {
  std::string out;
  for (const MetricFamily& f : families) {
    out += "# HELP " + f.name + " " + EscapePrometheusHelp(f.help) + "\n";
    out += "# TYPE " + f.name + (f.type == MetricType::kCounter ? " counter\n" : " gauge\n");
    for (const MetricSample& s : f.samples) {
      out += f.name;
      if (!s.labels.empty()) {
        out += '{';
        for (size_t i = 0; i < s.labels.size(); ++i) {
          if (i) out += ',';
          out += s.labels[i].first + "=\"" + EscapePrometheusLabel(s.labels[i].second) + "\"";
        }
        out += '}';
      }
      out += ' ' + PrometheusNumber(s.value) + '\n';
    }
  }
  return out;
}

}  // namespace toposcope::report
