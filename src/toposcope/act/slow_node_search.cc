#include "toposcope/act/slow_node_search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>
#include <utility>

#include "toposcope/stats/order_stats.h"

namespace toposcope::act {

namespace {

// P(Z <= x) for a standard normal Z.
double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// The normal sigma of |x - y| / mean for two draws of one run: median |x - y| = 0.954 sigma
// (sqrt(2) x Phi^-1(3/4)).
constexpr double kPairMedianToSigma = 1.0 / 0.9539;

std::string Num(double v, int digits = 2) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

const char* RunVerdictName(RunVerdict v) {
  switch (v) {
    case RunVerdict::kPending: return "pending";
    case RunVerdict::kHealthy: return "healthy";
    case RunVerdict::kSlow: return "slow";
    case RunVerdict::kBorderline: return "borderline";
  }
  return "pending";
}

Result<SlowNodeSearch> SlowNodeSearch::Create(std::vector<std::string> hosts, const std::vector<SlowNodePrior>& priors,
                                              const SlowNodeSearchOptions& opt) {
  auto usage = [](std::string m) { return MakeKindError(ErrorKind::kUsage, std::move(m)); };
  if (hosts.size() < 2) return usage("slow-node search: at least 2 hosts are needed (a run needs 2), got " +
                                     std::to_string(hosts.size()));
  std::set<std::string> seen;
  for (const std::string& h : hosts) {
    if (h.empty()) return usage("slow-node search: an empty host name");
    if (!seen.insert(h).second) return usage("slow-node search: host '" + h + "' is listed twice");
  }
  if (opt.screen_groups < 1 || !(opt.healthy_sigmas > 0) || !(opt.slow_sigmas > opt.healthy_sigmas) ||
      opt.max_repeats < 0 || !(opt.noise_floor_rel > 0 && opt.noise_floor_rel < 1) || opt.max_runs < 0) {
    return usage("slow-node search: options out of range");
  }
  SlowNodeSearch s;
  s.hosts_ = std::move(hosts);
  s.opt_ = opt;
  const int n = static_cast<int>(s.hosts_.size());
  if (s.opt_.max_runs == 0) s.opt_.max_runs = 4 * n + 16;
  s.prior_.assign(n, 1.0 / n);
  for (const SlowNodePrior& p : priors) {
    if (!(p.prior > 0 && p.prior < 1)) {
      return usage("slow-node search: prior " + Num(p.prior, 4) + " of host '" + p.host + "' is not in (0, 1)");
    }
    const auto it = std::find(s.hosts_.begin(), s.hosts_.end(), p.host);
    if (it == s.hosts_.end()) {
      s.notes_.push_back("evidence on " + p.host + " ignored: not among the hosts searched");
      continue;
    }
    s.prior_[it - s.hosts_.begin()] = std::max(s.prior_[it - s.hosts_.begin()], p.prior);
    if (!p.evidence.empty()) s.notes_.push_back("prior " + Num(p.prior, 3) + " on " + p.host + ": " + p.evidence);
  }
  s.host_state_.assign(n, 0);
  s.round_ = 1;
  s.PlanScreen();
  return s;
}

double SlowNodeSearch::Mass(const std::vector<int>& members) const {
  double m = 0;
  for (int i : members) m += prior_[i];
  return m;
}

// Groups of equal prior mass, each of >= 2 hosts, suspects first.
void SlowNodeSearch::PlanScreen() {
  const int n = static_cast<int>(hosts_.size());
  const int m = std::max(1, std::min(opt_.screen_groups, n / 2));
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return prior_[a] > prior_[b]; });
  std::vector<std::vector<int>> screens;
  std::vector<int> cur;
  double remaining = Mass(order), cur_mass = 0;
  double target = remaining / m;
  for (int pos = 0; pos < n; ++pos) {
    cur.push_back(order[pos]);
    cur_mass += prior_[order[pos]];
    const int left = n - pos - 1;
    if (cur.size() >= 2 && cur_mass >= target * (1 - 1e-9) && static_cast<int>(screens.size()) + 1 < m && left >= 2) {
      screens.push_back(std::move(cur));
      cur.clear();
      remaining -= cur_mass;
      cur_mass = 0;
      target = remaining / (m - static_cast<int>(screens.size()));
    }
  }
  if (!cur.empty()) screens.push_back(std::move(cur));
  for (size_t i = 0; i < screens.size(); ++i) {
    Group g;
    g.members = std::move(screens[i]);
    g.screen = static_cast<int>(groups_.size());
    groups_.push_back(std::move(g));
    PlanTest(static_cast<int>(groups_.size()) - 1,
             "screen " + std::to_string(i + 1) + "/" + std::to_string(screens.size()));
  }
}

