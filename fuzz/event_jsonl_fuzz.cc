// libFuzzer target for the JSONL event reader: counts must balance on any input; what parses must
// write, re-parse without rejects and give back the same events.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/trace/event_jsonl.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  ReadCounts counts;
  auto events = ParseEventJsonl(text, "fuzz", diag, counts);
  if (!counts.Balanced()) __builtin_trap();
  if (diag.rejected_total() != counts.rejected) __builtin_trap();
  if (static_cast<int64_t>(events.size()) != counts.accepted) __builtin_trap();
  const std::string written = WriteEventJsonl(events);
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = ParseEventJsonl(written, "fuzz-rewritten", diag2, counts2);
  if (counts2.rejected != 0 || again.size() != events.size()) __builtin_trap();
  for (size_t i = 0; i < events.size(); ++i) {
    TraceEvent a = events[i];
    TraceEvent b = again[i];
    a.source_file = b.source_file = "";
    a.line = b.line = 0;
    a.byte_offset = b.byte_offset = -1;
    if (!(a == b)) __builtin_trap();
  }
  return 0;
}
