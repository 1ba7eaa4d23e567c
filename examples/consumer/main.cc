// topo_cells: reads one `nvidia-smi topo -m` output with the installed toposcope library and prints
// its GPUs and the link kinds between them, then the reader's accounting.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "toposcope/base/diagnostics.h"
#include "toposcope/formats/node/nvsmi_topo.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: topo_cells NVIDIA_SMI_TOPO_FILE\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  toposcope::Diagnostics diag;
  toposcope::ReadCounts counts;
  auto topo = toposcope::formats::ParseNvsmiTopo(text.str(), argv[1], diag, counts);
  if (!topo.ok()) {
    std::fprintf(stderr, "%s\n", topo.error().ToString().c_str());
    return 3;
  }
  for (size_t r = 0; r < topo->devices.size(); ++r) {
    for (size_t c = r + 1; c < topo->devices.size(); ++c) {
      if (r < topo->cells.size() && c < topo->cells[r].size() && !topo->cells[r][c].empty()) {
        std::printf("%s %s %s\n", topo->devices[r].label.c_str(), topo->devices[c].label.c_str(), topo->cells[r][c].c_str());
      }
    }
  }
  std::printf("rows read %lld, accepted %lld, rejected %lld\n", static_cast<long long>(counts.read),
              static_cast<long long>(counts.accepted), static_cast<long long>(counts.rejected));
  return 0;
}
