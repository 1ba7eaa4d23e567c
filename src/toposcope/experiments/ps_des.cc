// experiments/ps_des: see the header.
#include "toposcope/experiments/ps_des.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <set>

#include "toposcope/act/training/async_barrier.h"
#include "toposcope/base/rng.h"

namespace toposcope::experiments {
namespace {

namespace tr = act::training;

enum class Ev : uint8_t { kCompute, kPush, kEpoch, kEpochAck, kAck, kDetect, kRoute, kPull, kPullAnswer };

struct Event {
  double t_us = 0;
  uint64_t seq = 0;
  Ev kind = Ev::kCompute;
  int32_t at = 0, from = 0, shard = 0;
  uint64_t step = 0;   // a step, an epoch number, a version or an epoch index
  int64_t extra = -1;  // an epoch's or a pull answer's index
};
struct Later {
  bool operator()(const Event& a, const Event& b) const {
    return a.t_us != b.t_us ? a.t_us > b.t_us : a.seq > b.seq;
  }
};

constexpr int64_t kHeader = 21;            // a frame's header (experiments/loopback_transport)
constexpr int64_t kHeartbeatBytes = 2 * (kHeader + 8);  // a ping and its pong
constexpr int64_t kRouteBytes = kHeader + 8 + 16;

struct Node {
  bool dead = false;
  double died_us = std::numeric_limits<double>::infinity();
  std::set<int> known_dead;
  std::map<int, tr::RouteEntry> routes;  // the shards this node knows moved
  std::map<int, tr::ShardCopy> copies;
  std::map<int, tr::CommitTracker> commits;
  std::map<int, std::map<uint64_t, std::vector<tr::UpdateId>>> to_ack;
  std::map<int, std::set<int>> pulls;  // shard -> replicas a new primary awaits
  std::map<int, std::set<uint64_t>> unacked;  // the worker's: shard -> steps
  int pending = 0, crash_step = -1;
  tr::EgressQueues egress;
};

class PsSim {
 public:
  PsSim(const PsDesOptions& o, tr::RttMatrix rtt) : o_(o), n_(o.nodes), rtt_(std::move(rtt)), nodes_(static_cast<size_t>(o.nodes)) {}
  PsDesResult Run();

 private:
  double Ow(int a, int b) const { return rtt_.At(a, b) / 2; }
  void Push(double t, Ev k, int at, int from, int shard, uint64_t step, int64_t extra = -1) {
    q_.push(Event{t, seq_++, k, at, from, shard, step, extra});
  }
  // Sends `bytes` from a to b at now: the arrival time (a's egress, then the one-way latency).
  double Send(int a, int b, int64_t bytes, double now, int64_t* counter) {
    *counter += bytes;
    tr::TransportModel m;
    m.intra = {Ow(a, b), o_.bandwidth_gbps};
    return nodes_[static_cast<size_t>(a)].egress.Send(now, static_cast<size_t>(bytes), false, m);
  }
  void Log(tr::LedgerKind k, int node, int shard, tr::UpdateId id, uint64_t version, double t_us) {
    ledger_.push_back({k, static_cast<uint32_t>(node), static_cast<uint32_t>(shard), id, version,
                       static_cast<int64_t>(t_us * 1e3)});
  }
  tr::RouteEntry View(int node, int shard) const {
    const auto& r = nodes_[static_cast<size_t>(node)].routes;
    const auto it = r.find(shard);
    return it == r.end() ? tr::RouteEntry{shard, 1} : it->second;
  }
  void Setup();
  void Compute(int w, uint64_t t, double now);
  void Crash(int a, double now);
  void MarkDead(int m, int a, double now);
  void Promote(int b, int shard, double now);
  void OnRoute(int q, int b, int shard, uint64_t version, double now);
  void OnPush(int x, int w, int shard, uint64_t step, double now);
  void CloseEpoch(int x, int shard, double now);
  void OnEpoch(int r, int from, const tr::Epoch& e, bool answer, double now);
  void OnPull(int r, int from, int shard, uint64_t have, double now);
  void OnPullAnswer(int x, int from, int shard, size_t index, double now);
  void Commit(int x, int shard, double now);
  void OnAck(int w, int shard, uint64_t step, double now);
  void Dispatch(const Event& e);
  PsDesResult Summarize();

