// libFuzzer target for the ibqueryerrors reader: counts must balance on any input and match the
// diagnostics; every block has its line, a port 0..255 and the GUID of its port line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "toposcope/formats/fabric/ibqueryerrors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  auto r = formats::ParseIbQueryErrors(text, "fuzz", diag);
  if (!r.ok()) return 0;
  if (!r->counts.Balanced() || diag.rejected_total() != r->counts.rejected) __builtin_trap();
  if (r->tool != "ibqueryerrors") __builtin_trap();
  for (const auto& b : r->blocks) {
    if (b.line <= 0 || b.port < 0 || b.port > 255 || b.lid != -1 || b.port_guid.empty()) __builtin_trap();
  }
  return 0;
}
