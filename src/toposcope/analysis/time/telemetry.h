// analysis/time/telemetry: what the DCGM samples say (seed §2.1): which fields were collected, their
// class and the sampling period each needs (communication fields at <= 100 ms: slower sampling is
// flagged), and faults visible across devices: thermally induced NVLink down-speed (temperature
// high while a link's share of its GPU's NVLink rx, its rx over its peer links' median in the same
// sample, drops more than its peers'; the raw rx levels when the links' samples do not line up).
// Also stragglers from the merged
// timeline (a rank whose collective kernels start consistently later than the others') and clock
// steps found by the clock models.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/analysis/time/timeline.h"
#include "toposcope/analysis/time/timesync.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/dcgm.h"

namespace toposcope::analysis {

struct FieldReport {
  int field_id = -1;
  std::string field;         // as the sources name it
  std::string long_name;     // catalog long name ("" when unknown)
  std::string field_class;   // compute, communication, memory, thermal_power, health, ...
  int needed_period_ms = 0;  // 0 = any
  int series = 0;
  double worst_period_ms = NAN;  // slowest median sampling period among its series
  bool ok = true;                // every series sampled at least as fast as needed
};

struct SamplingWarning {
  std::string host;
  std::string field;
  int gpu = -1;
  double period_ms = NAN;
  int needed_period_ms = 0;
};

// What a telemetry finding is.
// Named "thermal_link_downspeed", "straggler", "clock_step".
enum class TelemetryFindingKind { kThermalLinkDownspeed, kStraggler, kClockStep };
// Its name (one of those above).
std::string_view TelemetryFindingKindName(TelemetryFindingKind k);

// Where a GPU's hot threshold came from (in the order they are tried).
enum class HotSource {
  kOption,           // "option": TelemetryOptions::hot_c set by the caller
  kThrottleReasons,  // "dcgm_clock_throttle_reasons": DCGM's clocks-event reasons (field 112) with
                     // the SW or HW thermal slowdown bit set mark the hot samples
  kDcgmLimit,        // "dcgm_max_operating_temp" / "dcgm_slowdown_temp": the GPU's own limit (152 / 158)
  kNvsmiLimit,       // "nvidia_smi_q_max_operating_temp" / "nvidia_smi_q_slowdown_temp": the GPU's own
                     // limit from its host's `nvidia-smi -q` file (absolute, or derived from T.Limit)
  kModelLimit,       // "gpu_model": the max operating temperature of the GPU's model (sourced table)
  kLowestKnown,      // "lowest_known_model_limit": model unknown; the lowest max operating temperature
                     // of any model in the table
};
// Its name (one of those above; kDcgmLimit and kNvsmiLimit name the limit used: see
// HotThreshold::source_name).
std::string_view HotSourceName(HotSource s);

// A GPU model's temperature limits as nvidia-smi -q reports them ("GPU Max Operating Temp", "GPU
// Slowdown Temp", "GPU Shutdown Temp"), with where the numbers come from.
struct GpuThermalLimits {
  std::string_view match;    // the part of the model name that identifies it ("A100", "H100")
  double max_operating_c = NAN;  // SW thermal slowdown keeps the GPU below this
  double slowdown_c = NAN;       // HW thermal slowdown (clocks halved or worse) at or above this
  double shutdown_c = NAN;
  std::string_view source;   // the real nvidia-smi -q output the numbers were read from
};
// The limits of the GPU model named `model` (case-insensitive, first match in table order);
// nullopt for an empty or unknown model.
std::optional<GpuThermalLimits> FindGpuThermalLimits(std::string_view model);
// The lowest max operating temperature of any model in the table (the fallback for unknown models).
double LowestKnownMaxOperatingC();

// The threshold a GPU's temperature was judged against.
struct HotThreshold {
  HotSource source = HotSource::kLowestKnown;
  std::string source_name;  // HotSourceName, or the DCGM field for kDcgmLimit
  double hot_c = NAN;       // NaN for kThrottleReasons (the bits decide, not a temperature)
  std::string model;        // the GPU model, when known
  std::string file;         // kNvsmiLimit: the nvidia-smi -q file and line ("<path>:<line>")
  std::string form;         // kNvsmiLimit: "absolute" or "tlimit" (derived from T.Limit headroom)
};

struct TelemetryFinding {
  TelemetryFindingKind kind = TelemetryFindingKind::kThermalLinkDownspeed;
  std::string host;
  int gpu = -1;
  int link = -1;
  int64_t start_ns = 0, end_ns = 0;  // local (DCGM, clock steps) or global (stragglers) ns
  double confidence = NAN;
  std::string evidence;
  std::string threshold_source;  // thermal findings: HotThreshold::source_name
  double hot_c = NAN;            // thermal findings: the temperature threshold (NaN: throttle bits)
  std::string threshold_file;    // thermal findings from nvidia-smi -q limits: HotThreshold::file
};

struct TelemetryOptions {
  double hot_c = NAN;           // temperature at or above which a GPU is "hot"; NaN: from the data
                                // (HotThreshold: DCGM throttle reasons, DCGM limits, GPU model)
  double link_drop_ratio = 0.7; // hot/cool median rx share (or rx) below this ...
  double peer_margin = 0.8;     // ... and below this fraction of its peers' ratio
  double straggler_min_us = 200; // median lateness a straggler must exceed
};

// What one host's DCGM offers (`dcgmi dmon -l`), against the fields the analyses read.
struct OfferedFields {
  std::string host;
  int offered = 0;                   // fields listed
  std::vector<std::string> missing;  // "DCGM_FI_DEV_GPU_TEMP (thermal findings)", ...: fields an
                                     // analysis reads that this DCGM does not list
};

// A GPU's own temperature limits from its host's `nvidia-smi -q` file.
struct GpuLimitsEntry {
  std::string host;
  model::GpuQueryInfo gpu;
};

struct TelemetryReport {
  int64_t series = 0, points = 0;
  std::vector<FieldReport> fields;
  std::vector<SamplingWarning> sampling_warnings;
  std::vector<TelemetryFinding> findings;
  std::vector<OfferedFields> offered;  // per host with a `dcgmi dmon -l` list
  std::vector<GpuLimitsEntry> gpu_limits;  // every GPU of every `nvidia-smi -q` file (GpuLimitsOf)
};

// (host, GPU index) -> GPU model name, as the node evidence names it.
using GpuModels = std::map<std::pair<std::string, int>, std::string>;

// The models of every GPU the dataset names. Never fails.
GpuModels GpuModelsOf(const model::Dataset& ds);

// (host, GPU index) -> that GPU's `nvidia-smi -q` section (the first file that names the index).
using GpuOwnLimits = std::map<std::pair<std::string, int>, model::GpuQueryInfo>;

// The `nvidia-smi -q` limits of every GPU matched to an index. Never fails.
GpuOwnLimits GpuOwnLimitsOf(const model::Dataset& ds);
// Every GPU of every `nvidia-smi -q` file, by host in file order (matched to an index or not), for
// the report. Never fails.
std::vector<GpuLimitsEntry> GpuLimitsOf(const model::Dataset& ds);

// The hot threshold of one GPU: opt.hot_c when set, else DCGM's thermal throttle bits when the GPU
// has a clock-throttle-reasons series, else its DCGM max operating (152) or slowdown (158)
// temperature, else its own max operating or (when that is not printed) slowdown temperature from
// its host's `nvidia-smi -q` (`limits`), else its model's max operating temperature, else the
// lowest in the table. The max operating limit is preferred as with DCGM's fields: SW thermal
// slowdown starts there, HW slowdown only at the slowdown limit. Never fails.
HotThreshold HotThresholdOf(const model::DcgmStore& dcgm, const std::string& host, int gpu,
                            const GpuModels& models, const TelemetryOptions& opt = {},
                            const GpuOwnLimits& limits = {});

// Fields, sampling warnings and thermal down-speed from the DCGM store (hot thresholds from the
// data and `models`, HotThresholdOf); clock steps from the fits. Returns the report (empty for an
// empty store and no fits); never fails.
TelemetryReport AnalyzeTelemetry(const model::DcgmStore& dcgm, const std::vector<HostClockFit>& clocks,
                                 const TelemetryOptions& opt = {}, const GpuModels& models = {},
                                 const GpuOwnLimits& limits = {});

// For every host with a `dcgmi dmon -l` list: how many fields it offers and which of the fields
// the analyses read it lacks (GPU temperature for the thermal findings, NVLink byte counters for
// the traffic matrix, per-link NVLink counters for the link down-speed). Never fails.
std::vector<OfferedFields> CheckOfferedFields(const model::Dataset& ds);

// Streams merged events and finds stragglers among the ranks running NCCL kernels.
class StragglerDetector {
 public:
  // Adds one merged event (events other than complete NCCL kernel events are ignored). Never fails.
  void Add(const MergedEvent& m);
  // The straggler findings (empty with fewer than three ranks, or when no rank is consistently late
  // by more than opt.straggler_min_us); never fails.
  [[nodiscard]] std::vector<TelemetryFinding> Finish(const TelemetryOptions& opt = {}) const;

 private:
  std::map<std::pair<std::string, std::string>, int> rank_ids_;            // (host, device) -> id
  std::map<std::tuple<int, std::string>, int64_t> seen_;                   // (rank, kernel) -> count
  std::map<int, int64_t> last_end_;                                        // rank -> end of its last kernel
  std::map<std::pair<std::string, int64_t>, std::vector<std::pair<int, int64_t>>> instances_;  // (kernel, k) -> starts
};

}  // namespace toposcope::analysis
