// experiments/barrier_emulation: the cross-region barrier's training (experiments/barrier_training)
// stepped in one process, with no transport: every worker's BarrierSender and BarrierState exchange
// the very envelopes the worker processes would (corrupted ones and their full-tensor fallbacks
// included). The barrier's lags are fixed, so its weights, losses and bytes do not depend on timing:
// they are those of the real run with the same options. The iteration time is the discrete-event
// simulation's (experiments/barrier_des) over the compute times measured here. For `barrier-sim`'s
// default (simulation) mode.
#pragma once

#include "toposcope/base/result.h"
#include "toposcope/experiments/barrier_des.h"
#include "toposcope/experiments/barrier_training.h"

namespace toposcope::experiments {

struct BarrierEmulation {
  BarrierTrainingRun run;  // as the real run fills it; times: compute measured here, iteration simulated
  BarrierDesResult simulated;
};

// Fails (kUsage) on the options RunBarrierTraining refuses.
Result<BarrierEmulation> EmulateBarrierTraining(const BarrierTrainingOptions& o);

}  // namespace toposcope::experiments
