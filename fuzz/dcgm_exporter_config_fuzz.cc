// libFuzzer target for the dcgm-exporter counters CSV reader: counts must balance on any input, and
// what parses must write with WriteExporterCountersCsv and re-parse without rejects into the same
// entries (line numbers aside).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/dcgm/dcgm_exporter_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  ReadCounts counts;
  auto entries = ParseExporterCountersCsv(text, "fuzz", diag, counts);
  if (!counts.Balanced()) __builtin_trap();
  if (diag.rejected_total() != counts.rejected) __builtin_trap();
  if (!entries.ok()) return 0;
  if (entries->empty() || static_cast<int64_t>(entries->size()) != counts.accepted) __builtin_trap();

  const std::string written = WriteExporterCountersCsv(*entries);
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = ParseExporterCountersCsv(written, "fuzz-rewritten", diag2, counts2);
  if (!again.ok() || counts2.rejected != 0 || again->size() != entries->size()) __builtin_trap();
  for (size_t i = 0; i < entries->size(); ++i) {
    ExporterCounter a = (*entries)[i];
    ExporterCounter b = (*again)[i];
    a.line = b.line = 0;
    if (!(a == b)) __builtin_trap();
  }
  if (WriteExporterCountersCsv(*again) != written) __builtin_trap();
  return 0;
}
