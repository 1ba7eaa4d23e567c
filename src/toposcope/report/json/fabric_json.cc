// report/json/fabric_json: the fabric sections of result.json: the discovered fabric, leaves and
// pods inferred from probe RTTs, path findings, the architecture, tomography link weights.
#include <cmath>
#include <string>

#include "toposcope/report/json/result_sections.h"
#include "toposcope/report/result_json.h"

namespace toposcope::report {

using nlohmann::json;

namespace {

// The ports of a switch or adapter: port, peer, peer port and rate.
json PortsJson(const std::vector<analysis::FabricPort>& ports) {
  json a = json::array();
  for (const auto& p : ports) {
    a.push_back({{"port", p.port}, {"peer", p.peer}, {"peer_port", p.peer_port}, {"rate_gbps", Num(p.rate_gbps, 1)}});
  }
  return a;
}

// Path findings (bottlenecks or redundant hops): node, kind, entropy, reuse and evidence.
json PathFindingsJson(const std::vector<analysis::PathFinding>& fs) {
  json a = json::array();
  for (const auto& f : fs) {
    a.push_back({{"node", f.node}, {"kind", analysis::PathFindingKindName(f.kind)}, {"entropy", Num(f.entropy, 4)},
                 {"reuse_rate", Num(f.reuse_rate, 4)}, {"extra_hops", f.extra_hops}, {"paths", f.paths},
                 {"evidence", f.evidence}});
  }
  return a;
}

}  // namespace

json FabricJson(const analysis::FabricReport& fb) {
  json switches = json::array(), cas = json::array(), links = json::array(), leaves = json::array();
  for (const auto& s : fb.switches) {
    switches.push_back({{"id", s.id}, {"desc", s.desc}, {"level", analysis::SwitchLevelName(s.level)},
                        {"hosts", s.hosts}, {"ports", PortsJson(s.ports)}});
  }
  for (const auto& c : fb.cas) {
    cas.push_back({{"id", c.id}, {"guid", c.guid.empty() ? json(nullptr) : json("0x" + c.guid)}, {"desc", c.desc},
                   {"host", c.host}, {"device", c.device}, {"name", c.name}, {"named_by", c.named_by},
                   {"ports", PortsJson(c.ports)}});
  }
  const auto text_or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  for (const auto& l : fb.links) {
    links.push_back({{"a", l.a}, {"a_port", l.a_port}, {"b", l.b}, {"b_port", l.b_port}, {"rate_gbps", Num(l.rate_gbps, 1)},
                     {"width", text_or_null(l.width)}, {"speed", text_or_null(l.speed)}, {"state", text_or_null(l.state)},
                     {"tier", l.tier}});
  }
  for (const auto& l : fb.leaves) leaves.push_back({{"switch", l.switch_id}, {"desc", l.desc}, {"hosts", l.hosts}});
  json mismatches = json::array();
  auto end_json = [](const analysis::FabricLinkEnd& e) {
    return json{{"node", e.node}, {"port", e.port}, {"width", e.width}, {"speed", e.speed}, {"dump", e.dump},
                {"line", e.line}, {"tool", e.tool}, {"source", e.source}};
  };
  for (const auto& m : fb.mismatches) {
    mismatches.push_back({{"a", end_json(m.a)}, {"b", end_json(m.b)}, {"width_differs", m.width_differs},
                          {"speed_differs", m.speed_differs}});
  }
  json down = json::array(), findings = json::array();
  for (const auto& d : fb.down_ports) {
    down.push_back({{"node", d.node}, {"port", d.port}, {"state", d.state}, {"phys_state", d.phys_state},
                    {"source", d.source}, {"line", d.line}});
  }
  for (const auto& f : fb.findings) {
    json one = {{"kind", analysis::FabricFindingKindName(f.kind)}, {"node", f.node}, {"port", f.port},
                {"peer", text_or_null(f.peer)}, {"peer_port", f.peer_port}, {"tier", text_or_null(f.tier)},
                {"source", text_or_null(f.source)}, {"line", f.line}, {"evidence", f.evidence}};
    if (f.kind == analysis::FabricFindingKind::kLinkBelowUsual) {
      one["width"] = f.width;
      one["speed"] = f.speed;
      one["usual_width"] = f.usual_width;
      one["usual_speed"] = f.usual_speed;
    }
    findings.push_back(std::move(one));
  }
  return {{"switches", switches}, {"cas", cas}, {"hosts", fb.hosts}, {"hosts_named_by_guid", fb.hosts_named_by_guid},
          {"links", links}, {"link_mismatches", mismatches}, {"down_ports", down}, {"findings", findings},
          {"unresolved_peers", fb.unresolved_peers}, {"leaves", leaves}, {"spines", fb.spines},
          {"source", fb.source_tools}, {"sources", fb.sources}};
}

void AddInferredLeavesJson(const analysis::LeafInference& inf, json& j) {
  json leaves = json::array(), pods = json::array(), offsets = json::array(), levels = json::array();
  for (const auto& l : inf.leaves) leaves.push_back({{"name", l.name}, {"hosts", l.hosts}});
  for (const auto& p : inf.pods) pods.push_back({{"name", p.name}, {"leaves", p.leaves}, {"hosts", p.hosts}});
  for (size_t i = 0; i < inf.hosts.size() && i < inf.offset_us.size(); ++i) {
    offsets.push_back({{"host", inf.hosts[i]}, {"offset_us", Num(inf.offset_us[i], 4)}});
  }
  for (double v : inf.levels_us) levels.push_back(Num(v, 4));
  const json inferred = {{"leaves", leaves}, {"pods", pods}, {"levels_us", levels}, {"unplaced", inf.unplaced},
                         {"evidence", inf.evidence}, {"offsets", offsets}, {"margin_us", Num(inf.margin_us, 4)},
                         {"separation", Num(inf.separation, 4)}, {"pod_margin_us", Num(inf.pod_margin_us, 4)},
                         {"confidence", Num(inf.confidence, 4)}, {"iterations", inf.iterations},
                         {"converged", inf.converged}, {"pairs", inf.pairs}, {"probes_used", inf.probes_used},
                         {"probes_ignored", inf.probes_ignored}, {"method", "probe RTTs alone"}};
  if (!j.contains("fabric")) {
    // No switch access: the fabric is what the probes say.
    json fleaves = json::array();
    for (const auto& l : inf.leaves) fleaves.push_back({{"switch", l.name}, {"desc", ""}, {"hosts", l.hosts}});
    j["fabric"] = {{"switches", json::array()}, {"cas", json::array()}, {"hosts", inf.hosts},
                   {"links", json::array()}, {"leaves", fleaves}, {"spines", json::array()},
                   {"source", "probes"}};
  }
  j["fabric"]["inferred"] = inferred;
}

json PathsJson(const analysis::PathReport& paths) {
  return {{"bottlenecks", PathFindingsJson(paths.bottlenecks)},
          {"redundant_hops", PathFindingsJson(paths.redundant_hops)},
          {"overall_entropy", Num(paths.overall_entropy, 4)},
          {"probes", paths.paths}};
}

json ArchitectureJson(const analysis::ArchitectureReport& a) {
  json classes = json::array();
  for (const auto& c : a.jitter_classes) {
    classes.push_back({{"links", c.links}, {"pairs", c.pairs}, {"samples", c.samples}, {"dropped", c.dropped},
                       {"half_spread_us", Num(c.half_spread_us, 4)}});
  }
  json windows = json::array();
  for (double v : a.window_entropy_bits) windows.push_back(Num(v, 6));
  return {
      {"class", analysis::ArchClassName(a.arch_class)}, {"confidence", Num(a.confidence, 4)},
      {"graph_source", analysis::GraphSourceName(a.graph_source)},
      {"avg_allreduce_hops", Num(a.avg_allreduce_hops, 4)}, {"jitter_us", Num(a.jitter_us, 4)},
      {"entropy_stability", Num(a.entropy_stability, 6)}, {"evidence", a.evidence},
      {"ring_order", analysis::RingOrderName(a.ring_order)},
      {"ring_pairs", {{"total", a.ring_pairs}, {"probed", a.ring_pairs_probed}, {"graph", a.ring_pairs_graph},
                      {"unreachable", a.ring_pairs_unreachable}}},
      {"mean_pair_hops", Num(a.mean_pair_hops, 4)}, {"jitter_links", a.jitter_links},
      {"jitter_classes", classes}, {"entropy_windows", a.entropy_windows},
      {"window_entropy_bits", windows}, {"entropy_mean_bits", Num(a.entropy_mean_bits, 6)},
      {"structure", {{"switches", a.switches}, {"host_switches", a.host_switches},
                     {"core_switches", a.core_switches}, {"endpoints", a.endpoints},
                     {"hh_links", a.hh_links}, {"hc_links", a.hc_links}, {"cc_links", a.cc_links},
                     {"layered", a.layered}, {"tiers", a.tiers}, {"group_sizes", a.group_sizes},
                     {"ring_lengths", a.ring_lengths}, {"cores_complete", a.cores_complete}}}};
}

void AddLinkWeightsJson(const analysis::LinkWeightReport& lw, json& j) {
  json weights = json::array();
  for (size_t i = 0; i < lw.tomography.links.size(); ++i) {
    const auto& l = lw.tomography.links[i];
    const double spread = i < lw.queue_spread_us.size() ? lw.queue_spread_us[i] : NAN;
    weights.push_back({{"link", l.link}, {"weight", l.identifiable ? json(Num(l.weight, 4)) : json(nullptr)},
                       {"latency_us", l.identifiable ? json(Num(l.latency_us, 4)) : json(nullptr)},
                       {"identifiable", l.identifiable}, {"reason", l.reason}, {"paths", l.paths},
                       {"queue_spread_us", Num(spread, 4)}});
  }
  j["link_weights"] = std::move(weights);
  const auto& t = lw.tomography;
  j["tomography"] = {{"probes", lw.probes}, {"probes_used", lw.probes_used},
                     {"probes_unusable", lw.probes_unusable}, {"probes_by_level", lw.probes_by_level},
                     {"level_source", analysis::LevelSourceName(lw.level_source)}, {"routes", lw.routes},
                     {"rtt_statistic", analysis::RttStatisticName(lw.rtt_statistic)}, {"links", t.link_count},
                     {"rank_deficiency", t.rank_deficiency}, {"iterations", t.iterations},
                     {"relative_residual", Num(t.relative_residual, 6)}, {"method", t.method},
                     {"latency_unit", "us per crossing (one way)"},
                     {"opensm_hop_weights", lw.hop_weights.size()},
                     {"cables_mapped_to_ports", lw.cables_mapped},
                     {"cables_not_in_fabric", lw.cables_unmapped},
                     {"links_queueing", lw.links_queueing}, {"routes_queueing", lw.routes_queueing},
                     {"routes_pooled", lw.routes_pooled}};
}

json NicsJson(const analysis::NicPortReport& n) {
  json ports = json::array();
  for (const auto& p : n.ports) {
    json gids = json::array();
    for (const auto& g : p.gids) {
      gids.push_back({{"index", g.index}, {"gid", g.gid}, {"type", g.type}, {"ipv4", g.ipv4}, {"netdev", g.netdev}});
    }
    ports.push_back({{"host", p.host}, {"device", p.device}, {"port", p.port}, {"model", p.model},
                     {"firmware", p.firmware}, {"node_guid", p.node_guid}, {"port_guid", p.port_guid},
                     {"state", p.state}, {"physical_state", p.physical_state}, {"active", p.active},
                     {"rate_gbps", Num(p.rate_gbps, 3)}, {"link_layer", p.link_layer}, {"lid", p.lid},
                     {"active_mtu", p.active_mtu}, {"gids", gids}, {"qps", p.qps}, {"sources", p.sources}});
  }
  json findings = json::array();
  for (const auto& f : n.findings) {
    findings.push_back({{"kind", f.kind}, {"host", f.host}, {"device", f.device}, {"port", f.port},
                        {"evidence", f.evidence}});
  }
  return {{"ports", ports}, {"findings", findings}};
}

json PortCountersJson(const analysis::PortCounterReport& p) {
  json ports = json::array();
  for (const auto& x : p.ports) {
    const auto num = [](int64_t v) { return v < 0 ? json(nullptr) : json(v); };
    ports.push_back({{"node", x.node_name}, {"lid", x.lid}, {"port", x.port}, {"cable", x.cable},
                     {"peer", x.peer_name}, {"peer_port", x.peer_port}, {"reads", x.reads}, {"span_s", Num(x.span_s, 3)},
                     {"link_downed", num(x.link_downed)}, {"link_downed_rise", num(x.link_downed_rise)},
                     {"link_error_recovery", num(x.link_recovery)}, {"link_error_recovery_rise", num(x.link_recovery_rise)},
                     {"symbol_errors", num(x.symbol_errors)}, {"symbol_errors_rise", num(x.symbol_errors_rise)},
                     {"rcv_errors", num(x.rcv_errors)}, {"rcv_errors_rise", num(x.rcv_errors_rise)},
                     {"xmit_discards", num(x.xmit_discards)}, {"xmit_discards_rise", num(x.xmit_discards_rise)},
                     {"xmit_wait", num(x.xmit_wait)}, {"xmit_wait_rise", num(x.xmit_wait_rise)},
                     {"source", x.source}, {"line", x.line}});
  }
  json findings = json::array();
  for (const auto& f : p.findings) {
    findings.push_back({{"kind", analysis::PortCounterFindingKindName(f.kind)}, {"node", f.node_name}, {"port", f.port},
                        {"cable", f.cable}, {"on", f.rise ? "rise between reads" : "one read"}, {"value", f.value},
                        {"threshold", Num(f.threshold, 1)}, {"source", f.source}, {"line", f.line},
                        {"evidence", f.evidence}});
  }
  return {{"reads", p.blocks}, {"unmapped_lids", p.unmapped_lids}, {"ports", ports}, {"findings", findings}};
}

}  // namespace toposcope::report
