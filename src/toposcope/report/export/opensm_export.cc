#include "toposcope/report/export/opensm_export.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string_view>

#include "toposcope/base/text.h"

namespace toposcope::report {

using analysis::HopWeight;

std::string WriteOpenSmHopWeights(const std::vector<HopWeight>& w) {
  std::string out =
      "# OpenSM hop weights (opensm --hop_weights_file): <switch port GUID> <port> <weight>\n"
      "# written by toposcope from tomography link weights; unlisted ports weigh 1\n";
  std::string skipped;
  int nskipped = 0;
  for (const HopWeight& h : w) {
    std::string_view g = h.port_guid;
    if (g.size() > 2 && g[0] == '0' && (g[1] == 'x' || g[1] == 'X')) g.remove_prefix(2);
    const std::optional<uint64_t> parsed = ParseHexU64(g);
    const uint64_t guid = parsed.value_or(0);
    if (!parsed || h.port < 0 || h.port > 254 || h.weight < 1) {
      ++nskipped;
      if (nskipped <= 8) skipped += " " + h.port_guid + ":" + std::to_string(h.port);
      continue;
    }
    char line[64];
    std::snprintf(line, sizeof line, "0x%016llx %d %d\n", static_cast<unsigned long long>(guid),
                  h.port, h.weight);
    out += line;
  }
  if (nskipped > 0)
    out += "# skipped " + std::to_string(nskipped) + " invalid entries:" + skipped + "\n";
  return out;
}

}  // namespace toposcope::report
