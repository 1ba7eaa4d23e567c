#include "toposcope/app/simulate_command.h"

namespace toposcope::app {

sim::SimOptions SimulateDefaults() {
  sim::SimOptions o;
  o.arch = sim::Arch::kFatTree;
  o.seed = 1;
  o.hosts = 16;
  o.faults = 4;
  o.with_telemetry = true;
  o.with_rdma = true;
  o.with_fabric = true;
  o.nccl_channels = 2;
  o.qps_per_connection = 1;
  o.rdma_window_ms = 20;
  o.probes_per_pair = 32;
  o.max_probe_peers = 64;
  o.probe_extra_rtt_us = 0;
  o.fabric_faults = true;
  o.vary = true;  // what real clusters vary is drawn from the seed (sim/variation.h); --no-vary: fixed
  return o;
}

Result<sim::SimSummary> RunSimulate(const sim::SimOptions& options, const std::string& out_dir) {
  return sim::Simulate(sim::WithScaleLimits(options), out_dir);
}

Result<sim::SimSummary> RunSimulate(const sim::SimOptions& options, const std::string& out_dir,
                                    const sim::SimWriteOptions& write) {
  return sim::Simulate(sim::WithScaleLimits(options), out_dir, write);
}

}  // namespace toposcope::app
