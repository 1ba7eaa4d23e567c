// libFuzzer target for the `dcgmi dmon` reader: counts must balance on any input (also when fed line
// by line through DmonParser), and the rows that parse without text values must write with
// DmonWriter and re-parse without rejects into the same entities, iterations and values (to the
// 3 decimals `%.3f` keeps).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/dcgm/dcgm_dmon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  DmonOptions opts;
  if (size > 0) {
    opts.start_ts_ns = (data[0] & 1) ? 1700000000LL * 1000000000LL : kNoTime;
    opts.relative_incremental = (data[0] & 2) != 0;
    opts.delay_ms = (data[0] & 4) ? 100 : 1000;
  }
  Diagnostics diag;
  ReadCounts counts;
  auto log = ParseDmonText(text, "fuzz", opts, diag, counts);
  if (!counts.Balanced()) __builtin_trap();
  if (diag.rejected_total() != counts.rejected) __builtin_trap();
  if (!log.ok()) return 0;
  if (static_cast<int64_t>(log->rows.size()) != counts.accepted) __builtin_trap();
  if (log->summary.rows != counts.accepted) __builtin_trap();

  // Rows that round-trip: no text values, values that `%.3f` / `%lld` print in a few characters.
  bool simple = true;
  for (const DmonRow& r : log->rows) {
    if (!r.text.empty()) simple = false;
    for (const double v : r.values) {
      if (!std::isnan(v) && std::fabs(v) > 1e15) simple = false;
    }
  }
  if (!simple) return 0;
  DmonWriterOptions wo;
  const std::string written = WriteDmon(log->summary.header.fields, log->rows, wo);
  DmonOptions opts2;
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = ParseDmonText(written, "fuzz-rewritten", opts2, diag2, counts2);
  if (!again.ok() || !counts2.Balanced() || counts2.rejected != 0) __builtin_trap();
  if (again->rows.size() != log->rows.size()) __builtin_trap();
  for (size_t i = 0; i < log->rows.size(); ++i) {
    const DmonRow& a = log->rows[i];
    const DmonRow& b = again->rows[i];
    if (!(a.entity == b.entity) || a.iteration != b.iteration) __builtin_trap();
    if (a.values.size() != b.values.size()) __builtin_trap();
    for (size_t k = 0; k < a.values.size(); ++k) {
      const double u = a.values[k];
      const double v = b.values[k];
      if (std::isnan(u) != std::isnan(v)) __builtin_trap();
      if (!std::isnan(u) && std::fabs(u - v) > 0.00051 + std::fabs(u) * 1e-12) __builtin_trap();
    }
  }
  return 0;
}
