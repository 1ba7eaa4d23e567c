// formats/clock/chrony: chronyd's log files (tracking.log, statistics.log, measurements.log) and the
// text of `chronyc tracking`, `chronyc sources [-v]` and `chronyc sourcestats [-v]`. The log
// readers stream (one record per data line, to callbacks) and also yield SyncPoints for the
// time-sync analysis (seed §2.2). A tracking.log writer serves the simulator.
//
// Log files: banners (a `=` line, the title line, a `=` line) come first and every `logbanner`
// entries (default 32); excerpts without any banner are recognised by each line's shape. Fields are
// split on whitespace (the IP column is `%-15s`; IPv6 addresses and refclock refids such as `PPS`
// fit there too). Times are `YYYY-MM-DD HH:MM:SS` UTC. Sign conventions: see sync_point.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/clock/sync_point.h"

namespace toposcope::formats {

enum class ChronyLogKind { kUnknown, kTracking, kStatistics, kMeasurements };

// "tracking", "statistics", "measurements" ("unknown").
std::string_view ChronyLogKindName(ChronyLogKind kind);

// One tracking.log line (a clock update).
struct ChronyTrackingRecord {
  int64_t time_ns = kNoTime;  // UTC, ns since the epoch (whole seconds)
  std::string ip;             // the reference: IP address, refclock refid ("PPS"), "0.0.0.0"
  int stratum = 0;
  double freq_ppm = 0;  // + = local clock runs fast of UTC
  double skew_ppm = 0;  // error bound of freq
  double offset_s = 0;  // + = local clock fast of UTC
  char leap = 'N';      // 'N', '+', '-', '?' (= not synchronised)
  int combined = 0;     // `Co`: number of combined sources
  double offset_sd_s = 0;
  double remaining_correction_s = 0;  // + = clock slow (still to be slewed forward)
  double root_delay_s = 0;
  double root_dispersion_s = 0;
  double max_error_s = NAN;  // NaN on old chrony versions without the column
  int64_t line = 0;          // 1-based input line

  // False for the unsynchronised updates chronyd logs as `0.0.0.0`, stratum 0, leap `?`.
  [[nodiscard]] bool Synced() const { return leap != '?' && stratum != 0 && ip != "0.0.0.0"; }
};

// One statistics.log line (the regression over one source's samples).
struct ChronyStatisticsRecord {
  int64_t time_ns = kNoTime;
  std::string ip;           // source IP or refclock refid
  double std_dev_s = 0;     // `Std dev'n`
  double est_offset_s = 0;  // + = local clock fast of the source
  double offset_sd_s = 0;
  double diff_freq = 0;  // s/s; + = local clock gains
  double est_skew = 0;   // s/s
  double stress = 0;
  int ns = 0;         // samples used
  int bs = 0;         // new start index
  int nr = 0;         // number of runs
  double asym = NAN;  // -0.5..0.5; NaN on old versions without the column
  int64_t line = 0;
};

// One measurements.log line (one NTP packet exchange).
struct ChronyMeasurementsRecord {
  int64_t time_ns = kNoTime;
  std::string ip;
  char leap = 'N';  // the source's leap indicator
  int stratum = 0;
  std::string tests_123;   // "111": RFC 5905 tests 1-3 passed
  std::string tests_567;   // "111"
  std::string tests_abcd;  // "1111": maxdelay / ratio / devratio / sync loop
  int local_poll = 0;      // LP, log2 s
  int remote_poll = 0;     // RP, log2 s
  double score = 0;
  double offset_s = 0;  // theta; + = local clock SLOW of the source (opposite of tracking)
  double peer_delay_s = 0;
  double peer_dispersion_s = 0;
  double root_delay_s = 0;
  double root_dispersion_s = 0;
  uint32_t refid = 0;  // 8 hex digits; 0 on pre-3.0 lines without the column
  bool has_refid = false;
  std::string mode_txrx;  // "4B K K" (mode + B/I, TX and RX timestamp sources); may be empty
  int64_t line = 0;

