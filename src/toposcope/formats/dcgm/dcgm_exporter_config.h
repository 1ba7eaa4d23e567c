// formats/dcgm/dcgm_exporter_config: dcgm-exporter's counters CSV (`etc/default-counters.csv`,
// `dcp-metrics-included.csv`, or a user's `-f` file): which DCGM fields the exporter watches and
// how it exposes them. One line per field, `DCGM_FI_X, gauge|counter|label, help text`; `#` starts
// a comment line; blank lines are skipped; spaces around cells are trimmed (as Go's encoding/csv
// with TrimLeadingSpace, plus trailing spaces such as `DCGM_FI_DEV_DEC_UTIL ,`). Read and written.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

// Prometheus metric types dcgm-exporter accepts (`label` turns the field into a label on the other
// metrics; histogram and summary are accepted by the exporter's type map too).
enum class ExporterMetricType { kGauge, kCounter, kLabel, kHistogram, kSummary };

struct ExporterCounter {
  std::string field_name;   // "DCGM_FI_DEV_GPU_TEMP" (or an exporter field "DCGM_EXP_XID_ERRORS_COUNT")
  int field_id = -1;        // resolved through the DCGM field catalog; -1 when unknown or DCGM_EXP_*
  ExporterMetricType type = ExporterMetricType::kGauge;
  std::string help;         // help text, trimmed; may be empty
  int64_t line = 0;         // 1-based line in the input
  friend bool operator==(const ExporterCounter&, const ExporterCounter&) = default;
};

// Parses a counters CSV. Each non-comment, non-blank line is a record. Rejected: not exactly 3
// cells (quoted cells with commas are understood), a name that is not `DCGM_FI_*` / `DCGM_EXP_*`,
// an unknown metric type, a repeated field name. A DCGM_FI_ name the catalog does not know is kept
// (field_id -1) with a warning. Fails when the input is binary or has no valid line at all.
Result<std::vector<ExporterCounter>> ParseExporterCountersCsv(std::string_view text,
                                                              std::string_view source,
                                                              Diagnostics& diag,
                                                              ReadCounts& counts);

// Writes `name, type, help` lines under a short comment header; help texts with commas or quotes
// are quoted. Round-trips through ParseExporterCountersCsv (line numbers aside).
std::string WriteExporterCountersCsv(const std::vector<ExporterCounter>& counters);

// "gauge", "counter", "label", "histogram", "summary".
std::string_view ExporterMetricTypeName(ExporterMetricType t);

}  // namespace toposcope::formats
