// The field lists of every pass output (analysis/pipeline/state.h and the report types inside it)
// for base/json_io, and the dump and load of one pass.
#include <string>

#include "toposcope/analysis/pipeline/pipeline.h"
#include "toposcope/analysis/fabric/architecture.h"
#include "toposcope/analysis/fabric/fabric.h"
#include "toposcope/analysis/fabric/leaf_inference.h"
#include "toposcope/analysis/fabric/link_weights.h"
#include "toposcope/analysis/fabric/path_entropy.h"
#include "toposcope/analysis/fabric/tomography.h"
#include "toposcope/analysis/node/confidence.h"
#include "toposcope/analysis/node/islands.h"
#include "toposcope/analysis/node/links.h"
#include "toposcope/analysis/pipeline/state.h"
#include "toposcope/analysis/time/anchors.h"
#include "toposcope/analysis/time/telemetry.h"
#include "toposcope/analysis/time/timeline.h"
#include "toposcope/analysis/time/timesync.h"
#include "toposcope/analysis/traffic/flows.h"
#include "toposcope/analysis/traffic/qp_patterns.h"
#include "toposcope/analysis/traffic/rdma.h"
#include "toposcope/analysis/traffic/rings.h"
#include "toposcope/analysis/traffic/traffic_entropy.h"
#include "toposcope/analysis/traffic/traffic_matrix.h"
#include "toposcope/base/json_io.h"
#include "toposcope/model/dataset_json.h"

