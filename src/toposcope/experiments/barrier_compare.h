// experiments/barrier_compare: the cross-region barrier measured side by side in one run: the real
// training (experiments/barrier_training) synchronous with full gradients, asynchronous with 4-bit,
// asynchronous with top-k; the barrier's trigger decision for each codec; the discrete-event
// simulation (experiments/barrier_des) replaying each run (its measured compute times, with and
// without the host's measured delivery overhead) and scaled to 1,024+ workers; written as JSON and
// a short table. The seed's figures are printed as its claim beside ours, never as ours.
#pragma once

#include <string>
#include <vector>

#include "toposcope/act/training/async_barrier.h"
#include "toposcope/base/result.h"
#include "toposcope/experiments/barrier_des.h"
#include "toposcope/experiments/barrier_training.h"

namespace toposcope::experiments {

// The seed's figures for the barrier: printed as its claim beside ours, never as ours.
inline constexpr const char* kBarrierClaim =
    "482 -> 317 ms per iteration, 68 % bytes saved (synchronous full vs asynchronous 4-bit)";

struct BarrierCompareOptions {
  BarrierTrainingOptions base;  // workers, steps, problem, transport, staleness
  double topk_fraction = 0.1;
  uint32_t bucket = 512;
  act::training::BarrierTriggerOptions trigger;
  std::string latency_source = "option";  // where the cross-region latency came from
  int scaled_workers = 1024;              // the simulation at scale (0: none)
  int scaled_steps = 6;
  double tolerance = 0.25;  // replay vs measured iteration time, relative
};

struct BarrierCompareRow {
  BarrierTrainingRun run;
  act::training::BarrierTrigger trigger;  // the decision for this codec ("full": ratio 1)
  double compression_ratio = 1;
  BarrierDesResult replay;             // the run's compute times + host overhead
  BarrierDesResult replay_model_only;  // the run's compute times, imposed delays only
  BarrierDesResult scaled;             // at scaled_workers
  double loss_gap = 0;                 // final_loss / synchronous final_loss - 1
  double bytes_saved = 0;              // 1 - bytes_total / synchronous bytes_total
  double replay_error = 0;             // replay / measured iteration time - 1
};

struct BarrierComparison {
  BarrierCompareOptions options;
  std::vector<BarrierCompareRow> rows;  // synchronous full, asynchronous 4-bit, asynchronous top-k
};

// Runs the three trainings and the simulations. Fails as RunBarrierTraining and SimulateBarrier do.
Result<BarrierComparison> CompareBarriers(const BarrierCompareOptions& o);
// Pretty JSON (2-space indent, newline at the end).
std::string BarrierComparisonJson(const BarrierComparison& c);
// The short table, the loss curves at a few steps, the seed's claim beside ours.
std::string BarrierComparisonTable(const BarrierComparison& c);

}  // namespace toposcope::experiments
