// The field lists of every formats/ and model/ record type, for base/json_io.
#include "toposcope/model/dataset_json.h"

namespace toposcope::formats {

TOPOSCOPE_JSON_FIELDS(CaptureSummary, path, dlt, pcapng, snaplen, records, roce, not_roce, malformed, truncated, icrc_bad, bytes_read, broke_off, first_ts_ns, last_ts_ns, counts)
TOPOSCOPE_JSON_FIELDS(SyncPoint, host, local_ns, ref_ns, offset_ns, uncertainty_ns, source, state, synced, line, reference, clock,
                      freq_ppb, freq_sd_ppb, offset_rms_ns, offset_max_ns)
TOPOSCOPE_JSON_FIELDS(RdmaQp, dev, port, lqpn, rqpn, type, subtype, state, rq_psn, sq_psn, path_mig_state, pdn, pid, comm, kernel_owner, line)
TOPOSCOPE_JSON_FIELDS(IbPort, port, state, state_code, physical_state, rate_gbps, rate_suffix, lid, sm_lid, lmc, capability_mask, port_guid, link_layer, active_mtu, max_mtu, gids, gid_types, physical_state_code, active_width, active_speed, gid_tbl_len)
TOPOSCOPE_JSON_FIELDS(IbDevice, name, ca_type, firmware, hardware_version, node_guid, sys_image_guid, transport, vendor_id, vendor_part_id, board_id, num_ports, ports, line)
TOPOSCOPE_JSON_FIELDS(GidEntry, dev, port, index, gid, ipv4, version, netdev, line)
TOPOSCOPE_JSON_FIELDS(NcclLogPrefix, host, pid, tid, cuda_dev, ts_ns)
TOPOSCOPE_JSON_FIELDS(NcclCommInit, at, comm, rank, nranks, nnodes, local_ranks, local_rank, cuda_dev, bus_id, comm_id, line, kind, api, nvml_dev, mnnvl)
TOPOSCOPE_JSON_FIELDS(NcclRingOrder, at, comm, channel, nchannels, ranks, line, truncated)
TOPOSCOPE_JSON_FIELDS(NcclRingLine, at, channel, prev, me, next, line)
TOPOSCOPE_JSON_FIELDS(NcclTreeLine, at, channel, down, me, up, line, old_format)
TOPOSCOPE_JSON_FIELDS(NcclConnection, at, channel, conn_index, from_rank, to_rank, from_dev, to_dev, dir, transport, via, net_name, net_dev, gdrdma, shared, read, p2p_kind, line, has_conn_index, proxy_rank, gdr_pci, ce, indirect_rank, indirect_dev)
TOPOSCOPE_JSON_FIELDS(NcclNetDevice, index, name, port, link_layer, sharp, address)
TOPOSCOPE_JSON_FIELDS(NcclNetUsing, at, net_name, devices, relaxed_ordering, oob_iface, oob_ip, line, oob_port)
TOPOSCOPE_JSON_FIELDS(NcclQpn, at, ib_dev, dev, port, qpn, mtu, lid, gid, line, ib_dev_index, extra, ece, remote)
TOPOSCOPE_JSON_FIELDS(NcclLog, source, nccl_version, comms, ring_orders, rings, trees, connections, net_using, qpns, counts, ignored_lines, nccl_lines)
TOPOSCOPE_JSON_FIELDS(NcclTestsDevice, rank, group, pid, host, device, bus_id, gpu_name, line)
TOPOSCOPE_JSON_FIELDS(NcclTestsTiming, time_us, algbw_gbps, busbw_gbps, wrong, present)
TOPOSCOPE_JSON_FIELDS(NcclTestsRow, size_bytes, count, type, redop, root, out_of_place, in_place, line)
TOPOSCOPE_JSON_FIELDS(NcclTestsRun, test, version, nthread, ngpus, min_bytes, max_bytes, warmup_iters, iters, devices, rows, avg_busbw_gbps, out_of_bounds, first_line)
TOPOSCOPE_JSON_FIELDS(NcclTestsReport, source, runs, counts)
TOPOSCOPE_JSON_FIELDS(InventoryRow, host, ip, nic, port, gid, rack, leaf, line, addr)
TOPOSCOPE_JSON_FIELDS(Inventory, rows, counts)
TOPOSCOPE_JSON_FIELDS(IbPortLink, port, peer_guid, peer_port, port_guid, peer_port_guid, peer_desc, peer_lid, lid, lmc, width, speed, rate_gbps, ext_port, peer_ext_port, extra, line)
TOPOSCOPE_JSON_FIELDS(IbNode, kind, id, guid, port0_guid, nports, desc, lid, lmc, enhanced_port0, vendid, devid, sysimgguid, chassis, chassis_info, ports, line)
TOPOSCOPE_JSON_FIELDS(IbFabric, nodes, counts, generated_on, initiated_from, max_hops, total_mads)
TOPOSCOPE_JSON_FIELDS(IbLinkInfoPort, switch_node, node_guid, node_desc, port_guid, lid, port, width, lane_gbps, speed, rate_gbps, state, phys_state, peer_lid, peer_port, peer_desc, line, node_line)
TOPOSCOPE_JSON_FIELDS(IbLinkInfo, source, ports, counts)
TOPOSCOPE_JSON_FIELDS(PortCounterBlock, lid, port, extended, named_by, cap_mask, has_time, time_s, counters, line, node_guid, node_desc, port_guid)
TOPOSCOPE_JSON_FIELDS(PortCounters, tool, source, blocks, counts)
TOPOSCOPE_JSON_FIELDS(SlurmSwitch, name, switches, nodes, nodes_expr, switches_expr, link_speed, comment, line)
TOPOSCOPE_JSON_FIELDS(SlurmBlock, name, nodes, nodes_expr, comment, line)
TOPOSCOPE_JSON_FIELDS(SlurmRing, name, nodes, nodes_expr, line)
TOPOSCOPE_JSON_FIELDS(SlurmTorus, name, dims, nodes, nodes_expr, placements, line)
TOPOSCOPE_JSON_FIELDS(SlurmTopology, plugin, name, cluster_default, switches, blocks, block_sizes, rings, toruses, flat_options, counts, line)
TOPOSCOPE_JSON_FIELDS(TopographSwitch, name, switches, capacity_blocks, labels, annotations, line)
TOPOSCOPE_JSON_FIELDS(TopographCapacityBlock, name, type, nodes, node_exprs, nvlink, sub_domain, switch_name, labels, annotations, line)
TOPOSCOPE_JSON_FIELDS(TopographModel, switches, capacity_blocks, counts)
TOPOSCOPE_JSON_FIELDS(DmonFieldListEntry, long_name, short_name, field_id, line)
TOPOSCOPE_JSON_FIELDS(DcgmMigInstance, kind, entity_id, gpu_entity_id, gpu_index, gpu_instance, compute_instance, gpu_uuid, line)
TOPOSCOPE_JSON_FIELDS(DcgmDiscoveredGpu, entity_id, name, bus_id, uuid, status, line)
TOPOSCOPE_JSON_FIELDS(PathProbe, ts_ns, src, dst, hops, rtt_us, hop_rtt_us, line)

}  // namespace toposcope::formats

