// libFuzzer target for the host inventory CSV reader: counts must balance on any input, and what
// parses must write, re-parse without rejects to the same rows, and write back to the same text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/rdma/inventory_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)formats::LooksLikeInventoryCsv(text);
  Diagnostics diag;
  auto inv = formats::ParseInventoryCsv(text, "fuzz", diag);
  if (!inv.ok()) return 0;
  if (!inv->counts.Balanced() || inv->counts.accepted != static_cast<int64_t>(inv->rows.size())) __builtin_trap();
  const std::string written = formats::WriteInventoryCsv(*inv);
  Diagnostics d2;
  auto again = formats::ParseInventoryCsv(written, "fuzz-rewritten", d2);
  if (!again.ok() || again->counts.rejected != 0 || again->rows.size() != inv->rows.size()) __builtin_trap();
  for (size_t i = 0; i < inv->rows.size(); ++i) {
    formats::InventoryRow a = inv->rows[i], b = again->rows[i];
    a.line = b.line = 0;
    if (!(a == b)) __builtin_trap();
  }
  if (formats::WriteInventoryCsv(*again) != written) __builtin_trap();
  return 0;
}
