#include "toposcope/act/eadps.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "toposcope/base/text.h"

namespace toposcope::act {
namespace {

int64_t SecondsToNs(double s) { return static_cast<int64_t>(std::llround(s * 1e9)); }

std::string BitsText(double b) { return std::isfinite(b) ? FormatFixed(b, 3) : std::string("nan"); }

void ExtendRun(bool in_run, int64_t start_ns, double bits, double shown, std::vector<int64_t>* w, std::vector<double>* b,
               std::vector<double>* s) {
  if (!in_run) {
    w->clear();
    b->clear();
    s->clear();
  }
  w->push_back(start_ns);
  b->push_back(bits);
  s->push_back(shown);
}

std::pair<std::string, std::string> Unordered(const std::string& a, const std::string& b) {
  return a < b ? std::make_pair(a, b) : std::make_pair(b, a);
}

}  // namespace

bool IsEntropyEstimatorName(const std::string& name) {
  return name == "message_size" || name == "flow_qp" || name == "seed_header" || name == "miller_madow_header";
}

Status ValidateEadpsOptions(const EadpsOptions& o) {
  auto bad = [](const std::string& m) { return MakeKindError(ErrorKind::kUsage, "schedule: " + m); };
  if (!IsEntropyEstimatorName(o.estimator)) {
    return bad("--estimator " + o.estimator + ": one of message_size, flow_qp, seed_header, miller_madow_header");
  }
  if (!o.shown_estimator.empty() && !IsEntropyEstimatorName(o.shown_estimator)) {
    return bad("--show-estimator " + o.shown_estimator + ": one of message_size, flow_qp, seed_header, miller_madow_header");
  }
  for (const double v : {o.jump_bits, o.hot_bits, o.hot_hold_s, o.cool_bits, o.cool_hold_s, o.hysteresis_bits,
                         o.cooldown_s, o.awake_s}) {
    if (!std::isfinite(v)) return bad("every threshold and time must be finite");
  }
  if (o.jump_bits < 0) return bad("--jump-bits must be >= 0");
  if (o.hysteresis_bits < 0) return bad("--hysteresis-bits must be >= 0");
  if (!(o.hot_bits > o.cool_bits + 2 * o.hysteresis_bits)) {
    return bad("--hot-bits must exceed --cool-bits + 2 x --hysteresis-bits (" + BitsText(o.hot_bits) + " <= " +
               BitsText(o.cool_bits) + " + 2 x " + BitsText(o.hysteresis_bits) + ")");
  }
  if (!(o.hot_hold_s > 0) || !(o.cool_hold_s > 0)) return bad("--hot-hold-s and --cool-hold-s must be > 0");
  if (o.cooldown_s < 0 || o.awake_s < 0) return bad("--cooldown-s and --awake-s must be >= 0");
  for (const double v : {o.hot_hold_s, o.cool_hold_s, o.cooldown_s, o.awake_s}) {
    if (v > 1e6) return bad("hold, cool-down and awake times must be at most 1e6 s");
  }
  for (const double v : {o.mark_fraction, o.mark_quiet_s, o.mark_hold_s, o.dip_fraction, o.flap_span_s}) {
    if (!std::isfinite(v) || v < 0 || v > 1e6) return bad("mark and flap options must be finite, >= 0 and at most 1e6");
  }
  if (o.mark_fraction > 1 || o.dip_fraction >= 1) return bad("--mark-fraction must be <= 1 and --dip-fraction < 1");
  if (o.mark_fraction > 0 && !(o.mark_hold_s > 0 && o.mark_quiet_s > 0)) return bad("--mark-hold-s and --mark-quiet-s must be > 0");
  if (o.flap_cycles < 0 || o.flap_cycles > 1000) return bad("--flap-cycles must be 0..1000");
  if (o.flap_cycles > 0 && !(o.dip_fraction > 0 && o.flap_span_s > 0)) return bad("--dip-fraction and --flap-span-s must be > 0");
  return {};
}

EadpsMachine::EadpsMachine(EadpsOptions opt) : opt_(std::move(opt)) {}

namespace {

int64_t MedianOf(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

std::optional<EadpsMachine::Hit> EadpsMachine::ObserveCounts(Counts& c, const EntropyPoint& p, int64_t prev_end_ns,
                                                              bool has_prev) const {
  const int64_t end_ns = p.window_start_ns + p.window_ns;
  const bool gap = has_prev && p.window_start_ns > prev_end_ns;
  std::optional<Hit> hit;
  // Dips and the cycles they make.
  if (opt_.flap_cycles > 0 && p.packets >= 0) {
    const bool ref_ok = c.recent.size() >= 4;
    const int64_t ref = ref_ok ? MedianOf(c.recent) : 0;
    const double line = opt_.dip_fraction * static_cast<double>(ref);
    if (gap && ref_ok && !c.in_dip) c.in_dip = true, c.dip_start_ns = prev_end_ns, c.dip_ref = ref;
    if (ref_ok && static_cast<double>(p.packets) < line) {
      if (!c.in_dip) c.in_dip = true, c.dip_start_ns = p.window_start_ns, c.dip_ref = ref;
    } else {
      if (c.in_dip) {
        c.cycles_ns.push_back(c.dip_start_ns);
        c.cycle_refs.push_back(c.dip_ref);
        c.in_dip = false;
      }
      c.recent.push_back(p.packets);
      if (c.recent.size() > 8) c.recent.erase(c.recent.begin());
    }
    const int64_t span_ns = SecondsToNs(opt_.flap_span_s);
    while (!c.cycles_ns.empty() && c.cycles_ns.front() < end_ns - span_ns) {
      c.cycles_ns.erase(c.cycles_ns.begin());
      c.cycle_refs.erase(c.cycle_refs.begin());
    }
    if (static_cast<int>(c.cycles_ns.size()) >= opt_.flap_cycles) {
      Hit h;
      h.rule = "flap_cycles", h.threshold = opt_.dip_fraction, h.hold = opt_.flap_span_s;
      h.start_ns = c.cycles_ns.front();
      h.held = static_cast<double>(end_ns - h.start_ns) / 1e9;
      h.windows = c.cycles_ns, h.packets = c.cycle_refs;
      h.marks.assign(h.windows.size(), -1);
      h.bits.assign(h.windows.size(), NAN), h.shown.assign(h.windows.size(), NAN);
      hit = std::move(h);
    }
  }
  // Marking episodes.
  if (opt_.mark_fraction > 0 && p.marks >= 0) {
    const bool marked = p.marks >= 1 && (p.packets <= 0 || static_cast<double>(p.marks) >=
                                                                opt_.mark_fraction * static_cast<double>(p.packets));
    const int64_t quiet_ns = SecondsToNs(opt_.mark_quiet_s);
    if (!has_prev) c.quiet_start_ns = p.window_start_ns;  // the link's first window starts its record
    if (!marked) {
      if (c.episode_start_ns >= 0 && end_ns - c.last_marked_end_ns >= quiet_ns) c.episode_start_ns = -1;
    } else {
      const int64_t quiet_since = c.last_marked_end_ns > 0 ? c.last_marked_end_ns : c.quiet_start_ns;
      const bool joins = c.episode_start_ns >= 0 && p.window_start_ns - c.last_marked_end_ns < quiet_ns;
      if (!joins) {
        c.episode_start_ns = p.window_start_ns;
        c.episode_onset = has_prev && quiet_since >= 0 && p.window_start_ns - quiet_since >= quiet_ns;
        c.episode = Run{};
        c.episode_packets.clear(), c.episode_marks.clear();
        c.episode.start_ns = p.window_start_ns;
      }
      c.episode.windows.push_back(p.window_start_ns);
      c.episode.bits.push_back(p.has_bits ? p.bits : NAN);
      c.episode.shown.push_back(p.shown_bits);
      c.episode_packets.push_back(p.packets);
      c.episode_marks.push_back(p.marks);
      c.last_marked_end_ns = end_ns;
      if (!hit && c.episode_onset && end_ns - c.episode_start_ns >= SecondsToNs(opt_.mark_hold_s)) {
        Hit h;
        h.rule = "mark_hold", h.threshold = opt_.mark_fraction, h.hold = opt_.mark_hold_s;
        h.start_ns = c.episode_start_ns;
        h.held = static_cast<double>(end_ns - h.start_ns) / 1e9;
        h.windows = c.episode.windows, h.bits = c.episode.bits, h.shown = c.episode.shown;
        h.packets = c.episode_packets, h.marks = c.episode_marks;
        hit = std::move(h);
      }
    }
  }
  return hit;
}

Result<std::vector<EadpsDecision>> EadpsMachine::Feed(const EntropyPoint& p) {
  if (p.has_bits && !std::isfinite(p.bits)) {
    return MakeKindError(ErrorKind::kInput, "link " + p.link + " window at " + std::to_string(p.window_start_ns) +
                                                " ns: entropy is " + BitsText(p.bits) + " (not a number of bits)");
  }
  if (p.window_ns <= 0) {
    return MakeKindError(ErrorKind::kInput, "link " + p.link + " window at " + std::to_string(p.window_start_ns) +
                                                " ns: window length must be > 0");
  }
  if (p.window_start_ns < 0 || p.window_start_ns > INT64_MAX / 2 - p.window_ns) {
    return MakeKindError(ErrorKind::kInput, "link " + p.link + ": window start " + std::to_string(p.window_start_ns) +
                                                " ns outside 0 .. 4.6e18");
  }
  LinkState& st = links_[p.link];
  if (st.has_prev && p.window_start_ns < st.prev_end_ns) {
    return MakeKindError(ErrorKind::kInput, "link " + p.link + " window at " + std::to_string(p.window_start_ns) +
                                                " ns starts before its previous window ended (" +
                                                std::to_string(st.prev_end_ns) + " ns): windows out of order or overlapping");
  }
  const int64_t end_ns = p.window_start_ns + p.window_ns;
  std::optional<Hit> physical = ObserveCounts(st.counts, p, st.prev_end_ns, st.has_prev);
  st.has_prev = true;
  st.prev_end_ns = end_ns;
  if (p.has_bits) {
    const bool contiguous = st.has_bits_prev && p.window_start_ns == st.bits_prev_end_ns;
    // Wake on a jump between consecutive windows of the link.
    if (contiguous && std::fabs(p.bits - st.prev_bits) > opt_.jump_bits) {
      st.awake_until_ns = end_ns + SecondsToNs(opt_.awake_s);
      st.wake_ns = p.window_start_ns;
      st.wake_jump = p.bits - st.prev_bits;
    }
    // Runs (a gap in the windows ends them).
    const bool hot_cont = contiguous && st.hot.start_ns >= 0;
    const bool cool_cont = contiguous && st.cool.start_ns >= 0;
    const bool hot_on = hot_cont ? p.bits > opt_.hot_bits - opt_.hysteresis_bits : p.bits > opt_.hot_bits;
    const bool cool_on = cool_cont ? p.bits < opt_.cool_bits + opt_.hysteresis_bits : p.bits < opt_.cool_bits;
    if (hot_on) {
      if (!hot_cont) st.hot.start_ns = p.window_start_ns;
      ExtendRun(hot_cont, p.window_start_ns, p.bits, p.shown_bits, &st.hot.windows, &st.hot.bits, &st.hot.shown);
    } else {
      st.hot = Run{};
    }
    if (cool_on) {
      if (!cool_cont) st.cool.start_ns = p.window_start_ns;
      ExtendRun(cool_cont, p.window_start_ns, p.bits, p.shown_bits, &st.cool.windows, &st.cool.bits, &st.cool.shown);
    } else {
      st.cool = Run{};
    }
    st.has_bits_prev = true;
    st.prev_bits = p.bits;
    st.bits_prev_end_ns = end_ns;
  } else {
    st.hot = Run{};
    st.cool = Run{};
  }

  std::vector<EadpsDecision> out;
  const bool awake = st.awake_until_ns >= end_ns;
  const bool cooled = st.last_decision_ns == INT64_MIN || end_ns - st.last_decision_ns >= SecondsToNs(opt_.cooldown_s);
  if (!cooled) return out;
  Hit h;
  std::string action;
  if (!st.moved && physical) {
    h = std::move(*physical), action = "move_off";
  } else if (awake && !st.moved && st.hot.start_ns >= 0 && end_ns - st.hot.start_ns >= SecondsToNs(opt_.hot_hold_s)) {
    h.rule = "hot_hold", h.threshold = opt_.hot_bits, h.hold = opt_.hot_hold_s, h.start_ns = st.hot.start_ns;
    h.windows = st.hot.windows, h.bits = st.hot.bits, h.shown = st.hot.shown, action = "move_off";
  } else if (awake && st.moved && st.cool.start_ns >= 0 && end_ns - st.cool.start_ns >= SecondsToNs(opt_.cool_hold_s)) {
    h.rule = "cool_hold", h.threshold = opt_.cool_bits, h.hold = opt_.cool_hold_s, h.start_ns = st.cool.start_ns;
    h.windows = st.cool.windows, h.bits = st.cool.bits, h.shown = st.cool.shown, action = "merge";
  } else {
    return out;
  }
  if (h.packets.empty()) h.packets.assign(h.windows.size(), -1), h.marks.assign(h.windows.size(), -1);
  EadpsDecision d;
  d.index = next_index_++;
  d.t_ns = end_ns;
  d.action = action;
  DecisionEvidence& e = d.evidence;
  e.link = p.link;
  e.rule = h.rule;
  e.estimator = opt_.estimator;
  e.shown_estimator = opt_.shown_estimator;
  e.threshold_bits = h.threshold;
  e.hold_s = h.hold;
  e.held_s = static_cast<double>(end_ns - h.start_ns) / 1e9;
  e.wake_ns = st.wake_ns;
  e.wake_jump_bits = st.wake_jump;
  e.run_start_ns = h.start_ns;
  e.windows_ns = std::move(h.windows);
  e.bits = std::move(h.bits);
  e.shown_bits = std::move(h.shown);
  e.packets = std::move(h.packets);
  e.marks = std::move(h.marks);
  st.moved = action == "move_off";
  st.last_decision_ns = end_ns;
  st.awake_until_ns = -1;
  st.hot = Run{};
  st.cool = Run{};
  st.counts.cycles_ns.clear(), st.counts.cycle_refs.clear();
  st.counts.episode_onset = false;
  out.push_back(std::move(d));
  return out;
}

std::vector<std::string> EadpsMachine::MovedLinks() const {
  std::vector<std::string> out;
  for (const auto& [link, st] : links_) {
    if (st.moved) out.push_back(link);
  }
  return out;
}

Result<ScheduleReplay> ReplaySchedule(std::vector<EntropyPoint> points, const EadpsOptions& opt) {
  if (Status st = ValidateEadpsOptions(opt); !st.ok()) return st.error();
  if (points.empty()) return MakeKindError(ErrorKind::kInput, "schedule: the entropy series is empty (no link has a window)");
  std::sort(points.begin(), points.end(), [](const EntropyPoint& a, const EntropyPoint& b) {
    return std::tie(a.window_start_ns, a.link) < std::tie(b.window_start_ns, b.link);
  });
  std::map<std::string, int64_t> per_link;
  for (size_t i = 0; i < points.size(); ++i) {
    const EntropyPoint& p = points[i];
    if (p.has_bits && !std::isfinite(p.bits)) {
      return MakeKindError(ErrorKind::kInput, "schedule: link " + p.link + " window at " +
                                                  std::to_string(p.window_start_ns) + " ns: entropy is " + BitsText(p.bits));
    }
    if (i > 0 && points[i - 1].link == p.link && points[i - 1].window_start_ns == p.window_start_ns) {
      return MakeKindError(ErrorKind::kInput, "schedule: link " + p.link + " has two windows at " +
                                                  std::to_string(p.window_start_ns) + " ns");
    }
    ++per_link[p.link];
  }
  bool any_series = false;
  for (const auto& [link, n] : per_link) any_series = any_series || n >= 2;
  if (!any_series) {
    return MakeKindError(ErrorKind::kInput, "schedule: every link has a single window (" +
                                                std::to_string(per_link.size()) +
                                                " links): no change between windows to watch; use a longer capture or a shorter window");
  }
  ScheduleReplay out;
  out.links = static_cast<int64_t>(per_link.size());
  out.windows = static_cast<int64_t>(points.size());
  out.first_ns = points.front().window_start_ns;
  out.last_ns = points.front().window_start_ns;
  EadpsMachine m(opt);
  for (const EntropyPoint& p : points) {
    out.last_ns = std::max(out.last_ns, p.window_start_ns + p.window_ns);
    Result<std::vector<EadpsDecision>> d = m.Feed(p);
    if (!d.ok()) return MakeKindError(ErrorKind::kInput, "schedule: " + d.error().message);
    for (EadpsDecision& x : *d) out.decisions.push_back(std::move(x));
  }
  return out;
}

int64_t AvoidedNeighbours(const std::vector<std::string>& order,
                          const std::set<std::pair<std::string, std::string>>& avoid) {
  int64_t n = 0;
  if (order.size() < 2) return 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const std::string& a = order[i];
    const std::string& b = order[(i + 1) % order.size()];
    n += avoid.count(Unordered(a, b)) > 0 ? 1 : 0;
    if (order.size() == 2) break;
  }
  return n;
}

namespace {

struct OrderScore {
  double penalty = 0;
  int64_t bad = 0;
  double cost = 0;
  int64_t moved = 0;
  bool operator<(const OrderScore& o) const {
    if (std::fabs(penalty - o.penalty) > 1e-9) return penalty < o.penalty;
    if (bad != o.bad) return bad < o.bad;
    if (std::fabs(cost - o.cost) > 1e-9) return cost < o.cost;
    return moved < o.moved;
  }
};

OrderScore ScoreOrder(const std::vector<std::string>& order, const std::vector<std::string>& original,
                      const std::set<std::pair<std::string, std::string>>& avoid,
                      const std::function<double(const std::string&, const std::string&)>& edge_cost,
                      const std::function<double(const std::vector<std::string>&)>& order_penalty) {
  OrderScore s;
  s.penalty = order_penalty ? order_penalty(order) : 0;
  s.bad = AvoidedNeighbours(order, avoid);
  for (size_t i = 0; i < order.size(); ++i) {
    s.cost += edge_cost ? edge_cost(order[i], order[(i + 1) % order.size()]) : 1.0;
    s.moved += order[i] != original[i] ? 1 : 0;
  }
  return s;
}

}  // namespace

std::vector<std::string> ReorderAvoiding(const std::vector<std::string>& order,
                                         const std::set<std::pair<std::string, std::string>>& avoid,
                                         const std::function<double(const std::string&, const std::string&)>& edge_cost,
                                         const std::function<double(const std::vector<std::string>&)>& order_penalty) {
  std::vector<std::string> cur = order;
  const size_t n = cur.size();
  if (n < 4 || AvoidedNeighbours(cur, avoid) == 0) return cur;
  OrderScore best = ScoreOrder(cur, order, avoid, edge_cost, order_penalty);
  for (int round = 0; round < static_cast<int>(n) && best.bad > 0; ++round) {
    std::vector<std::string> best_order;
    OrderScore best_try = best;
    // Only moves that break an avoided neighbour pair (positions b, b+1) can help: reversing
    // cur[i..j] breaks the edges (i-1, i) and (j, j+1); moving the host at b or b+1 breaks its two.
    auto consider = [&](std::vector<std::string> t) {
      const OrderScore s = ScoreOrder(t, order, avoid, edge_cost, order_penalty);
      if (s < best_try) best_try = s, best_order = std::move(t);
    };
    for (size_t b = 0; b < n; ++b) {
      if (avoid.count(Unordered(cur[b], cur[(b + 1) % n])) == 0) continue;
      for (size_t k = 1; k < n; ++k) {
        // Reverse cur[b+1 .. k] or cur[k .. b] (position 0 stays first).
        const size_t lo = b + 1 <= k ? b + 1 : k, hi = b + 1 <= k ? k : b;
        if (lo >= 1 && lo < hi && hi < n) {
          std::vector<std::string> t = cur;
          std::reverse(t.begin() + static_cast<std::ptrdiff_t>(lo), t.begin() + static_cast<std::ptrdiff_t>(hi) + 1);
          consider(std::move(t));
        }
        for (const size_t from : {b, (b + 1) % n}) {
          if (from == 0 || from == k) continue;
          std::vector<std::string> t = cur;
          std::string h = t[from];
          t.erase(t.begin() + static_cast<std::ptrdiff_t>(from));
          t.insert(t.begin() + static_cast<std::ptrdiff_t>(k), h);
          consider(std::move(t));
        }
      }
    }
    if (best_order.empty() || best_try.bad >= best.bad || best_try.penalty > best.penalty + 1e-9) break;
    cur = std::move(best_order);
    best = best_try;
  }
  return cur;
}

std::vector<NcclSetting> NcclSettingsFor(const std::string& action, const SegmentView& seg, int current_qps) {
  std::vector<NcclSetting> out;
  const int qps = std::max(1, current_qps);
  const bool nic_port = !seg.nic_host.empty();
  if (action == "move_off") {
    const int raised = std::max(4, 2 * qps);
    out.push_back({"NCCL_IB_QPS_PER_CONNECTION", std::to_string(raised), true,
                   "each QP of a connection has its own UDP source port, the only field RoCEv2 ECMP hashes: " +
                       std::to_string(raised) + " QPs instead of " + std::to_string(qps) +
                       " spread a ring hop over more paths, so less of it stays on the hot segment"});
    out.push_back({"NCCL_IB_SPLIT_DATA_ON_QPS", "1", true,
                   "split every message evenly over the connection's QPs (0 sends whole messages on one QP in turn), so "
                   "no single path carries a whole message"});
    if (nic_port) {
      out.push_back({"NCCL_CROSS_NIC", "1", true,
                     "the hot segment is " + seg.nic_host + "'s NIC port: let a ring leave a host by another NIC than it "
                     "entered by, so rings can avoid that port"});
      out.push_back({"NCCL_IB_HCA", "^=" + seg.nic_device, true,
                     "exclude " + seg.nic_device + " (its port on " + seg.nic_host + " is the hot segment); NCCL_IB_HCA "
                     "applies to every host of the job, so set it in " + seg.nic_host + "'s environment only if the "
                     "launcher allows per-host variables"});
    } else {
      out.push_back({"NCCL_CROSS_NIC", seg.inter_switch ? "0" : "", seg.inter_switch,
                     seg.inter_switch ? "the hot segment is a cable between switches: keep each ring on one rail (the "
                                        "same NIC on every host) so rings on a rail-optimised fabric stay under their "
                                        "rail's leaves instead of crossing the spine"
                                      : "left as it is: the hot segment is a host pair, which the new rank order avoids"});
      out.push_back({"NCCL_IB_HCA", "", false, "left as it is: the hot segment is not one host's NIC port"});
    }
  } else {
    out.push_back({"NCCL_IB_QPS_PER_CONNECTION", std::to_string(qps), true,
                   "the segment is quiet again: back to " + std::to_string(qps) + " QPs per connection (fewer QPs, less "
                   "NIC state)"});
    out.push_back({"NCCL_IB_SPLIT_DATA_ON_QPS", "0", true, "back to NCCL's default (round-robin messages over QPs)"});
    out.push_back({"NCCL_CROSS_NIC", "", false, "unset: back to NCCL's default"});
    out.push_back({"NCCL_IB_HCA", "", false, "unset: every NIC usable again"});
  }
  return out;
}

}  // namespace toposcope::act
