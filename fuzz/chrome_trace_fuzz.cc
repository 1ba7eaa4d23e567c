// libFuzzer target for the streaming Chrome trace reader: counts must balance on any input (and
// match the diagnostics); what parses must write with ChromeTraceWriter (header metadata too),
// re-parse without rejects and give back the same events (M and C events aside: their args are
// metadata / counter series, so only part of them travels).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/formats/trace/chrome_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  ReadCounts counts;
  ChromeTraceInfo info;
  auto events = ParseChromeTraceEvents(text, "fuzz", {}, diag, counts, &info);
  if (!counts.Balanced()) __builtin_trap();
  if (diag.rejected_total() != counts.rejected) __builtin_trap();
  if (!events.ok()) {
    if (counts.read != 0) __builtin_trap();
    return 0;
  }
  std::vector<TraceEvent> plain;
  for (const auto& e : *events) {
    if (e.phase != 'M' && e.phase != 'C') plain.push_back(e);
  }
  const std::string written = WriteChromeTrace(plain, &info);
  Diagnostics diag2;
  ReadCounts counts2;
  ChromeTraceInfo info2;
  auto again = ParseChromeTraceEvents(written, "fuzz-rewritten", {}, diag2, counts2, &info2);
  if (!again.ok() || counts2.rejected != 0 || !counts2.Balanced()) __builtin_trap();
  if (again->size() != plain.size()) __builtin_trap();
  for (size_t i = 0; i < plain.size(); ++i) {
    TraceEvent a = plain[i];
    TraceEvent b = (*again)[i];
    a.source_file = b.source_file = "";
    a.byte_offset = b.byte_offset = -1;
    if (!(a == b)) __builtin_trap();
  }
  if (info2.distributed != info.distributed || info2.devices != info.devices) __builtin_trap();
  if (info2.has_base_time != info.has_base_time || info2.base_time_ns != info.base_time_ns) __builtin_trap();
  return 0;
}
