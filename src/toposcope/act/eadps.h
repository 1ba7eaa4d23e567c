// act/eadps: the entropy-aware dynamic path scheduler (EADPS, seed §1 trigger logic; issue 12 §1).
// A state machine over per-link entropy time series decides when to move a job's ring traffic off a
// segment and when to merge it back; the actions it proposes are a new rank order (ring neighbours
// off the hot segment) and NCCL settings, each with its reason. Decisions are plain data: app/
// writes the files a user applies (act/ring_actions) and report/ renders them.
//
// The state machine, per link (one series per link, windows in time order):
//  - wake: the watched entropy changes by more than jump_bits between two consecutive windows of
//    the link (seed: 0.15 bit). Only an awake link decides; it stays awake for awake_s after the
//    last jump, or until it decides.
//  - hot run: starts at a window whose entropy is above hot_bits (seed: 2.5 bit/symbol) and
//    continues while the entropy stays above hot_bits - hysteresis_bits. When a hot run has lasted
//    hot_hold_s (seed: 3 s; measured from the run's first window start to the current window's end)
//    on an awake link whose traffic is not already moved, the decision is "move_off".
//  - cool run: starts below cool_bits (seed: 1.8 bit/symbol), continues while below
//    cool_bits + hysteresis_bits; after cool_hold_s (seed: 5 s) on an awake link whose traffic was
//    moved off, the decision is "merge" (the backup segment is redundant again: traffic goes back).
//    A link never moved is never merged: a quiet link is the normal state, not an event.
//  - cool-down: after a decision on a link, none on the same link for cooldown_s.
// A window without a sample (too few packets) ends both runs. NaN or infinite entropy is an error
// of the input, never a state.
//
// Two faults do not change the mix of a segment's traffic, so no entropy threshold sees them; two
// physical rules over the same windows' packet and mark counts do (each a move_off, same cool-down):
//  - mark_hold (a congested queue: a degraded cable, foreign traffic): a window is marked when the
//    packets a congested queue marked first on this link (IP ECN CE / BTH FECN, see
//    analysis/traffic_entropy "new marks") are at least mark_fraction of its packets. A marking
//    episode is marked windows separated by fewer than mark_quiet_s of unmarked windows; it decides
//    when it began after at least mark_quiet_s without marks on the link (an onset: a link marked
//    since its first window is the steady state of its ECMP collisions, not an event) and has lasted
//    mark_hold_s, on a marked window.
//  - flap_cycles (a cable going down and up): a window is a dip when the link's packets fall below
//    dip_fraction of the median of its last 8 windows that were not dips (once it has 4; missing
//    windows between two of a link's windows have no packets, so they are dips); a dip followed by a
//    window back above that line is one cycle; flap_cycles cycles whose dips began within
//    flap_span_s decide.
//
// The entropy watched is named: "message_size" (default: message-size classes per window, our
// §3.1 estimator, which measures how many kinds of messages a segment carries) or "flow_qp";
// the seed's header estimator ("seed_header", which grows with the packet count of a window rather
// than with the traffic's determinism) or "miller_madow_header" can be chosen, and the estimator
// named by `shown_estimator` is carried beside the watched one in every decision's evidence.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/result.h"

