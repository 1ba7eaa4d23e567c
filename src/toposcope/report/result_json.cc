#include "toposcope/report/result_json.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <cstdio>
#include <sstream>

#include "toposcope/base/text.h"

namespace toposcope::report {

using nlohmann::json;

json Num(double v, int decimals) {
  if (!std::isfinite(v)) return nullptr;
  const double p = std::pow(10.0, decimals);
  double r = std::round(v * p) / p;
  if (r == 0) r = 0;  // no "-0"
  return r;
}

json ResultToJson(const analysis::AnalysisResult& r) {
  json j;
  j["schema"] = kResultSchema;
  json inputs = json::array();
  for (const auto& in : r.inputs) {
    json x = {{"path", in.path}, {"format", in.format}, {"records", in.records}, {"rejected", in.rejected},
              {"host", in.host}, {"skipped", in.skipped}};
    if (in.skipped) x["skip_reason"] = in.skip_reason;
    inputs.push_back(std::move(x));
  }
  j["inputs"] = std::move(inputs);
  json gpus = json::array();
  for (const auto& g : r.gpus) {
    gpus.push_back({{"id", g.id}, {"host", g.host}, {"index", g.index}, {"island", g.island}});
  }
  j["gpus"] = std::move(gpus);
  json islands = json::array();
  for (const auto& i : r.islands) {
    json agree = json::object();
    for (const auto& [src, ok] : i.agrees_with) agree[src] = ok;
    islands.push_back({{"id", i.id}, {"host", i.host}, {"members", i.members}, {"kind", i.kind},
                       {"method", i.method}, {"agrees_with", agree}});
  }
  j["islands"] = std::move(islands);
  json links = json::array();
  for (const auto& l : r.links) {
    links.push_back({{"a", l.a},
                     {"b", l.b},
                     {"type", std::string(LinkTypeName(l.type))},
                     {"lanes", l.lanes},
                     {"expected_lanes", l.expected_lanes},
                     {"type_source", l.type_source},
                     {"bandwidth_class", l.bandwidth_class},
                     {"bandwidth_gbps", Num(l.bandwidth_gbps)},
                     {"expected_gbps", Num(l.expected_gbps)},
                     {"degraded", l.degraded},
                     {"confidence", Num(l.confidence, 4)},
                     {"evidence", l.evidence}});
  }
  j["links"] = std::move(links);
  const auto& c = r.confidence;
  json sampling = json::array();
  for (const auto& s : c.sampling) {
    sampling.push_back({{"period_ms", Num(s.period_ms, 1)}, {"per_hop_error", Num(s.per_hop_error, 4)},
                        {"max_hops", s.max_hops}});
  }
  json paths = json::array();
  for (const auto& p : c.paths) {
    paths.push_back({{"a", p.a}, {"b", p.b}, {"hops", p.hops}, {"delta", Num(p.delta, 4)}});
  }
  j["confidence"] = {{"noise", {{"model", "truncated alpha-stable (S1), relative"},
                                {"alpha", Num(c.alpha, 4)},
                                {"beta", Num(c.beta, 4)},
                                {"scale", Num(c.scale, 4)},
                                {"truncation_scales", Num(c.truncation, 4)}}},
                     {"quantile", Num(c.quantile, 4)},
                     {"delta_min", Num(c.delta_min, 4)},
                     {"base_period_ms", Num(c.base_period_ms, 1)},
                     {"sampling", sampling},
                     {"paths", paths}};
  json clocks = json::array();
  for (const auto& fit : r.clocks) {
    for (const auto& m : fit.models) {
      json segs = json::array();
      for (const auto& sg : m.segments) {
        segs.push_back({{"start_local_ns", sg.start_local_ns},
                        {"t0_local_ns", sg.t0_local_ns},
                        {"c", {Num(sg.c0, 3), Num(sg.c1, 6), Num(sg.c2, 9)}}});
      }
      clocks.push_back({{"host", m.host},
                        {"model", std::string(analysis::ClockModelName(m.kind))},
                        {"best", m.kind == fit.Best().kind},
                        {"segments", segs},
                        {"steps_local_ns", m.steps_local_ns},
                        {"fit_points", m.fit_points},
                        {"heldout_points", m.heldout_points},
                        {"anchor_points", m.anchor_points},
                        {"anchor_weight", Num(m.anchor_weight, 4)},
                        {"residual_us", {{"mean", Num(m.mean_abs_residual_us, 3)}, {"p99", Num(m.p99_abs_residual_us, 3)}}}});
    }
  }
  j["clocks"] = std::move(clocks);
  if (r.anchors.present) {
    json hosts = json::array();
    for (const auto& h : r.anchors.hosts) {
      hosts.push_back({{"host", h.host}, {"anchors", h.anchors}, {"weight", Num(h.weight, 4)},
                       {"scatter_us", Num(h.scatter_us, 3)}, {"sync_sigma_us", Num(h.sync_sigma_us, 3)},
                       {"new_steps_local_ns", h.new_steps_local_ns}});
    }
    j["clock_anchors"] = {{"events_scanned", r.anchors.events_scanned},
                          {"candidate_events", r.anchors.candidate_events},
                          {"groups", r.anchors.groups},
                          {"groups_dropped", r.anchors.groups_dropped},
                          {"hosts", hosts}};
  }
  {
    const auto& t = r.telemetry;
    json fields = json::array();
    for (const auto& f : t.fields) {
      fields.push_back({{"field_id", f.field_id}, {"field", f.field}, {"long_name", f.long_name},
                        {"class", f.field_class}, {"needed_period_ms", f.needed_period_ms}, {"series", f.series},
                        {"worst_period_ms", Num(f.worst_period_ms, 3)}, {"ok", f.ok}});
    }
    json warnings = json::array();
    for (const auto& w : t.sampling_warnings) {
      warnings.push_back({{"host", w.host}, {"field", w.field}, {"period_ms", Num(w.period_ms, 3)},
                          {"needed_period_ms", w.needed_period_ms}});
    }
    j["dcgm"] = {{"series", t.series}, {"points", t.points}, {"fields", fields}, {"sampling_warnings", warnings}};
    json findings = json::array();
    for (const auto& f : t.findings) {
      findings.push_back({{"kind", f.kind}, {"host", f.host}, {"gpu", f.gpu}, {"link", f.link},
                          {"start_ns", f.start_ns}, {"end_ns", f.end_ns}, {"confidence", Num(f.confidence, 4)},
                          {"evidence", f.evidence}});
    }
    j["telemetry_findings"] = findings;
  }
  if (r.rdma.present) {
    const auto& rd = r.rdma;
    json flows = json::array();
    for (const auto& f : rd.flows.flows) {
      json candidates = json::array();
      for (const auto& [method, qp] : f.candidates) {
        candidates.push_back({{"method", std::string(analysis::QpPairingName(method))}, {"src_qp", qp}});
      }
      json mix = json::object();
      for (int k = 0; k < analysis::kOpClasses; ++k) {
        if (f.opcode_mix[static_cast<size_t>(k)] > 0) {
          mix[std::string(analysis::OpClassName(k))] = f.opcode_mix[static_cast<size_t>(k)];
        }
      }
      flows.push_back({{"src", f.key.src.ToString()},
                       {"dst", f.key.dst.ToString()},
                       {"dest_qp", f.key.dest_qp},
                       {"src_qp", f.pairing == analysis::QpPairing::kNone ? json(nullptr) : json(f.src_qp)},
                       {"pairing", std::string(analysis::QpPairingName(f.pairing))},
                       {"pairing_conflict", f.pairing_conflict},
                       {"pairing_detail", f.pairing_detail},
                       {"src_host", f.src_host},
                       {"dst_host", f.dst_host},
                       {"udp_src_port", f.udp_src_port},
                       {"packets", f.packets},
                       {"bytes", f.bytes},
                       {"data_bytes", f.data_bytes},
                       {"first_ns", f.first_ns},
                       {"last_ns", f.last_ns},
                       {"opcode_mix", mix},
                       {"psn_gaps", f.psn_gaps},
                       {"retransmissions", f.retransmissions},
                       {"naks", f.naks},
                       {"rnr_naks", f.rnr_naks},
                       {"capture_points", f.capture_points},
                       {"candidates", candidates}});
    }
    j["flows"] = std::move(flows);
    json captures = json::array();
    for (const auto& c : rd.flows.captures) {
      captures.push_back({{"path", c.path}, {"records", c.records}, {"roce", c.roce}, {"not_roce", c.not_roce},
                          {"malformed", c.malformed}, {"truncated", c.truncated}, {"icrc_bad", c.icrc_bad},
                          {"broke_off", c.broke_off}, {"first_ts_ns", c.first_ts_ns}, {"last_ts_ns", c.last_ts_ns}});
    }
    json hostmap = json::array();
    for (const auto& [ip, hs] : rd.flows.hosts.ip_host_source) {
      hostmap.push_back({{"ip", ip.ToString()}, {"host", hs.first}, {"source", hs.second}});
    }
    j["rdma"] = {{"captures", captures},
                 {"packets", rd.flows.packets},
                 {"pairing_counts", rd.flows.pairing_counts},
                 {"pairing_conflicts", rd.flows.pairing_conflicts},
                 {"ip_hosts", hostmap},
                 {"ip_host_conflicts", rd.flows.hosts.conflicts},
                 {"entropy_window_ns", rd.entropy_window_ns}};
    json samples = json::array();
    for (const auto& e : rd.entropy.samples) {
      samples.push_back({{"link", e.link}, {"window_start_ns", e.window_start_ns}, {"bits", Num(e.bits, 6)},
                         {"estimator", e.estimator}, {"deterministic", e.deterministic}, {"packets", e.packets},
                         {"not_enough_packets", e.not_enough_packets}});
    }
    j["link_entropy"] = std::move(samples);
    json links = json::array();
    for (const auto& l : rd.entropy.links) {
      links.push_back({{"link", l.link}, {"packets", l.packets}, {"windows", l.windows},
                       {"seed_bits_median", Num(l.seed_bits_median, 6)},
                       {"miller_madow_bits_median", Num(l.miller_madow_bits_median, 6)},
                       {"flow_bits_median", Num(l.flow_bits_median, 6)},
                       {"message_size_bits_median", Num(l.message_size_bits_median, 6)},
                       {"qps", l.qps}, {"udp_src_ports", l.udp_src_ports}, {"deterministic", l.deterministic},
                       {"polarisation_risk", l.polarisation_risk}, {"advice", l.advice},
                       {"payload_bytes", l.payload_bytes}, {"messages", l.messages},
                       {"message_size_bits_pooled", Num(l.message_size_bits_pooled, 6)},
                       {"message_windows_fraction", Num(l.message_windows_fraction, 4)},
                       {"regular", l.regular}});
    }
    j["link_entropy_summary"] = std::move(links);
    json modes = json::array();
    for (const auto& m : rd.entropy.modes) {
      modes.push_back({{"link", m.link}, {"mode", m.mode}, {"low_freq_peak_ratio", Num(m.low_freq_peak_ratio, 4)},
                       {"spectral_flatness", Num(m.spectral_flatness, 4)},
                       {"dominant_period_s", Num(m.dominant_period_s, 6)}, {"evidence", m.evidence},
                       {"series", m.series}, {"spectrum_windows", m.spectrum_windows},
                       {"fisher_p", Num(m.fisher_p, 6)}, {"cv", Num(m.cv, 4)}});
    }
    j["entropy_modes"] = std::move(modes);
    json rings = json::array();
    for (const auto& g : rd.rings.rings) {
      rings.push_back({{"source", g.source}, {"channel", g.channel}, {"comm", g.comm}, {"ranks", g.ranks},
                       {"hosts", g.hosts}, {"gpus", g.gpus}, {"cross_node_nics", g.cross_node_nics},
                       {"channels", g.channels}, {"bytes", Num(g.bytes, 0)}});
    }
    j["rings"] = std::move(rings);
    json trees = json::array();
    for (const auto& t : rd.rings.trees) {
      json edges = json::array();
      for (const auto& [c, p] : t.edges) edges.push_back({c, p});
      trees.push_back({{"channel", t.channel}, {"comm", t.comm}, {"root", t.root}, {"edges", edges}});
    }
    j["trees"] = std::move(trees);
    j["ring_notes"] = {{"notes", rd.rings.notes},
                       {"log_flow_agree", rd.rings.log_flow_agree},
                       {"log_flow_disagree", rd.rings.log_flow_disagree}};
  }
  if (r.fabric.present) {
    const auto& fb = r.fabric;
    auto ports_json = [](const std::vector<analysis::FabricPort>& ports) {
      json a = json::array();
      for (const auto& p : ports) {
        a.push_back({{"port", p.port}, {"peer", p.peer}, {"peer_port", p.peer_port}, {"rate_gbps", Num(p.rate_gbps, 1)}});
      }
      return a;
    };
    json switches = json::array(), cas = json::array(), links = json::array(), leaves = json::array();
    for (const auto& s : fb.switches) {
      switches.push_back({{"id", s.id}, {"desc", s.desc}, {"level", s.level}, {"hosts", s.hosts}, {"ports", ports_json(s.ports)}});
    }
    for (const auto& c : fb.cas) {
      cas.push_back({{"id", c.id}, {"guid", c.guid.empty() ? json(nullptr) : json("0x" + c.guid)}, {"desc", c.desc}, {"host", c.host}, {"device", c.device}, {"ports", ports_json(c.ports)}});
    }
    for (const auto& l : fb.links) {
      links.push_back({{"a", l.a}, {"a_port", l.a_port}, {"b", l.b}, {"b_port", l.b_port}, {"rate_gbps", Num(l.rate_gbps, 1)}});
    }
    for (const auto& l : fb.leaves) leaves.push_back({{"switch", l.switch_id}, {"desc", l.desc}, {"hosts", l.hosts}});
    j["fabric"] = {{"switches", switches}, {"cas", cas}, {"hosts", fb.hosts}, {"links", links},
                   {"leaves", leaves}, {"spines", fb.spines}, {"source", "ibnetdiscover"}};
  }
  if (r.leaves_inferred) {
    const auto& inf = r.inferred_leaves;
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
  if (r.patterns_present) {
    const auto& pr = r.patterns;
    json pats = json::array();
    for (const auto& p : pr.patterns) {
      pats.push_back({{"scope", p.scope}, {"class", p.cls},
                      {"reset_density", p.reset_density_defined ? json(Num(p.reset_density, 6)) : json(nullptr)},
                      {"state_entropy", Num(p.state_entropy, 6)}, {"windows", p.windows}, {"qps", p.qps},
                      {"evidence", p.evidence}, {"seed_feature_informative", p.seed_feature_informative},
                      {"seed_class", p.seed_cls}, {"allreduce_share", Num(p.allreduce_share, 4)},
                      {"pipeline_share", Num(p.pipeline_share, 4)}, {"median_sync", Num(p.median_sync, 4)}});
    }
    j["patterns"] = std::move(pats);
    json quantiles = json::object();
    for (const auto& [name, q] : pr.feature_quantiles) {
      quantiles[name] = {Num(q[0], 4), Num(q[1], 4), Num(q[2], 4), Num(q[3], 4), Num(q[4], 4)};
    }
    j["pattern_features"] = {{"note", pr.note}, {"records", pr.records}, {"windows", pr.windows},
                             {"windows_ratio_defined", pr.windows_ratio_defined},
                             {"illegal_transitions", pr.illegal_transitions}, {"cluster_sizes", pr.cluster_sizes},
                             {"cluster_names", pr.cluster_names},
                             {"quantiles_min_q25_median_q75_max", quantiles},
                             {"seed_thresholds", {{"allreduce", "reset_density > 0.92 and state_entropy < 1.8"},
                                                  {"pipeline", "reset_density < 0.35 and state_entropy > 2.6"}}}};
  }
  if (r.paths_present) {
    auto findings = [](const std::vector<analysis::PathFinding>& fs) {
      json a = json::array();
      for (const auto& f : fs) {
        a.push_back({{"node", f.node}, {"kind", f.kind}, {"entropy", Num(f.entropy, 4)},
                     {"reuse_rate", Num(f.reuse_rate, 4)}, {"extra_hops", f.extra_hops}, {"paths", f.paths},
                     {"evidence", f.evidence}});
      }
      return a;
    };
    j["paths"] = {{"bottlenecks", findings(r.paths.bottlenecks)},
                  {"redundant_hops", findings(r.paths.redundant_hops)},
                  {"overall_entropy", Num(r.paths.overall_entropy, 4)},
                  {"probes", r.paths.paths}};
  }
  if (r.architecture_present) {
    const auto& a = r.architecture;
    auto num = [](double v, int d) { return std::isfinite(v) ? json(Num(v, d)) : json(nullptr); };
    json classes = json::array();
    for (const auto& c : a.jitter_classes) {
      classes.push_back({{"links", c.links}, {"pairs", c.pairs}, {"samples", c.samples}, {"dropped", c.dropped},
                         {"half_spread_us", Num(c.half_spread_us, 4)}});
    }
    json windows = json::array();
    for (double v : a.window_entropy_bits) windows.push_back(Num(v, 6));
    j["architecture"] = {
        {"class", a.arch_class}, {"confidence", Num(a.confidence, 4)}, {"graph_source", a.graph_source},
        {"avg_allreduce_hops", num(a.avg_allreduce_hops, 4)}, {"jitter_us", num(a.jitter_us, 4)},
        {"entropy_stability", num(a.entropy_stability, 6)}, {"evidence", a.evidence},
        {"ring_order", a.ring_order},
        {"ring_pairs", {{"total", a.ring_pairs}, {"probed", a.ring_pairs_probed}, {"graph", a.ring_pairs_graph},
                        {"unreachable", a.ring_pairs_unreachable}}},
        {"mean_pair_hops", num(a.mean_pair_hops, 4)}, {"jitter_links", a.jitter_links},
        {"jitter_classes", classes}, {"entropy_windows", a.entropy_windows},
        {"window_entropy_bits", windows}, {"entropy_mean_bits", num(a.entropy_mean_bits, 6)},
        {"structure", {{"switches", a.switches}, {"host_switches", a.host_switches},
                       {"core_switches", a.core_switches}, {"endpoints", a.endpoints},
                       {"hh_links", a.hh_links}, {"hc_links", a.hc_links}, {"cc_links", a.cc_links},
                       {"layered", a.layered}, {"tiers", a.tiers}, {"group_sizes", a.group_sizes},
                       {"ring_lengths", a.ring_lengths}, {"cores_complete", a.cores_complete}}}};
  }
  if (r.traffic_matrix.present) {
    const auto& tm = r.traffic_matrix;
    json hosts = json::array();
    for (const auto& h : tm.hosts) {
      json pairs = json::array();
      for (const auto& p : h.pairs) {
        pairs.push_back({{"src", p.src_gpu}, {"dst", p.dst_gpu}, {"bytes_per_s", Num(p.bytes_per_s, 0)},
                         {"bytes", Num(p.bytes, 0)}, {"err_bytes_per_s", Num(p.err_bytes_per_s, 0)},
                         {"sigma", {{"noise", Num(p.sigma_noise, 0)}, {"margin", Num(p.sigma_margin, 0)},
                                    {"ambiguity", Num(p.sigma_ambiguity, 0)}}},
                         {"range", {Num(p.range_lo, 0), Num(p.range_hi, 0)}}, {"supported", p.supported},
                         {"channels", p.channels}, {"pipeline", p.pipeline}});
      }
      json tx = json::array(), rx = json::array();
      for (double v : h.tx_bytes_per_s) tx.push_back(Num(v, 0));
      for (double v : h.rx_bytes_per_s) rx.push_back(Num(v, 0));
      json channels = json::array();
      for (size_t c = 0; c < h.channel_ids.size() && c < h.channel_bytes_per_s.size(); ++c) {
        channels.push_back({{"channel", h.channel_ids[c]}, {"bytes_per_s", Num(h.channel_bytes_per_s[c], 0)}});
      }
      hosts.push_back({{"host", h.host}, {"estimable", h.estimable}, {"reason", h.reason}, {"gpus", h.gpus},
                       {"window_s", Num(h.window_s, 3)}, {"samples", h.samples},
                       {"tx_bytes_per_s", tx}, {"rx_bytes_per_s", rx}, {"unknowns", h.unknowns},
                       {"margins", h.margins}, {"margin_rank", h.margin_rank}, {"separable", h.separable},
                       {"assumption", h.assumption}, {"channels", channels},
                       {"pipeline_bytes_per_s", Num(h.pipeline_bytes_per_s, 0)},
                       {"margin_residual_rel", Num(h.margin_residual_rel, 6)},
                       {"margin_mismatch_rel", Num(h.margin_mismatch_rel, 6)}, {"pairs", pairs}});
    }
    j["traffic_matrix"] = {{"method", tm.method}, {"comm", tm.comm}, {"channels", tm.channels},
                           {"hosts_estimable", tm.hosts_estimable}, {"notes", tm.notes}, {"hosts", hosts}};
  }
  if (r.link_weights.present) {
    const auto& lw = r.link_weights;
    json weights = json::array();
    for (size_t i = 0; i < lw.tomography.links.size(); ++i) {
      const auto& l = lw.tomography.links[i];
      const double spread = i < lw.queue_spread_us.size() ? lw.queue_spread_us[i] : NAN;
      weights.push_back({{"link", l.link}, {"weight", l.identifiable ? json(Num(l.weight, 4)) : json(nullptr)},
                         {"latency_us", l.identifiable ? json(Num(l.latency_us, 4)) : json(nullptr)},
                         {"identifiable", l.identifiable}, {"reason", l.reason}, {"paths", l.paths},
                         {"queue_spread_us", std::isfinite(spread) ? json(Num(spread, 4)) : json(nullptr)}});
    }
    j["link_weights"] = std::move(weights);
    const auto& t = lw.tomography;
    j["tomography"] = {{"probes", lw.probes}, {"probes_used", lw.probes_used},
                       {"probes_unusable", lw.probes_unusable}, {"probes_by_level", lw.probes_by_level},
                       {"level_source", lw.level_source}, {"routes", lw.routes},
                       {"rtt_statistic", lw.rtt_statistic}, {"links", t.link_count},
                       {"rank_deficiency", t.rank_deficiency}, {"iterations", t.iterations},
                       {"relative_residual", Num(t.relative_residual, 6)}, {"method", t.method},
                       {"latency_unit", "us per crossing (one way)"},
                       {"opensm_hop_weights", lw.hop_weights.size()},
                       {"cables_mapped_to_ports", lw.cables_mapped},
                       {"cables_not_in_fabric", lw.cables_unmapped},
                       {"links_queueing", lw.links_queueing}};
  }
  if (r.timeline.present) {
    json srcs = json::array();
    for (const auto& t : r.timeline.sources) {
      srcs.push_back({{"path", t.path}, {"host", t.host}, {"format", t.format}, {"events", t.events},
                      {"records", t.records}, {"rejected", t.rejected}});
    }
    j["timeline"] = {{"trace", r.timeline.trace_path},     {"events_in", r.timeline.events_in},
                     {"events_out", r.timeline.events_out}, {"without_clock", r.timeline.without_clock},
                     {"sources", srcs}};
  }
  j["thresholds"] = {{"preset", r.thresholds.preset},
                     {"nvlink_min_gbps", Num(r.thresholds.nvlink_min_gbps)},
                     {"pcie_cpu_max_gbps", Num(r.thresholds.pcie_cpu_max_gbps)},
                     {"degraded_ratio", Num(r.thresholds.degraded_ratio)}};
  j["diagnostics"] = {{"rejected", r.rejected_total}, {"warnings", r.warnings_total}, {"kept", r.diagnostics}};
  return j;
}

std::string DumpSchemaFirst(json j) {
  if (!j.is_object() || !j.contains("schema")) return j.dump(2) + "\n";
  const json schema = j["schema"];
  j.erase("schema");
  std::string body = j.dump(2);
  const std::string head = "{\n  \"schema\": " + schema.dump() + (j.empty() ? "\n" : ",\n");
  return head + body.substr(body.find('\n') + 1) + "\n";
}

std::string ResultJsonText(const analysis::AnalysisResult& r) { return DumpSchemaFirst(ResultToJson(r)); }

std::string ResultSummaryText(const analysis::AnalysisResult& r) {
  std::ostringstream os;
  int64_t read = 0, rejected = 0, used = 0, skipped = 0;
  for (const auto& in : r.inputs) {
    if (in.skipped) {
      ++skipped;
    } else {
      ++used;
    }
    read += in.records;
    rejected += in.rejected;
  }
  std::map<std::string, int> hosts;
  for (const auto& g : r.gpus) ++hosts[g.host];
  std::map<std::string, int> kinds;
  for (const auto& i : r.islands) ++kinds[i.kind];
  int degraded = 0, disagree = 0;
  for (const auto& l : r.links) degraded += l.degraded ? 1 : 0;
  for (const auto& i : r.islands) {
    for (const auto& [src, ok] : i.agrees_with) disagree += ok ? 0 : 1;
  }
  os << "inputs: " << used << " files read, " << skipped << " skipped; " << read << " records, " << rejected
     << " rejected\n";
  for (const auto& in : r.inputs) {
    if (in.skipped) os << "  skipped " << in.path << ": " << in.skip_reason << "\n";
  }
  os << "hosts: " << hosts.size() << ", GPUs: " << r.gpus.size() << ", islands: " << r.islands.size();
  if (!kinds.empty()) {
    os << " (";
    bool first = true;
    for (const auto& [k, n] : kinds) {
      os << (first ? "" : ", ") << n << " " << k;
      first = false;
    }
    os << ")";
  }
  os << "\n";
  os << "links: " << r.links.size() << ", degraded: " << degraded << "\n";
  for (const auto& l : r.links) {
    if (!l.degraded) continue;
    os << "  DEGRADED " << l.a << " <-> " << l.b << " " << LinkTypeName(l.type);
    if (l.lanes > 0) os << " NV" << l.lanes;
    os << " (confidence " << FormatFixed(l.confidence, 3) << "): " << l.evidence << "\n";
  }
  if (!r.clocks.empty()) {
    os << "clocks (" << r.clocks.size() << " hosts; mean / p99 |residual| on held-out sync points, us):\n";
    os << "  host              none                linear              quadratic           robust\n";
    for (const auto& fit : r.clocks) {
      char line[256];
      int n = std::snprintf(line, sizeof(line), "  %-16s", fit.host.c_str());
      for (const auto& m : fit.models) {
        n += std::snprintf(line + n, sizeof(line) - static_cast<size_t>(n), "  %8.2f / %8.2f", m.mean_abs_residual_us,
                           m.p99_abs_residual_us);
        if (n >= static_cast<int>(sizeof(line))) break;
      }
      os << line << "\n";
    }
  }
  if (r.telemetry.series > 0) {
    os << "dcgm: " << r.telemetry.series << " series, " << r.telemetry.points << " samples, " << r.telemetry.fields.size()
       << " fields\n";
    std::map<std::string, std::vector<const analysis::SamplingWarning*>> by_host;
    for (const auto& w : r.telemetry.sampling_warnings) by_host[w.host].push_back(&w);
    for (const auto& [host, ws] : by_host) {
      double worst = 0;
      for (const auto* w : ws) worst = std::max(worst, w->period_ms);
      os << "  WARNING " << host << ": " << ws.size() << " communication field(s) sampled every up to "
         << FormatFixed(worst, 0) << " ms (needs <= " << ws.front()->needed_period_ms << " ms), e.g. "
         << ws.front()->field << "\n";
    }
  }
  for (const auto& f : r.telemetry.findings) {
    os << "  FINDING " << f.kind << " " << f.host;
    if (f.gpu >= 0) os << "/gpu" << f.gpu;
    if (f.link >= 0) os << " link " << f.link;
    os << ": " << f.evidence << "\n";
  }
  if (r.timeline.present) {
    os << "timeline: " << r.timeline.events_in << " events in, " << r.timeline.events_out << " out";
    if (r.timeline.without_clock > 0) os << " (" << r.timeline.without_clock << " on hosts without a clock model)";
    os << " -> " << r.timeline.trace_path << "\n";
  }
  if (r.rdma.present) {
    const auto& rd = r.rdma;
    int64_t paired = 0;
    for (const auto& f : rd.flows.flows) paired += f.pairing != analysis::QpPairing::kNone ? 1 : 0;
    os << "rdma: " << rd.flows.captures.size() << " captures, " << rd.flows.packets << " RoCE packets, "
       << rd.flows.flows.size() << " flows, " << paired << " with a source QP (";
    bool first = true;
    for (const auto& [method, n] : rd.flows.pairing_counts) {
      os << (first ? "" : ", ") << method << " " << n;
      first = false;
    }
    os << ")\n";
    int det = 0;
    std::map<std::string, int> modes;
    int regular = 0;
    for (const auto& l : rd.entropy.links) {
      det += l.deterministic ? 1 : 0;
      regular += l.regular ? 1 : 0;
    }
    for (const auto& m : rd.entropy.modes) ++modes[m.mode];
    if (!rd.entropy.links.empty()) {
      os << "  entropy (window " << FormatFixed(static_cast<double>(rd.entropy_window_ns) / 1e6, 3) << " ms): "
         << rd.entropy.links.size() << " links; seed header entropy < 2.1 bit (LORR candidates): " << det
         << "; regular ring traffic (ours: pooled message-size entropy < 2.1 bit, sustained): " << regular << ";";
      for (const auto& [m, n] : modes) os << " " << m << " " << n;
      os << "\n";
    }
    for (const auto& l : rd.entropy.links) {
      if (l.polarisation_risk) os << "  POLARISATION RISK " << l.link << ": " << l.advice << "\n";
    }
    int log_rings = 0, flow_rings = 0;
    for (const auto& g : rd.rings.rings) (g.source == "flows" ? flow_rings : log_rings)++;
    os << "  rings: " << log_rings << " from NCCL logs, " << flow_rings << " from flows; " << rd.rings.log_flow_agree
       << " agree, " << rd.rings.log_flow_disagree << " disagree\n";
  }
  if (r.patterns_present) {
    os << "qp patterns: " << r.patterns.records << " transitions, " << r.patterns.windows << " QP-windows";
    for (const auto& p : r.patterns.patterns) {
      if (p.scope == "all") os << "; overall " << p.cls;
    }
    os << "\n";
    if (!r.patterns.note.empty()) os << "  " << r.patterns.note << "\n";
  }
  if (r.paths_present) {
    os << "paths: " << r.paths.paths << " probes, " << r.paths.bottlenecks.size() << " bottleneck(s), "
       << r.paths.redundant_hops.size() << " redundant hop(s)\n";
    for (const auto& f : r.paths.bottlenecks) os << "  BOTTLENECK " << f.node << ": " << f.evidence << "\n";
    for (const auto& f : r.paths.redundant_hops) os << "  REDUNDANT HOP " << f.node << ": " << f.evidence << "\n";
    if (r.link_weights.present) {
      const auto& t = r.link_weights.tomography;
      int64_t ident = 0;
      for (const auto& l : t.links) ident += l.identifiable ? 1 : 0;
      os << "link weights: " << t.links.size() << " cables from " << r.link_weights.routes << " routes ("
         << r.link_weights.probes_used << " probes), " << ident << " identifiable, rank deficiency "
         << t.rank_deficiency << "\n";
    }
  }
  if (r.leaves_inferred) {
    os << "leaves from probe RTTs: " << r.inferred_leaves.leaves.size() << " leaves, " << r.inferred_leaves.pods.size()
       << " pods, " << r.inferred_leaves.unplaced.size() << " unplaced hosts (confidence "
       << r.inferred_leaves.confidence << ")\n";
  }
  if (r.architecture_present) {
    os << "architecture: " << r.architecture.arch_class << " (confidence " << r.architecture.confidence
       << ", from the " << r.architecture.graph_source << ")\n";
  }
  if (r.fabric.present) {
    os << "fabric: " << r.fabric.switches.size() << " switches (" << r.fabric.leaves.size() << " leaves, "
       << r.fabric.spines.size() << " spines), " << r.fabric.cas.size() << " adapters, " << r.fabric.hosts.size()
       << " hosts, " << r.fabric.links.size() << " links\n";
  }
  if (disagree > 0) os << "islands disagreeing with a declared topology: " << disagree << "\n";
  const auto& c = r.confidence;
  if (!c.sampling.empty()) {
    os << "confidence (seed 2.5, alpha-stable a=" << FormatFixed(c.alpha, 2) << " b=" << FormatFixed(c.beta, 2)
       << " scale=" << FormatFixed(c.scale, 2) << ", eps = q" << FormatFixed(100 * c.quantile, 0)
       << " |error|, delta >= " << FormatFixed(c.delta_min, 2) << "):\n";
    os << "  period_ms  per_hop_error  max_hops\n";
    for (const auto& s : c.sampling) {
      char line[96];
      std::snprintf(line, sizeof(line), "  %9.0f  %12.1f%%  %8d\n", s.period_ms, 100 * s.per_hop_error, s.max_hops);
      os << line;
    }
  }
  return os.str();
}

}  // namespace toposcope::report
