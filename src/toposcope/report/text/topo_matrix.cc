// report/text/topo_matrix: the nvidia-smi topo -m style matrix of one host (see the header).
#include "toposcope/report/text/topo_matrix.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "toposcope/base/text.h"

namespace toposcope::report {
namespace {

// "HOST/gpuN" -> (HOST, N); N = -1 when the id has no "/gpu<digits>" tail.
std::pair<std::string, int> SplitGpuId(const std::string& id) {
  const size_t slash = id.rfind("/gpu");
  if (slash == std::string::npos || !AllDigits(std::string_view(id).substr(slash + 4))) return {id, -1};
  return {id.substr(0, slash), std::stoi(id.substr(slash + 4))};
}

// The cell of one link: its nvidia-smi spelling (NV# with the lanes it has), '*' when degraded.
std::string Cell(const analysis::LinkReport& l) {
  std::string cell;
  if (IsNvlinkFamily(l.type)) {
    cell = l.lanes > 0 ? "NV" + std::to_string(l.lanes) : "NV?";
  } else if (IsPcie(l.type)) {
    cell = std::string(LinkTypeName(l.type));
  } else {
    cell = "?";
  }
  return l.degraded ? cell + "*" : cell;
}

constexpr const char* kLegend =
    "Legend:\n"
    "  X    = the GPU itself\n"
    "  NV#  = NVLink, # lanes bonded (direct or through NVSwitch)\n"
    "  PIX  = PCIe through at most one PCIe switch\n"
    "  PXB  = PCIe through several PCIe switches, not the CPU\n"
    "  PHB  = PCIe through the CPU's host bridge\n"
    "  NODE = PCIe across host bridges within one NUMA node\n"
    "  SYS  = PCIe and the link between CPU sockets (NUMA nodes)\n"
    "  ?    = joined by something the inputs do not name\n"
    "  -    = no declaration or measurement of the pair\n"
    "  *    = degraded: fewer lanes or less bandwidth than the pair should have\n";

}  // namespace

std::vector<std::string> TopoHosts(const analysis::AnalysisResult& r) {
  std::set<std::string> hosts;
  for (const analysis::GpuReport& g : r.gpus) hosts.insert(g.host);
  for (const analysis::LinkReport& l : r.links) hosts.insert(SplitGpuId(l.a).first);
  return {hosts.begin(), hosts.end()};
}

Result<std::string> TopoMatrixText(const analysis::AnalysisResult& r, const std::string& host) {
  std::set<int> gpus;
  for (const analysis::GpuReport& g : r.gpus) {
    if (g.host == host && g.index >= 0) gpus.insert(g.index);
  }
  std::map<std::pair<int, int>, const analysis::LinkReport*> links;
  for (const analysis::LinkReport& l : r.links) {
    const auto [ha, a] = SplitGpuId(l.a);
    const auto [hb, b] = SplitGpuId(l.b);
    if (ha != host || hb != host || a < 0 || b < 0) continue;
    gpus.insert(a);
    gpus.insert(b);
    links[{std::min(a, b), std::max(a, b)}] = &l;
  }
  if (gpus.empty()) {
    std::string known;
    for (const std::string& h : TopoHosts(r)) known += (known.empty() ? "" : ", ") + h;
    return MakeKindError(ErrorKind::kUsage, "no GPU of host '" + host + "' in the inputs",
                         known.empty() ? "the inputs name no GPU" : "hosts with GPUs: " + known);
  }
  std::string header = StringPrintf("%-7s", "");
  for (int g : gpus) header += StringPrintf("%-7s", ("GPU" + std::to_string(g)).c_str());
  while (header.back() == ' ') header.pop_back();
  std::string out = "GPU links of " + host + " as reconstructed:\n\n" + header + "\n";
  std::vector<const analysis::LinkReport*> degraded;
  for (int a : gpus) {
    std::string row = StringPrintf("%-7s", ("GPU" + std::to_string(a)).c_str());
    for (int b : gpus) {
      std::string cell = "-";
      if (a == b) {
        cell = "X";
      } else if (auto it = links.find({std::min(a, b), std::max(a, b)}); it != links.end()) {
        cell = Cell(*it->second);
        if (a < b && it->second->degraded) degraded.push_back(it->second);
      }
      row += StringPrintf("%-7s", cell.c_str());
    }
    while (!row.empty() && row.back() == ' ') row.pop_back();
    out += row + "\n";
  }
  out += "\n";
  out += kLegend;
  if (!degraded.empty()) {
    out += "\nDegraded links:\n";
    for (const analysis::LinkReport* l : degraded) {
      out += "  GPU" + std::to_string(SplitGpuId(l->a).second) + "-GPU" + std::to_string(SplitGpuId(l->b).second) +
             ": " + l->evidence + "\n";
    }
  }
  return out;
}

}  // namespace toposcope::report
