// report/export/otlp_export: metric families (report/export/metrics) as OTLP/JSON, the
// OpenTelemetry protocol's JSON encoding of ExportMetricsServiceRequest
// (resourceMetrics[].scopeMetrics[].metrics[] with gauge/sum dataPoints and their attributes), the
// file an OpenTelemetry Collector's otlpjsonfile receiver or an OTLP/HTTP endpoint reads.
// `toposcope analyze --otlp FILE` writes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toposcope/report/export/metrics.h"

namespace toposcope::report {

struct OtlpOptions {
  uint64_t time_unix_nano = 0;          // every data point's timeUnixNano (the analysis time)
  std::string service_name = "toposcope";  // resource attribute service.name
  std::string scope_version = "0.1.0";
};

// One line of JSON (and a line feed): one resource, one scope, one metric per family with samples
// (gauges as `gauge`, counters as cumulative monotonic `sum`), each sample a data point with its
// labels as string attributes and its value as asDouble; 64-bit integers as strings, as the
// protobuf JSON mapping wants. Families without samples are left out. Never fails.
std::string OtlpMetricsJson(const std::vector<MetricFamily>& families, const OtlpOptions& opt = {});

}  // namespace toposcope::report