int SlowNodeSearch::Partner(int exclude) const {
  for (size_t i = 0; i < hosts_.size(); ++i) {
    if (host_state_[i] == 1 && static_cast<int>(i) != exclude) return static_cast<int>(i);
  }
  int best = -1;  // nobody cleared yet: the least suspect other host
  for (size_t i = 0; i < hosts_.size(); ++i) {
    if (static_cast<int>(i) == exclude || host_state_[i] == 2) continue;
    if (best < 0 || prior_[i] < prior_[best]) best = static_cast<int>(i);
  }
  return best;
}

void SlowNodeSearch::PlanTest(int gi, const std::string& reason) {
  if (static_cast<int>(runs_.size()) >= opt_.max_runs) {
    if (!budget_spent_) notes_.push_back("run budget of " + std::to_string(opt_.max_runs) + " spent");
    budget_spent_ = true;
    return;
  }
  Group& g = groups_[gi];
  RunRecord r;
  r.plan.id = static_cast<int>(runs_.size()) + 1;
  r.plan.round = round_;
  r.plan.reason = reason;
  for (int i : g.members) r.plan.tested.push_back(hosts_[i]);
  r.plan.hosts = r.plan.tested;
  if (g.members.size() == 1) {
    const int p = Partner(g.members[0]);
    if (p < 0) {
      notes_.push_back("no partner host to run " + hosts_[g.members[0]] + " with");
      return;
    }
    r.plan.hosts.push_back(hosts_[p]);
    r.plan.reason += ", with known-good " + hosts_[p];
  }
  std::sort(r.plan.hosts.begin(), r.plan.hosts.end());
  std::sort(r.plan.tested.begin(), r.plan.tested.end());
  g.state = GroupState::kTesting;
  g.runs.push_back(r.plan.id);
  runs_.push_back(std::move(r));
  run_group_.push_back(gi);
}

std::vector<PlannedRun> SlowNodeSearch::Pending() const {
  std::vector<PlannedRun> out;
  for (const RunRecord& r : runs_) {
    if (!r.observed) out.push_back(r.plan);
  }
  return out;
}

bool SlowNodeSearch::Done() const { return Pending().empty(); }

Status SlowNodeSearch::Observe(const RunObservation& obs) {
  if (obs.id < 1 || obs.id > static_cast<int>(runs_.size()) || runs_[obs.id - 1].observed) {
    return MakeError(obs.source, 0, 0, "run " + std::to_string(obs.id) + " is not a pending run of the search");
  }
  if (!obs.failed && !(std::isfinite(obs.busbw_gbps) && obs.busbw_gbps >= 0)) {
    return MakeError(obs.source, 0, 0, "run " + std::to_string(obs.id) + ": bus bandwidth " +
                                           Num(obs.busbw_gbps) + " is not a finite, non-negative number");
  }
  RunRecord& r = runs_[obs.id - 1];
  r.observed = true;
  r.observation = obs;
  if (Done()) AdvanceRound();
  return {};
}

// The healthy level and the noise from every reading so far: the median and spread of the top
// cluster (readings within healthy_sigmas of its median), the noise floored by the runs' own
// out-of-place / in-place spread and by the precision floor.
void SlowNodeSearch::Calibrate() {
  std::vector<double> vals, spreads;
  for (const RunRecord& r : runs_) {
    if (!r.observed || r.observation.failed) continue;
    vals.push_back(r.observation.busbw_gbps);
    if (r.observation.spread_rel >= 0) spreads.push_back(r.observation.spread_rel);
  }
  double floor = opt_.noise_floor_rel;
  if (!spreads.empty()) floor = std::max(floor, stats::Median(spreads) * kPairMedianToSigma);
  if (vals.empty()) {
    healthy_gbps_ = 0;
    noise_rel_ = floor;
    return;
  }
  double ref = *std::max_element(vals.begin(), vals.end());
  double noise = floor;
  for (int it = 0; it < 20; ++it) {
    std::vector<double> top;
    for (double v : vals) {
      if ((ref - v) / (noise * ref) < opt_.healthy_sigmas) top.push_back(v);
    }
    const double med = stats::Median(top);
    std::vector<double> dev;
    for (double v : top) dev.push_back(std::fabs(v - med) / med);
    const double next_noise = std::max(floor, stats::kMadToSigma * stats::Median(dev));
    const bool same = med == ref && next_noise == noise;
    ref = med;
    noise = next_noise;
    if (same) break;
  }
  healthy_gbps_ = ref;
  noise_rel_ = noise;
}

