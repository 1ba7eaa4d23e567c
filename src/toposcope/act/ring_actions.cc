#include "toposcope/act/ring_actions.h"

#include <cstddef>

namespace toposcope::act {

std::string MpirunHostfileText(const std::vector<std::string>& order, const std::vector<int>& slots) {
  std::string out;
  for (size_t i = 0; i < order.size(); ++i) {
    out += order[i] + " slots=" + std::to_string(i < slots.size() ? slots[i] : 1) + "\n";
  }
  return out;
}

std::string TorchrunHostsText(const std::vector<std::string>& order) {
  std::string out;
  for (const std::string& h : order) out += h + "\n";
  return out;
}

std::string SlurmHostfileText(const std::vector<std::string>& order, const std::vector<int>& slots) {
  std::string out;
  for (size_t i = 0; i < order.size(); ++i) {
    const int n = i < slots.size() ? slots[i] : 1;
    for (int k = 0; k < n; ++k) out += order[i] + "\n";
  }
  return out;
}

formats::NcclGraphs RingGraphs(const RingGraphSpec& spec) {
  formats::NcclGraphs gs;
  gs.version = 1;
  formats::NcclGraph g;
  g.id = 0;
  g.pattern = 4;  // RING
  g.crossnic = 0;
  g.nchannels = spec.nchannels;
  g.speedintra = spec.speed_intra_gbs;
  g.speedinter = spec.speed_inter_gbs;
  g.latencyinter = 0;
  g.typeintra = spec.type_intra;
  g.typeinter = spec.type_inter;
  g.samechannels = 1;
  formats::NcclGraphChannel ch;
  ch.steps.emplace_back("net", spec.net_dev);
  for (const int gpu : spec.gpu_order) ch.steps.emplace_back("gpu", gpu);
  ch.steps.emplace_back("net", spec.net_dev);
  for (int c = 0; c < spec.nchannels; ++c) g.channels.push_back(ch);
  gs.graphs.push_back(std::move(g));
  return gs;
}

std::string RingGraphXml(const RingGraphSpec& spec) { return formats::WriteNcclGraphXml(RingGraphs(spec)); }

}  // namespace toposcope::act