  const PsDesOptions& o_;
  int n_;
  tr::RttMatrix rtt_;
  std::vector<Node> nodes_;
  std::vector<std::vector<int>> replicas_, out_, in_;
  std::vector<double> mean_rtt_;
  std::vector<int> victims_;
  std::vector<tr::Epoch> epochs_;
  std::vector<std::vector<tr::Epoch>> answers_;
  std::vector<tr::LedgerRecord> ledger_;
  std::priority_queue<Event, std::vector<Event>, Later> q_;
  uint64_t seq_ = 0;
  double last_us_ = 0;
  PsDesResult r_;
};

void PsSim::Setup() {
  replicas_ = tr::RankedNeighbours(rtt_, o_.replicas);
  mean_rtt_.assign(static_cast<size_t>(n_), 0.0);
  if (o_.sparse) {
    out_ = tr::RankedNeighbours(rtt_, o_.neighbours);
    in_.assign(static_cast<size_t>(n_), {});
    for (int x = 0; x < n_; ++x) {
      for (int y : out_[static_cast<size_t>(x)]) in_[static_cast<size_t>(y)].push_back(x);
      mean_rtt_[static_cast<size_t>(x)] = tr::MeanRtt(rtt_, x, out_[static_cast<size_t>(x)]);
      r_.heartbeat_edges += static_cast<int64_t>(out_[static_cast<size_t>(x)].size());
    }
  } else {
    for (int x = 0; x < n_; ++x) {
      double s = 0;
      for (int y = 0; y < n_; ++y) s += rtt_.At(x, y);
      mean_rtt_[static_cast<size_t>(x)] = s / (n_ - 1);
    }
    r_.heartbeat_edges = static_cast<int64_t>(n_) * (n_ - 1);
  }
  for (int x = 0; x < n_; ++x) {
    nodes_[static_cast<size_t>(x)].copies.emplace(x, tr::ShardCopy(static_cast<uint32_t>(x), 1));
    for (int r : replicas_[static_cast<size_t>(x)])
      nodes_[static_cast<size_t>(r)].copies.emplace(x, tr::ShardCopy(static_cast<uint32_t>(x), 1));
  }
  // Victims: no two of them in one shard's replica set (a shard then always has a live backup).
  Rng rng(Rng::Mix(o_.seed, 0x5053ULL));
  std::set<int> blocked;
  for (int tries = 0; static_cast<int>(victims_.size()) < o_.crashes && tries < 100 * n_; ++tries) {
    const auto v = static_cast<int>(rng.Below(static_cast<uint64_t>(n_)));
    if (blocked.count(v)) continue;
    victims_.push_back(v);
    blocked.insert(v);
    for (int r : replicas_[static_cast<size_t>(v)]) blocked.insert(r);
    for (int x = 0; x < n_; ++x) {
      const auto& rs = replicas_[static_cast<size_t>(x)];
      if (std::find(rs.begin(), rs.end(), v) != rs.end()) {
        blocked.insert(x);
        blocked.insert(rs.begin(), rs.end());
      }
    }
  }
  for (size_t i = 0; i < victims_.size(); ++i) {
    const int third = std::max(1, o_.steps / 3);
    nodes_[static_cast<size_t>(victims_[i])].crash_step =
        std::min(o_.steps - 1, third + static_cast<int>(i) * third / std::max(1, static_cast<int>(victims_.size())));
  }
  for (int w = 0; w < n_; ++w) Push(o_.compute_us, Ev::kCompute, w, w, 0, 0);
}

void PsSim::Compute(int w, uint64_t t, double now) {
  Node& nd = nodes_[static_cast<size_t>(w)];
  if (nd.dead) return;
  if (nd.crash_step >= 0 && static_cast<int>(t) == nd.crash_step) {
    Crash(w, now);
    return;
  }
  Rng rng(Rng::Mix(o_.seed, (static_cast<uint64_t>(w) << 20) ^ t));
  std::set<int> shards;
  while (static_cast<int>(shards.size()) < o_.shards_per_step)
    shards.insert(static_cast<int>(rng.Below(static_cast<uint64_t>(n_))));
  for (int s : shards) {
    nd.unacked[s].insert(t);
    ++nd.pending;
    const int p = View(w, s).primary;
    Push(p == w ? now : Send(w, p, o_.push_bytes, now, &r_.data_bytes), Ev::kPush, p, w, s, t);
  }
}

void PsSim::Crash(int a, double now) {
  Node& nd = nodes_[static_cast<size_t>(a)];
  nd.dead = true;
  nd.died_us = now;
  PsDesFailover f;
  f.node = a;
  f.crash_ms = now / 1e3;
  r_.failovers.push_back(f);
  const double h = o_.heartbeat_ms * 1e3;
  auto phase = [&](int x) { return h * static_cast<double>(Rng::Mix(o_.seed, static_cast<uint64_t>(x)) % 1000) / 1000; };
  auto watch = [&](int m, bool pings_m, bool pinged_by_m) {
    if (m == a || nodes_[static_cast<size_t>(m)].dead) return;
    const double ow = Ow(a, m);
    double last = 0;
    if (pings_m) last = std::max(last, phase(a) + std::floor((now - phase(a)) / h) * h + ow);
    if (pinged_by_m) last = std::max(last, phase(m) + std::floor((now - ow - phase(m)) / h) * h + 2 * ow);
    tr::HeartbeatDetector d(h, 0);
    d.Heard(last);
    Push(d.DeadlineUs(mean_rtt_[static_cast<size_t>(m)], o_.late_rtts), Ev::kDetect, m, a, 0, 0);
  };
  if (o_.sparse) {
    for (int m : out_[static_cast<size_t>(a)]) {
      const auto& back = out_[static_cast<size_t>(m)];
      watch(m, true, std::find(back.begin(), back.end(), a) != back.end());
    }
    for (int m : in_[static_cast<size_t>(a)]) {
      const auto& fwd = out_[static_cast<size_t>(a)];
      if (std::find(fwd.begin(), fwd.end(), m) == fwd.end()) watch(m, false, true);
    }
  } else {
    for (int m = 0; m < n_; ++m) watch(m, true, true);
  }
}

void PsSim::MarkDead(int m, int a, double now) {
  Node& nd = nodes_[static_cast<size_t>(m)];
  if (nd.dead || !nd.known_dead.insert(a).second) return;
  for (auto& [s, c] : nd.commits) {
    c.Drop(a);
    Commit(m, s, now);
  }
  for (auto& [s, w] : nd.pulls) {
    if (w.erase(a) && w.empty()) CloseEpoch(m, s, now);
  }
  // The shards `a` was primary of, in m's view, that m is the backup of.
  std::vector<int> shards;
  for (const auto& [s, copy] : nd.copies) {
    if (View(m, s).primary == a) shards.push_back(s);
  }
  for (int s : shards) {
    std::vector<bool> alive(static_cast<size_t>(n_), true);
    for (int d : nd.known_dead) alive[static_cast<size_t>(d)] = false;
    if (tr::ChooseBackup(rtt_, replicas_[static_cast<size_t>(s)], alive) == m) Promote(m, s, now);
  }
}

void PsSim::Promote(int b, int shard, double now) {
  Node& nd = nodes_[static_cast<size_t>(b)];
  const tr::RouteEntry old = View(b, shard);
  const uint64_t v = old.version + 1;
  Log(tr::LedgerKind::kPromote, b, shard, {static_cast<uint32_t>(old.primary), v}, v, now);
  nd.copies.at(shard).SeeVersion(v);
  for (int r : replicas_[static_cast<size_t>(shard)]) {
    if (r == b || nd.known_dead.count(r)) continue;
    nd.pulls[shard].insert(r);
    Push(Send(b, r, kHeader + 12, now, &r_.overhead_bytes), Ev::kPull, r, b, shard, nd.copies.at(shard).last_epoch());
  }
  for (int q = 0; q < n_; ++q) {
    if (q == b) continue;
    if (nodes_[static_cast<size_t>(q)].dead) continue;
    Push(Send(b, q, kRouteBytes, now, &r_.overhead_bytes), Ev::kRoute, q, b, shard, v);
  }
  OnRoute(b, b, shard, v, now);
}

void PsSim::OnRoute(int q, int b, int shard, uint64_t version, double now) {
  Node& nd = nodes_[static_cast<size_t>(q)];
  if (nd.dead) return;
  const tr::RouteEntry old = View(q, shard);
  if (version <= old.version) return;  // stale: refused
  nd.routes[shard] = tr::RouteEntry{b, version};
  if (auto it = nd.copies.find(shard); it != nd.copies.end()) it->second.SeeVersion(version);
  if (old.primary != q) MarkDead(q, old.primary, now);
  for (uint64_t step : nd.unacked[shard]) {
    Push(b == q ? now : Send(q, b, o_.push_bytes, now, &r_.data_bytes), Ev::kPush, b, q, shard, step);
  }
}

void PsSim::OnPush(int x, int w, int shard, uint64_t step, double now) {
  Node& nd = nodes_[static_cast<size_t>(x)];
  if (nd.dead || View(x, shard).primary != x) return;
  const tr::UpdateId id{static_cast<uint32_t>(w), step};
  const float delta = 1.0f;
  const uint64_t v = View(x, shard).version;
  const bool applied = nd.copies.at(shard).ApplyPush(id, std::span<const float>(&delta, 1));
  Log(applied ? tr::LedgerKind::kApply : tr::LedgerKind::kSkip, x, shard, id, v, now);
  if (auto p = nd.pulls.find(shard); p != nd.pulls.end() && !p->second.empty()) return;  // after the pulls
  CloseEpoch(x, shard, now);
}

void PsSim::CloseEpoch(int x, int shard, double now) {
  Node& nd = nodes_[static_cast<size_t>(x)];
  auto e = nd.copies.at(shard).CloseEpoch(View(x, shard).version);
  if (!e) return;
  std::vector<int> live;
  for (int r : replicas_[static_cast<size_t>(shard)]) {
    if (r != x && !nd.known_dead.count(r)) live.push_back(r);
  }
  auto& ids = nd.to_ack[shard][e->number];
  for (const auto& en : e->entries) ids.push_back(en.id);
  const auto bytes = static_cast<int64_t>(kHeader + tr::SerializeEpoch(*e).size());
  epochs_.push_back(*e);
  for (int r : live)
    Push(Send(x, r, bytes, now, &r_.replication_bytes), Ev::kEpoch, r, x, shard, e->number,
         static_cast<int64_t>(epochs_.size() - 1));
  nd.commits[shard].Add(e->number, live);
  Commit(x, shard, now);
}

void PsSim::OnEpoch(int r, int from, const tr::Epoch& e, bool answer, double now) {
  Node& nd = nodes_[static_cast<size_t>(r)];
  auto it = nd.copies.find(static_cast<int>(e.shard));
  if (nd.dead || it == nd.copies.end()) return;
  std::vector<tr::UpdateId> replayed, skipped;
  const tr::EpochApply a = it->second.ApplyEpoch(e, &replayed, &skipped, answer);
  for (const auto& id : replayed) Log(tr::LedgerKind::kReplay, r, static_cast<int>(e.shard), id, e.version, now);
  for (const auto& id : skipped) Log(tr::LedgerKind::kSkip, r, static_cast<int>(e.shard), id, e.version, now);
  const int primary = View(r, static_cast<int>(e.shard)).primary;
  if ((a == tr::EpochApply::kApplied || a == tr::EpochApply::kOld) && primary != r && from == primary) {
    Push(Send(r, from, kHeader + 12, now, &r_.replication_bytes), Ev::kEpochAck, from, r, static_cast<int>(e.shard),
         e.number);
  } else if (a == tr::EpochApply::kGap && !answer) {
    Push(Send(r, from, kHeader + 12, now, &r_.overhead_bytes), Ev::kPull, from, r, static_cast<int>(e.shard),
         it->second.last_epoch());
  }
}

void PsSim::OnPull(int r, int from, int shard, uint64_t have, double now) {
  Node& nd = nodes_[static_cast<size_t>(r)];
  auto it = nd.copies.find(shard);
  if (nd.dead || it == nd.copies.end()) return;
  std::vector<tr::Epoch> answer;
  int64_t bytes = kHeader + 4;
  for (const tr::Epoch* e : it->second.EpochsAfter(have)) {
    answer.push_back(*e);
    bytes += 4 + static_cast<int64_t>(tr::SerializeEpoch(*e).size());
  }
  answers_.push_back(std::move(answer));
  Push(Send(r, from, bytes, now, &r_.overhead_bytes), Ev::kPullAnswer, from, r, shard, 0,
       static_cast<int64_t>(answers_.size() - 1));
}

void PsSim::OnPullAnswer(int x, int from, int shard, size_t index, double now) {
  Node& nd = nodes_[static_cast<size_t>(x)];
  if (nd.dead) return;
  for (const tr::Epoch& e : answers_[index]) OnEpoch(x, from, e, true, now);
  auto p = nd.pulls.find(shard);
  if (p != nd.pulls.end() && p->second.erase(from) && p->second.empty()) CloseEpoch(x, shard, now);
}

void PsSim::Commit(int x, int shard, double now) {
  Node& nd = nodes_[static_cast<size_t>(x)];
  auto c = nd.commits.find(shard);
  if (c == nd.commits.end()) return;
  for (uint64_t e : c->second.PopCommitted()) {
    for (const auto& id : nd.to_ack[shard][e]) {
      const int w = static_cast<int>(id.worker);
      Push(w == x ? now : Send(x, w, o_.push_bytes, now, &r_.data_bytes), Ev::kAck, w, x, shard, id.step);
    }
    nd.to_ack[shard].erase(e);
  }
}

void PsSim::OnAck(int w, int shard, uint64_t step, double now) {
  Node& nd = nodes_[static_cast<size_t>(w)];
  if (nd.dead || nd.unacked[shard].erase(step) == 0) return;
  Log(tr::LedgerKind::kAcked, w, shard, {static_cast<uint32_t>(w), step}, 0, now);
  if (--nd.pending == 0 && static_cast<int>(step) + 1 < o_.steps) {
    Push(now + o_.compute_us, Ev::kCompute, w, w, 0, step + 1);
  }
}

void PsSim::Dispatch(const Event& e) {
  switch (e.kind) {
    case Ev::kCompute: Compute(e.at, e.step, e.t_us); break;
    case Ev::kPush: OnPush(e.at, e.from, e.shard, e.step, e.t_us); break;
    case Ev::kEpoch: OnEpoch(e.at, e.from, epochs_[static_cast<size_t>(e.extra)], false, e.t_us); break;
    case Ev::kEpochAck: {
      Node& nd = nodes_[static_cast<size_t>(e.at)];
      if (nd.dead) break;
      if (auto c = nd.commits.find(e.shard); c != nd.commits.end()) {
        c->second.Ack(e.step, e.from);
        Commit(e.at, e.shard, e.t_us);
      }
      break;
    }
    case Ev::kAck: OnAck(e.at, e.shard, e.step, e.t_us); break;
    case Ev::kDetect: MarkDead(e.at, e.from, e.t_us); break;
    case Ev::kRoute: OnRoute(e.at, e.from, e.shard, e.step, e.t_us); break;
    case Ev::kPull: OnPull(e.at, e.from, e.shard, e.step, e.t_us); break;
    case Ev::kPullAnswer: OnPullAnswer(e.at, e.from, e.shard, static_cast<size_t>(e.extra), e.t_us); break;
  }
}

PsDesResult PsSim::Run() {
  Setup();
  while (!q_.empty()) {
    const Event e = q_.top();
    q_.pop();
    ++r_.events;
    last_us_ = e.t_us;
    Dispatch(e);
  }
  return Summarize();
}

PsDesResult PsSim::Summarize() {
  r_.nodes = n_;
  r_.steps = o_.steps;
  r_.sparse = o_.sparse;
  r_.makespan_ms = last_us_ / 1e3;
  // Heartbeats: a ping and its pong per edge per interval while both ends live.
  const double h = o_.heartbeat_ms * 1e3;
  double beats = 0;
  auto until = [&](int x) { return std::min(nodes_[static_cast<size_t>(x)].died_us, last_us_); };
  if (o_.sparse) {
    for (int x = 0; x < n_; ++x)
      for (int y : out_[static_cast<size_t>(x)]) beats += std::min(until(x), until(y)) / h;
  } else {
    double live_sum = 0;
    for (int x = 0; x < n_; ++x) live_sum += until(x);
    // Each ordered pair (x, y): min(until x, until y); only victims end early.
    beats = (static_cast<double>(n_) - 1) * live_sum;
    for (int v : victims_) {
      for (int x = 0; x < n_; ++x) {
        if (x != v) beats -= until(x) - std::min(until(x), until(v));
      }
    }
    beats /= h;
  }
  r_.overhead_bytes += static_cast<int64_t>(beats * kHeartbeatBytes);
  r_.overhead_mb_s = last_us_ > 0 ? static_cast<double>(r_.overhead_bytes) / n_ / (last_us_ / 1e6) / 1e6 : 0;
  r_.ledger = tr::Reconcile(ledger_, tr::FinalPrimaries(ledger_, n_));
  for (auto& f : r_.failovers) {
    const double crash_us = f.crash_ms * 1e3;
    for (const auto& rec : ledger_) {
      if (static_cast<int>(rec.shard) != f.node || static_cast<double>(rec.t_ns) / 1e3 < crash_us) continue;
      const double ms = static_cast<double>(rec.t_ns) / 1e6 - f.crash_ms;
      if (rec.kind == tr::LedgerKind::kPromote && f.backup < 0) {
        f.backup = static_cast<int>(rec.node);
        f.detect_ms = ms;
      }
      if (rec.kind == tr::LedgerKind::kApply && rec.version >= 2 && (f.failover_ms < 0 || ms < f.failover_ms))
        f.failover_ms = ms;
    }
    r_.mean_failover_ms += f.failover_ms / static_cast<double>(r_.failovers.size());
    r_.max_failover_ms = std::max(r_.max_failover_ms, f.failover_ms);
  }
  return r_;
}

}  // namespace

Result<PsDesResult> SimulatePsGraph(const PsDesOptions& o) {
  auto bad = [](const std::string& m) { return MakeKindError(ErrorKind::kUsage, m); };
  if (o.nodes < 8 || o.nodes > 8192) return bad(fmt::format("nodes {} outside 8..8192", o.nodes));
  if (o.steps < 1 || o.steps > 10000) return bad(fmt::format("steps {} outside 1..10000", o.steps));
  if (o.shards_per_step < 1 || o.shards_per_step > o.nodes) return bad("shards per step outside 1..nodes");
  if (o.crashes < 0 || o.crashes > o.nodes / 8) return bad(fmt::format("crashes {} outside 0..{}", o.crashes, o.nodes / 8));
  if (o.neighbours < 1 || o.replicas < 1 || o.replicas >= o.nodes) return bad("neighbours and replicas must be >= 1");
  if (!(o.heartbeat_ms > 0) || !(o.bandwidth_gbps > 0) || !(o.compute_us >= 0) || o.push_bytes < 1)
    return bad("heartbeat, bandwidth and bytes must be > 0, compute >= 0");
  if (o.rtt.n != 0 && o.rtt.n != o.nodes) return bad(fmt::format("an RTT matrix of {} nodes for {}", o.rtt.n, o.nodes));
  auto rtt = o.rtt.n != 0 ? Result<act::training::RttMatrix>(o.rtt) : LayoutRttFunction(o.nodes, o.layout);
  if (!rtt.ok()) return rtt.error();
  PsSim sim(o, std::move(*rtt));
  return sim.Run();
}

}  // namespace toposcope::experiments