RunVerdict SlowNodeSearch::Classify(const Group& g, double& sigmas) const {
  std::vector<double> vals;
  for (int id : g.runs) {
    const RunRecord& r = runs_[id - 1];
    if (r.observation.failed) {
      sigmas = NAN;
      return RunVerdict::kSlow;
    }
    vals.push_back(r.observation.busbw_gbps);
  }
  if (!(healthy_gbps_ > 0)) {
    sigmas = 0;
    return RunVerdict::kHealthy;  // every reading is zero: nothing to tell apart
  }
  sigmas = (healthy_gbps_ - stats::Median(vals)) / (noise_rel_ * healthy_gbps_);
  if (sigmas < opt_.healthy_sigmas) return RunVerdict::kHealthy;
  if (sigmas >= opt_.slow_sigmas) return RunVerdict::kSlow;
  return RunVerdict::kBorderline;
}

void SlowNodeSearch::AdvanceRound() {
  Calibrate();
  ++round_;
  std::vector<int> testing;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    if (groups_[gi].state == GroupState::kTesting) testing.push_back(static_cast<int>(gi));
  }
  const double mid = 0.5 * (opt_.healthy_sigmas + opt_.slow_sigmas);
  for (int gi : testing) {
    double sigmas = 0;
    RunVerdict v = Classify(groups_[gi], sigmas);
    const int last = groups_[gi].runs.back();
    runs_[last - 1].sigmas_below = sigmas;
    runs_[last - 1].verdict = v;
    const int readings = static_cast<int>(groups_[gi].runs.size());
    if (v == RunVerdict::kBorderline && readings <= opt_.max_repeats) {
      PlanTest(gi, "repeat of run " + std::to_string(last) + " (borderline: " + Num(sigmas, 1) +
                       " sigmas below the healthy level)");
      continue;
    }
    if (v == RunVerdict::kBorderline) {
      v = sigmas >= mid ? RunVerdict::kSlow : RunVerdict::kHealthy;
      notes_.push_back("run " + std::to_string(last) + " stayed borderline after " + std::to_string(readings) +
                       " readings (" + Num(sigmas, 1) + " sigmas below): taken as " + RunVerdictName(v));
    }
    if (std::isfinite(sigmas)) {
      log_confidence_ += std::log(NormalCdf(std::fabs(sigmas - mid) * std::sqrt(static_cast<double>(readings))));
    }
    Decide(gi, v == RunVerdict::kSlow);
  }
}

void SlowNodeSearch::Decide(int gi, bool slow) {
  const int parent = groups_[gi].parent, sibling = groups_[gi].sibling;
  if (!slow) {
    groups_[gi].state = GroupState::kHealthy;
    for (int i : groups_[gi].members) {
      if (host_state_[i] == 0) host_state_[i] = 1;
    }
    if (groups_[gi].confirm) {
      notes_.push_back(hosts_[groups_[gi].members[0]] + " was inferred slow but read healthy with a known-good host (run " +
                       std::to_string(groups_[gi].runs.back()) + ")");
      PlanRest(gi, true);
      return;
    }
    if (parent >= 0 && groups_[sibling].state == GroupState::kWaiting) {
      groups_[sibling].state = GroupState::kInferred;  // the parent is slow and this half is not
      if (groups_[sibling].members.size() == 1) {
        groups_[sibling].confirm = true;
        PlanTest(sibling, "confirm " + hosts_[groups_[sibling].members[0]] + " (inferred slow: run " +
                              std::to_string(groups_[gi].runs.back()) + " cleared its other half)");
      } else {
        SplitAndPlan(sibling);
      }
    }
    return;
  }
  groups_[gi].state = GroupState::kSlow;
  if (groups_[gi].members.size() == 1) {
    host_state_[groups_[gi].members[0]] = 2;
    PlanRest(gi, false);
  } else {
    SplitAndPlan(gi);  // the other half waits: it is run with the rest of the screen group later
  }
}

