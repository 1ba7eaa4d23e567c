// libFuzzer target: NCCL graph XML. Counts must balance; what parses must write, re-read to the
// same graphs (floats go through %g once, so the second write must equal the first) and write
// identically again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/nccl/nccl_xml.h"

namespace {

bool SameShape(const toposcope::formats::NcclGraphs& a, const toposcope::formats::NcclGraphs& b) {
  if (a.version != b.version || a.graphs.size() != b.graphs.size()) return false;
  for (size_t i = 0; i < a.graphs.size(); ++i) {
    const auto& x = a.graphs[i];
    const auto& y = b.graphs[i];
    if (x.id != y.id || x.pattern != y.pattern || x.crossnic != y.crossnic || x.nchannels != y.nchannels ||
        x.typeintra != y.typeintra || x.typeinter != y.typeinter || x.samechannels != y.samechannels ||
        x.channels.size() != y.channels.size()) {
      return false;
    }
    for (size_t c = 0; c < x.channels.size(); ++c) {
      if (x.channels[c].steps != y.channels[c].steps) return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  ReadCounts counts;
  auto graphs = ParseNcclGraphXml(text, "fuzz.xml", diag, counts);
  if (!counts.Balanced()) __builtin_trap();
  if (!graphs.ok()) {
    if (graphs.error().message.empty()) __builtin_trap();
    return 0;
  }
  const std::string written = WriteNcclGraphXml(*graphs);
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = ParseNcclGraphXml(written, "fuzz2.xml", diag2, counts2);
  if (!again.ok() || !counts2.Balanced() || counts2.rejected != 0) __builtin_trap();
  if (!SameShape(*graphs, *again)) __builtin_trap();
  if (WriteNcclGraphXml(*again) != written) __builtin_trap();
  return 0;
}
