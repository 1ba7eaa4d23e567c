// experiments/ps_des: a discrete-event simulation of the parameter-server graph with failover
// (act/training/ps_graph) at thousands of nodes, with crashes injected: the protocol of the real
// run (experiments/ps_training) on the same layout of RTTs (computed per pair, never held as a
// matrix): workers push the shards their sparse gradient touches and wait for the acknowledgements;
// each primary applies (ShardCopy), replicates one epoch per update to its live replicas and
// acknowledges once they all hold it (CommitTracker); a crashed node's watchers find it when its
// heartbeat is late by 3 x their mean RTT (HeartbeatDetector); the backup (ChooseBackup) takes its
// shard over, pulls the epochs it lacks from the other replicas, broadcasts the route; workers
// re-send what was not acknowledged. Every apply, replay, skip, acknowledgement and promotion goes
// to the same ledger the real run reconciles. Heartbeats between live nodes carry nothing that
// changes a state: their bytes are counted per edge and interval rather than simulated one by one;
// the ones a failure silences are what the detection times are computed from.
#pragma once

#include <cstdint>
#include <vector>

#include "toposcope/act/training/ps_graph.h"
#include "toposcope/base/result.h"
#include "toposcope/experiments/ps_training.h"

namespace toposcope::experiments {

struct PsDesOptions {
  int nodes = 2048;
  bool sparse = true;
  int neighbours = 4, replicas = 3;
  PsLayout layout;
  act::training::RttMatrix rtt;  // n = 0: the layout's (computed per pair)
  double bandwidth_gbps = 10;
  double heartbeat_ms = 10;
  double late_rtts = 3;
  int steps = 10;
  int shards_per_step = 2;  // shards one worker's sparse gradient touches in a step
  double compute_us = 5000;
  int64_t push_bytes = 4096;  // one update (a gradient slice) on the wire; an acknowledgement as much
  int crashes = 4;            // nodes killed mid-run (no two sharing a shard's replicas)
  uint64_t seed = 1;
};

struct PsDesFailover {
  int node = -1, backup = -1;
  double crash_ms = 0, detect_ms = 0, failover_ms = -1;  // detect and failover: after the crash
};

struct PsDesResult {
  int nodes = 0, steps = 0;
  bool sparse = true;
  int64_t heartbeat_edges = 0;
  double makespan_ms = 0;
  int64_t overhead_bytes = 0, replication_bytes = 0, data_bytes = 0;
  double overhead_mb_s = 0;  // per node: overhead_bytes / nodes / makespan
  std::vector<PsDesFailover> failovers;
  double mean_failover_ms = 0, max_failover_ms = 0;
  act::training::Reconciliation ledger;
  int64_t events = 0;
};

// Fails (kUsage) on nodes outside 8..8192, steps outside 1..10000, shards per step outside
// 1..nodes, crashes outside 0..nodes / 8, or a bad layout.
Result<PsDesResult> SimulatePsGraph(const PsDesOptions& o);

}  // namespace toposcope::experiments
