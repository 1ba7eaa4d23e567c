// experiments/barrier_training: a real data-parallel training run over the cross-region barrier
// (act/training/async_barrier). Worker processes (fork) on one machine exchange gradient envelopes
// through ZeroMQ PUSH/PULL sockets on TCP loopback; the transport imposes the simulated cluster's
// links on every message (its sender's egress queue for that class of link: bytes x 8 / Gbps, then
// the one-way latency; the receiver holds a message until its arrival time on the shared monotonic
// clock). The problem: L2-regularised logistic regression on sparse binary features (a click model's
// shape: `active` of `features` features per sample), labels drawn from known generating weights,
// every worker's shard generated from (seed, worker). Plain gradient descent on each worker's
// weights with the barrier's update. Deterministic numbers (losses, bytes) for the same options;
// times are measured.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toposcope/act/training/async_barrier.h"
#include "toposcope/base/result.h"

namespace toposcope::experiments {

struct LogisticProblem {
  int features = 65536;  // d: the gradient has d float32 values
  int active = 32;       // binary features set per sample
  int samples_per_worker = 4096;
  double weight_scale = 3;  // generating weights ~ N(0, (scale^2) / active): margins ~ N(0, scale^2)
  double l2 = 1e-3;
  double learning_rate = 30;
  uint64_t seed = 1;
};

// One worker's shard: sample i has features idx[i * active ...] set, label y[i] in {-1, +1}.
struct LogisticShard {
  std::vector<int32_t> idx;
  std::vector<int8_t> y;
};
LogisticShard MakeShard(const LogisticProblem& p, int worker);
// The generating weights (the same for every worker).
std::vector<float> GeneratingWeights(const LogisticProblem& p);
// Loss of `w` on a shard (mean logistic loss + l2 / 2 |w|^2); with `grad` (resized to d) its gradient.
double ShardLoss(const LogisticProblem& p, const LogisticShard& s, const std::vector<float>& w,
                 std::vector<float>* grad = nullptr);
// The whole objective at `w`: the mean of ShardLoss over the shards of `workers` workers.
double GlobalLoss(const LogisticProblem& p, int workers, const std::vector<float>& w);

struct BarrierTrainingOptions {
  std::string name = "run";
  int workers = 4;             // processes, 2 .. 64
  std::vector<int> region_of;  // empty: two regions, halves
  int steps = 200;
  bool asynchronous = false;
  bool compress = false;
  act::training::CodecOptions codec;
  int staleness_steps = 1;
  act::training::TransportModel transport;
  LogisticProblem problem;
  int corrupt_every = 0;   // flip a payload byte of every k-th compressed cross-region envelope (0: none)
  double timeout_s = 120;  // a worker waiting longer fails the run
};

struct BarrierTrainingRun {
  std::string name;
  int workers = 0, steps = 0;
  bool asynchronous = false, compress = false;
  std::string codec;                           // "full", "q4", "topk", "topk_q4"
  std::vector<double> loss;                    // per step: mean over workers of the loss before its update
  double final_loss = 0;                       // the whole objective (all shards) at worker 0's last weights
  double generating_loss = 0;                  // the logistic loss alone (no L2 term) of the weights
                                               // that drew the labels: the data's noise floor
  std::vector<std::vector<double>> busy_us;    // [worker][step]: compute, encode, send (before the wait)
  std::vector<std::vector<double>> update_us;  // [worker][step]: mean and apply (after the wait)
  std::vector<std::vector<double>> step_us;    // [worker][step]: start of step to start of the next
  double mean_iteration_ms = 0;                // mean of step_us after the first 2 steps
  double mean_busy_ms = 0;                     // of busy_us + update_us
  int64_t bytes_total = 0, bytes_cross = 0;    // gradient bytes sent (frames, fallbacks included)
  int64_t messages = 0;
  double mean_message_bytes = 0;      // of the step's gradient frames
  int64_t corrupted = 0;              // payloads the transport flipped
  double mean_late_us = 0;            // a step that waited for a frame: how long after the
                                      // frame's arrival time the step went on, mean over
                                      // such steps (the host's scheduling and loopback
                                      // overhead on top of the imposed delays)
  act::training::BarrierStats stats;  // summed over workers (max_staleness_used: the max)
  double wall_s = 0;
};

// Fails (kUsage) on options out of range (workers, steps, problem, links, codec).
Status CheckBarrierTrainingOptions(const BarrierTrainingOptions& o);

// Runs the training in `workers` processes and gathers what each measured. Fails (kUsage) on bad
// options, (kInternal) when a worker fails or times out (its message is returned).
Result<BarrierTrainingRun> RunBarrierTraining(const BarrierTrainingOptions& o);

}  // namespace toposcope::experiments
