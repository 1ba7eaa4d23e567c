// model/dataset_merge: joins data sets read from disjoint runs of inputs (model/load_plan), the
// earlier run first, so that a split load folds into what one sequential read gives.
#include <algorithm>
#include <iterator>
#include <utility>

#include "toposcope/model/load_plan.h"

namespace toposcope::model {
namespace {

template <class T>
void Append(std::vector<T>& into, std::vector<T>&& from) {
  if (into.empty()) {
    into = std::move(from);
    return;
  }
  into.insert(into.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

// Keys of `from` that `into` lacks move over; `into` keeps its own entry where both have one.
template <class Map>
void JoinKeepFirst(Map& into, Map&& from) {
  into.merge(from);
}

}  // namespace

void MergeHostEvidence(HostEvidence& into, HostEvidence&& from) {
  JoinKeepFirst(into.gpus, std::move(from.gpus));
  JoinKeepFirst(into.nics, std::move(from.nics));
  JoinKeepFirst(into.nvsmi_links, std::move(from.nvsmi_links));
  JoinKeepFirst(into.xml_links, std::move(from.xml_links));
  for (auto& [pair, m] : from.measured) {
    auto [it, fresh] = into.measured.try_emplace(pair, std::move(m));
    if (fresh) continue;
    Append(it->second.samples_gbps, std::move(m.samples_gbps));
    Append(it->second.staged_samples_gbps, std::move(m.staged_samples_gbps));
  }
  JoinKeepFirst(into.gpu_nic, std::move(from.gpu_nic));
  for (auto& [pair, status] : from.p2p_status) {
    auto [it, fresh] = into.p2p_status.try_emplace(pair, status);
    if (!fresh && it->second == "OK") it->second = status;  // a non-OK status wins over OK
  }
  Append(into.sync_points, std::move(from.sync_points));
  Append(into.rdma_qps, std::move(from.rdma_qps));
  Append(into.ib_devices, std::move(from.ib_devices));
  Append(into.gids, std::move(from.gids));
  Append(into.dcgm_offered, std::move(from.dcgm_offered));
  Append(into.gpu_queries, std::move(from.gpu_queries));
  Append(into.mig_instances, std::move(from.mig_instances));
  Append(into.dcgm_gpus, std::move(from.dcgm_gpus));
}

void MergeSeriesSummary(SeriesSummary& into, SeriesSummary&& from) {
  if (from.count == 0) return;
  if (into.count == 0) {
    into = std::move(from);
    return;
  }
  if (from.first_ns < into.last_ns) ++into.out_of_order;
  into.out_of_order += from.out_of_order;
  if (into.first_gaps_ns.size() < 256 && from.first_ns > into.last_ns) into.first_gaps_ns.push_back(from.first_ns - into.last_ns);
  for (const int64_t g : from.first_gaps_ns) {
    if (into.first_gaps_ns.size() >= 256) break;
    into.first_gaps_ns.push_back(g);
  }
  // Both traces at the coarser stride, then halved (stride doubled) until under the bound, as Add does.
  const int64_t stride = std::max(into.stride, from.stride);
  const auto thin = [](std::vector<std::pair<int64_t, double>>& pts, int64_t by) {
    if (by <= 1) return;
    size_t w = 0;
    for (size_t r = 0; r < pts.size(); r += static_cast<size_t>(by)) pts[w++] = pts[r];
    pts.resize(w);
  };
  thin(into.points, stride / into.stride);
  thin(from.points, stride / from.stride);
  Append(into.points, std::move(from.points));
  into.stride = stride;
  while (into.points.size() >= SeriesSummary::kMaxPoints) {
    thin(into.points, 2);
    into.stride *= 2;
  }
  into.last_ns = std::max(into.last_ns, from.last_ns);
  into.count += from.count;
}

void MergeDataset(Dataset& into, Dataset&& from) {
  for (auto& [name, h] : from.hosts) {
    auto [it, fresh] = into.hosts.try_emplace(name, std::move(h));
    if (!fresh) MergeHostEvidence(it->second, std::move(h));
  }
  Append(into.inputs, std::move(from.inputs));
  Append(into.event_inputs, std::move(from.event_inputs));
  const int offset = static_cast<int>(into.captures.size());
  for (CaptureInput& c : from.captures) c.index += offset;
  Append(into.captures, std::move(from.captures));
  Append(into.nccl_logs, std::move(from.nccl_logs));
  Append(into.nccl_tests, std::move(from.nccl_tests));
  Append(into.inventory.rows, std::move(from.inventory.rows));
  into.inventory.counts.read += from.inventory.counts.read;
  into.inventory.counts.accepted += from.inventory.counts.accepted;
  into.inventory.counts.rejected += from.inventory.counts.rejected;
  Append(into.fabrics, std::move(from.fabrics));
  Append(into.link_infos, std::move(from.link_infos));
  Append(into.port_counters, std::move(from.port_counters));
  Append(into.slurm_topologies, std::move(from.slurm_topologies));
  Append(into.topograph_models, std::move(from.topograph_models));
  Append(into.qp_state_inputs, std::move(from.qp_state_inputs));
  Append(into.path_probes, std::move(from.path_probes));
  for (auto& [key, s] : from.dcgm.series) {
    auto [it, fresh] = into.dcgm.series.try_emplace(key, std::move(s));
    if (!fresh) MergeSeriesSummary(it->second, std::move(s));
  }
  into.dcgm.points += from.dcgm.points;
  into.diag.Absorb(from.diag.items(), from.diag.rejected_total(), from.diag.warnings_total(),
                   from.diag.rejected_per_source());
}

Status MergeParts(LoadedPart& into, LoadedPart&& from) {
  if (from.end_chunk == into.first_chunk && from.first_chunk != from.end_chunk) std::swap(into, from);
  if (into.first_chunk == into.end_chunk) {  // an empty part takes the other as it is
    into = std::move(from);
    return {};
  }
  if (from.first_chunk == from.end_chunk) return {};
  if (into.end_chunk != from.first_chunk) {
    return MakeError("cannot merge the loads of chunks [" + std::to_string(into.first_chunk) + ", " +
                     std::to_string(into.end_chunk) + ") and [" + std::to_string(from.first_chunk) + ", " +
                     std::to_string(from.end_chunk) + "): not adjacent");
  }
  const size_t events = into.ds.event_inputs.size();
  for (UntimedDcgmInput& u : from.untimed) u.event_input += events;
  MergeDataset(into.ds, std::move(from.ds));
  Append(into.untimed, std::move(from.untimed));
  Append(into.dmon_mig, std::move(from.dmon_mig));
  into.end_chunk = from.end_chunk;
  return {};
}

}  // namespace toposcope::model
