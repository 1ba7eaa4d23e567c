// formats/dcgm/prometheus_text: the Prometheus text exposition format 0.0.4 as dcgm-exporter (and the
// NCCL Inspector's Prometheus mode) write it, read as a stream and written back. `# HELP` /
// `# TYPE` metadata, samples `name{label="v",...} value [timestamp_ms]` with labels in any order
// and escaped label values, `NaN`/`+Inf`/`-Inf` values, many scrapes concatenated in one file (a
// new scrape starts when a series, or a metric's HELP/TYPE, appears again). On top of it, a plain
// DCGM view of a sample (field, host, gpu, MIG instance, link).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"
#include "toposcope/base/time.h"

namespace toposcope::formats {

enum class PromMetricType { kUntyped, kGauge, kCounter, kHistogram, kSummary };

// "gauge", "counter", ... ; the lower-case spelling of the exposition format.
std::string_view PromMetricTypeName(PromMetricType type);

// The metadata of one metric name, from its `# HELP` and `# TYPE` lines.
struct PromMetricInfo {
  std::string name;
  std::string help;        // unescaped (`\\` and `\n`); empty when there was no HELP line
  PromMetricType type = PromMetricType::kUntyped;
  bool has_help = false;
  bool has_type = false;
  friend bool operator==(const PromMetricInfo&, const PromMetricInfo&) = default;
};

using PromLabels = std::vector<std::pair<std::string, std::string>>;

// One sample line.
struct PromSample {
  std::string name;
  PromLabels labels;            // in file order, values unescaped
  double value = NAN;           // NaN for NaN, +Inf and -Inf samples (they are counted apart)
  int64_t ts_ms = kNoTime;      // the optional timestamp, ms since the epoch; kNoTime if absent
  int64_t scrape_index = 0;     // 0-based scrape this sample belongs to
  int64_t line = 0;             // 1-based line in the input

