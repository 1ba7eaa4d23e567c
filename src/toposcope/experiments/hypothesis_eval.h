// experiments/hypothesis_eval: measures the fault hypothesis tree (act/hypotheses) on simulated
// clusters. For every architecture and seed it simulates a clean cluster (no node, telemetry or
// fabric fault, no congested link, no other tenant) and clusters with k = 1, 2, 3 node faults and
// k periodically congested links on top of the simulator's telemetry faults (thermal down-speed,
// straggler, clock step: one each, as sim/telemetry injects them), fabric faults (congested switch,
// degraded and flapping cable, detour, slow host: one each) and other tenants' traffic; analyses
// each (real-format files on disk, read back through the loader; the analyzer never sees
// truth.json) and scores its "hypotheses" against truth.json (report/score: top-1, top-3, the
// highest fault probability). Deterministic: same options, same numbers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/sim/cluster.h"

namespace toposcope::experiments {

struct HypothesisEvalOptions {
  std::vector<sim::Arch> archs{sim::Arch::kFatTree, sim::Arch::kDragonfly, sim::Arch::kHhre};
  std::vector<uint64_t> seeds{1, 2, 3, 4, 5};
  std::vector<int> fault_counts{0, 1, 2, 3};  // 0: the clean cluster
  int hosts = 16;
  std::string work_dir;  // where each cluster is written (and removed); "": the system temp dir
  bool keep = false;     // keep each cluster's directory (and its result.json) instead of removing it
};

struct KindTally {
  int64_t causes = 0, top1 = 0, top3 = 0;
};

struct HypothesisEvalRun {
  sim::Arch arch = sim::Arch::kFatTree;
  uint64_t seed = 0;
  int faults = 0;                    // k (0: clean)
  int64_t root_causes = 0;           // injected, as truth.json lists them
  int64_t top1 = 0, top3 = 0;        // of them, top-1 / within top-3 of some symptom
  int64_t symptoms = 0;
  double max_fault_probability = 0;  // highest probability of any hypothesis but noise
  std::map<std::string, KindTally> by_kind;  // per kind of root cause
  std::vector<std::string> not_found;        // "kind entity" of each cause no symptom names
  std::string dir;                           // the cluster's directory (removed unless kept)
};

struct HypothesisEvaluation {
  std::vector<HypothesisEvalRun> runs;
  int64_t causes = 0, top1 = 0, top3 = 0;
  double top1_accuracy = 0, top3_accuracy = 0;
  double clean_max_probability = 0;     // over the clean runs
  std::map<std::string, KindTally> by_kind;
  std::string table;                    // FormatHypothesisEvaluation(*this)
};

// Simulates, analyses and scores every (architecture, seed, fault count). Fails when a simulation,
// a load or a score fails (the Error names the run).
Result<HypothesisEvaluation> EvaluateHypotheses(const HypothesisEvalOptions& opt);

// The table: one row per architecture and fault count (summed over seeds), one per kind of root
// cause, the totals, and one line per run with a cause no symptom names. Never fails.
std::string FormatHypothesisEvaluation(const HypothesisEvaluation& e);

}  // namespace toposcope::experiments
