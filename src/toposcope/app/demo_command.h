// app/demo_command: `toposcope demo`: simulate the default cluster with injected faults, analyse
// it, score the result against the simulator's truth, and measure the three architectures side by
// side, printing each step as it goes.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "toposcope/base/result.h"

namespace toposcope::app {

struct DemoRequest {
  std::string out = "toposcope-demo";  // DIR: DIR/data (simulated), DIR/analysis, DIR/score.json, DIR/report.html
  uint64_t seed = 1;
  int hosts = 16;
  bool vary = false;  // SimOptions::vary (false, the default: the fixed showcase configuration)
};

// Runs the demo, printing to `out` (stdout in the CLI). Fails with the kind of the step that
// failed: kUsage for simulator options out of range, kOutput when a file cannot be written,
// kInput when the simulated data or the truth cannot be read back.
Status RunDemo(const DemoRequest& req, std::FILE* out);

}  // namespace toposcope::app
