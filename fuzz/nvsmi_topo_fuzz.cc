// libFuzzer target for the `nvidia-smi topo` reader: counts must balance on any input, and what
// parses must write, re-parse without rejects and write back to the same text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/node/nvsmi_topo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  ReadCounts counts;
  auto topo = formats::ParseNvsmiTopo(text, "fuzz", diag, counts);
  if (!counts.Balanced()) __builtin_trap();
  if (!topo.ok()) return 0;

  const std::string written = formats::WriteNvsmiTopo(*topo);
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = formats::ParseNvsmiTopo(written, "fuzz-rewritten", diag2, counts2);
  if (!again.ok() || !counts2.Balanced() || counts2.rejected != 0) __builtin_trap();
  if (again->devices.size() != topo->devices.size() || again->kind != topo->kind) __builtin_trap();
  if (formats::WriteNvsmiTopo(*again) != written) __builtin_trap();
  return 0;
}
