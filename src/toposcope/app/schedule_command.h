// app/schedule_command: `toposcope schedule` as library calls (issue 12 §1, EADPS).
//
// Replay (`schedule PATH... --out DIR`): loads the inputs, runs the passes the scheduler reads (rdma:
// per-link entropy windows; fabric, leaves, link weights, islands: hop counts for the re-order and
// the GPUs per host), replays every link's series of the watched estimator through act::EadpsMachine
// and, for each decision, computes its actions (act/eadps, act/ring_actions) and writes:
//   DIR/schedule.json            toposcope.schedule/1: options, decisions with evidence and actions
//   DIR/result.json              the passes' result (toposcope.result/1) with its "schedule" section
//   DIR/report.html              the HTML report of that result.json (report/html)
//   DIR/decision-<k>/hostfile, torchrun_hosts, slurm_hostfile, nccl_graph.xml, nccl.env
//
// Follow (`schedule --follow`): reads entropy windows as JSON lines on stdin (one object a line:
// "link", "window_start_ns" or "t_s", "window_ns" or "window_s", "bits", optionally "shown_bits",
// "estimator" — a line naming another estimator than the watched one is counted and skipped) and
// writes each decision as one JSON line the moment it fires (same fields as schedule.json's
// decisions). A bad line stops the stream with "<stdin>:LINE: reason".
//
// Only the job's ring segments are watched: links that carried at least one pair of ring neighbours
// of the job's order (links of other tenants' pairs are counted as off_ring_links).
// Segments: a host-pair link ("hostA~hostB") is that pair; a capture point ("capture:<point>") is
// every host pair whose flows the capture saw. A move_off keeps ring neighbours off every pair of
// the segments currently moved (act::ReorderAvoiding from the job's order: the hosts file, else the
// NCCL logs' ring, else every host named, sorted); a merge drops its segment from that set.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <map>
#include <set>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "toposcope/act/eadps.h"
#include "toposcope/base/result.h"

namespace toposcope::app {

struct ScheduleRequest {
  std::vector<std::string> paths;
  std::string out;                 // required for replay
  std::string hosts_file;          // the job's order as written; empty: NCCL rings, else names sorted
  act::EadpsOptions options;
  int64_t entropy_window_ns = 0;   // 0: chosen from the captures' span (analysis::AutoEntropyWindowNs)
  int qps_per_connection = 1;      // the job's current NCCL_IB_QPS_PER_CONNECTION
  int nchannels = 2;               // rings in the NCCL graph files
  int default_slots = 8;           // ranks of a host whose GPUs the inputs do not list
};

// The actions of one decision.
struct ScheduleAction {
  std::vector<std::string> order_before, order;  // ring order before and after the decision
  int64_t avoided_before = 0, avoided_after = 0; // ring neighbours on moved segments' pairs
  std::vector<std::pair<std::string, std::string>> segment_pairs;  // pairs the link carried
  std::vector<act::NcclSetting> nccl;
  std::vector<std::string> files;               // written, relative to DIR
};

struct ScheduledDecision {
  act::EadpsDecision decision;
  ScheduleAction action;
};

struct ScheduleOutcome {
  std::vector<ScheduledDecision> decisions;
  int64_t links = 0, windows = 0, first_ns = 0, last_ns = 0;
  int64_t window_ns = 0;
  int64_t skipped_windows = 0;     // windows with too few packets (not samples)
  int64_t off_ring_links = 0;      // links that carried no pair of ring neighbours (not watched)
  std::vector<std::string> order;  // the job's order the replay started from
  std::string order_source;        // "hostfile", "nccl_log" or "names"
  act::EadpsOptions options;
  std::vector<std::string> written;
};

// Plans the action of each decision in turn over an initial order. `pairs_of(link)` gives the host
// pairs a link carried; `edge_cost` may be empty; `inter_switch(link)` (may be empty) says whether
// the link is a cable between two switches (NCCL_CROSS_NIC's reason). Exposed for the simulator harness and tests.
class ActionPlanner {
 public:
  ActionPlanner(std::vector<std::string> order, int qps_per_connection,
                std::function<std::vector<std::pair<std::string, std::string>>(const std::string&)> pairs_of,
                std::function<double(const std::string&, const std::string&)> edge_cost,
                std::function<bool(const std::string&)> inter_switch = {});
  // The expected ring edges an order puts on the moved links' cables: a re-order never raises it
  // (leaving the observed pairs must not put more of the ring on the hot cables by other pairs).
  // Unset: no such guard.
  void SetLoadOf(std::function<double(const std::vector<std::string>&, const std::set<std::string>&)> load_of) {
    load_of_ = std::move(load_of);
  }
  ScheduleAction Plan(const act::EadpsDecision& d);
  // Decisions that fired at the same instant, planned as one re-order (each gets that order).
  std::vector<ScheduleAction> PlanBatch(const std::vector<act::EadpsDecision>& ds);
  [[nodiscard]] const std::vector<std::string>& order() const { return current_; }

 private:
  std::vector<std::string> initial_, current_;
  int qps_;
  std::function<std::vector<std::pair<std::string, std::string>>(const std::string&)> pairs_of_;
  std::function<double(const std::string&, const std::string&)> edge_cost_;
  std::function<bool(const std::string&)> inter_switch_;
  std::function<double(const std::vector<std::string>&, const std::set<std::string>&)> load_of_;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> moved_;
};

// Runs the replay. Fails with kUsage without paths or out or with bad options, kInput when the
// inputs hold no entropy series (no captures), an empty series, a single window per link or a
// non-finite value (named), kOutput when a file cannot be written.
Result<ScheduleOutcome> RunSchedule(const ScheduleRequest& req);

// Follows a stream of JSON lines from `in` (named `source` in messages), writing decision lines to
// `out` as they fire (flushed). Returns the number of decisions; fails (kInput) on a bad line
// ("<source>:LINE: reason"), on an empty stream, or when no link had two windows; kUsage on bad
// options or a hosts file that cannot be read.
Result<int64_t> FollowSchedule(const ScheduleRequest& req, std::istream& in, const std::string& source, std::ostream& out);

// One decision as JSON (schedule.json's decisions[] and the --follow lines). Never fails.
nlohmann::json ScheduledDecisionJson(const ScheduledDecision& d);
// result.json's "schedule" section / schedule.json's body. Never fails.
nlohmann::json ScheduleJson(const ScheduleOutcome& o);
// The terminal summary. Never fails.
std::string ScheduleText(const ScheduleOutcome& o);

}  // namespace toposcope::app
