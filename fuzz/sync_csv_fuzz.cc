// libFuzzer target for the sync-pairs CSV reader: counts must balance on any input; what parses
// must write with WriteSyncCsv, re-parse without rejects into the same points (host, times,
// uncertainty bit for bit, source) and write back to the same text.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/clock/sync_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  ReadCounts counts;
  auto pts = ParseSyncCsv(text, "fuzz", diag, counts);
  if (!counts.Balanced() || diag.rejected_total() != counts.rejected) __builtin_trap();
  if (!pts.ok()) return 0;
  if (static_cast<int64_t>(pts->size()) != counts.accepted) __builtin_trap();
  const std::string written = WriteSyncCsv(*pts);
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = ParseSyncCsv(written, "fuzz-rewritten", diag2, counts2);
  if (!again.ok() || counts2.rejected != 0 || again->size() != pts->size()) __builtin_trap();
  for (size_t i = 0; i < pts->size(); ++i) {
    const auto& a = (*pts)[i];
    const auto& b = (*again)[i];
    if (a.host != b.host || a.local_ns != b.local_ns || a.ref_ns != b.ref_ns || a.source != b.source) {
      __builtin_trap();
    }
    if (std::isnan(a.uncertainty_ns) != std::isnan(b.uncertainty_ns)) __builtin_trap();
    if (!std::isnan(a.uncertainty_ns) && a.uncertainty_ns != b.uncertainty_ns) __builtin_trap();
  }
  if (WriteSyncCsv(*again) != written) __builtin_trap();
  return 0;
}
