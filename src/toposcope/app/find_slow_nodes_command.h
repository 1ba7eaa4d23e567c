// app/find_slow_nodes_command: `toposcope find-slow-nodes` as one library call. The search
// (act/slow_node_search) plans nccl-tests all_reduce_perf runs over host subsets; this file feeds
// it their results and hands back the next runs or the answer.
//
// The directory protocol (`--results DIR`, re-entrant): every invocation rebuilds the search from
// the hosts file and the evidence, replays the results already in DIR in run order
// (DIR/result-NNN.txt, the nccl-tests output of run NNN), writes DIR/plan-NNN.sh for every run the
// search wants next (the command writes result-NNN.txt.tmp and renames it on success, so a cut run
// is never read) and returns them as pending; when no run is pending it returns the answer (and
// writes DIR/answer.json). The search is deterministic, so the same files give the same plan;
// a plan-NNN.sh that differs from the one the search would write is an error (another hosts list
// or evidence used the directory). `--simulate` answers every planned run from sim/nccl_tests_sim
// (real nccl-tests text, read back through the same reader), writing the same files when DIR is
// given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toposcope/act/slow_node_search.h"
#include "toposcope/base/result.h"

namespace toposcope::app {

struct FindSlowNodesRequest {
  std::string hosts_file;          // one host a line ('#' comments; `host slots=8` and `host:8` accepted)
  std::vector<std::string> from;   // datasets whose analysis sets the priors
  std::string results_dir;         // the directory protocol; empty: only with simulate
  bool simulate = false;
  int hosts_count = 0;             // simulate without a hosts file: node0001..nodeNNNN
  int slow = 1;                    // simulate: slow nodes to hide
  uint64_t seed = 1;               // simulate: which ones, and the noise
  int hinted = 0;                  // simulate: this many of the slow nodes get a prior of 1/2, as if
                                   // passive evidence had named them
  std::string launcher = "mpirun"; // mpirun (OpenMPI) or srun
  std::string binary = "all_reduce_perf";
  int gpus_per_host = 8;
  act::SlowNodeSearchOptions options;
};

struct FindSlowNodesOutcome {
  std::vector<std::string> hosts;
  std::vector<act::SlowNodePrior> priors;    // from the evidence (or the simulated hints)
  std::vector<act::RunRecord> runs;          // every run planned, observed or not
  std::vector<act::PlannedRun> pending;      // the runs waiting for a result (empty when done)
  act::SlowNodeAnswer answer;
  std::vector<std::string> truth;            // simulate only: the slow hosts hidden
  int pairwise_runs = 0;                     // simulate only: runs a disjoint-pair sweep would take
  double bound_runs = 0;                     // simulate only: 2 k log2 N + 4 with k = the truth's size
  std::vector<std::string> written;          // files written
};

// Reads a hosts file. Fails (kInput, naming the file and line) when it cannot be read, a line
// holds a name with characters a host name cannot have, a host is listed twice, or fewer than 2
// hosts are listed.
Result<std::vector<std::string>> ReadHostsFile(const std::string& path);

// The command line of a planned run (launcher form of `req`), writing its output to `out_file`.
std::string RunCommandLine(const act::PlannedRun& run, const FindSlowNodesRequest& req, const std::string& out_file);

// Runs the search as far as the results allow. Fails with kUsage for an impossible request (no
// hosts, no results directory without simulate, options out of range, a directory planned by
// another search), kInput for an unreadable hosts file, evidence or a bad result file (named with
// its line), kOutput when a plan file cannot be written.
Result<FindSlowNodesOutcome> RunFindSlowNodes(const FindSlowNodesRequest& req);

// `{"runs": N, "found": [...], "truth": [...], ...}`: the answer, the pending runs and the run log.
std::string FindSlowNodesJson(const FindSlowNodesOutcome& o, const FindSlowNodesRequest& req);
// The same for a terminal: the pending runs' commands, or the named hosts with the confidence.
std::string FindSlowNodesText(const FindSlowNodesOutcome& o, const FindSlowNodesRequest& req);

}  // namespace toposcope::app
