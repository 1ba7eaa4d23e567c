// app/plan_ring_command: `toposcope plan-ring PATH... --out DIR` as one library call. Loads the
// inputs, runs the passes the ring planner reads (fabric, leaves, link weights, islands), plans the
// ring (act/ring_plan) and writes what a user applies (act/ring_actions):
//   DIR/hostfile          mpirun (Open MPI) hostfile, `host slots=N`, in the planned order
//   DIR/torchrun_hosts    one host a line: line k is --node_rank=k
//   DIR/slurm_hostfile    SLURM_HOSTFILE for `srun --distribution=arbitrary`: one line per rank
//   DIR/nccl_graph.xml    NCCL_GRAPH_FILE: ring channels through a host's GPUs island by island
//                         (the layout most hosts share; hosts of another layout are listed in
//                         ring_plan.json and get nccl_graph-<k>.xml)
//   DIR/ring_plan.json    toposcope.ring_plan/1: the order, hops per AllReduce, inter-leaf crossings
//                         and simulated time before / after, the avoided cables and why
// and hands back the plan for the terminal summary.
#pragma once

#include <string>
#include <vector>

#include "toposcope/act/ring_plan.h"
#include "toposcope/base/result.h"

namespace toposcope::app {

struct PlanRingRequest {
  std::vector<std::string> paths;   // inputs (formats detected by content)
  std::string hosts_file;           // the job's hostfile as written (the default order); empty: names sorted
  std::string out;                  // output directory (required)
  int nchannels = 2;                // rings in the NCCL graph file
  act::RingPlanOptions options;
};

// One NCCL graph file written: its name and the hosts it is for.
struct GraphFileOut {
  std::string file;                 // "nccl_graph.xml", "nccl_graph-1.xml", ...
  std::vector<std::string> hosts;   // in plan order
  std::vector<int> gpu_order;
};

struct PlanRingOutcome {
  act::RingPlan plan;
  std::vector<GraphFileOut> graphs;
  std::vector<std::string> written;  // files written, in order
};

// Runs the request. Fails with kUsage without paths or out, kInput when the inputs or the hosts
// file cannot be read or hold no topology / fewer than two hosts (act::PlanRing's errors),
// kOutput when a file cannot be written.
Result<PlanRingOutcome> RunPlanRing(const PlanRingRequest& req);

// ring_plan.json's text (toposcope.ring_plan/1). Never fails.
std::string RingPlanJson(const PlanRingOutcome& o);
// The terminal summary: hops, crossings and time before / after, the avoided cables, the files.
std::string RingPlanText(const PlanRingOutcome& o);

}  // namespace toposcope::app
