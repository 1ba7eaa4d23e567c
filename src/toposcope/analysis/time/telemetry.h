// analysis/time/telemetry: what the DCGM samples say (seed §2.1): which fields were collected, their
// class and the sampling period each needs (communication fields at <= 100 ms: slower sampling is
// flagged), and faults visible across devices: thermally induced NVLink down-speed (temperature
// high while a link's rx throughput drops more than its peers'). Also stragglers from the merged
// timeline (a rank whose collective kernels start consistently later than the others') and clock
// steps found by the clock models.
#pragma once

#include <cstdint>
#include <map>
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

struct TelemetryFinding {
  TelemetryFindingKind kind = TelemetryFindingKind::kThermalLinkDownspeed;
  std::string host;
  int gpu = -1;
  int link = -1;
  int64_t start_ns = 0, end_ns = 0;  // local (DCGM, clock steps) or global (stragglers) ns
  double confidence = NAN;
  std::string evidence;
};

struct TelemetryOptions {
  double hot_c = 85.0;          // temperature at or above which a GPU is "hot"
  double link_drop_ratio = 0.7; // hot/cool median rx below this ...
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

struct TelemetryReport {
  int64_t series = 0, points = 0;
  std::vector<FieldReport> fields;
  std::vector<SamplingWarning> sampling_warnings;
  std::vector<TelemetryFinding> findings;
  std::vector<OfferedFields> offered;  // per host with a `dcgmi dmon -l` list
};

// Fields, sampling warnings and thermal down-speed from the DCGM store; clock steps from the fits.
// Returns the report (empty for an empty store and no fits); never fails.
TelemetryReport AnalyzeTelemetry(const model::DcgmStore& dcgm, const std::vector<HostClockFit>& clocks,
                                 const TelemetryOptions& opt = {});

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
