// libFuzzer target for the ptp4l/phc2sys log reader: counts must balance on any input; what parses
// must write with WritePtpLog, re-parse without rejects into as many records, and (after that one
// normalisation of times to ms and numbers to the printed precision) write back to the same text.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/clock/linuxptp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  ReadCounts counts;
  auto log = ParsePtpLog(text, "fuzz", "h", diag, counts);
  if (!counts.Balanced() || diag.rejected_total() != counts.rejected) __builtin_trap();
  if (!log.ok()) return 0;
  if (static_cast<int64_t>(log->records.size()) != counts.accepted) __builtin_trap();
  for (const auto& p : log->sync_points) {
    // A summary line is a clock-quality sample: a local time, no reference time, no offset.
    if (p.ref_ns == kNoTime && !std::isnan(p.offset_rms_ns)) {
      if (p.local_ns == kNoTime || !std::isnan(p.offset_ns)) __builtin_trap();
      continue;
    }
    if (p.ref_ns == kNoTime || p.local_ns == kNoTime) __builtin_trap();
    if (p.local_ns - p.ref_ns != static_cast<int64_t>(p.offset_ns)) __builtin_trap();
  }
  // A log whose accepted lines are all foreign text (the recognised ones were rejected) is not a
  // linuxptp log once rewritten: nothing to round-trip.
  bool recognised = false;
  for (const auto& r : log->records) {
    recognised = recognised || !r.program.empty() || r.kind != PtpLineKind::kOther;
  }
  if (!recognised) return 0;
  const std::string written = WritePtpLog(log->records);
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = ParsePtpLog(written, "fuzz-rewritten", "h", diag2, counts2);
  if (!again.ok() || counts2.rejected != 0) __builtin_trap();
  if (again->records.size() != log->records.size()) __builtin_trap();
  for (size_t i = 0; i < log->records.size(); ++i) {
    if (again->records[i].kind != log->records[i].kind) __builtin_trap();
  }
  const std::string written2 = WritePtpLog(again->records);
  Diagnostics diag3;
  ReadCounts counts3;
  auto third = ParsePtpLog(written2, "fuzz-rewritten2", "h", diag3, counts3);
  if (!third.ok() || WritePtpLog(third->records) != written2) __builtin_trap();
  return 0;
}
