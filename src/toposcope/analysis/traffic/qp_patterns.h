// analysis/traffic/qp_patterns: communication patterns from QP state flows (MISSION §3.2). Per queue pair,
// 8x8 transition-count matrices over fixed windows (10 ms); the seed's features (reset density
// #(ERR->RESET)/#(RTS->SQD) and state entropy) and ours; k-means (k-means++, fixed seed) over
// per-QP feature vectors (synchrony, mean window entropy, ERR->RESET per window, log(1 +
// re-creations); z-scored, synchrony weighted 3x); and a classifier naming each job, host and the
// whole input AllReduce-dominated, pipeline-parallel or mixed, with evidence.
//
// Honesty about the seed's ratio: real QPs almost never pass RTS->SQD (NCCL never drains a QP;
// DOMAIN §5.5), so #(ERR->RESET)/#(RTS->SQD) is usually x/0. We never divide by zero: a window
// (or scope) whose #(RTS->SQD) is 0 gets `zero_denominator_value` (default -1, "undefined": no
// real ratio is negative) and ratio_defined = false, and the result says when the feature carries
// no information. The classifier then uses features that do:
//   - state entropy: Shannon entropy in bits of a window's 64-cell transition-count distribution
//     (the 8x8 matrix normalised; 0 for a single kind of transition, at most 6 bits);
//   - recreation: RESET->INIT transitions (every QP (re)creation starts with one; ERR->RESET->
//     INIT->RTR->RTS is the only way back from ERR);
//   - batch synchrony: a QP's share of re-creations that fall in a *batch*: a +-1 window span in
//     which at least max(min_batch_qps, batch_share x the peer group's re-creating QPs) QP
//     re-creations of its peer group happen. The peer group is the job when the log names it;
//     QPs without a job are grouped from the data: hosts whose re-creations fall, both ways, a
//     majority (`peer_affinity`) of the time within +-1 window of each other's form one group
//     (the hosts of one communicator re-create together; a job's label is never needed). AllReduce jobs recreate their QPs in periodic, communicator-wide batches
//     (synchrony near 1); pipeline-parallel jobs show staggered, interleaved transitions, so a
//     re-creation meets only the few of its own stage (synchrony near 0). This assumes staggered
//     re-creations are sparse: fewer than batch_share of the group within 3 windows (evenly
//     staggered re-creations every P windows put 3/P of the group there: P > 12, i.e. periods
//     above ~120 ms at 10 ms windows; the tests use 200-400 ms). When an AllReduce job and a
//     pipeline share a peer group (no job names) with equal periods, aligned phases look like
//     batches: name the jobs.
// A QP with at least `min_recreations` recreations is "allreduce" when its synchrony is
// >= `sync_allreduce`, else "pipeline"; QPs with fewer are "steady" (not counted: every QP is
// created once). A scope is "allreduce"/"pipeline" when >= `scope_majority` of its labelled QPs
// are, else "mixed" ("unknown" with none labelled). The seed's thresholds are applied beside it to
// the scope's pooled (reset density, mean window entropy) and reported as `seed_cls`.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toposcope/formats/rdma/qp_state_log.h"

