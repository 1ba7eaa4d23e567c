// experiments/barrier_des: a discrete-event simulation of the cross-region barrier
// (act/training/async_barrier) at any worker count: the same exchange as the real run (every worker
// sends its step's envelope to every other worker), the same transport model (the sender's egress
// queue per class of link, act::training::EgressQueues, then the one-way latency) and the same
// rule for when a worker may start its next step (BarrierState's lags: 0 inside a region, s across
// regions when asynchronous). Events: a worker's compute ends (it sends), an envelope arrives (it
// may release the receiver's next step). Compute time per step is a constant or, to replay a real
// run, its measured per-worker per-step busy time. Fallbacks are not simulated (no corruption).
#pragma once

#include <cstdint>
#include <vector>

#include "toposcope/act/training/async_barrier.h"
#include "toposcope/base/result.h"

namespace toposcope::experiments {

struct BarrierDesOptions {
  int workers = 4;
  std::vector<int> region_of;  // empty: `regions` contiguous blocks of workers
  int regions = 2;
  int steps = 20;
  bool asynchronous = false;
  int staleness_steps = 1;
  act::training::TransportModel transport;
  double compute_us = 300;                            // per step before the send, when no trace
  double update_us = 0;                               // per step once the gradients are here
  std::vector<std::vector<double>> compute_trace_us;  // [worker][step]: replaces compute_us
  std::vector<std::vector<double>> update_trace_us;   // [worker][step]: replaces update_us
  double message_bytes = 0;                           // one envelope on the wire
};

struct BarrierDesResult {
  int workers = 0, steps = 0;
  double mean_iteration_ms = 0;  // mean over workers of (start of step t+1 - start of step t), t >= 2
  double makespan_ms = 0;        // the last worker's end
  int64_t bytes_total = 0, bytes_cross = 0, messages = 0;
  int64_t events = 0;
};

// Regions as contiguous blocks: worker w is in region w * regions / workers.
std::vector<int> BlockRegions(int workers, int regions);

// Fails (kUsage) on workers outside 1..8192, steps outside 1..100000, regions < 1, a trace of
// another shape, or a non-positive bandwidth.
Result<BarrierDesResult> SimulateBarrier(const BarrierDesOptions& o);

}  // namespace toposcope::experiments