namespace toposcope::model {

TOPOSCOPE_JSON_FIELDS(GpuInfo, index, bus_id, model, numa_node, cpu_affinity, pcie_link_speed, pcie_link_width)
TOPOSCOPE_JSON_FIELDS(GpuQueryInfo, index, matched_by, bus_id, product_name, driver_version, max_operating_c, slowdown_c, shutdown_c, limits_form, clique_id, cluster_uuid, source, line)
TOPOSCOPE_JSON_FIELDS(NicInfo, device, bus_id, numa_node, speed_gbps)
TOPOSCOPE_JSON_FIELDS(DeclaredLink, cls, source)
TOPOSCOPE_JSON_FIELDS(MeasuredLink, samples_gbps, staged_samples_gbps, source)
TOPOSCOPE_JSON_FIELDS(HostEvidence, host, gpus, nics, nvsmi_links, xml_links, measured, gpu_nic, p2p_status, sync_points, rdma_qps, ib_devices, gids, dcgm_offered, gpu_queries, mig_instances, dcgm_gpus)
TOPOSCOPE_JSON_FIELDS(InputFile, path, format, host, records, accepted, rejected, skipped, skip_reason)
TOPOSCOPE_JSON_FIELDS(AnchorCandidate, key, family, who, host, end_ns)
TOPOSCOPE_JSON_FIELDS(EventInput, path, host, format, untimed_at_ns, mig_instances, events_streamed,
                      anchor_candidates)
TOPOSCOPE_JSON_FIELDS(CaptureInput, path, host, point, index)
TOPOSCOPE_JSON_FIELDS(SeriesKey, host, gpu, link, field_id, field, entity, instance, compute_instance)
TOPOSCOPE_JSON_FIELDS(SeriesSummary, count, first_ns, last_ns, out_of_order, first_gaps_ns, points, stride)
TOPOSCOPE_JSON_FIELDS(DcgmStore, series, points)
TOPOSCOPE_JSON_FIELDS(Dataset, hosts, inputs, event_inputs, captures, nccl_logs, nccl_tests, inventory, fabrics, link_infos, port_counters, slurm_topologies, topograph_models, qp_state_inputs, path_probes, dcgm, diag)

}  // namespace toposcope::model

namespace toposcope {

TOPOSCOPE_JSON_FIELDS(LinkClass, type, lanes)

}  // namespace toposcope

namespace toposcope::model {

std::string DatasetToJsonText(const Dataset& ds) { return json_io::ToJsonText(ds); }

Result<Dataset> DatasetFromJsonText(std::string_view text, const std::string& source) {
  return json_io::FromJsonText<Dataset>(text, source);
}

}  // namespace toposcope::model