namespace toposcope::analysis {

TOPOSCOPE_JSON_FIELDS(HostAnchorReport, host, anchors, weight, scatter_us, sync_sigma_us, new_steps_local_ns)
TOPOSCOPE_JSON_FIELDS(AnchorReport, present, events_scanned, candidate_events, groups, groups_dropped, hosts)
TOPOSCOPE_JSON_FIELDS(ClockSegment, start_local_ns, end_local_ns, t0_local_ns, c0, c1, c2)
TOPOSCOPE_JSON_FIELDS(ClockGap, from_local_ns, to_local_ns)
TOPOSCOPE_JSON_FIELDS(ClockModel, host, kind, segments, fit_points, heldout_points, mean_abs_residual_us, p99_abs_residual_us, steps_local_ns, anchor_points, anchor_weight, gaps)
TOPOSCOPE_JSON_FIELDS(SyncSample, local_ns, ref_ns, uncertainty_ns)
TOPOSCOPE_JSON_FIELDS(HostClockFit, host, models, heldout)
TOPOSCOPE_JSON_FIELDS(AnchorsOutput, report, clocks)
TOPOSCOPE_JSON_FIELDS(PatternReport, scope, cls, reset_density, state_entropy, windows, qps, evidence, seed_feature_informative, reset_density_defined, allreduce_share, pipeline_share, median_sync, seed_cls)
TOPOSCOPE_JSON_FIELDS(QpLabel, host, qp, job, peer_group, cls, windows, recreations, sync, mean_entropy, err_resets_per_window, cluster)
TOPOSCOPE_JSON_FIELDS(QpPatternResult, patterns, cluster_sizes, note, feature_quantiles, qps, cluster_names, records, illegal_transitions, windows, windows_ratio_defined)
TOPOSCOPE_JSON_FIELDS(InputUpdate, path, records, rejected, skip_reason)
TOPOSCOPE_JSON_FIELDS(PassDiagnostics, rejected, warnings, lines)
TOPOSCOPE_JSON_FIELDS(PatternsOutput, present, result, inputs, diag)
TOPOSCOPE_JSON_FIELDS(PathFinding, node, kind, entropy, reuse_rate, extra_hops, paths, evidence)
TOPOSCOPE_JSON_FIELDS(PathReport, bottlenecks, redundant_hops, overall_entropy, paths, choice_points, detour_probes)
TOPOSCOPE_JSON_FIELDS(PathsOutput, present, report)
TOPOSCOPE_JSON_FIELDS(InferredLeaf, name, hosts)
TOPOSCOPE_JSON_FIELDS(InferredPod, name, leaves, hosts)
TOPOSCOPE_JSON_FIELDS(LeafInference, leaves, pods, levels_us, hosts, offset_us, unplaced, evidence, probes_used, probes_ignored, pairs, iterations, converged, separation, margin_us, pod_margin_us, confidence)
TOPOSCOPE_JSON_FIELDS(LeavesOutput, present, leaves)
TOPOSCOPE_JSON_FIELDS(FlowKey, src, dst, dest_qp)
TOPOSCOPE_JSON_FIELDS(Flow, key, src_host, dst_host, udp_src_port, udp_src_port_mixed, transport, packets, bytes, payload_bytes, first_ns, last_ns, opcode_mix, psn_gaps, retransmissions, naks, rnr_naks, acks, ecn_ce, becn, fecn, data_bytes, deth_packets, deth_src_qp, deth_mixed, src_qp, pairing, candidates, pairing_conflict, pairing_detail, capture_points)
TOPOSCOPE_JSON_FIELDS(HostMap, ip_host_source, ip_nic, conflicts)
TOPOSCOPE_JSON_FIELDS(FlowReport, flows, packets, captures, pairing_counts, pairing_conflicts, hosts)
TOPOSCOPE_JSON_FIELDS(LinkEntropySample, link, window_start_ns, packets, bits, estimator, deterministic, not_enough_packets,
                      marked_packets, new_marks)
TOPOSCOPE_JSON_FIELDS(LinkEntropySummary, link, packets, windows, seed_bits_median, miller_madow_bits_median, flow_bits_median, message_size_bits_median, qps, deterministic, polarisation_risk, advice, udp_src_ports, payload_bytes, messages, message_size_bits_pooled, message_windows_fraction, regular)
TOPOSCOPE_JSON_FIELDS(LinkEntropyMode, link, mode, low_freq_peak_ratio, spectral_flatness, dominant_period_s, evidence, series, spectrum_windows, fisher_p, cv)
TOPOSCOPE_JSON_FIELDS(TrafficEntropyReport, samples, links, modes)
TOPOSCOPE_JSON_FIELDS(RingView, source, channel, ranks, hosts, gpus, cross_node_nics, comm, bytes, channels, complete)
TOPOSCOPE_JSON_FIELDS(TreeView, channel, edges, comm, root)
TOPOSCOPE_JSON_FIELDS(RingReport, rings, trees, notes, log_flow_agree, log_flow_disagree)
TOPOSCOPE_JSON_FIELDS(RdmaReport, present, flows, entropy, entropy_window_ns, rings)
TOPOSCOPE_JSON_FIELDS(RdmaOutput, report, inputs, diag)
TOPOSCOPE_JSON_FIELDS(JitterClass, links, pairs, samples, dropped, half_spread_us)
TOPOSCOPE_JSON_FIELDS(ArchitectureReport, arch_class, confidence, graph_source, evidence, switches, host_switches, core_switches, endpoints, hh_links, hc_links, cc_links, layered, tiers, group_sizes, ring_lengths, cores_complete, avg_allreduce_hops, ring_order, ring_pairs, ring_pairs_probed, ring_pairs_graph, ring_pairs_unreachable, mean_pair_hops, jitter_us, jitter_links, jitter_classes, jitter_pairs, entropy_stability, entropy_windows, window_entropy_bits, entropy_mean_bits)
TOPOSCOPE_JSON_FIELDS(ArchitectureOutput, present, report)
TOPOSCOPE_JSON_FIELDS(TimelineSource, path, host, format, events, records, rejected)
TOPOSCOPE_JSON_FIELDS(TimelineReport, present, trace_path, events_in, events_out, without_clock, sources)
TOPOSCOPE_JSON_FIELDS(TelemetryFinding, kind, host, gpu, link, start_ns, end_ns, confidence, evidence, threshold_source, hot_c, threshold_file)
TOPOSCOPE_JSON_FIELDS(TimelineOutput, timeline, stragglers, diag)
TOPOSCOPE_JSON_FIELDS(LinkReport, a, b, type, lanes, expected_lanes, type_source, bandwidth_class, bandwidth_gbps, expected_gbps, degraded, confidence, evidence)
TOPOSCOPE_JSON_FIELDS(GpuReport, id, host, index, island)
TOPOSCOPE_JSON_FIELDS(IslandReport, id, host, members, kind, method, agrees_with)
TOPOSCOPE_JSON_FIELDS(IslandOutput, gpus, islands)
TOPOSCOPE_JSON_FIELDS(SamplingRow, period_ms, per_hop_error, max_hops)
TOPOSCOPE_JSON_FIELDS(PathConfidence, a, b, hops, delta)
TOPOSCOPE_JSON_FIELDS(ConfidenceReport, alpha, beta, scale, truncation, location, noise_fitted, noise_samples, noise_source, noise_note, quantile, delta_min, base_period_ms, sampling, paths)
TOPOSCOPE_JSON_FIELDS(FieldReport, field_id, field, long_name, field_class, needed_period_ms, series, worst_period_ms, ok)
TOPOSCOPE_JSON_FIELDS(SamplingWarning, host, field, gpu, period_ms, needed_period_ms)
TOPOSCOPE_JSON_FIELDS(OfferedFields, host, offered, missing)
TOPOSCOPE_JSON_FIELDS(GpuLimitsEntry, host, gpu)
TOPOSCOPE_JSON_FIELDS(TelemetryReport, series, points, fields, sampling_warnings, findings, offered, gpu_limits)
TOPOSCOPE_JSON_FIELDS(FabricPort, port, peer, peer_port, rate_gbps)
TOPOSCOPE_JSON_FIELDS(FabricSwitch, id, desc, nports, port_guid, level, hosts, ports)
TOPOSCOPE_JSON_FIELDS(FabricCa, id, desc, guid, host, device, name, named_by, ports)
TOPOSCOPE_JSON_FIELDS(FabricLink, a, a_port, b, b_port, rate_gbps, width, speed, state, tier)
TOPOSCOPE_JSON_FIELDS(FabricDownPort, node, port, state, phys_state, source, line)
TOPOSCOPE_JSON_FIELDS(FabricLinkEnd, node, port, width, speed, dump, line, tool, source, state)
TOPOSCOPE_JSON_FIELDS(FabricFinding, kind, node, port, peer, peer_port, width, speed, usual_width, usual_speed, tier, source, line, evidence)
TOPOSCOPE_JSON_FIELDS(FabricLinkMismatch, a, b, width_differs, speed_differs)
TOPOSCOPE_JSON_FIELDS(FabricLeaf, switch_id, desc, hosts)
TOPOSCOPE_JSON_FIELDS(FabricReport, present, sources, switches, cas, hosts, hosts_named_by_guid, links, mismatches, down_ports, findings, unresolved_peers, source_tools, leaves, spines)
TOPOSCOPE_JSON_FIELDS(LinkWeight, link, latency_us, weight, identifiable, reason, paths)
TOPOSCOPE_JSON_FIELDS(TomographyResult, links, iterations, relative_residual, paths, dropped_paths, link_count, rank_deficiency, method)
TOPOSCOPE_JSON_FIELDS(HopWeight, port_guid, port, weight)
TOPOSCOPE_JSON_FIELDS(LinkWeightReport, present, tomography, queue_spread_us, links_queueing, routes_pooled, routes_queueing, probes, probes_used, probes_unusable, probes_by_level, level_source, routes, rtt_statistic, hop_weights, cables_mapped, cables_unmapped)
TOPOSCOPE_JSON_FIELDS(PairTraffic, src_gpu, dst_gpu, bytes_per_s, bytes, err_bytes_per_s, sigma_noise, sigma_margin, sigma_ambiguity, range_lo, range_hi, supported, channels, pipeline)
TOPOSCOPE_JSON_FIELDS(HostTrafficMatrix, host, estimable, reason, gpus, window_start_ns, window_end_ns, window_s, samples, samples_needed, noise_blocks, noise_dof, noise_z, confidence, tx_bytes_per_s, rx_bytes_per_s, unknowns, margins, margin_rank, separable, assumption, channel_ids, channel_bytes_per_s, pipeline_bytes_per_s, margin_residual_rel, margin_mismatch_rel, pairs)
TOPOSCOPE_JSON_FIELDS(TrafficMatrixReport, present, comm, channels, method, hosts, notes, hosts_estimable)
TOPOSCOPE_JSON_FIELDS(CollectiveRun, source, first_line, test, version, hosts, ranks, gpu_models, sizes, largest_bytes, busbw_at_largest_gbps, peak_busbw_gbps, peak_at_bytes, avg_busbw_gbps, wrong, out_of_bounds, validation)
TOPOSCOPE_JSON_FIELDS(HostSetBandwidth, hosts, test, ranks, runs, best_busbw_gbps, largest_bytes, peers, peer_median_gbps, z, slow)
TOPOSCOPE_JSON_FIELDS(CollectiveFinding, kind, source, hosts, test, evidence)
TOPOSCOPE_JSON_FIELDS(CollectiveBenchReport, runs, host_sets, findings)
TOPOSCOPE_JSON_FIELDS(CollectivesOutput, present, report)
TOPOSCOPE_JSON_FIELDS(NicGid, index, gid, type, ipv4, netdev)
TOPOSCOPE_JSON_FIELDS(NicPort, host, device, port, model, firmware, node_guid, port_guid, state, physical_state, active, rate_gbps, link_layer, lid, active_mtu, gids, qps, sources)
TOPOSCOPE_JSON_FIELDS(NicFinding, kind, host, device, port, evidence)
TOPOSCOPE_JSON_FIELDS(NicPortReport, present, ports, findings)
TOPOSCOPE_JSON_FIELDS(ServoSeries, host, program, clock, reference, summaries, points, locked, first_line, last_line, offset_rms_ns, offset_max_ns, freq_min_ppb, freq_max_ppb)
TOPOSCOPE_JSON_FIELDS(ServoFinding, kind, host, program, clock, reference, summaries, first_line, last_line, k, k_needed, n, chance, offsets_ns, freq_first_ppb, freq_last_ppb, evidence)
TOPOSCOPE_JSON_FIELDS(ServoReport, series, findings)
TOPOSCOPE_JSON_FIELDS(PortCounterPort, lid, port, node, node_name, peer_name, peer_port, cable, reads, span_s, link_downed, link_downed_rise, link_recovery, link_recovery_rise, symbol_errors, symbol_errors_rise, rcv_errors, rcv_errors_rise, xmit_discards, xmit_discards_rise, xmit_wait, xmit_wait_rise, source, line)
TOPOSCOPE_JSON_FIELDS(PortCounterFinding, kind, node_name, port, cable, rise, value, threshold, source, line, evidence)
TOPOSCOPE_JSON_FIELDS(PortCounterReport, present, blocks, unmapped_lids, ports, findings)

namespace {

// Encodes or decodes the slot of one pass; `Op` is called with the slot (a std::optional).
template <class Op>
void WithSlot(PipelineState& s, PassId id, Op&& op) {
  switch (id) {
    case PassId::kLoad: op(s.dataset_storage); break;
    case PassId::kLinks: op(s.links); break;
    case PassId::kIslands: op(s.islands); break;
    case PassId::kConfidence: op(s.confidence); break;
    case PassId::kClocks: op(s.clocks); break;
    case PassId::kAnchors: op(s.anchors); break;
    case PassId::kTelemetry: op(s.telemetry); break;
    case PassId::kFabric: op(s.fabric); break;
    case PassId::kPatterns: op(s.patterns); break;
    case PassId::kPaths: op(s.paths); break;
    case PassId::kLeaves: op(s.leaves); break;
    case PassId::kLinkWeights: op(s.link_weights); break;
    case PassId::kRdma: op(s.rdma); break;
    case PassId::kTrafficMatrix: op(s.traffic_matrix); break;
    case PassId::kArchitecture: op(s.architecture); break;
    case PassId::kCollectives: op(s.collectives); break;
    case PassId::kNics: op(s.nics); break;
    case PassId::kServo: op(s.servo); break;
    case PassId::kPortCounters: op(s.port_counters); break;
    case PassId::kTimeline: op(s.timeline); break;
  }
}

}  // namespace

Result<std::string> DumpPass(const PipelineState& state, PassId id) {
  if (id == PassId::kLoad) {
    if (state.dataset == nullptr) return MakeError("pass load has no output to dump");
    return json_io::ToJsonText(*state.dataset);
  }
  std::string text;
  bool has = false;
  WithSlot(const_cast<PipelineState&>(state), id, [&](const auto& slot) {
    if (!slot) return;
    has = true;
    text = json_io::ToJsonText(*slot);
  });
  if (!has) return MakeError("pass " + std::string(PassName(id)) + " has no output to dump");
  return text;
}

Status LoadPass(std::string_view text, const std::string& source, PassId id, PipelineState* state) {
  Status result;
  WithSlot(*state, id, [&](auto& slot) {
    using T = typename std::decay_t<decltype(slot)>::value_type;
    Result<T> v = json_io::FromJsonText<T>(text, source);
    if (!v.ok()) {
      result = v.error();
      return;
    }
    slot = std::move(*v);
  });
  if (result.ok() && id == PassId::kLoad) state->dataset = &*state->dataset_storage;
  return result;
}

}  // namespace toposcope::analysis
