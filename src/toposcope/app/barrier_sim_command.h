// app/barrier_sim_command: `toposcope barrier-sim`, the cross-region barrier side by side in one
// short table: synchronous + full gradients vs asynchronous + 4-bit. By default a simulation: the
// barrier stepped in one process (experiments/barrier_emulation: the losses and bytes the real run
// gives), its iteration time from the discrete-event simulation (experiments/barrier_des) over the
// compute times measured; `--real N` runs N worker processes on loopback instead
// (experiments/barrier_training). The seed's figures are printed as its claim, never as ours.
#pragma once

#include <string>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/experiments/barrier_training.h"

namespace toposcope::app {

struct BarrierSimRequest {
  experiments::BarrierTrainingOptions base;  // workers, steps, problem, links, staleness, corruption
  int real = 0;                              // > 0: that many worker processes (the simulation: 0)
  std::vector<std::string> latency_from;     // path probes: the cross-region latency measured
};

struct BarrierSimRow {
  double iteration_ms = 0, bytes_per_iteration = 0, final_loss = 0;
  int64_t bytes_total = 0, digest_fallbacks = 0;
};

struct BarrierSimOutcome {
  BarrierSimRow sync, async_4bit;
  double bytes_saved_fraction = 0;
  int64_t digest_fallbacks = 0;
  std::string latency_source = "option";
  std::string table, json;  // the json: exactly the documented object
};

// Fails as experiments::RunBarrierTraining / EmulateBarrierTraining do, (kInput) when
// --latency-from shows no cross-pod probe.
Result<BarrierSimOutcome> RunBarrierSim(BarrierSimRequest r);

}  // namespace toposcope::app
