// libFuzzer target for the NCCL Inspector reader: counts must balance on any input; what parses
// must write (JSON lines), re-parse without rejects into as many records, and write back to the
// same text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/nccl/nccl_inspector.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  ReadCounts counts;
  auto recs = ParseNcclInspector(text, "fuzz", diag, counts);
  if (!counts.Balanced()) __builtin_trap();
  if (diag.rejected_total() != counts.rejected) __builtin_trap();
  if (!recs.ok()) return 0;
  if (static_cast<int64_t>(recs->size()) != counts.accepted) __builtin_trap();
  for (const auto& r : *recs) {
    TraceEvent e;
    (void)InspectorRecordToEvent(r, "fuzz", &e);
  }
  const std::string written = WriteNcclInspector(*recs);
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = ParseNcclInspector(written, "fuzz-rewritten", diag2, counts2);
  if (recs->empty()) return 0;
  if (!again.ok() || counts2.rejected != 0 || again->size() != recs->size()) __builtin_trap();
  for (size_t i = 0; i < recs->size(); ++i) {
    if ((*again)[i].kind != (*recs)[i].kind || (*again)[i].header != (*recs)[i].header ||
        (*again)[i].metadata != (*recs)[i].metadata || (*again)[i].perf.sn != (*recs)[i].perf.sn) {
      __builtin_trap();
    }
  }
  if (WriteNcclInspector(*again) != written) __builtin_trap();
  return 0;
}
