// libFuzzer target for the `nvidia-smi -q` reader: counts must balance on any input and match the
// diagnostics, every GPU has a bus id, and every temperature read is a finite number or NaN.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "toposcope/formats/node/nvsmi_query.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  auto q = formats::ParseNvsmiQuery(text, "fuzz", diag);
  if (!q.ok()) return 0;
  if (!q->counts.Balanced() || diag.rejected_total() != q->counts.rejected) __builtin_trap();
  for (const auto& g : q->gpus) {
    if (g.bus_id.empty() || g.line <= 0) __builtin_trap();
    for (const double c : {g.current_c, g.tlimit_c, g.shutdown_c, g.slowdown_c, g.max_operating_c, g.shutdown_tlimit_c,
                           g.slowdown_tlimit_c, g.max_operating_tlimit_c, g.memory_current_c, g.memory_max_operating_c}) {
      if (std::isinf(c)) __builtin_trap();
    }
  }
  return 0;
}