namespace toposcope::analysis {

// Our class of a scope's traffic, from the labels of its QPs.
enum class PatternClass {
  kUnknown,    // "unknown": no QP could be labelled
  kAllreduce,  // "allreduce"
  kPipeline,   // "pipeline"
  kMixed,      // "mixed"
};
// The names above.
std::string_view PatternClassName(PatternClass c);

// The class the seed's thresholds give a scope's (reset_density, state_entropy).
enum class SeedPatternClass {
  kAllreduce,     // "allreduce"
  kPipeline,      // "pipeline"
  kUnclassified,  // "unclassified": between the thresholds, or the ratio undefined
};
// The names above.
std::string_view SeedPatternClassName(SeedPatternClass c);

// One QP's label.
enum class QpClass {
  kAllreduce,  // "allreduce": re-created in job-wide batches
  kPipeline,   // "pipeline": re-created staggered
  kSteady,     // "steady": too few re-creations to say
};
// The names above.
std::string_view QpClassName(QpClass c);

using QpTransitionMatrix = std::array<std::array<uint32_t, 8>, 8>;  // [from][to]

struct QpPatternOptions {
  int64_t window_ns = 10'000'000;  // 10 ms
  // The seed's thresholds (MISSION §3.2), shown beside our measured distributions and applied as
  // "the seed's class" in each report's evidence.
  double allreduce_reset_density = 0.92, allreduce_entropy_max = 1.8;
  double pipeline_reset_density = 0.35, pipeline_entropy_min = 2.6;
  int k = 3;          // k-means clusters
  uint64_t seed = 1;  // k-means seed (deterministic for a seed)
  // The reset density when #(RTS->SQD) == 0: -1 means "undefined" (a real ratio is >= 0).
  double zero_denominator_value = -1.0;
  // Our classifier.
  double sync_allreduce = 0.5;  // synchrony at or above which a QP is AllReduce-like
  int min_batch_qps = 4;        // QP re-creations a batch needs at least
  double batch_share = 0.25;    // ... and at least this share of the group's re-creating QPs
  int min_recreations = 2;      // recreations a QP needs to be labelled by synchrony
  double peer_affinity = 0.5;   // QPs without a job: share of one host's re-creation windows that
                                // another host's must meet (+-1 window), both ways, to share its group
  double scope_majority = 0.8;  // share of labelled QPs that names a scope (else "mixed")
};

struct QpWindowFeatures {
  std::string host;
  uint32_t qp = 0;
  int64_t window_start_ns = 0;
  QpTransitionMatrix transitions{};
  double reset_density = 0;  // #(ERR->RESET)/#(RTS->SQD), or zero_denominator_value
  double state_entropy = 0;  // bits, over the 64 cells
  bool ratio_defined = false;
};

struct PatternReport {
  std::string scope;  // "host:<h>" or "job:<id>" or "all"
  PatternClass cls = PatternClass::kUnknown;
  // The scope's pooled seed features: sum #(ERR->RESET) / sum #(RTS->SQD) (or
  // zero_denominator_value), and the mean window state entropy.
  double reset_density = 0, state_entropy = 0;
  int64_t windows = 0, qps = 0;  // active QP-windows and distinct QPs
  std::string evidence;          // our features, shares of QP labels, and the seed's class
  bool seed_feature_informative = false;  // #(RTS->SQD) > 0 in at least half of the windows
  // Added: the parts of `evidence` as numbers.
  bool reset_density_defined = false;  // sum #(RTS->SQD) > 0
  double allreduce_share = 0, pipeline_share = 0;  // of labelled QPs
  double median_sync = 0;                          // median synchrony of labelled QPs (0 if none)
  SeedPatternClass seed_cls = SeedPatternClass::kUnclassified;  // the seed's thresholds applied to
                                                                // (reset_density, state_entropy)
};

// One QP's label and features (added beside the lead's API, for scoring and tests).
struct QpLabel {
  std::string host;
  uint32_t qp = 0;
  std::string job;          // the job the log gives for this QP (last seen), or empty
  std::string peer_group;   // "job:<id>", or "hosts:<first host>" for a group found from the data
  QpClass cls = QpClass::kSteady;
  int64_t windows = 0;      // active windows
  int64_t recreations = 0;  // RESET->INIT transitions
  double sync = 0;          // share of its re-creations that fall in batches (0 when none)
  double mean_entropy = 0;  // mean window state entropy (bits)
  double err_resets_per_window = 0;
  int cluster = -1;         // k-means cluster
};

struct QpPatternResult {
  std::vector<PatternReport> patterns;  // per job (when named), per host, then "all"
  std::vector<int> cluster_sizes;       // QPs per k-means cluster
  std::string note;  // e.g. "RTS->SQD never seen: the seed's reset density carries no
                     // information; classified by batch synchrony of QP re-creations"
  // Measured distributions beside the seed's thresholds: name -> quantiles {min, q25, median,
  // q75, max}. Names: "window_state_entropy_bits" (seed thresholds < 1.8 / > 2.6),
  // "window_reset_density_defined" (only windows with #(RTS->SQD) > 0; seed > 0.92 / < 0.35;
  // all zeros when none), "qp_sync", "qp_recreations", "window_err_resets".
  std::vector<std::pair<std::string, std::array<double, 5>>> feature_quantiles;
  // Added.
  std::vector<QpLabel> qps;               // per QP, sorted by (host, qp)
  std::vector<std::string> cluster_names;  // per cluster: the majority label of its QPs
  int64_t records = 0, illegal_transitions = 0, windows = 0;
  int64_t windows_ratio_defined = 0;      // windows with #(RTS->SQD) > 0
};

// Shannon entropy (bits) of the 64-cell distribution of a transition matrix; 0 when empty. Never fails.
double QpStateEntropyBits(const QpTransitionMatrix& m);
// #(ERR->RESET)/#(RTS->SQD); `zero_denominator_value` (and *defined = false) when the
// denominator is 0. `defined` may be null. Never fails.
double QpResetDensity(const QpTransitionMatrix& m, double zero_denominator_value, bool* defined);

// Streaming accumulator: memory grows with QPs x windows with transitions (one small entry per
// distinct transition of a QP in a window), not with the records. Records may come in any order.
class QpPatternAccumulator {
 public:
  // Options out of range are corrected: window_ns <= 0 becomes 10 ms, k < 1 becomes 1.
  explicit QpPatternAccumulator(QpPatternOptions o = {});
  // Adds one transition record. Never fails: illegal transitions are counted, not rejected.
  void Add(const formats::QpStateRecord& r);
  // Computes and returns the result (empty patterns and the note "no QP transitions" without
  // records); never fails. The accumulator may be reused only after being rebuilt.
  QpPatternResult Finish();
  // The per-window features, in (host, qp, window) order (for inspection and the simulator). Never
  // fails.
  [[nodiscard]] std::vector<QpWindowFeatures> Windows() const;

 private:
  struct Entry {
    int64_t window;
    uint8_t cell;  // from*8+to
    uint32_t count;
  };
  struct QpKey {
    std::string host;
    uint32_t qp;
    bool operator<(const QpKey& o) const { return host != o.host ? host < o.host : qp < o.qp; }
  };
  struct QpData {
    std::vector<Entry> entries;
    std::string job;
  };
  QpPatternOptions opt_;
  std::map<QpKey, QpData> qps_;
  int64_t records_ = 0, illegal_ = 0;
};

}  // namespace toposcope::analysis
