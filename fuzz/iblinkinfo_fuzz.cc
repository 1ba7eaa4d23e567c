// libFuzzer target for the iblinkinfo reader: counts must balance on any input and match the
// diagnostics; every port read has its LID and port, and a linked one its peer's.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "toposcope/formats/fabric/iblinkinfo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  auto r = formats::ParseIbLinkInfo(text, "fuzz", diag);
  if (!r.ok()) return 0;
  if (!r->counts.Balanced() || diag.rejected_total() != r->counts.rejected) __builtin_trap();
  for (const auto& p : r->ports) {
    if (p.lid < 0 || p.port < 0 || p.line <= 0) __builtin_trap();
    if (p.Linked() && p.peer_port < 0) __builtin_trap();
    if (p.rate_gbps < 0) __builtin_trap();
    if (p.node_line <= 0 || p.node_line >= p.line) __builtin_trap();  // its header comes first
  }
  return 0;
}
