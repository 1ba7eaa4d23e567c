// libFuzzer target for the ibnetdiscover reader: counts must balance on any input, and a parsed
// fabric must write, re-parse without rejects to the same nodes, and write back to the same text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/fabric/ibnetdiscover.h"

namespace {

using namespace toposcope;
using namespace toposcope::formats;

IbFabric NoLines(IbFabric f) {
  for (IbNode& n : f.nodes) {
    n.line = 0;
    for (IbPortLink& p : n.ports) p.line = 0;
  }
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)LooksLikeIbnetdiscover(text);
  Diagnostics diag;
  auto f = ParseIbnetdiscover(text, "fuzz", diag);
  if (!f.ok()) return 0;
  if (!f->counts.Balanced()) __builtin_trap();
  (void)IbLinks(*f);
  // Descriptions or header text holding line breaks or '"' sequences that end the field cannot
  // be written back unambiguously; ibnetdiscover never prints them.
  for (const IbNode& n : f->nodes) {
    if (n.desc.find('\n') != std::string::npos || n.desc.find('\r') != std::string::npos) return 0;
  }
  const std::string written = WriteIbnetdiscover(*f);
  Diagnostics d2;
  auto again = ParseIbnetdiscover(written, "fuzz-rewritten", d2);
  if (f->nodes.empty()) return 0;
  if (!again.ok() || again->counts.rejected != 0) __builtin_trap();
  if (!(NoLines(*again) == NoLines(*f))) __builtin_trap();
  if (WriteIbnetdiscover(*again) != written) __builtin_trap();
  return 0;
}