  // The value of label `key` (exact, case-sensitive), or nullptr when absent.
  [[nodiscard]] const std::string* Label(std::string_view key) const;
};

// Equal names, labels (same order), timestamps and scrape indices, and values equal or both NaN
// (within `value_tolerance` when it is > 0). `line` is not compared.
bool SamePromSample(const PromSample& a, const PromSample& b, double value_tolerance = 0);

// What one read saw, besides the samples themselves.
struct PromReadSummary {
  std::vector<PromMetricInfo> metrics;  // one per metric name with HELP or TYPE, first-seen order
  int64_t samples = 0;                  // samples emitted
  int64_t non_finite = 0;               // of those, NaN/+Inf/-Inf values
  int64_t with_timestamp = 0;           // of those, samples that had a timestamp
  int64_t scrapes = 0;                  // scrapes seen (0 when no sample); the last scrape_index
                                        // is first_scrape_index + scrapes - 1
  int64_t comments = 0;                 // `#` lines that are not HELP/TYPE
};

struct PromReadOptions {
  // scrape_index of the first scrape, so that one file per scrape can continue a numbering:
  // pass the previous file's first_scrape_index + summary.scrapes.
  int64_t first_scrape_index = 0;
};

// Receives each accepted sample. The reference is only valid during the call (the reader reuses
// its buffers); copy what is kept.
using PromSampleSink = std::function<void(const PromSample&)>;

// Streams exposition text. Records are sample lines and `# HELP`/`# TYPE` lines (plain comments
// and blank lines are not records). A malformed line (bad metric name, bad label syntax or escape,
// missing value, a value that is not a number, a bad or trailing-junk timestamp, a HELP/TYPE line
// without a name, an unknown TYPE) is rejected into `diag` with its line and counted. Fails
// (Error) on an I/O error, or when the input has records and not one of them was accepted (not
// exposition text at all), or looks binary.
Result<PromReadSummary> ReadPromText(LineReader& lines, std::string_view source,
                                     const PromSampleSink& sink, Diagnostics& diag,
                                     ReadCounts& counts, const PromReadOptions& options = {});
// The same over an in-memory text: returns the summary; fails as the streaming form (but for I/O).
Result<PromReadSummary> ReadPromText(std::string_view text, std::string_view source,
                                     const PromSampleSink& sink, Diagnostics& diag,
                                     ReadCounts& counts, const PromReadOptions& options = {});

// A whole parse kept in memory (tests, small inputs).
struct PromText {
  PromReadSummary summary;
  std::vector<PromSample> samples;
};
// Reads a whole text (as ReadPromText) into a PromText; fails as ReadPromText.
Result<PromText> ParsePromText(std::string_view text, std::string_view source, Diagnostics& diag,
                               ReadCounts& counts, const PromReadOptions& options = {});

// ---- Writing ----

// How values are printed.
enum class PromValueStyle {
  kExporter,  // dcgm-exporter: integral values with %d, others with %f (6 decimals)
  kExact,     // integral values as integers, others in the shortest text that reads back exactly
};

// Orders labels the way dcgm-exporter renders them: gpu, UUID, pci_bus_id, device, modelName,
// GPU_I_PROFILE, GPU_I_ID, Hostname or hostname, then the others in their given order.
PromLabels ExporterLabelOrder(const PromLabels& labels);

// Appends one sample line (with '\n'): labels in exporter order, values escaped, NaN/+Inf/-Inf for
// a NaN value (NaN), the timestamp when ts_ms != kNoTime. The name is written as given.
void AppendPromSample(std::string* out, const PromSample& sample,
                      PromValueStyle style = PromValueStyle::kExporter);
// One sample line as a string (with '\n').
std::string WritePromSample(const PromSample& sample,
                            PromValueStyle style = PromValueStyle::kExporter);

// Writes scrapes: HELP/TYPE once per metric per scrape (before that metric's first sample in the
// scrape, when metadata for it was given), then the samples. Round-trips through ReadPromText
// (labels come back in exporter order; with kExporter, values to 6 decimals).
class PromWriter {
 public:
  explicit PromWriter(PromValueStyle style = PromValueStyle::kExporter) : style_(style) {}
  // Sets (or replaces) the HELP/TYPE written for a metric name.
  void SetMetadata(const PromMetricInfo& info);
  // Starts a new scrape: HELP/TYPE will be written again.
  void BeginScrape();
  // Appends a sample to `out`, writing its metric's HELP/TYPE first when not yet in this scrape.
  void Append(std::string* out, const PromSample& sample);

 private:
  PromValueStyle style_;
  std::unordered_map<std::string, PromMetricInfo> metadata_;
  std::unordered_set<std::string> written_this_scrape_;
};

// Writes samples as scrapes: a new scrape (HELP/TYPE again) whenever scrape_index changes.
std::string WritePromText(const std::vector<PromSample>& samples,
                          const std::vector<PromMetricInfo>& metadata,
                          PromValueStyle style = PromValueStyle::kExporter);

// ---- DCGM view ----

// A dcgm-exporter sample as a plain record.
struct DcgmPromSample {
  std::string field;        // the metric name: "DCGM_FI_PROF_NVLINK_TX_BYTES"
  std::string host;         // `Hostname` label (exporter <= 4.x) or `hostname` (newer); else empty
  int gpu = -1;             // `gpu` label ("0"; also "GPU0"); -1 when absent or not a number
  int link = -1;            // `link`, `nvlink` or `link_id` label; -1 when absent
  std::string mig_profile;  // `GPU_I_PROFILE`; empty when not a MIG instance
  int mig_instance = -1;    // `GPU_I_ID`; -1 when absent
  std::string uuid;         // `UUID`
  std::string pci_bus_id;   // `pci_bus_id` (exporter >= 3.3.7)
  std::string model_name;   // `modelName`
  double value = NAN;       // NaN for NaN/Inf samples
  int64_t ts_ns = kNoTime;  // the sample's timestamp in ns, kNoTime if absent
  int64_t scrape_index = 0;
};

// True when the metric name is a DCGM field (starts with "DCGM_FI_").
bool IsDcgmMetric(std::string_view name);

// The DCGM view of any sample (labels that are absent stay empty / -1).
DcgmPromSample ToDcgmSample(const PromSample& sample);

}  // namespace toposcope::formats
