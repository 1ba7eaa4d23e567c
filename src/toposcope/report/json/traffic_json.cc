// report/json/traffic_json: the traffic sections of result.json: RoCE flows and QP pairing, the
// captures, link entropy and its modes, NCCL rings and trees, QP state-log patterns, the GPU-pair
// traffic matrix.
#include <string>

#include "toposcope/report/json/result_sections.h"
#include "toposcope/report/result_json.h"

namespace toposcope::report {

using nlohmann::json;

namespace {

// "flows": every RoCE flow with its QP pairing, counters, opcode mix and pairing candidates.
json FlowsJson(const std::vector<analysis::Flow>& flows_in) {
  json flows = json::array();
  for (const auto& f : flows_in) {
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
  return flows;
}

// "rdma": the captures read, packet and pairing counts, and the IP -> host map.
json RdmaCapturesJson(const analysis::RdmaReport& rd) {
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
  return {{"captures", captures},
          {"packets", rd.flows.packets},
          {"pairing_counts", rd.flows.pairing_counts},
          {"pairing_conflicts", rd.flows.pairing_conflicts},
          {"ip_hosts", hostmap},
          {"ip_host_conflicts", rd.flows.hosts.conflicts},
          {"entropy_window_ns", rd.entropy_window_ns}};
}

// Sets "link_entropy" (per window), "link_entropy_summary" (per link) and "entropy_modes".
void AddEntropyJson(const analysis::RdmaReport& rd, json& j) {
  json samples = json::array();
  for (const auto& e : rd.entropy.samples) {
    samples.push_back({{"link", e.link}, {"window_start_ns", e.window_start_ns}, {"bits", Num(e.bits, 6)},
                       {"estimator", analysis::EntropyEstimatorName(e.estimator)}, {"deterministic", e.deterministic},
                       {"packets", e.packets}, {"not_enough_packets", e.not_enough_packets},
                       {"marked_packets", e.marked_packets}, {"new_marks", e.new_marks}});
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
    modes.push_back({{"link", m.link}, {"mode", analysis::TrafficModeName(m.mode)},
                     {"low_freq_peak_ratio", Num(m.low_freq_peak_ratio, 4)},
                     {"spectral_flatness", Num(m.spectral_flatness, 4)},
                     {"dominant_period_s", Num(m.dominant_period_s, 6)}, {"evidence", m.evidence},
                     {"series", analysis::SpectrumSeriesName(m.series)}, {"spectrum_windows", m.spectrum_windows},
                     {"fisher_p", Num(m.fisher_p, 6)}, {"cv", Num(m.cv, 4)}});
  }
  j["entropy_modes"] = std::move(modes);
}

// Sets "rings", "trees" and "ring_notes" (NCCL logs against flows).
void AddRingsJson(const analysis::RdmaReport& rd, json& j) {
  json rings = json::array();
  for (const auto& g : rd.rings.rings) {
    rings.push_back({{"source", analysis::RingSourceName(g.source)}, {"channel", g.channel}, {"comm", g.comm},
                     {"ranks", g.ranks}, {"hosts", g.hosts}, {"gpus", g.gpus}, {"cross_node_nics", g.cross_node_nics},
                     {"channels", g.channels}, {"bytes", Num(g.bytes, 0)},
                     {"complete", g.complete}});
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

// One host of "traffic_matrix": its margins, channels, assumptions and GPU pairs.
json HostTrafficJson(const analysis::HostTrafficMatrix& h) {
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
  return {{"host", h.host}, {"estimable", h.estimable}, {"reason", h.reason}, {"gpus", h.gpus},
          {"window_s", Num(h.window_s, 3)}, {"samples", h.samples}, {"samples_needed", h.samples_needed},
          {"noise_dof", h.noise_dof}, {"noise_z", Num(h.noise_z, 4)}, {"confidence", Num(h.confidence, 4)},
          {"tx_bytes_per_s", tx}, {"rx_bytes_per_s", rx}, {"unknowns", h.unknowns},
          {"margins", h.margins}, {"margin_rank", h.margin_rank}, {"separable", h.separable},
          {"assumption", h.assumption}, {"channels", channels},
          {"pipeline_bytes_per_s", Num(h.pipeline_bytes_per_s, 0)},
          {"margin_residual_rel", Num(h.margin_residual_rel, 6)},
          {"margin_mismatch_rel", Num(h.margin_mismatch_rel, 6)}, {"pairs", pairs}};
}

}  // namespace

void AddRdmaJson(const analysis::RdmaReport& rd, json& j) {
  j["flows"] = FlowsJson(rd.flows.flows);
  j["rdma"] = RdmaCapturesJson(rd);
  AddEntropyJson(rd, j);
  AddRingsJson(rd, j);
}

void AddPatternsJson(const analysis::QpPatternResult& pr, json& j) {
  json pats = json::array();
  for (const auto& p : pr.patterns) {
    pats.push_back({{"scope", p.scope}, {"class", analysis::PatternClassName(p.cls)},
                    {"reset_density", p.reset_density_defined ? json(Num(p.reset_density, 6)) : json(nullptr)},
                    {"state_entropy", Num(p.state_entropy, 6)}, {"windows", p.windows}, {"qps", p.qps},
                    {"evidence", p.evidence}, {"seed_feature_informative", p.seed_feature_informative},
                    {"seed_class", analysis::SeedPatternClassName(p.seed_cls)},
                    {"allreduce_share", Num(p.allreduce_share, 4)}, {"pipeline_share", Num(p.pipeline_share, 4)},
                    {"median_sync", Num(p.median_sync, 4)}});
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

json TrafficMatrixJson(const analysis::TrafficMatrixReport& tm) {
  json hosts = json::array();
  for (const auto& h : tm.hosts) hosts.push_back(HostTrafficJson(h));
  json out = {{"method", tm.method}, {"comm", tm.comm}, {"channels", tm.channels},
              {"hosts_estimable", tm.hosts_estimable}, {"notes", tm.notes}};
  out["hosts"] = std::move(hosts);  // moved, not copied as an initializer list would
  return out;
}

json CollectivesJson(const analysis::CollectiveBenchReport& c) {
  json runs = json::array();
  for (const auto& r : c.runs) {
    runs.push_back({{"source", r.source}, {"first_line", r.first_line}, {"test", r.test}, {"version", r.version},
                    {"hosts", r.hosts}, {"ranks", r.ranks}, {"gpu_models", r.gpu_models}, {"sizes", r.sizes},
                    {"largest_bytes", r.largest_bytes}, {"busbw_at_largest_gbps", Num(r.busbw_at_largest_gbps, 3)},
                    {"peak_busbw_gbps", Num(r.peak_busbw_gbps, 3)}, {"peak_at_bytes", r.peak_at_bytes},
                    {"avg_busbw_gbps", r.avg_busbw_gbps ? Num(*r.avg_busbw_gbps, 3) : json(nullptr)},
                    {"wrong", r.wrong},
                    {"out_of_bounds", r.out_of_bounds ? json(*r.out_of_bounds) : json(nullptr)},
                    {"validation", r.validation}});
  }
  json sets = json::array();
  for (const auto& s : c.host_sets) {
    sets.push_back({{"hosts", s.hosts}, {"test", s.test}, {"ranks", s.ranks}, {"runs", s.runs},
                    {"best_busbw_gbps", Num(s.best_busbw_gbps, 3)}, {"largest_bytes", s.largest_bytes},
                    {"peers", s.peers}, {"peer_median_gbps", s.peers >= 2 ? Num(s.peer_median_gbps, 3) : json(nullptr)},
                    {"z", s.peers >= 2 ? Num(s.z, 2) : json(nullptr)}, {"slow", s.slow}});
  }
  json findings = json::array();
  for (const auto& f : c.findings) {
    findings.push_back({{"kind", f.kind}, {"source", f.source}, {"hosts", f.hosts}, {"test", f.test},
                        {"evidence", f.evidence}});
  }
  return {{"runs", runs}, {"host_sets", sets}, {"findings", findings}};
}

}  // namespace toposcope::report
