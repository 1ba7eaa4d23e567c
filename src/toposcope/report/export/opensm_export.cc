#include "toposcope/report/export/opensm_export.h"

#include <cstdint>
#include <cstdio>
#include <string_view>

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
    bool ok = !g.empty() && g.size() <= 16;
    uint64_t guid = 0;
    for (char c : g) {
      int v = -1;
      if (c >= '0' && c <= '9') v = c - '0';
      else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
      if (v < 0) { ok = false; break; }
      guid = (guid << 4) | static_cast<uint64_t>(v);
    }
    if (!ok || h.port < 0 || h.port > 254 || h.weight < 1) {
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
