// formats/clock/linuxptp: the log output of linuxptp's ptp4l and phc2sys, streamed line by line, with a
// SyncPoint per servo sample for the time-sync analysis (seed §2.2). Writers for the simulator.
//
// Prefixes accepted: stdout (`-m`) `ptp4l[1234.567]: msg`; syslog / journald `Mon DD HH:MM:SS host
// ptp4l[PID]: [1234.567] msg` (also an ISO time in front, or no header at all before
// `ptp4l[PID]:`); optional message tags after the prefix (`[ptp4l.0.config]`, `[ens7f0]`,
// `[ptp4l.0.config:6]`). Messages recognised: ptp4l `master offset N sK freq F path delay D`,
// phc2sys `TARGET phc|sys|pps offset N sK freq F [delay D]`, the summaries `[CLOCK ]rms R max M
// freq F +/- S [delay D +/- S]`, port state changes `port N[ (ifname)]: FROM to TO on EVENT`.
// Any other line is an accepted record of kind kOther (a log line we do not use is not an error);
// only malformed sample/summary lines (e.g. `master offset abc`) are rejected.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/clock/sync_point.h"

namespace toposcope::formats {

enum class PtpLineKind {
  kMasterOffset,   // ptp4l servo sample
  kPhc2sysOffset,  // phc2sys servo sample
  kSummary,        // rms/max/freq/delay summary (ptp4l, or phc2sys with the clock name first)
  kPortState,      // port state change
  kOther,          // any other message, kept as text
};

// "master-offset", "phc2sys-offset", "summary", "port-state", "other".
std::string_view PtpLineKindName(PtpLineKind kind);

struct PtpRecord {
  PtpLineKind kind = PtpLineKind::kOther;
  int64_t line = 0;  // 1-based input line
  // Prefix.
  std::string program;             // "ptp4l", "phc2sys", "ts2phc", ...; empty when no prefix
  int64_t pid = -1;                // syslog/journal form only
  std::string host;                // syslog/journal host; empty otherwise
  std::string syslog_time;         // the header's time text ("Jun 10 12:00:01"); may be empty
  int64_t monotonic_ns = kNoTime;  // CLOCK_MONOTONIC of the `[sec.ms]`, ns; kNoTime when absent
  std::string tag;                 // message tag(s) without brackets ("ptp4l.0.config"); may be empty
  std::string message;             // the text after prefix and tags
  // Samples (kMasterOffset, kPhc2sysOffset).
  std::string clock;                // phc2sys target clock ("CLOCK_REALTIME", "swp3", "/dev/ptp1")
  std::string source_label;         // phc2sys "phc" | "sys" | "pps"
  int64_t offset_ns = 0;            // ptp4l: slave - master; phc2sys: target - source
  int servo_state = -1;             // N of sN: 0 unlocked, 1 jump, 2 locked, 3 locked stable
  double freq_ppb = NAN;            // applied frequency adjustment
  std::optional<int64_t> delay_ns;  // ptp4l path delay / phc2sys read delay; absent if not printed
  // Summaries (kSummary); NaN when not printed. `clock` holds phc2sys's device name.
  double rms_ns = NAN;
  double max_ns = NAN;
  double freq_mean_ppb = NAN;
  double freq_sd_ppb = NAN;
  double delay_mean_ns = NAN;
  double delay_sd_ns = NAN;
  // Port state changes (kPortState).
  int port = -1;
  std::string interface;   // "(ifname)" of newer versions, without parentheses
  std::string from_state;  // "UNCALIBRATED"
  std::string to_state;    // "SLAVE"
  std::string event;       // "MASTER_CLOCK_SELECTED", "INITIALIZE", "INIT_COMPLETE", ...

  // "s2" etc.; empty when no servo state.
  [[nodiscard]] std::string StateText() const;
  // Samples in state s2 or s3.
  [[nodiscard]] bool Locked() const { return servo_state == 2 || servo_state == 3; }
};

struct PtpSinks {
  std::function<void(const PtpRecord&)> record;  // every accepted line
  SyncPointSink sync;                            // one per sample or summary with a monotonic time
};

// Streams one ptp4l/phc2sys log. Every non-blank line is a record; malformed samples, summaries
// and port lines are rejected into `diag`. Samples give SyncPoints (local_ns = the monotonic prefix
// time, ref_ns = local_ns - offset, synced = s2/s3, uncertainty = delay/2 when the delay is >= 0,
// freq_ppb = freq); summaries give clock-quality SyncPoints (sync_point.h: ref_ns = kNoTime, the rms,
// max and freq); a sample or summary without a monotonic time is accepted with a warning and gives none. Accepted with a
// warning: monotonic time going backwards (per program and pid), a line repeating the previous one,
// a negative path delay. `host` names the host unless the syslog header gives one.
// Fails only when the input is empty or has no linuxptp line at all (no prefix, no sample).
Status ReadPtpLog(LineReader& lines, std::string_view source, std::string_view host, const PtpSinks& sinks,
                  Diagnostics& diag, ReadCounts& counts);
// The same over in-memory text; fails as ReadPtpLog.
Status ReadPtpLogText(std::string_view text, std::string_view source, std::string_view host,
                      const PtpSinks& sinks, Diagnostics& diag, ReadCounts& counts);

// A whole log collected in memory.
struct PtpLog {
  std::vector<PtpRecord> records;
  std::vector<SyncPoint> sync_points;
};
// Reads a whole log (as ReadPtpLog) into a PtpLog; fails as ReadPtpLog.
Result<PtpLog> ParsePtpLog(std::string_view text, std::string_view source, std::string_view host,
                           Diagnostics& diag, ReadCounts& counts);

// The SyncPoint of a sample or summary record (nullopt for other kinds or without a monotonic time, or
// when ref_ns would overflow).
std::optional<SyncPoint> ToSyncPoint(const PtpRecord& r, std::string_view host);

// Writers in linuxptp's exact `-m` layouts (`prog[sec.ms]: ` with the milliseconds truncated).
// ptp4l: `master offset %10lld s%d freq %+7.0f path delay %9lld`.
std::string FormatPtp4lSampleLine(int64_t monotonic_ns, int64_t offset_ns, int servo_state, double freq_ppb,
                                  int64_t path_delay_ns);
// phc2sys: `%s %s offset %9lld s%d freq %+7.0f delay %6lld` (no delay part when delay_ns is empty).
std::string FormatPhc2sysSampleLine(int64_t monotonic_ns, std::string_view target,
                                    std::string_view source_label, int64_t offset_ns, int servo_state,
                                    double freq_ppb, std::optional<int64_t> delay_ns);
// One line for any record, stdout (`-m`) style with its program (default "ptp4l"), tag and
// message layout; no trailing newline.
std::string FormatPtpRecord(const PtpRecord& r);
// All records, one per line. Round-trips through ParsePtpLog (freq to whole ppb, times to ms).
std::string WritePtpLog(const std::vector<PtpRecord>& records);

}  // namespace toposcope::formats
