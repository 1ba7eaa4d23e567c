// app/ps_sim_command: `toposcope ps-sim`, the parameter-server graph with failover, the full graph
// beside the sparse one: overhead MB/s (heartbeats, route updates, state pulls) and failover ms
// (a server's failure to the first update its backup applied), with the ledger's lost and doubled
// updates. By default the discrete-event simulation (experiments/ps_des) at thousands of nodes with
// crashes injected; `--real N` runs N processes on loopback and kills one with SIGKILL mid-run
// (experiments/ps_training). RTTs from a layout of racks and pods, or measured from path probes
// (--latency-from). The article's figures are printed as its claim, never as ours.
#pragma once

#include <string>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/experiments/ps_des.h"
#include "toposcope/experiments/ps_training.h"

namespace toposcope::app {

struct PsSimRequest {
  experiments::PsDesOptions des;       // the simulation (nodes, layout, steps, crashes, ...)
  experiments::PsTrainingOptions real;  // --real: its nodes, steps, victim, ...
  int real_nodes = 0;                   // > 0: run that many processes instead of the simulation
  std::vector<std::string> latency_from;  // path probes: the RTTs of the first N hosts by name
};

struct PsSimRow {
  int64_t heartbeat_edges = 0;
  double overhead_mb_s = 0, failover_ms = -1, detect_ms = -1;
  int failures = 0;
  act::training::Reconciliation ledger;
};

struct PsSimOutcome {
  PsSimRow full, sparse;
  int64_t lost_updates = 0, duplicate_updates = 0;  // both runs
  std::string rtt_source;
  std::string table, json;  // the json: exactly the documented object
};

// Fails (kUsage) on bad options, (kInput) when the probes lack a pair of the first N hosts, else as
// experiments::SimulatePsGraph / RunPsTraining.
Result<PsSimOutcome> RunPsSim(PsSimRequest r);

}  // namespace toposcope::app
