// report/export/metrics: an AnalysisResult as metric families (name, help, unit, labelled samples),
// the one model behind the Prometheus text (prometheus_export) and OTLP/JSON (otlp_export) exports.
// Names carry the toposcope_ prefix and their unit (_seconds, _bits, _bytes_per_second); samples
// are sorted by their labels, so the same result gives the same families in the same order.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "toposcope/analysis/result.h"
#include "toposcope/formats/fabric/path_probe.h"

namespace toposcope::report {

enum class MetricType { kGauge, kCounter };

struct MetricSample {
  std::vector<std::pair<std::string, std::string>> labels;  // (name, value); empty values left out
  double value = 0;
};

struct MetricFamily {
  std::string name;  // toposcope_..., [a-zA-Z_:][a-zA-Z0-9_:]*
  std::string help;  // one line
  std::string unit;  // UCUM for OTLP: "s", "bit", "By/s", "1"
  MetricType type = MetricType::kGauge;
  std::vector<MetricSample> samples;

  // Adds a sample (labels with an empty value are dropped; a non-finite value adds nothing).
  void Add(std::vector<std::pair<std::string, std::string>> labels, double value);
};

// Sorts every family's samples by their labels (name, value pairs in order) and keeps the first of
// samples with equal labels, so each series appears once. Never fails.
void NormaliseFamilies(std::vector<MetricFamily>& families);

// The metrics of a result, normalised (see docs/serve.md for the list): inputs (read, accepted,
// rejected per file and per format), GPUs, islands and degraded links per host, per-link entropy,
// clock offset and fit error per host, per-cable tomography latency, fabric counts, the
// hypotheses' probabilities. `probes` (may be null) feeds the hypothesis tree's flapping-cable
// evidence, as in result.json. Never fails.
std::vector<MetricFamily> ResultMetrics(const analysis::AnalysisResult& r,
                                        const std::vector<formats::PathProbe>* probes = nullptr);

}  // namespace toposcope::report
