// libFuzzer target for the chrony readers (log files and chronyc tracking/sources/sourcestats):
// counts must balance on any input; tracking records that parse must write with
// WriteChronyTrackingLog, re-parse without rejects into as many records, and write back to the
// same text; the many-reports reader keeps its reports in order and gives sync points only for
// synchronised ones.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/clock/chrony.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  {
    Diagnostics diag;
    ReadCounts counts;
    auto log = ParseChronyLog(text, "fuzz", "h", diag, counts);
    if (!counts.Balanced() || diag.rejected_total() != counts.rejected) __builtin_trap();
    if (log.ok()) {
      const size_t records = log->tracking.size() + log->statistics.size() + log->measurements.size();
      if (static_cast<int64_t>(records) != counts.accepted) __builtin_trap();
      if (log->sync_points.size() != records) __builtin_trap();
      for (const auto& p : log->sync_points) {
        if (p.local_ns == kNoTime || p.ref_ns == kNoTime) __builtin_trap();
      }
      if (!log->tracking.empty()) {
        const std::string written = WriteChronyTrackingLog(log->tracking, 32);
        Diagnostics diag2;
        ReadCounts counts2;
        auto again = ParseChronyLog(written, "fuzz-rewritten", "h", diag2, counts2);
        if (!again.ok() || counts2.rejected != 0) __builtin_trap();
        if (again->tracking.size() != log->tracking.size()) __builtin_trap();
        if (WriteChronyTrackingLog(again->tracking, 32) != written) __builtin_trap();
      }
    }
  }
  {
    Diagnostics diag;
    ReadCounts counts;
    (void)ParseChronycTracking(text, "fuzz", diag, counts);
    if (!counts.Balanced() || diag.rejected_total() != counts.rejected) __builtin_trap();
  }
  {
    // Many reports: each report's first line lies inside the text, in order, and a synced report
    // with both times gives a sync point at its reference time.
    Diagnostics diag;
    ReadCounts counts;
    auto reports = ParseChronycTrackingReports(text, "fuzz", diag, counts);
    if (!counts.Balanced() || diag.rejected_total() != counts.rejected) __builtin_trap();
    if (reports.ok()) {
      int64_t last_line = 0;
      for (const ChronycTracking& t : *reports) {
        if (t.line < last_line || t.line < 1) __builtin_trap();
        last_line = t.line;
        const auto p = ToSyncPoint(t, "h");
        if (p && (!t.Synced() || p->ref_ns != t.ref_time_ns)) __builtin_trap();
      }
    }
  }
  {
    Diagnostics diag;
    ReadCounts counts;
    auto s = ParseChronycSources(text, "fuzz", diag, counts);
    if (!counts.Balanced() || diag.rejected_total() != counts.rejected) __builtin_trap();
    if (s.ok() && static_cast<int64_t>(s->sources.size()) != counts.accepted) __builtin_trap();
  }
  {
    Diagnostics diag;
    ReadCounts counts;
    auto s = ParseChronycSourceStats(text, "fuzz", diag, counts);
    if (!counts.Balanced() || diag.rejected_total() != counts.rejected) __builtin_trap();
    if (s.ok() && static_cast<int64_t>(s->sources.size()) != counts.accepted) __builtin_trap();
  }
  return 0;
}
