// experiments/ps_training: a real training run over the parameter-server graph with failover
// (act/training/ps_graph). One process per node (fork), ZeroMQ on TCP loopback through the shared
// transport (experiments/loopback_transport) with each pair's RTT / 2 and the node's egress rate
// imposed on every frame. Every node is a worker (L2-regularised logistic regression on its own
// shard of samples, experiments/barrier_training's problem) and the primary of one shard of the
// weights; the shard's 3 lowest-RTT peers hold its replicas. Heartbeats run over the sparse graph
// (k lowest-RTT peers) or the full one. Mid-run the parent kills one node (SIGKILL); its shard's
// backup detects the silence, takes the shard over and broadcasts the route; workers re-send what
// was not acknowledged. Every apply, replay, skip, acknowledgement and promotion goes to a ledger
// file per node, written as it happens (so the killed node's survives), and is reconciled after the
// run: updates lost (acknowledged, never applied in a final copy) and doubled.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toposcope/act/training/ps_graph.h"
#include "toposcope/base/result.h"
#include "toposcope/experiments/barrier_training.h"

namespace toposcope::experiments {

// Where nodes sit: racks of `rack_size`, `racks_per_pod` racks a pod; the RTT of a pair is near
// (one rack), mid (one pod) or far, times 1 + up to `jitter` (drawn per pair from the seed).
struct PsLayout {
  int rack_size = 4;
  int racks_per_pod = 4;
  double near_us = 5000, mid_us = 10000, far_us = 25000;  // cross-building links: well above the
                                                           // scheduling noise of a loaded host
  double jitter = 0.1;
  uint64_t seed = 1;
};
// The RTT matrix of n nodes so placed. Fails (kUsage) on n < 2 or a non-positive rack size.
Result<act::training::RttMatrix> LayoutRtts(int n, const PsLayout& l);
// The same RTTs as a function of the pair (nothing held: for thousands of nodes).
Result<act::training::RttMatrix> LayoutRttFunction(int n, const PsLayout& l);

struct PsTrainingOptions {
  std::string name = "sparse";
  int nodes = 6;              // processes, 3 .. 32
  bool sparse = true;         // false: every node heartbeats every other node
  int neighbours = 4;         // k of the sparse graph
  int replicas = 3;           // a shard's replicas: its first primary's lowest-RTT peers
  act::training::RttMatrix rtt;  // n = 0: the layout's
  PsLayout layout;
  double bandwidth_gbps = 10;  // each node's egress
  double heartbeat_ms = 10;
  int steps = 60;
  int kill_node = 0;   // -1: kill none
  int kill_step = -1;  // the step of its worker at which it is killed (-1: steps / 2)
  LogisticProblem problem;
  act::training::DetectorOptions detectors;
  double timeout_s = 60;
};

struct PsTrainingRun {
  std::string name;
  int nodes = 0, steps = 0;
  bool sparse = true;
  int heartbeat_edges = 0;     // directed ping edges
  double wall_s = 0;           // the training phase: first node's start to last node's end
  int64_t overhead_bytes = 0;  // heartbeats, route updates, state pulls (the nodes alive at the end)
  int64_t replication_bytes = 0, data_bytes = 0;  // epochs and their acks; pushes and acks
  double overhead_mb_s = 0;    // per node: overhead_bytes / nodes alive at the end / wall_s / 1e6
  int victim = -1, backup = -1;
  double detect_ms = -1;       // the kill to the backup's promotion
  double failover_ms = -1;     // the kill to the first update the backup applied
  act::training::Reconciliation ledger;
  int64_t resent = 0;          // pushes re-sent to a new primary
  int64_t stale_routes = 0;    // route updates refused as stale
  int64_t detector_stalls = 0;  // detector rounds a node skipped after a stall of its own loop
  bool routes_agree = true;    // every surviving node ends with the same route table
  double initial_loss = 0, final_loss = 0;  // the whole objective at 0 and at the final copies
};

// Runs it. Fails (kUsage) on bad options, (kInternal) when a node fails or times out.
Result<PsTrainingRun> RunPsTraining(const PsTrainingOptions& o);

}  // namespace toposcope::experiments
