#include "toposcope/report/text/architecture_text.h"

#include <fmt/format.h>

#include <cmath>

namespace toposcope::report {

std::string ArchitectureText(const analysis::AnalysisResult& r) {
  if (!r.architecture_present) return "architecture: no fabric dump or path probes in the inputs\n";
  const auto& a = r.architecture;
  auto num = [](double v, int d) { return std::isfinite(v) ? fmt::format("{:.{}f}", v, d) : std::string("n/a"); };
  std::string out = fmt::format("architecture: {} (confidence {:.2f}, from the {})\n",
                                analysis::ArchClassName(a.arch_class), a.confidence,
                                analysis::GraphSourceName(a.graph_source));
  out += fmt::format(
      "  avg AllReduce hops {} (ring order: {}), worst-case jitter +/-{} us, entropy stability {} "
      "({} windows)\n",
      num(a.avg_allreduce_hops, 2), analysis::RingOrderName(a.ring_order), num(a.jitter_us, 2),
      num(a.entropy_stability, 4), a.entropy_windows);
  out += "evidence:\n";
  for (const auto& e : a.evidence) out += "  - " + e + "\n";
  return out;
}

}  // namespace toposcope::report
