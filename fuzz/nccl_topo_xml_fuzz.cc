// libFuzzer target: NCCL topology XML. Counts must balance; what parses must write and re-read
// to the same tree and the same typed view.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/nccl/nccl_xml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  ReadCounts counts;
  auto topo = ParseNcclTopoXml(text, "fuzz.xml", diag, counts);
  if (!counts.Balanced()) __builtin_trap();
  if (!topo.ok()) {
    if (topo.error().message.empty()) __builtin_trap();
    return 0;
  }
  const std::string written = WriteXmlTree(topo->root);
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = ParseNcclTopoXml(written, "fuzz2.xml", diag2, counts2);
  if (!again.ok() || !counts2.Balanced()) __builtin_trap();
  if (!again->root.SameAs(topo->root)) __builtin_trap();
  if (WriteXmlTree(again->root) != written) __builtin_trap();
  // A dump cut short has one rejected record for the cut that the rewritten text does not.
  if (counts2.read > counts.read || counts2.accepted != counts.accepted) __builtin_trap();
  if (again->gpus.size() != topo->gpus.size() || again->nics.size() != topo->nics.size() ||
      again->pcis.size() != topo->pcis.size() || again->cpus.size() != topo->cpus.size()) {
    __builtin_trap();
  }
  return 0;
}
