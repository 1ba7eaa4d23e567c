// Shared body of the P2P matrix fuzz targets: counts must balance on any input, and what parses
// must write back, re-parse without rejects into the same matrices (shapes, ids, kinds, p2p flags,
// values to 2 decimals, NaNs kept) and write back to the same text.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/node/p2p_matrix.h"

namespace p2p_fuzz {

inline bool SameMatrices(const toposcope::formats::P2pReport& a, const toposcope::formats::P2pReport& b) {
  if (a.matrices.size() != b.matrices.size()) return false;
  for (size_t k = 0; k < a.matrices.size(); ++k) {
    const auto& x = a.matrices[k];
    const auto& y = b.matrices[k];
    if (x.row_ids != y.row_ids || x.col_ids != y.col_ids || x.quantity != y.quantity) return false;
    if (x.gpu_to_gpu != y.gpu_to_gpu || x.p2p_enabled != y.p2p_enabled) return false;
    for (size_t r = 0; r < x.values.size(); ++r) {
      for (size_t c = 0; c < x.values[r].size(); ++c) {
        const double u = x.values[r][c];
        const double v = y.values[r][c];
        if (std::isnan(u) != std::isnan(v)) return false;
        if (!std::isnan(u) && std::fabs(u - v) > 0.0051 * (1 + std::fabs(u) * 1e-12)) return false;
      }
    }
  }
  return true;
}

// Parse: (text, source, Diagnostics&, ReadCounts&) -> Result<P2pReport>; Write: (P2pReport) -> string.
template <typename Parse, typename Write>
int RoundTrip(const uint8_t* data, size_t size, Parse parse, Write write) {
  using namespace toposcope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  ReadCounts counts;
  auto report = parse(text, "fuzz", diag, counts);
  if (!counts.Balanced()) __builtin_trap();
  if (diag.rejected_total() != counts.rejected) __builtin_trap();
  if (!report.ok()) return 0;
  if (report->matrices.empty()) return 0;  // devices only (a waived or cut test): nothing to rewrite
  const std::string written = write(*report);
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = parse(written, "fuzz-rewritten", diag2, counts2);
  if (!again.ok() || !counts2.Balanced() || counts2.rejected != 0) __builtin_trap();
  if (!SameMatrices(*report, *again)) __builtin_trap();
  if (write(*again) != written) __builtin_trap();
  return 0;
}

}  // namespace p2p_fuzz
