// libFuzzer target for the perfquery reader: counts must balance on any input and match the
// diagnostics; every block has a line, a port no wider than 0..255 and at least one counter, and
// what the writer prints of a block named by its header reads back as the same block.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "toposcope/formats/fabric/perfquery.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  auto r = formats::ParsePerfquery(text, "fuzz", diag);
  if (!r.ok()) return 0;
  if (!r->counts.Balanced() || diag.rejected_total() != r->counts.rejected) __builtin_trap();
  for (const auto& b : r->blocks) {
    if (b.line <= 0 || b.port < -1 || b.port > 255 || b.lid < -1 || b.lid > 0xffff) __builtin_trap();
    if (b.named_by != "header" || b.lid < 0 || b.port < 0) continue;
    formats::PortCounterBlock plain = b;
    plain.cap_mask.clear();  // a mask with blanks or parentheses would not survive the header
    Diagnostics again;
    auto back = formats::ParsePerfquery(formats::WritePerfqueryBlock(plain), "fuzz", again);
    if (!back.ok() || back->blocks.size() != 1 || back->counts.rejected != 0) __builtin_trap();
    const auto& c = back->blocks[0];
    if (c.lid != b.lid || c.port != b.port || c.extended != b.extended || c.counters != b.counters) __builtin_trap();
  }
  return 0;
}
