// probe/nvml/collector: `toposcope collect`, sampling NVML at a fixed rate (10 Hz by default) into
// `dcgmi dmon` text with a time prefix on every line (as `dcgmi dmon ... | ts %.s` prints it), so
// formats/dcgm reads the collector's file like any dmon capture. Columns, by DCGM field:
//   SMCLK 100, MMCLK 101 (MHz)   nvmlDeviceGetClockInfo
//   TMPTR 150 (C)                nvmlDeviceGetTemperature
//   POWER 155 (W)                nvmlDeviceGetPowerUsage
//   GPUTL 203, MCUTL 204 (%)     nvmlDeviceGetUtilizationRates
//   PCITX 1009, PCIRX 1010 (B/s) GPM PCIe rates over the sampling interval; else
//                                nvmlDeviceGetPcieThroughput (a 20 ms window)
//   NVLTX 1011, NVLRX 1012 (B/s) GPM NVLink totals; else the difference of NVML's cumulative
//                                NVLink data counters (fields 138/139) over the interval
//   SMACT 1002, SMOCC 1003, DRAMA 1005 (ratio)  GPM (Hopper and later); N/A elsewhere
// Interval metrics are N/A on the first iteration, as dmon prints DCGM's profiling fields.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/formats/dcgm/dcgm_dmon.h"
#include "toposcope/probe/nvml/nvml_library.h"

namespace toposcope::probe {

struct CollectOptions {
  double hz = 10;                 // samples per second (every GPU each time)
  double duration_s = 0;          // stop after this long; 0 = until stopped
  int64_t max_iterations = 0;     // stop after this many; 0 = no limit
  std::vector<int> devices;       // NVML indices; empty = every GPU
  formats::DmonTimestampStyle timestamp_style = formats::DmonTimestampStyle::kEpoch;
};

struct CollectSummary {
  std::vector<std::string> gpu_names;  // per sampled GPU
  std::vector<int> gpu_indices;
  int64_t iterations = 0;
  int64_t rows = 0;
  int64_t late_iterations = 0;         // deadlines missed (a sample took longer than the period)
  double elapsed_s = 0;
  double achieved_hz = 0;              // (iterations - 1) / time from the first to the last
  bool stopped_by_signal = false;
  bool gpm = false;                    // GPM metrics answered on at least one GPU
  std::vector<std::string> unavailable;  // columns that stayed N/A on every GPU
};

// Where the text goes, one iteration at a time (flushed by the caller); false = cannot write.
using CollectWrite = std::function<bool(std::string_view)>;

// Samples until `stop` is set (a signal handler sets it; the current iteration finishes and the
// dmon stop message is written), `duration_s` or `max_iterations`. Fails on a bad option
// (kUsage), an NVML error before sampling starts (no GPU, a device index out of range), or a
// write error (kOutput). An error of one query while sampling makes that value N/A.
Result<CollectSummary> RunCollector(const NvmlLibrary& nvml, const CollectOptions& options,
                                    const CollectWrite& write, const std::atomic<bool>& stop);

// The collector's closing lines for the terminal: GPUs, iterations, rate, N/A columns.
std::string CollectSummaryText(const CollectSummary& s);

}  // namespace toposcope::probe
