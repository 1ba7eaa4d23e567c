// libFuzzer target for the DCGM CSV reader: counts must balance on any input, and what parses must
// write back (ISO timestamps, long form; wide form when its field columns are unique) and re-parse
// without rejects into the same samples.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "toposcope/formats/dcgm/dcgm_csv.h"

namespace {

void CheckRoundTrip(const toposcope::formats::DcgmCsv& csv, const std::string& written) {
  using namespace toposcope;
  Diagnostics diag;
  ReadCounts counts;
  auto again = formats::ParseDcgmCsv(written, "fuzz-rewritten", diag, counts);
  if (!counts.Balanced() || counts.rejected != 0) __builtin_trap();
  if (csv.samples.empty()) return;
  if (!again.ok() || again->samples.size() != csv.samples.size()) __builtin_trap();
  for (size_t i = 0; i < csv.samples.size(); ++i) {
    if (!formats::SameCsvSample(again->samples[i], csv.samples[i])) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  ReadCounts counts;
  auto parsed = formats::ParseDcgmCsv(text, "fuzz", diag, counts);
  if (!counts.Balanced()) __builtin_trap();
  if (diag.rejected_total() != counts.rejected) __builtin_trap();
  if (!parsed.ok()) return 0;
  if (static_cast<int64_t>(parsed->samples.size()) != parsed->summary.samples) __builtin_trap();

  if (parsed->summary.layout == formats::DcgmCsvLayout::kLong) {
    CheckRoundTrip(*parsed, formats::WriteDcgmCsvLong(parsed->samples, formats::CsvTimeStyle::kIso));
  } else {
    const auto& f = parsed->summary.field_columns;
    if (std::set<std::string>(f.begin(), f.end()).size() == f.size()) {
      CheckRoundTrip(*parsed, formats::WriteDcgmCsvWide(parsed->samples, formats::CsvTimeStyle::kIso));
    }
  }
  return 0;
}