// Splits a slow (or inferred slow) group in two at equal prior mass and runs the lighter half.
void SlowNodeSearch::SplitAndPlan(int gi) {
  std::vector<int> members = groups_[gi].members;
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) { return prior_[a] > prior_[b]; });
  const double total = Mass(members);
  std::vector<int> a, b;
  double ma = 0;
  for (size_t k = 0; k < members.size(); ++k) {
    const bool room_for_b = members.size() - k > 1 || !b.empty();
    if (a.empty() || (ma < total / 2 * (1 - 1e-9) && room_for_b)) {
      a.push_back(members[k]);
      ma += prior_[members[k]];
    } else {
      b.push_back(members[k]);
    }
  }
  const int ia = static_cast<int>(groups_.size()), ib = ia + 1;
  const int screen = groups_[gi].screen;
  const std::string why = groups_[gi].state == GroupState::kInferred ? "inferred slow" : "slow";
  for (auto* part : {&a, &b}) {
    Group g;
    g.members = *part;
    g.parent = gi;
    g.screen = screen;
    groups_.push_back(std::move(g));
  }
  groups_[ia].sibling = ib;
  groups_[ib].sibling = ia;
  const int lighter = Mass(b) <= ma ? ib : ia;
  PlanTest(lighter, "lighter half of a " + why + " group of " + std::to_string(members.size()) + " hosts");
}

// A chain of halvings ended (a host named, or an inferred host cleared): runs the hosts of the
// screen group no run has cleared or named yet (the halves left waiting) as one group. Healthy:
// the screen group is done; slow: it holds another slow host (or a reading was wrong) and is split.
void SlowNodeSearch::PlanRest(int gi, bool contradiction) {
  const int screen = groups_[gi].screen;
  std::set<int> busy;
  for (const Group& g : groups_) {
    if (g.state == GroupState::kTesting) busy.insert(g.members.begin(), g.members.end());
  }
  for (Group& g : groups_) {
    if (g.screen == screen && g.state == GroupState::kWaiting) g.state = GroupState::kMerged;  // run below
  }
  Group g;
  for (int i : groups_[screen].members) {
    if (host_state_[i] == 0 && !busy.count(i)) g.members.push_back(i);
  }
  if (g.members.empty()) {
    if (contradiction) {
      notes_.push_back("screen run " + std::to_string(groups_[screen].runs.front()) +
                       " read slow, but no host of it is slow alone: a transient, or a slow link between two of them");
    }
    return;
  }
  g.screen = screen;
  groups_.push_back(std::move(g));
  PlanTest(static_cast<int>(groups_.size()) - 1, "rest of screen group " + std::to_string(screen + 1) + " (" +
                                                     std::to_string(groups_.back().members.size()) +
                                                     " hosts no run has cleared or named)");
}

SlowNodeAnswer SlowNodeSearch::Answer() const {
  SlowNodeAnswer a;
  a.done = Done();
  for (size_t i = 0; i < hosts_.size(); ++i) {
    if (host_state_[i] == 2) a.slow.push_back(hosts_[i]);
    if (host_state_[i] == 0 && a.done) a.unresolved.push_back(hosts_[i]);
  }
  std::sort(a.slow.begin(), a.slow.end());
  std::sort(a.unresolved.begin(), a.unresolved.end());
  for (const RunRecord& r : runs_) a.runs += r.observed ? 1 : 0;
  a.rounds = round_ - (a.done ? 1 : 0);
  a.healthy_busbw_gbps = healthy_gbps_;
  a.noise_rel = noise_rel_;
  a.healthy_above_gbps = healthy_gbps_ * (1 - opt_.healthy_sigmas * noise_rel_);
  a.slow_below_gbps = healthy_gbps_ * (1 - opt_.slow_sigmas * noise_rel_);
  a.confidence = a.done && a.unresolved.empty() ? std::exp(log_confidence_) : 0.0;
  a.notes = notes_;
  return a;
}

}  // namespace toposcope::act
