// report/export/prometheus_export: metric families (report/export/metrics) as the Prometheus text
// exposition format 0.0.4: `# HELP` and `# TYPE` per family, one line per sample, label values
// and help text escaped, numbers in their shortest exact form. What `toposcope serve` answers on
// /metrics.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toposcope/report/export/metrics.h"

namespace toposcope::report {

// The Content-Type of the text format.
inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

// A label value escaped for the text format: backslash, double quote and line feed as \\, \" and \n.
std::string EscapePrometheusLabel(std::string_view v);
// A HELP text escaped: backslash and line feed as \\ and \n.
std::string EscapePrometheusHelp(std::string_view v);
// A sample value: shortest form that reads back exactly; NaN, +Inf, -Inf spelled as Prometheus does.
std::string PrometheusNumber(double v);

// The families in the order given, samples in their order (NormaliseFamilies sorts them). A family
// without samples still gets its HELP and TYPE lines. Never fails.
std::string PrometheusText(const std::vector<MetricFamily>& families);

}  // namespace toposcope::report
