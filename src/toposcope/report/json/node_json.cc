// report/json/node_json: the node sections of result.json: inputs, GPUs, islands, links, the
// confidence bound and the thresholds.
#include <string>

#include "toposcope/base/link_type.h"
#include "toposcope/report/json/result_sections.h"
#include "toposcope/report/result_json.h"

namespace toposcope::report {

using nlohmann::json;

json InputsJson(const std::vector<analysis::InputReport>& inputs_in) {
  json inputs = json::array();
  for (const auto& in : inputs_in) {
    json x = {{"path", in.path}, {"format", in.format}, {"records", in.records}, {"rejected", in.rejected},
              {"host", in.host}, {"skipped", in.skipped}};
    if (in.skipped) x["skip_reason"] = in.skip_reason;
    inputs.push_back(std::move(x));
  }
  return inputs;
}

json GpusJson(const std::vector<analysis::GpuReport>& gpus_in) {
  json gpus = json::array();
  for (const auto& g : gpus_in) {
    gpus.push_back({{"id", g.id}, {"host", g.host}, {"index", g.index}, {"island", g.island}});
  }
  return gpus;
}

json IslandsJson(const std::vector<analysis::IslandReport>& islands_in) {
  json islands = json::array();
  for (const auto& i : islands_in) {
    json agree = json::object();
    for (const auto& [src, ok] : i.agrees_with) agree[src] = ok;
    islands.push_back({{"id", i.id}, {"host", i.host}, {"members", i.members},
                       {"kind", analysis::IslandKindName(i.kind)}, {"method", analysis::IslandMethodName(i.method)},
                       {"agrees_with", agree}});
  }
  return islands;
}

json LinksJson(const std::vector<analysis::LinkReport>& links_in) {
  json links = json::array();
  for (const auto& l : links_in) {
    links.push_back({{"a", l.a}, {"b", l.b}, {"type", std::string(LinkTypeName(l.type))}, {"lanes", l.lanes},
                     {"expected_lanes", l.expected_lanes}, {"type_source", analysis::LinkTypeSourceName(l.type_source)},
                     {"bandwidth_class", analysis::BandwidthClassName(l.bandwidth_class)},
                     {"bandwidth_gbps", Num(l.bandwidth_gbps)},
                     {"expected_gbps", Num(l.expected_gbps)}, {"degraded", l.degraded},
                     {"confidence", Num(l.confidence, 4)}, {"evidence", l.evidence}});
  }
  return links;
}

json ConfidenceJson(const analysis::ConfidenceReport& c) {
  json sampling = json::array();
  for (const auto& s : c.sampling) {
    sampling.push_back({{"period_ms", Num(s.period_ms, 1)}, {"per_hop_error", Num(s.per_hop_error, 4)},
                        {"max_hops", s.max_hops}});
  }
  json paths = json::array();
  for (const auto& p : c.paths) {
    paths.push_back({{"a", p.a}, {"b", p.b}, {"hops", p.hops}, {"delta", Num(p.delta, 4)}});
  }
  json out = {{"noise", {{"model", "truncated alpha-stable (S1), relative"},
                        {"alpha", Num(c.alpha, 4)},
                        {"beta", Num(c.beta, 4)},
                        {"scale", Num(c.scale, 4)},
                        {"truncation_scales", Num(c.truncation, 4)},
                        {"location", Num(c.location, 4)},
                        {"fitted", c.noise_fitted},
                        {"source", c.noise_source},
                        {"samples", c.noise_samples},
                        {"note", c.noise_note}}},
             {"quantile", Num(c.quantile, 4)},
             {"delta_min", Num(c.delta_min, 4)},
             {"base_period_ms", Num(c.base_period_ms, 1)},
             {"sampling", sampling}};
  out["paths"] = std::move(paths);  // moved, not copied as an initializer list would
  return out;
}

json ThresholdsJson(const analysis::Thresholds& t) {
  return {{"preset", analysis::ThresholdPresetName(t.preset)},
          {"nvlink_min_gbps", Num(t.nvlink_min_gbps)},
          {"pcie_cpu_max_gbps", Num(t.pcie_cpu_max_gbps)},
          {"degraded_ratio", Num(t.degraded_ratio)}};
}

}  // namespace toposcope::report
