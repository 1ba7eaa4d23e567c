// formats/clock/sync_point: the one record every clock-synchronisation source yields (chrony logs,
// linuxptp ptp4l/phc2sys output, our sync-pairs CSV): "when the reference clock read ref_ns, this
// host's clock read local_ns". The time-sync analysis (seed §2.2) fits offset(local) from these.
//
// How each source maps onto it (offset_ns is always local - ref, so + = the host's clock is ahead):
//   chrony tracking.log    ref_ns = the logged UTC time; `Offset` + = local clock fast of UTC, so
//                          offset_ns = Offset*1e9 and local_ns = ref_ns + offset_ns.
//                          uncertainty = `Offset sd`. source "chrony-tracking".
//   chrony statistics.log  per source (reference = its IP / refid): `Est offset` + = local fast,
//                          local_ns = ref_ns + offset_ns. uncertainty = `Offset sd`.
//                          source "chrony-statistics".
//   chrony measurements.log  per source: `Offset` (NTP theta) + = local clock SLOW of the source —
//                          the opposite sign — so offset_ns = -Offset*1e9, local_ns = ref_ns -
//                          Offset*1e9. uncertainty = `Peer del.`/2. source "chrony-measurements".
//   ptp4l `master offset`  offset = slave - master in ns (slave = this host's PHC). local_ns = the
//                          CLOCK_MONOTONIC time in the line prefix (the host's own axis), ref_ns =
//                          local_ns - offset. uncertainty = path delay/2. source "ptp4l".
//   phc2sys `offset`       offset = target - source clock in ns (target is the disciplined clock,
//                          e.g. CLOCK_REALTIME, the source a PHC). local_ns = monotonic prefix time,
//                          ref_ns = local_ns - offset. uncertainty = read delay/2. source "phc2sys".
//   sync CSV               the columns as written (docs/sync_csv.md). source "csv" unless given.
//   ptp4l / phc2sys summaries (`summary_interval`: `[CLOCK] rms R max M freq F +/- S [delay D +/- S]`)
//                          a clock-quality sample, not an offset pair: local_ns = the monotonic prefix
//                          time, ref_ns = kNoTime, offset_ns = NaN, offset_rms_ns / offset_max_ns = R / M,
//                          freq_ppb = F, freq_sd_ppb = S. source "ptp4l-summary" / "phc2sys-summary";
//                          never synced (the clock fits skip it).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "toposcope/base/result.h"
#include "toposcope/base/time.h"

namespace toposcope::formats {

struct SyncPoint {
  std::string host;             // the host whose clock is local_ns (from the log or the caller)
  int64_t local_ns = kNoTime;   // the host's clock at the instant
  int64_t ref_ns = kNoTime;     // the reference clock at the same instant
  double offset_ns = NAN;       // local - ref, ns (kept unrounded; local_ns/ref_ns are rounded)
  double uncertainty_ns = NAN;  // NaN if unknown: offset sd, path delay/2, ...
  std::string source;           // "chrony-tracking", "chrony-statistics", "chrony-measurements",
                                // "ptp4l", "phc2sys", "csv", ...
  std::string state;            // servo / leap state as the tool prints it: "s2", "N", "?"; may be empty
  bool synced = false;          // the tool considered the clock synchronised for this sample
  int64_t line = 0;             // 1-based input line it came from (0 when not from a file)
  std::string reference;        // what the host was compared with: chrony source IP/refid ("PPS"),
                                // "master" for ptp4l, phc2sys's source label ("phc", "sys", "pps");
                                // may be empty
  std::string clock;            // the disciplined clock: phc2sys target ("CLOCK_REALTIME", "swp3"),
                                // ptp4l message tag/interface if any; empty = the system clock
  double freq_ppb = NAN;        // the servo's frequency adjustment (ptp4l/phc2sys `freq`, a summary's
                                // mean), ppb; NaN when the source prints none
  double freq_sd_ppb = NAN;     // summaries: the `+/-` of freq; NaN otherwise
  double offset_rms_ns = NAN;   // summaries: rms of the offsets over the interval; NaN otherwise
  double offset_max_ns = NAN;   // summaries: max |offset| over the interval; NaN otherwise
};

// Receives sync points as a reader produces them.
using SyncPointSink = std::function<void(const SyncPoint&)>;

}  // namespace toposcope::formats
