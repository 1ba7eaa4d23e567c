// act/slow_node_search: finds the slow nodes of a cluster by adaptive group testing with nccl-tests
// AllReduce runs over host subsets. A ring AllReduce runs at the pace of its slowest member, so one
// run over a subset says "holds a slow node" or "does not" (busbw is normalised to be comparable
// across rank counts: nccl-tests doc/PERFORMANCE.md). The search
//   1. screens: splits the hosts into a few groups of equal prior mass (passive evidence raises a
//      host's prior, so a suspect lands in a small group) and runs each;
//   2. splits every slow group in two at equal prior mass and runs the lighter half; when that half
//      is healthy, the other half is inferred slow without a run, when it is slow the search goes
//      on in it and the other half waits (binary splitting);
//   3. runs a single host with a host already cleared by a healthy run (runs need >= 2 hosts); a
//      host inferred slow is confirmed that way before it is named;
//   4. when a host is named (or an inferred one reads healthy), runs the rest of its screen group
//      that no run has cleared as one group: healthy ends that group, slow starts a new chain (a
//      group may hold several slow nodes; a wrong reading is caught this way too);
//   5. stops when every host is cleared or named.
// The line between healthy and slow comes from the runs themselves: the healthy level is the
// median of the top cluster of observed busbw, the noise the spread of that cluster (and of each
// run's out-of-place / in-place pair), floored at the 1 % nccl-tests precision the collectives pass
// uses. A reading between the healthy and the slow band is repeated. Plain data, no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toposcope/base/result.h"

namespace toposcope::act {

// A host's prior probability of being slow and why.
struct SlowNodePrior {
  std::string host;
  double prior = 0;        // in (0, 1)
  std::string evidence;    // the passive evidence that raised it; empty for the base prior
};

// One planned nccl-tests run.
struct PlannedRun {
  int id = 0;                         // 1-based, in planning order
  int round = 0;                      // 1-based batch; the runs of one round can go at once
  std::vector<std::string> hosts;     // the subset to run over (>= 2 hosts), sorted
  std::vector<std::string> tested;    // the hosts this run tells about (the others are known good)
  std::string reason;                 // why it is planned: "screen 2/8", "half of run 5", ...
};

// What one run measured.
struct RunObservation {
  int id = 0;
  double busbw_gbps = 0;    // bus bandwidth at the largest size (mean of out-of-place and in-place)
  double spread_rel = -1;   // |out-of-place - in-place| / mean there; < 0 when only one was printed
  bool failed = false;      // validation failed (#wrong or out-of-bounds > 0): counts as slow
  std::string source;       // where it was read from
};

enum class RunVerdict { kPending, kHealthy, kSlow, kBorderline };
// "pending", "healthy", "slow", "borderline".
const char* RunVerdictName(RunVerdict v);

// A run as the search read it.
struct RunRecord {
  PlannedRun plan;
  bool observed = false;
  RunObservation observation;
  double sigmas_below = 0;  // (healthy - busbw) / (noise x healthy) when it was classified
  RunVerdict verdict = RunVerdict::kPending;
};

struct SlowNodeSearchOptions {
  int screen_groups = 8;      // groups of the first round (fewer when there are fewer than 2x hosts)
  double healthy_sigmas = 4;  // a reading within this many noise sigmas of the healthy level is healthy
  double slow_sigmas = 8;     // one this many or more below is slow; in between it is repeated
  int max_repeats = 2;        // repeats of a borderline reading before it is decided by the nearer band
  double noise_floor_rel = 0.01;  // the 1 % precision floor of analysis/traffic/collective_bench
  int max_runs = 0;           // 0: 4 x hosts + 16
};

struct SlowNodeAnswer {
  bool done = false;                   // every host cleared or named (or the budget spent)
  std::vector<std::string> slow;       // named slow, sorted
  std::vector<std::string> unresolved; // neither cleared nor named when the budget ran out
  int runs = 0;                        // runs observed
  int rounds = 0;
  double healthy_busbw_gbps = 0;       // the healthy level the runs showed
  double noise_rel = 0;                // the run-to-run noise used (relative sigma)
  double slow_below_gbps = 0;          // readings below this are slow
  double healthy_above_gbps = 0;       // readings above this are healthy
  double confidence = 0;               // probability that no deciding run was misread, under that noise
  std::vector<std::string> notes;      // contradictions, budget, evidence used
};

class SlowNodeSearch {
 public:
  // A search over `hosts` (distinct names) with optional priors (hosts not named get 1/N). Fails
  // (kUsage) with fewer than 2 hosts, a duplicate or empty name, a prior outside (0, 1) or options
  // out of range.
  static Result<SlowNodeSearch> Create(std::vector<std::string> hosts, const std::vector<SlowNodePrior>& priors,
                                       const SlowNodeSearchOptions& opt = {});

  // The runs planned and not yet observed (all of one round); empty when the search is done.
  [[nodiscard]] std::vector<PlannedRun> Pending() const;
  // Records a run's result; when it completes its round, classifies the round and plans the next.
  // Fails (kInput) for an id that is not pending or a non-finite / negative busbw.
  Status Observe(const RunObservation& obs);
  [[nodiscard]] bool Done() const;
  // What the search believes now (final when Done()). Never fails.
  [[nodiscard]] SlowNodeAnswer Answer() const;
  [[nodiscard]] const std::vector<RunRecord>& runs() const { return runs_; }
  [[nodiscard]] const std::vector<std::string>& hosts() const { return hosts_; }
  [[nodiscard]] const std::vector<double>& priors() const { return prior_; }

 private:
  enum class GroupState { kWaiting, kTesting, kHealthy, kSlow, kInferred, kMerged };  // merged: into a rest run
  struct Group {
    std::vector<int> members;  // host indices
    int parent = -1, sibling = -1;
    GroupState state = GroupState::kWaiting;
    std::vector<int> runs;     // the runs that tested it (repeats included)
    bool confirm = false;      // a single host inferred slow, run to confirm it
    int screen = -1;           // its first-round ancestor
  };

  SlowNodeSearch() = default;
  void PlanScreen();
  void AdvanceRound();
  void Calibrate();
  RunVerdict Classify(const Group& g, double& sigmas) const;
  void Decide(int gi, bool slow);
  void SplitAndPlan(int gi);
  void PlanTest(int gi, const std::string& reason);
  void PlanRest(int gi, bool contradiction);
  int Partner(int exclude) const;
  double Mass(const std::vector<int>& members) const;

  std::vector<std::string> hosts_;
  std::vector<double> prior_;
  SlowNodeSearchOptions opt_;
  std::vector<Group> groups_;
  std::vector<RunRecord> runs_;
  std::vector<int> run_group_;        // per run: the group it tested
  std::vector<int> host_state_;       // 0 unknown, 1 cleared, 2 named slow
  std::vector<int> to_test_;          // groups to plan in the next round
  int round_ = 0;
  double healthy_gbps_ = 0, noise_rel_ = 0;
  double log_confidence_ = 0;
  std::vector<std::string> notes_;
  bool budget_spent_ = false;
};

}  // namespace toposcope::act