  // True when every test passed (chrony logs only such packets unless `rawmeasurements`).
  [[nodiscard]] bool AllTestsPassed() const;
};

// Callbacks of the streaming log reader; any may be empty.
struct ChronyLogSinks {
  std::function<void(const ChronyTrackingRecord&)> tracking;
  std::function<void(const ChronyStatisticsRecord&)> statistics;
  std::function<void(const ChronyMeasurementsRecord&)> measurements;
  SyncPointSink sync;  // one per data line; unsynchronised lines come with synced=false
};

// Streams one chronyd log file. `kind` kUnknown means: tell it from the banner or the first data
// line (a title line met later switches the kind). Records are data lines: each is typed, or
// rejected into `diag` (wrong column count or shape, bad numbers, a line of another log kind) and
// counted; banners and blank lines are not records. Accepted with a warning: a time going
// backwards (tracking.log; per source in the others, whose lines of different sources interleave),
// a line repeating the previous one. `host` names the host in the SyncPoints.
// Returns the kind read; fails only when the input is empty or no line is a chrony log line.
Result<ChronyLogKind> ReadChronyLog(LineReader& lines, std::string_view source, std::string_view host,
                                    ChronyLogKind kind, const ChronyLogSinks& sinks, Diagnostics& diag,
                                    ReadCounts& counts);
// The same over in-memory text: returns the kind read; fails as ReadChronyLog.
Result<ChronyLogKind> ReadChronyLogText(std::string_view text, std::string_view source, std::string_view host,
                                        ChronyLogKind kind, const ChronyLogSinks& sinks, Diagnostics& diag,
                                        ReadCounts& counts);

// A whole log file collected in memory (for tests and small inputs).
struct ChronyLog {
  ChronyLogKind kind = ChronyLogKind::kUnknown;
  std::vector<ChronyTrackingRecord> tracking;
  std::vector<ChronyStatisticsRecord> statistics;
  std::vector<ChronyMeasurementsRecord> measurements;
  std::vector<SyncPoint> sync_points;
  int64_t banners = 0;  // banners seen
};
// Reads a whole log (as ReadChronyLog) into a ChronyLog; fails as ReadChronyLog.
Result<ChronyLog> ParseChronyLog(std::string_view text, std::string_view source, std::string_view host,
                                 Diagnostics& diag, ReadCounts& counts,
                                 ChronyLogKind kind = ChronyLogKind::kUnknown);

// The SyncPoint of one record (see sync_point.h for the sign conventions).
SyncPoint ToSyncPoint(const ChronyTrackingRecord& r, std::string_view host);
SyncPoint ToSyncPoint(const ChronyStatisticsRecord& r, std::string_view host);
SyncPoint ToSyncPoint(const ChronyMeasurementsRecord& r, std::string_view host);

// tracking.log writer, chronyd's own layout: the banner (`=` line, title, `=` line) and one line
// per entry in `"%s %-15s %2d %10.3f %10.3f %10.3e %1c %2d %10.3e %10.3e %10.3e %10.3e %10.3e"`.
std::string ChronyTrackingBanner();
std::string FormatChronyTrackingLine(const ChronyTrackingRecord& r);  // no trailing newline
// A whole file: a banner before the first entry and before every `banner_every` entries (0 = no
// banner at all). Round-trips through ParseChronyLog (values to the printed precision).
std::string WriteChronyTrackingLog(const std::vector<ChronyTrackingRecord>& records, int banner_every = 32);

// ---------------------------------------------------------------------------------------------
// chronyc output.

// `chronyc tracking`. Signs normalised: + = the local clock is fast / ahead.
struct ChronycTracking {
  uint32_t reference_id = 0;   // `Reference ID    : AB42617E (name)`
  std::string reference_name;  // the name in parentheses; empty when unsynchronised
  int stratum = 0;
  int64_t ref_time_ns = kNoTime;      // `Ref time (UTC)`, ns since the epoch
  double system_time_offset_s = NAN;  // "N seconds fast|slow of NTP time": fast = +, slow = -
  double last_offset_s = NAN;         // + = local clock was ahead at the last update
  double rms_offset_s = NAN;
  double frequency_ppm = NAN;  // "N ppm fast|slow": fast = +, slow = -
  double residual_freq_ppm = NAN;
  double skew_ppm = NAN;
  double root_delay_s = NAN;
  double root_dispersion_s = NAN;
  double update_interval_s = NAN;
  std::string leap_status;  // "Normal", "Insert second", "Delete second", "Not synchronised"
  std::vector<std::pair<std::string, std::string>> other;  // fields this reader does not know
  int64_t line = 0;  // the report's first line