namespace toposcope::act {

struct EadpsOptions {
  std::string estimator = "message_size";      // the entropy watched
  std::string shown_estimator = "seed_header"; // shown beside it in the evidence ("" for none)
  double jump_bits = 0.15;     // wake: |H(w) - H(w-1)| above this
  double hot_bits = 2.5;       // move off: above this ...
  double hot_hold_s = 3;       // ... held this long
  double cool_bits = 1.8;      // merge: below this ...
  double cool_hold_s = 5;      // ... held this long
  double hysteresis_bits = 0.1;  // a run continues within this margin past its threshold
  double cooldown_s = 10;      // no second decision on a link within this time
  double awake_s = 10;         // a woken link sleeps again this long after its last jump
  // Physical rules (see the file comment); mark_fraction 0 or flap_cycles 0 turns a rule off.
  double mark_fraction = 0.01; // a window is marked when its first-seen marks are this share of its packets
  double mark_quiet_s = 2;     // unmarked this long before an episode: an onset; shorter gaps join episodes
  double mark_hold_s = 3;      // an episode lasting this long decides
  double dip_fraction = 0.5;   // a window below this share of the link's recent median packets is a dip
  int flap_cycles = 3;         // dip-and-return cycles ...
  double flap_span_s = 10;     // ... whose dips began within this span decide
};

// Checks the options: thresholds finite, jump and hysteresis >= 0, hot_bits > cool_bits + 2 x
// hysteresis (the runs must not overlap), holds > 0, cooldown and awake >= 0, estimators named
// above. Returns ok or fails (kUsage) naming the option.
Status ValidateEadpsOptions(const EadpsOptions& o);
// The estimator names accepted: message_size, flow_qp, seed_header, miller_madow_header.
bool IsEntropyEstimatorName(const std::string& name);

// One window of one link's entropy.
struct EntropyPoint {
  std::string link;
  int64_t window_start_ns = 0;
  int64_t window_ns = 0;       // > 0
  double bits = 0;             // the watched estimator
  double shown_bits = NAN;     // the shown estimator (NaN when absent)
  int64_t packets = -1;        // -1: unknown
  int64_t marks = -1;          // congestion marks first seen on this link in the window; -1: unknown
  bool has_bits = true;        // false: too few packets for an entropy (counts only; ends the entropy runs)
};

// Why a decision fired.
struct DecisionEvidence {
  std::string link;
  std::string rule;              // "hot_hold", "cool_hold", "mark_hold" or "flap_cycles"
  std::string estimator, shown_estimator;
  double threshold_bits = 0;     // hot/cool rules; mark_hold: mark_fraction; flap_cycles: dip_fraction
  double hold_s = 0;             // the hold the rule needs
  double held_s = 0;             // how long the run had lasted
  int64_t wake_ns = 0;           // window start of the jump that woke the link
  double wake_jump_bits = 0;     // that jump (signed)
  int64_t run_start_ns = 0;      // first window of the run
  std::vector<int64_t> windows_ns;  // window starts of the run, in order
  std::vector<double> bits;         // the watched entropy of those windows
  std::vector<double> shown_bits;   // the shown one (NaN where absent)
  std::vector<int64_t> packets;     // packets of those windows (-1 unknown); flap_cycles: the windows
                                    // are the dips' starts and packets the link's median before them
  std::vector<int64_t> marks;       // first-seen marks of those windows (-1 unknown)
};

// One decision.
struct EadpsDecision {
  int index = 0;                 // 0, 1, ... in firing order
  int64_t t_ns = 0;              // when it fired: the end of the window that completed the hold
  std::string action;            // "move_off" or "merge"
  DecisionEvidence evidence;
};

// The streaming machine: feed windows of any links in time order per link; decisions come back
// as they fire. Deterministic: the same points in the same order give the same decisions.
class EadpsMachine {
 public:
  explicit EadpsMachine(EadpsOptions opt);
  // Feeds one window. Fails (kInput) on a non-finite entropy, a window_ns <= 0, or a window that
  // starts before the link's previous one ended (out of order or overlapping); the state is then
  // unchanged. Returns the decisions this window fired (zero or one).
  Result<std::vector<EadpsDecision>> Feed(const EntropyPoint& p);
  // Links whose traffic is currently moved off (sorted).
  [[nodiscard]] std::vector<std::string> MovedLinks() const;
  [[nodiscard]] const EadpsOptions& options() const { return opt_; }

 private:
  struct Run {
    int64_t start_ns = -1;
    std::vector<int64_t> windows;
    std::vector<double> bits, shown;
  };
  struct Counts {  // the physical rules' state
    std::vector<int64_t> recent;      // packets of the last non-dip windows (at most 8)
    bool in_dip = false;
    int64_t dip_start_ns = 0;
    int64_t dip_ref = 0;
    std::vector<int64_t> cycles_ns, cycle_refs;  // dips that came back, within the span
    int64_t quiet_start_ns = -1;      // start of the current unmarked stretch (-1: none seen yet)
    int64_t episode_start_ns = -1;    // current marking episode (-1: none)
    bool episode_onset = false;
    int64_t last_marked_end_ns = 0;
    Run episode;
    std::vector<int64_t> episode_packets, episode_marks;
  };
  struct Hit {
    std::string rule;
    double threshold = 0, hold = 0, held = 0;
    int64_t start_ns = 0;
    std::vector<int64_t> windows, packets, marks;
    std::vector<double> bits, shown;
  };
  std::optional<Hit> ObserveCounts(Counts& c, const EntropyPoint& p, int64_t prev_end_ns, bool has_prev) const;

