// app/ps_sim_command: see the header.
#include "toposcope/app/ps_sim_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "toposcope/model/dataset.h"

namespace toposcope::app {
namespace {

constexpr const char* kClaim =
    "overhead 12.8 -> 3.2 MB/s, failover 840 -> 196 ms (full vs sparse graph)";

Result<PsSimRow> RunOne(const PsSimRequest& r, bool sparse) {
  PsSimRow row;
  if (r.real_nodes > 0) {
    experiments::PsTrainingOptions o = r.real;
    o.nodes = r.real_nodes;
    o.sparse = sparse;
    o.name = sparse ? "sparse" : "full";
    auto run = experiments::RunPsTraining(o);
    if (!run.ok()) return run.error();
    row.heartbeat_edges = run->heartbeat_edges;
    row.overhead_mb_s = run->overhead_mb_s;
    row.failover_ms = run->failover_ms;
    row.detect_ms = run->detect_ms;
    row.failures = run->victim >= 0 ? 1 : 0;
    row.ledger = run->ledger;
    return row;
  }
  experiments::PsDesOptions o = r.des;
  o.sparse = sparse;
  auto sim = experiments::SimulatePsGraph(o);
  if (!sim.ok()) return sim.error();
  row.heartbeat_edges = sim->heartbeat_edges;
  row.overhead_mb_s = sim->overhead_mb_s;
  row.failover_ms = sim->failovers.empty() ? -1 : sim->mean_failover_ms;
  double detect = 0;
  for (const auto& f : sim->failovers) detect += f.detect_ms / static_cast<double>(sim->failovers.size());
  row.detect_ms = sim->failovers.empty() ? -1 : detect;
  row.failures = static_cast<int>(sim->failovers.size());
  row.ledger = sim->ledger;
  return row;
}

std::string Table(const PsSimRequest& r, const PsSimOutcome& o) {
  std::string head;
  if (r.real_nodes > 0) {
    head = fmt::format("real: {} processes on loopback, {} steps; node {} killed (SIGKILL) at step {}", r.real_nodes,
                       r.real.steps, r.real.kill_node, r.real.kill_step >= 0 ? r.real.kill_step : r.real.steps / 2);
  } else {
    head = fmt::format("simulated: {} nodes, {} steps, {} crash(es) injected", r.des.nodes, r.des.steps, r.des.crashes);
  }
  std::string out = fmt::format("Parameter-server graph with failover, {}; RTTs {}\n", head, o.rtt_source);
  out += fmt::format("  {:<7} {:>10} {:>14} {:>12} {:>10} {:>9} {:>5} {:>8}\n", "graph", "hb edges", "MB/s a node",
                     "failover ms", "detect ms", "acked", "lost", "doubled");
  for (const auto& [name, row] : {std::pair{"full", &o.full}, std::pair{"sparse", &o.sparse}}) {
    out += fmt::format("  {:<7} {:>10} {:>14.4f} {:>12.2f} {:>10.2f} {:>9} {:>5} {:>8}\n", name, row->heartbeat_edges,
                       row->overhead_mb_s, row->failover_ms, row->detect_ms, row->ledger.acked, row->ledger.lost,
                       row->ledger.duplicates);
  }
  out += "  overhead: heartbeats, route updates and state pulls, per node; failover: the failure to the first update\n"
         "  the backup applied (detect: to its promotion); acked / lost / doubled: the ledger reconciled\n";
  out += std::string("  Claim (the article's figures, not measured here): ") + kClaim + "\n";
  return out;
}

}  // namespace

Result<PsSimOutcome> RunPsSim(PsSimRequest r) {
  PsSimOutcome o;
  o.rtt_source = fmt::format("from racks of {} nodes, {} racks a pod: {:g} / {:g} / {:g} us", r.des.layout.rack_size,
                             r.des.layout.racks_per_pod, r.des.layout.near_us, r.des.layout.mid_us, r.des.layout.far_us);
  if (r.real_nodes > 0) r.real.layout = r.des.layout;
  if (!r.latency_from.empty()) {
    auto ds = model::LoadPaths(r.latency_from, {});
    if (!ds.ok()) return ds.error();
    const int n = r.real_nodes > 0 ? r.real_nodes : r.des.nodes;
    std::vector<std::string> hosts;
    auto m = act::training::RttMatrixFromProbes(ds->path_probes, n, &hosts);
    if (!m.ok()) return m.error();
    o.rtt_source = fmt::format("measured: median probe RTT of each pair of {} hosts ({} .. {})", n, hosts.front(),
                               hosts.back());
    r.real.rtt = *m;
    r.des.rtt = *m;
  }
  auto full = RunOne(r, false);
  if (!full.ok()) return full.error();
  auto sparse = RunOne(r, true);
  if (!sparse.ok()) return sparse.error();
  o.full = *full;
  o.sparse = *sparse;
  o.lost_updates = o.full.ledger.lost + o.sparse.ledger.lost;
  o.duplicate_updates = o.full.ledger.duplicates + o.sparse.ledger.duplicates;
  auto row = [](const PsSimRow& x) {
    return nlohmann::json{{"overhead_mb_s", x.overhead_mb_s}, {"failover_ms", x.failover_ms}};
  };
  o.json = nlohmann::json{{"full", row(o.full)},
                          {"sparse", row(o.sparse)},
                          {"lost_updates", o.lost_updates},
                          {"duplicate_updates", o.duplicate_updates}}
               .dump(2) +
           "\n";
  o.table = Table(r, o);
  return o;
}

}  // namespace toposcope::app