  [[nodiscard]] bool Synced() const { return leap_status != "Not synchronised" && stratum != 0; }
};
// Each `Key : value` line is a record; bad values are rejected. Fails when no known field is found.
// A file of several reports gives the first (ParseChronycTrackingReports gives them all).
Result<ChronycTracking> ParseChronycTracking(std::string_view text, std::string_view source,
                                             Diagnostics& diag, ReadCounts& counts);
// `chronyc tracking` run many times into one file (a loop, `watch`, a pasted session): a report
// starts at each `Reference ID` line; a field repeated within a report is rejected. Shell prompts
// and command echoes (lines naming chronyc), `watch` headers and `date` lines are accepted as the
// text around the reports. Fails when no known field is found.
Result<std::vector<ChronycTracking>> ParseChronycTrackingReports(std::string_view text, std::string_view source,
                                                                 Diagnostics& diag, ReadCounts& counts);
// The clock sample a report holds: at the reference's last update (`Ref time`), the offset then
// (`Last offset`, + = local clock ahead), uncertainty the root distance (root dispersion + root
// delay / 2, RFC 5905), source "chronyc-tracking". nullopt when the clock is not synchronised or
// Ref time or Last offset is missing (or the local time they give does not fit in int64 ns).
std::optional<SyncPoint> ToSyncPoint(const ChronycTracking& t, std::string_view host);

// One row of `chronyc sources`.
struct ChronycSource {
  char mode = '^';              // '^' server, '=' peer, '#' refclock
  char state = '?';             // '*' best, '+' combined, '-' not combined, 'x' falseticker,
                                // '~' too variable, '?' unusable
  std::string name;             // as printed (a cut name keeps its trailing '>')
  bool name_truncated = false;  // the name ended with '>'
  int stratum = 0;
  int poll_log2 = 0;               // log2 of the polling interval, s (may be negative)
  int reach = 0;                   // the reach register, decoded from octal
  int64_t last_rx_s = -1;          // seconds since the last good sample; -1 = never (`-`)
  double adjusted_offset_s = NAN;  // the value before [ ]; + = local clock ahead of the source
  double measured_offset_s = NAN;  // inside [ ]
  double error_s = NAN;            // after +/-
  int64_t line = 0;
};
struct ChronycSources {
  int64_t number_of_sources = -1;  // chrony <= 3.5 `210 Number of sources = N`; -1 when absent
  bool verbose = false;            // a -v legend was present
  std::vector<ChronycSource> sources;
};
// Rows are records; legend, header and `=` lines are skipped. Fails when no header and no row.
Result<ChronycSources> ParseChronycSources(std::string_view text, std::string_view source, Diagnostics& diag,
                                           ReadCounts& counts);

// One row of `chronyc sourcestats`.
struct ChronycSourceStats {
  std::string name;
  bool name_truncated = false;
  int np = 0;                  // sample points
  int nr = 0;                  // runs of residuals with the same sign
  int64_t span_s = 0;          // length of the measurement set (unit suffixes decoded)
  double frequency_ppm = NAN;  // estimated frequency error of the local clock vs the source
  double freq_skew_ppm = NAN;
  double offset_s = NAN;  // estimated offset of the source's samples
  double std_dev_s = NAN;
  int64_t line = 0;
};
struct ChronycSourceStatsTable {
  int64_t number_of_sources = -1;
  bool verbose = false;
  std::vector<ChronycSourceStats> sources;
};
// Rows are records (8 fields; bad counts, times or ppm values are rejected); legend, header and `=`
// lines are skipped. Returns the table; fails when there is no header and no row.
Result<ChronycSourceStatsTable> ParseChronycSourceStats(std::string_view text, std::string_view source,
                                                        Diagnostics& diag, ReadCounts& counts);

// Parses a chronyc time value with its unit: "-440ns", "+1245us", "43ms", "2s" -> seconds.
std::optional<double> ParseChronycSeconds(std::string_view s);
// Parses a chronyc interval: "39", "20m", "3h", "2d", "1y" -> seconds ("-" is not accepted here).
std::optional<int64_t> ParseChronycInterval(std::string_view s);

}  // namespace toposcope::formats