  struct LinkState {
    bool has_prev = false;
    double prev_bits = 0;
    int64_t prev_end_ns = 0;
    bool has_bits_prev = false;
    int64_t bits_prev_end_ns = 0;
    Counts counts;
    int64_t awake_until_ns = -1;  // awake while window end <= this
    int64_t wake_ns = 0;
    double wake_jump = 0;
    Run hot, cool;
    int64_t last_decision_ns = INT64_MIN;
    bool moved = false;
  };
  EadpsOptions opt_;
  std::map<std::string, LinkState> links_;
  int next_index_ = 0;
};

// A whole series replayed: points sorted by (link, window start) are fed in time order across
// links (ties by link), so decisions come out in firing order.
struct ScheduleReplay {
  std::vector<EadpsDecision> decisions;
  int64_t links = 0, windows = 0;
  int64_t first_ns = 0, last_ns = 0;  // span of the windows
};
// Replays `points`. Fails (kInput) on an empty series, on a link none of whose windows follow
// another (every link has a single window: nothing to compare), on a non-finite value or duplicate
// window (the message names the link and window); kUsage on bad options.
Result<ScheduleReplay> ReplaySchedule(std::vector<EntropyPoint> points, const EadpsOptions& opt);

// The actions of a decision.
struct NcclSetting {
  std::string name;     // NCCL_IB_QPS_PER_CONNECTION, ...
  std::string value;    // "" when left as it is
  bool changed = false;
  std::string reason;
};

// Where a segment's traffic comes from: the host pairs (sorted a < b) whose traffic the link carried
// and, when the link is one host's NIC port, that host and NIC device.
struct SegmentView {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::string nic_host, nic_device;  // empty unless the link is a host's NIC port
  bool inter_switch = false;         // the link is a cable between two switches
};

// Re-orders a ring so that as few neighbours as possible are pairs in `avoid` (unordered), keeping
// the rest of the order: repeated 2-opt reversals and single-host moves, each chosen by (fewest
// avoided neighbours, lowest summed edge_cost, fewest hosts moved; ties by position). edge_cost
// may be empty (every edge 1). Returns the new order (the same order when nothing helps). Never
// fails; deterministic.
// `order_penalty` (may be empty) ranks before everything else: a move that raises it is never taken
// (the caller's guard, e.g. more ring edges on another cable than the busiest carries now).
std::vector<std::string> ReorderAvoiding(const std::vector<std::string>& order,
                                         const std::set<std::pair<std::string, std::string>>& avoid,
                                         const std::function<double(const std::string&, const std::string&)>& edge_cost,
                                         const std::function<double(const std::vector<std::string>&)>& order_penalty = {});

// Ring neighbours of `order` that are pairs in `avoid`. Never fails.
int64_t AvoidedNeighbours(const std::vector<std::string>& order,
                          const std::set<std::pair<std::string, std::string>>& avoid);

// The NCCL settings of a decision, with reasons: move_off raises NCCL_IB_QPS_PER_CONNECTION (to
// max(4, 2 x current)) and sets NCCL_IB_SPLIT_DATA_ON_QPS=1 so the connection's data spreads over
// more UDP source ports (ECMP re-hashes it), sets NCCL_CROSS_NIC=0 for an inter-switch segment (rings
// stay on their rail) or 1 for a host NIC port, and NCCL_IB_HCA=^<device> for a host NIC port;
// merge returns them to `current_qps` / defaults. Never fails.
std::vector<NcclSetting> NcclSettingsFor(const std::string& action, const SegmentView& seg, int current_qps);

}  // namespace toposcope::act
