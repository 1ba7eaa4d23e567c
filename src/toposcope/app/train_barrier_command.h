// app/train_barrier_command: `toposcope train-barrier`, the cross-region asynchronous barrier with
// gradient compression measured side by side (experiments/barrier_compare): real worker processes
// on loopback synchronous + full vs asynchronous + 4-bit vs asynchronous + top-k, the discrete-event
// simulation replaying them and at 1,024+ workers. The cross-region latency is an option, or is
// measured from path probes (--latency-from: the median RTT / 2 between the pods the analyzer's
// leaf inference finds). Writes barrier.json and barrier.txt under --out.
#pragma once

#include <string>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/experiments/barrier_compare.h"

namespace toposcope::app {

struct TrainBarrierRequest {
  experiments::BarrierCompareOptions options;
  std::vector<std::string> latency_from;  // probe files / directories; empty: the latency option
  std::string out;                        // "": write nothing
};

struct TrainBarrierOutcome {
  experiments::BarrierComparison comparison;
  std::string table, json;
};

// The cross-region one-way latency measured from path probes in `paths` (the median RTT / 2 between
// the pods the leaf inference finds) into transport.cross; `source` says so. Fails (kInput) when the
// probes show one pod or cannot be read. (train-barrier and barrier-sim --latency-from.)
Status CrossLatencyFrom(const std::vector<std::string>& paths, act::training::TransportModel& transport,
                        std::string& source);

// Fails (kInput) when --latency-from shows no cross-pod probe, (kOutput) when --out cannot be
// written, else as experiments::CompareBarriers.
Result<TrainBarrierOutcome> RunTrainBarrier(TrainBarrierRequest r);

}  // namespace toposcope::app
