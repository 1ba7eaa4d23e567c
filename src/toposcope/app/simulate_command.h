// app/simulate_command: `toposcope simulate`: the options the command starts from (the CLI and the
// demo share them) and one call that simulates a cluster into a directory.
#pragma once

#include <string>

#include "toposcope/base/result.h"
#include "toposcope/sim/simulate.h"

namespace toposcope::app {

// What `simulate` and `demo` simulate unless told otherwise: a 16-host fat-tree with 4 faults and
// every part on (telemetry, RDMA, fabric), 32 probes per host pair (tomography needs the floor of
// each route; the library's default is 8), 64 probe peers, and the variation on (SimOptions::vary:
// switch and link classes, clocks, DCGM periods, NCCL version and node types drawn from the seed;
// `--no-vary` keeps the fixed configuration).
sim::SimOptions SimulateDefaults();

// Simulates `options` into `out_dir` after the simulator's own scale limits (parts the simulator
// cannot do at that size are turned off). Fails with the simulator's error: kUsage for options
// out of range, kInput for a fabric file that cannot be read, kOutput for a file that cannot be
// written.
Result<sim::SimSummary> RunSimulate(const sim::SimOptions& options, const std::string& out_dir);
// The same, written as `write` says (compression, progress).
Result<sim::SimSummary> RunSimulate(const sim::SimOptions& options, const std::string& out_dir,
                                    const sim::SimWriteOptions& write);

}  // namespace toposcope::app
