// experiments/ps_training: see the header.
#include "toposcope/experiments/ps_training.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "toposcope/act/training/async_barrier.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/rng.h"
#include "toposcope/experiments/loopback_transport.h"

namespace toposcope::experiments {
namespace {

namespace tr = act::training;
using json = nlohmann::json;

enum Msg : uint8_t {
  kHello = 1, kPing, kPong, kPush, kAck, kEpoch, kEpochAck, kPull, kPullAnswer, kRoute, kDone, kBye
};
enum Class { kOverhead = 0, kReplication = 1, kData = 2 };
constexpr uint64_t kKilledMarker = ~0ULL;  // the victim's word to the parent: kill me now

Class ClassOf(uint8_t type) {
  switch (type) {
    case kPush:
    case kAck:
      return kData;
    case kEpoch:
    case kEpochAck:
      return kReplication;
    default:
      return kOverhead;
  }
}

void Put32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void Put64(std::vector<uint8_t>& b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
uint64_t Get(const std::vector<uint8_t>& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes && at + static_cast<size_t>(i) < b.size(); ++i)
    v |= static_cast<uint64_t>(b[at + static_cast<size_t>(i)]) << (8 * i);
  return v;
}
std::vector<uint8_t> ShardFloats(uint32_t shard, std::span<const float> x) {
  std::vector<uint8_t> b(4 + x.size() * sizeof(float));
  std::memcpy(b.data(), &shard, 4);
  if (!x.empty()) std::memcpy(b.data() + 4, x.data(), x.size() * sizeof(float));
  return b;
}
std::vector<float> FloatsAt(const std::vector<uint8_t>& b, size_t at) {
  std::vector<float> x(b.size() > at ? (b.size() - at) / sizeof(float) : 0);
  if (!x.empty()) std::memcpy(x.data(), b.data() + at, x.size() * sizeof(float));
  return x;
}

// The slice of the weights shard s holds: [begin, end).
std::pair<size_t, size_t> Slice(int features, int shards, int s) {
  const auto d = static_cast<size_t>(features), n = static_cast<size_t>(shards), i = static_cast<size_t>(s);
  return {d * i / n, d * (i + 1) / n};
}

// One node: a worker, the primary of its shard, a replica of its peers' shards, the watcher of its
// heartbeat neighbours.
class PsNode {
 public:
  PsNode(const PsTrainingOptions& o, int self, int ledger_fd, int up_fd)
      : o_(o), self_(self), n_(o.nodes), ledger_fd_(ledger_fd), up_fd_(up_fd), link_(self, 200), route_(o.nodes) {
    ranked_all_ = tr::RankedNeighbours(o.rtt, 0);
    out_ = tr::RankedNeighbours(o.rtt, o.sparse ? o.neighbours : 0)[static_cast<size_t>(self)];
    const auto out_all = tr::RankedNeighbours(o.rtt, o.sparse ? o.neighbours : 0);
    std::set<int> watch(out_.begin(), out_.end());
    for (int p = 0; p < n_; ++p) {
      const auto& v = out_all[static_cast<size_t>(p)];
      if (std::find(v.begin(), v.end(), self) != v.end()) watch.insert(p);
    }
    watched_.assign(watch.begin(), watch.end());
    alive_.assign(static_cast<size_t>(n_), true);
    for (int s = 0; s < n_; ++s) {
      const auto& r = Replicas(s);
      if (s == self || std::find(r.begin(), r.end(), self) != r.end()) {
        const auto [b, e] = Slice(o.problem.features, n_, s);
        copies_.emplace(s, tr::ShardCopy(static_cast<uint32_t>(s), e - b));
      }
    }
    weights_.assign(static_cast<size_t>(o.problem.features), 0.0f);
    data_ = MakeShard(o.problem, self);
  }
  LoopbackTransport& link() { return link_; }
  Status Run(const std::vector<Frame>& early, json& out);

 private:
  std::vector<int> Replicas(int shard) const {
    const auto& r = ranked_all_[static_cast<size_t>(shard)];
    return {r.begin(), r.begin() + std::min<ptrdiff_t>(o_.replicas, static_cast<ptrdiff_t>(r.size()))};
  }
  double Now() const { return static_cast<double>(NowNs()) / 1e3; }
  void Log(tr::LedgerKind k, int shard, tr::UpdateId id, uint64_t version) {
    uint8_t rec[tr::kLedgerRecordBytes];
    tr::SerializeLedgerRecord({k, static_cast<uint32_t>(self_), static_cast<uint32_t>(shard), id, version, NowNs()},
                              rec);
    (void)WriteAll(ledger_fd_, rec, sizeof rec);
  }
  void Send(int peer, uint8_t type, uint64_t step, std::vector<uint8_t> body);
  void Handle(const Frame& f);
  void Beat();
  void CheckPeers();
  void OnDead(int p);
  void Promote(int shard);
  void OnRoute(const std::vector<tr::RouteChange>& changes);
  void OnPush(int from, uint64_t step, const std::vector<uint8_t>& body);
  void OnEpoch(int from, const tr::Epoch& e, bool answer);
  void CloseEpochs();
  void Commit(int shard);
  void WorkerStep();
  bool Finished() const;
  json Report() const;

  const PsTrainingOptions& o_;
  int self_, n_;
  int ledger_fd_, up_fd_;
  LoopbackTransport link_;
  tr::EgressQueues egress_;
  std::deque<Frame> local_;  // frames to itself
  std::vector<std::vector<int>> ranked_all_;
  std::vector<int> out_, watched_;  // pinged; watched (pinged, or pinging us)
  std::map<int, tr::HeartbeatDetector> hb_;
  std::vector<bool> alive_;
  std::set<int> done_, gone_;
  tr::RouteTable route_;
  std::map<int, tr::ShardCopy> copies_;
  std::map<int, tr::CommitTracker> commits_;
  std::map<int, std::map<uint64_t, std::vector<tr::UpdateId>>> to_ack_;  // shard -> epoch -> ids
  std::map<int, std::set<int>> pulls_;  // shard -> replicas whose pull answer the new primary awaits
  std::map<int, uint64_t> pulled_;      // shard -> the epoch a replica last pulled after
  double rtt_sum_us_ = 0;
  int64_t rtt_count_ = 0;
  double next_beat_us_ = 0;
  double last_check_us_ = 0;
  int64_t stalls_ = 0;  // detector rounds skipped after a gap in this node's loop
  uint64_t ping_seq_ = 0;
  // Worker.
  LogisticShard data_;
  std::vector<float> weights_;
  int step_ = 0;
  bool worker_done_ = false;
  std::map<int, std::map<uint64_t, std::vector<float>>> unacked_;  // shard -> step -> delta
  bool marker_sent_ = false;
  int64_t bytes_[3] = {0, 0, 0};
  int64_t resent_ = 0;
  int64_t start_ns_ = 0, end_ns_ = 0;
};

void PsNode::Send(int peer, uint8_t type, uint64_t step, std::vector<uint8_t> body) {
  const size_t size = kFrameHeader + body.size();
  if (peer == self_) {
    local_.push_back(Frame{type, self_, step, 0, std::move(body)});
    return;
  }
  bytes_[ClassOf(type)] += static_cast<int64_t>(size);
  tr::TransportModel m;
  m.intra = {o_.rtt.At(self_, peer) / 2, o_.bandwidth_gbps};
  const double at_us = egress_.Send(Now(), size, false, m);
  link_.SendAt(peer, type, step, body, static_cast<int64_t>(at_us * 1e3));
}

void PsNode::Beat() {
  const double now = Now();
  if (now < next_beat_us_) return;
  next_beat_us_ = now + o_.heartbeat_ms * 1e3;
  std::vector<uint8_t> b;
  Put64(b, static_cast<uint64_t>(NowNs()));
  for (int p : out_) {
    if (alive_[static_cast<size_t>(p)] && !gone_.count(p)) Send(p, kPing, ping_seq_, b);
  }
  ++ping_seq_;
}

// The heartbeat detector, with two guards against the watcher's own stalls on a loaded host: after
// a gap in this loop longer than half an interval every peer counts as heard (the frames of the gap
// are still on their way in), and when every watched peer is late at once the silence is ours.
void PsNode::CheckPeers() {
  const double now = Now();
  const double gap = now - last_check_us_;
  last_check_us_ = now;
  if (gap > o_.heartbeat_ms * 1e3 / 2) {
    ++stalls_;
    for (auto& [p, d] : hb_) d.Heard(now);
    return;
  }
  double mean = tr::MeanRtt(o_.rtt, self_, out_);
  if (rtt_count_ > 0) mean = rtt_sum_us_ / static_cast<double>(rtt_count_);
  std::vector<int> late;
  int live = 0;
  for (int p : watched_) {
    if (!alive_[static_cast<size_t>(p)] || gone_.count(p)) continue;
    auto it = hb_.find(p);
    if (it == hb_.end()) continue;
    ++live;
    if (it->second.Late(now, mean, o_.detectors.heartbeat_late_rtts)) late.push_back(p);
  }
  if (late.empty() || (live > 1 && static_cast<int>(late.size()) == live)) return;
  for (int p : late) OnDead(p);
}

void PsNode::OnDead(int p) {
  alive_[static_cast<size_t>(p)] = false;
  link_.Close(p);
  for (auto& [shard, c] : commits_) {
    c.Drop(p);
    Commit(shard);
  }
  for (auto& [shard, waiting] : pulls_) waiting.erase(p);
  for (int s = 0; s < n_; ++s) {
    if (route_.Primary(static_cast<uint32_t>(s)) != p) continue;
    if (tr::ChooseBackup(o_.rtt, Replicas(s), alive_) == self_) Promote(s);
  }
}

void PsNode::Promote(int shard) {
  const tr::RouteChange change = route_.Promote(static_cast<uint32_t>(shard), self_);
  const int old = route_.Primary(static_cast<uint32_t>(shard));
  Log(tr::LedgerKind::kPromote, shard, {static_cast<uint32_t>(old), change.entry.version}, change.entry.version);
  const std::vector<uint8_t> body = tr::SerializeRoute({change});
  for (int p = 0; p < n_; ++p) {
    if (p != self_ && alive_[static_cast<size_t>(p)]) Send(p, kRoute, 0, body);
  }
  // Pull the epochs after ours from the other live replicas before closing one of our own.
  tr::ShardCopy& copy = copies_.at(shard);
  for (int r : Replicas(shard)) {
    if (r == self_ || r == old || !alive_[static_cast<size_t>(r)]) continue;
    pulls_[shard].insert(r);
    std::vector<uint8_t> b;
    Put32(b, static_cast<uint32_t>(shard));
    Put64(b, copy.last_epoch());
    Send(r, kPull, 0, std::move(b));
  }
  OnRoute({change});
}

void PsNode::OnRoute(const std::vector<tr::RouteChange>& changes) {
  std::vector<int> old;
  for (const auto& c : changes) {
    if (c.shard < route_.size()) old.push_back(route_.Primary(c.shard));
  }
  if (route_.Apply(changes) != tr::RouteApply::kApplied) return;
  for (int q : old) {  // a shard moved off its primary: that node failed
    if (q != self_ && alive_[static_cast<size_t>(q)]) OnDead(q);
  }
  for (const auto& c : changes) {
    const int s = static_cast<int>(c.shard);
    if (auto it = copies_.find(s); it != copies_.end()) it->second.SeeVersion(c.entry.version);
    if (c.entry.primary != self_) {  // demoted or never primary: no epoch of ours to commit
      commits_.erase(s);
      to_ack_.erase(s);
    }
    for (const auto& [step, delta] : unacked_[s]) {  // re-send what the old primary did not acknowledge
      Send(c.entry.primary, kPush, step, ShardFloats(c.shard, delta));
      ++resent_;
    }
  }
}

void PsNode::OnPush(int from, uint64_t step, const std::vector<uint8_t>& body) {
  const auto shard = static_cast<int>(Get(body, 0, 4));
  if (shard >= n_ || route_.Primary(static_cast<uint32_t>(shard)) != self_) return;  // not ours (any more)
  const tr::UpdateId id{static_cast<uint32_t>(from), step};
  const std::vector<float> delta = FloatsAt(body, 4);
  tr::ShardCopy& copy = copies_.at(shard);
  if (delta.size() != copy.values().size()) return;
  const uint64_t v = route_.Entry(static_cast<uint32_t>(shard)).version;
  Log(copy.ApplyPush(id, delta) ? tr::LedgerKind::kApply : tr::LedgerKind::kSkip, shard, id, v);
}

void PsNode::OnEpoch(int from, const tr::Epoch& e, bool answer) {
  const auto s = static_cast<int>(e.shard);
  auto it = copies_.find(s);
  if (it == copies_.end()) return;
  std::vector<tr::UpdateId> replayed, skipped;
  const tr::EpochApply r = it->second.ApplyEpoch(e, &replayed, &skipped, answer);
  for (const auto& id : replayed) Log(tr::LedgerKind::kReplay, s, id, e.version);
  for (const auto& id : skipped) Log(tr::LedgerKind::kSkip, s, id, e.version);
  const bool primary = route_.Primary(e.shard) == self_;
  if ((r == tr::EpochApply::kApplied || r == tr::EpochApply::kOld) && !primary && from == route_.Primary(e.shard)) {
    std::vector<uint8_t> b;
    Put32(b, e.shard);
    Put64(b, e.number);
    Send(from, kEpochAck, e.number, std::move(b));
  } else if (r == tr::EpochApply::kGap && !answer && pulled_[s] != it->second.last_epoch() + 1) {
    pulled_[s] = it->second.last_epoch() + 1;  // one pull per gap
    std::vector<uint8_t> b;
    Put32(b, e.shard);
    Put64(b, it->second.last_epoch());
    Send(from, kPull, 0, std::move(b));
  }
}

void PsNode::CloseEpochs() {
  for (auto& [s, copy] : copies_) {
    if (route_.Primary(static_cast<uint32_t>(s)) != self_ || !copy.HasOpen()) continue;
    if (auto p = pulls_.find(s); p != pulls_.end() && !p->second.empty()) continue;
    const uint64_t v = route_.Entry(static_cast<uint32_t>(s)).version;
    auto e = copy.CloseEpoch(v);
    if (!e) continue;
    std::vector<int> live;
    for (int r : Replicas(s)) {
      if (r != self_ && alive_[static_cast<size_t>(r)] && !gone_.count(r)) live.push_back(r);
    }
    const std::vector<uint8_t> body = tr::SerializeEpoch(*e);
    for (int r : live) Send(r, kEpoch, e->number, body);
    auto& ids = to_ack_[s][e->number];
    for (const auto& x : e->entries) ids.push_back(x.id);
    commits_[s].Add(e->number, live);
    Commit(s);
  }
}

void PsNode::Commit(int shard) {
  auto c = commits_.find(shard);
  if (c == commits_.end()) return;
  const tr::ShardCopy& copy = copies_.at(shard);
  for (uint64_t e : c->second.PopCommitted()) {
    for (const auto& id : to_ack_[shard][e]) {
      Send(static_cast<int>(id.worker), kAck, id.step, ShardFloats(static_cast<uint32_t>(shard), copy.values()));
    }
    to_ack_[shard].erase(e);
  }
}

void PsNode::WorkerStep() {
  if (worker_done_) return;
  if (step_ > 0) {
    for (const auto& [s, m] : unacked_) {
      if (!m.empty()) return;  // the step's acknowledgements are not all here
    }
  }
  if (step_ == o_.steps) {
    worker_done_ = true;
    done_.insert(self_);
    for (int p = 0; p < n_; ++p) {
      if (p != self_ && alive_[static_cast<size_t>(p)]) Send(p, kDone, 0, {});
    }
    return;
  }
  if (self_ == o_.kill_node && step_ == o_.kill_step && !marker_sent_) {
    marker_sent_ = true;  // the parent kills us now
    (void)WriteAll(up_fd_, &kKilledMarker, sizeof kKilledMarker);
  }
  std::vector<float> g;
  ShardLoss(o_.problem, data_, weights_, &g);
  const float scale = -static_cast<float>(o_.problem.learning_rate / n_);
  for (int s = 0; s < n_; ++s) {
    const auto [b, e] = Slice(o_.problem.features, n_, s);
    std::vector<float> delta(e - b);
    for (size_t i = b; i < e; ++i) delta[i - b] = scale * g[i];
    Send(route_.Primary(static_cast<uint32_t>(s)), kPush, static_cast<uint64_t>(step_),
         ShardFloats(static_cast<uint32_t>(s), delta));
    unacked_[s][static_cast<uint64_t>(step_)] = std::move(delta);
  }
  ++step_;
}

void PsNode::Handle(const Frame& f) {
  if (f.from != self_) {
    auto it = hb_.find(f.from);
    if (it != hb_.end()) it->second.Heard(Now());
  }
  switch (f.type) {
    case kPing:
      Send(f.from, kPong, f.step, f.body);
      break;
    case kPong: {
      rtt_sum_us_ += static_cast<double>(NowNs() - static_cast<int64_t>(Get(f.body, 0, 8))) / 1e3;
      ++rtt_count_;
      break;
    }
    case kPush:
      OnPush(f.from, f.step, f.body);
      break;
    case kAck: {
      const auto s = static_cast<int>(Get(f.body, 0, 4));
      auto& m = unacked_[s];
      if (m.erase(f.step) == 0) break;  // acknowledged already
      Log(tr::LedgerKind::kAcked, s, {static_cast<uint32_t>(self_), f.step}, 0);
      const auto [b, e] = Slice(o_.problem.features, n_, s);
      const std::vector<float> v = FloatsAt(f.body, 4);
      if (v.size() == e - b) std::copy(v.begin(), v.end(), weights_.begin() + static_cast<ptrdiff_t>(b));
      break;
    }
    case kEpoch: {
      auto e = tr::ParseEpoch(f.body);
      if (e.ok()) OnEpoch(f.from, *e, false);
      break;
    }
    case kEpochAck: {
      const auto s = static_cast<int>(Get(f.body, 0, 4));
      if (auto c = commits_.find(s); c != commits_.end()) {
        c->second.Ack(Get(f.body, 4, 8), f.from);
        Commit(s);
      }
      break;
    }
    case kPull: {
      const auto s = static_cast<int>(Get(f.body, 0, 4));
      auto it = copies_.find(s);
      if (it == copies_.end()) break;
      std::vector<uint8_t> b;
      Put32(b, static_cast<uint32_t>(s));
      for (const tr::Epoch* e : it->second.EpochsAfter(Get(f.body, 4, 8))) {
        const auto bytes = tr::SerializeEpoch(*e);
        Put32(b, static_cast<uint32_t>(bytes.size()));
        b.insert(b.end(), bytes.begin(), bytes.end());
      }
      Send(f.from, kPullAnswer, 0, std::move(b));
      break;
    }
    case kPullAnswer: {
      const auto s = static_cast<int>(Get(f.body, 0, 4));
      for (size_t at = 4; at + 4 <= f.body.size();) {
        const auto len = static_cast<size_t>(Get(f.body, at, 4));
        if (at + 4 + len > f.body.size()) break;
        auto e = tr::ParseEpoch(std::span<const uint8_t>(f.body).subspan(at + 4, len));
        if (e.ok()) OnEpoch(f.from, *e, true);
        at += 4 + len;
      }
      pulled_[s] = 0;
      if (auto p = pulls_.find(s); p != pulls_.end()) p->second.erase(f.from);
      break;
    }
    case kRoute: {
      auto r = tr::ParseRoute(f.body);
      if (r.ok()) OnRoute(*r);
      break;
    }
    case kDone:
      done_.insert(f.from);
      break;
    case kBye:
      gone_.insert(f.from);
      for (auto& [shard, c] : commits_) {
        c.Drop(f.from);
        Commit(shard);
      }
      break;
    default:
      break;
  }
}

bool PsNode::Finished() const {
  if (!worker_done_) return false;
  for (int p = 0; p < n_; ++p) {
    if (alive_[static_cast<size_t>(p)] && !done_.count(p)) return false;
  }
  for (const auto& [s, c] : commits_) {
    if (!c.empty()) return false;
  }
  for (const auto& [s, copy] : copies_) {
    if (route_.Primary(static_cast<uint32_t>(s)) == self_ && copy.HasOpen()) return false;
  }
  return true;
}

json PsNode::Report() const {
  json shards = json::object();
  for (const auto& [s, copy] : copies_) {
    if (route_.Primary(static_cast<uint32_t>(s)) == self_) shards[std::to_string(s)] = copy.values();
  }
  std::vector<int> primaries;
  for (int s = 0; s < n_; ++s) primaries.push_back(route_.Primary(static_cast<uint32_t>(s)));
  return {{"bytes", {bytes_[kOverhead], bytes_[kReplication], bytes_[kData]}},
          {"start_ns", start_ns_},
          {"end_ns", end_ns_},
          {"resent", resent_},
          {"stalls", stalls_},
          {"stale_routes", route_.stale_refused()},
          {"primaries", primaries},
          {"shards", shards}};
}

Status PsNode::Run(const std::vector<Frame>& early, json& out) {
  start_ns_ = NowNs();
  for (int p : watched_) hb_.emplace(p, tr::HeartbeatDetector(o_.heartbeat_ms * 1e3, Now()));
  last_check_us_ = Now();
  for (const Frame& f : early) Handle(f);
  const int64_t deadline = start_ns_ + static_cast<int64_t>(o_.timeout_s * 1e9);
  auto handle = [this](const Frame& f) { Handle(f); };
  while (!Finished()) {
    if (NowNs() > deadline) {
      std::string waits, dead, routes;
      for (const auto& [sh, m] : unacked_) {
        if (!m.empty()) waits += fmt::format(" {}", sh);
      }
      for (int p = 0; p < n_; ++p) {
        if (!alive_[static_cast<size_t>(p)]) dead += fmt::format(" {}", p);
        routes += fmt::format(" {}", route_.Primary(static_cast<uint32_t>(p)));
      }
      return MakeKindError(ErrorKind::kInternal,
                           fmt::format("node {} timed out at step {} of {} (acknowledgements awaited from shards:{}; "
                                       "failed nodes:{}; primaries:{})",
                                       self_, step_, o_.steps, waits.empty() ? " none" : waits,
                                       dead.empty() ? " none" : dead, routes));
    }
    link_.Poll(handle, 200000);
    while (!local_.empty()) {
      Frame f = std::move(local_.front());
      local_.pop_front();
      Handle(f);
    }
    Beat();
    CheckPeers();
    CloseEpochs();
    WorkerStep();
  }
  end_ns_ = NowNs();
  for (int p = 0; p < n_; ++p) {
    if (p != self_ && alive_[static_cast<size_t>(p)]) Send(p, kBye, 0, {});
  }
  out = Report();
  return {};
}

// A node's process: binds, reports its port, says hello to every peer, runs. Never returns.
[[noreturn]] void NodeMain(const PsTrainingOptions& o, const std::string& dir, int self, int up_fd, int down_fd) {
  json out;
  {
    const std::string path = (std::filesystem::path(dir) / fmt::format("ledger_{}.bin", self)).string();
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    if (fd < 0) _exit(3);
    PsNode node(o, self, fd, up_fd);
    std::vector<int> ports;
    if (!ReportPort(up_fd, down_fd, node.link().Port(), o.nodes, ports)) _exit(3);
    node.link().Connect(ports);
    std::vector<Frame> early;  // a faster peer's first frames, handed over once running
    Status s = ExchangeHellos(
        node.link(), [&](int p) { node.link().SendAt(p, kHello, 0, {}, 0); }, kHello, self, o.nodes, o.timeout_s,
        early);
    if (s.ok()) s = node.Run(early, out);
    if (!s.ok()) out = {{"error", s.error().ToString()}};
    close(fd);
  }
  _exit(WriteText(up_fd, out.dump()) ? 0 : 3);
}

}  // namespace

namespace {

double LayoutRtt(const PsLayout& l, int a, int b) {
  if (a > b) std::swap(a, b);
  const int ra = a / l.rack_size, rb = b / l.rack_size;
  const double base = ra == rb ? l.near_us : (ra / l.racks_per_pod == rb / l.racks_per_pod ? l.mid_us : l.far_us);
  Rng rng(Rng::Mix(l.seed, static_cast<uint64_t>(a) * 1000003ULL + static_cast<uint64_t>(b)));
  return base * (1 + l.jitter * rng.Uniform());
}

Status CheckLayout(int n, const PsLayout& l) {
  if (n < 2) return MakeKindError(ErrorKind::kUsage, "the layout needs at least 2 nodes");
  if (l.rack_size < 1 || l.racks_per_pod < 1)
    return MakeKindError(ErrorKind::kUsage, "rack size and racks per pod must be >= 1");
  if (!(l.near_us > 0) || !(l.mid_us > 0) || !(l.far_us > 0) || !(l.jitter >= 0))
    return MakeKindError(ErrorKind::kUsage, "the layout's RTTs must be > 0 and its jitter >= 0");
  return {};
}

}  // namespace

Result<act::training::RttMatrix> LayoutRtts(int n, const PsLayout& l) {
  if (Status s = CheckLayout(n, l); !s.ok()) return s.error();
  std::vector<double> us(static_cast<size_t>(n) * static_cast<size_t>(n), 0.0);
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a != b) us[static_cast<size_t>(a) * static_cast<size_t>(n) + static_cast<size_t>(b)] = LayoutRtt(l, a, b);
    }
  }
  return act::training::MakeRttMatrix(n, std::move(us));
}

Result<act::training::RttMatrix> LayoutRttFunction(int n, const PsLayout& l) {
  if (Status s = CheckLayout(n, l); !s.ok()) return s.error();
  act::training::RttMatrix m;
  m.n = n;
  m.fn = [l](int a, int b) { return LayoutRtt(l, a, b); };
  return m;
}

namespace {

Status CheckOptions(const PsTrainingOptions& o) {
  auto bad = [](const std::string& m) { return MakeKindError(ErrorKind::kUsage, m); };
  if (o.nodes < 3 || o.nodes > 32) return bad(fmt::format("nodes {} outside 3..32", o.nodes));
  if (o.steps < 2 || o.steps > 100000) return bad(fmt::format("steps {} outside 2..100000", o.steps));
  if (o.neighbours < 1) return bad("neighbours must be at least 1");
  if (o.replicas < 1 || o.replicas >= o.nodes) return bad(fmt::format("replicas {} outside 1..{}", o.replicas, o.nodes - 1));
  if (o.kill_node >= o.nodes) return bad(fmt::format("kill node {} outside 0..{}", o.kill_node, o.nodes - 1));
  if (o.kill_step >= o.steps) return bad(fmt::format("kill step {} not before the last step", o.kill_step));
  if (!(o.heartbeat_ms > 0)) return bad("the heartbeat interval must be > 0");
  if (!(o.bandwidth_gbps > 0)) return bad("bandwidth must be > 0");
  if (o.problem.features < o.nodes || o.problem.active < 1 || o.problem.active > o.problem.features ||
      o.problem.samples_per_worker < 1) {
    return bad("features must be at least the nodes, active features within 1..features, samples >= 1");
  }
  if (o.rtt.n != 0 && o.rtt.n != o.nodes) return bad(fmt::format("an RTT matrix of {} nodes for {}", o.rtt.n, o.nodes));
  return {};
}

// Reads every node's ledger file (the killed one's too).
Result<std::vector<act::training::LedgerRecord>> ReadLedgers(const std::string& dir, int nodes) {
  std::vector<act::training::LedgerRecord> all;
  for (int i = 0; i < nodes; ++i) {
    const std::string path = (std::filesystem::path(dir) / fmt::format("ledger_{}.bin", i)).string();
    auto text = ReadFileText(path);
    if (!text.ok()) return text.error();
    const auto* p = reinterpret_cast<const uint8_t*>(text->data());
    auto recs = act::training::ParseLedger(std::span<const uint8_t>(p, text->size()));
    if (!recs.ok()) return MakeKindError(ErrorKind::kInternal, path + ": " + recs.error().message);
    all.insert(all.end(), recs->begin(), recs->end());
  }
  return all;
}

// Folds the survivors' reports and the ledger into the run.
void Summarize(const PsTrainingOptions& o, const std::vector<json>& reports, const std::vector<act::training::LedgerRecord>& ledger,
               int64_t kill_ns, PsTrainingRun& run) {
  int64_t start = 0, end = 0;
  std::vector<float> w(static_cast<size_t>(o.problem.features), 0.0f);
  const json* first = nullptr;
  for (const json& j : reports) {
    if (j.is_null()) continue;
    const auto b = j["bytes"].get<std::vector<int64_t>>();
    run.overhead_bytes += b[0];
    run.replication_bytes += b[1];
    run.data_bytes += b[2];
    run.resent += j["resent"].get<int64_t>();
    run.stale_routes += j["stale_routes"].get<int64_t>();
    run.detector_stalls += j["stalls"].get<int64_t>();
    start = start == 0 ? j["start_ns"].get<int64_t>() : std::min(start, j["start_ns"].get<int64_t>());
    end = std::max(end, j["end_ns"].get<int64_t>());
    if (first && (*first)["primaries"] != j["primaries"]) run.routes_agree = false;
    if (!first) first = &j;
    for (const auto& [key, values] : j["shards"].items()) {
      const int s = std::stoi(key);
      const auto [b0, e0] = Slice(o.problem.features, o.nodes, s);
      const auto v = values.get<std::vector<float>>();
      for (size_t i = 0; i < v.size() && b0 + i < e0; ++i) w[b0 + i] = v[i];
    }
  }
  run.wall_s = static_cast<double>(end - start) / 1e9;
  int reported = 0;
  for (const json& j : reports) reported += j.is_null() ? 0 : 1;
  run.overhead_mb_s = run.wall_s > 0 && reported > 0
                          ? static_cast<double>(run.overhead_bytes) / reported / run.wall_s / 1e6
                          : 0;
  const int shards = o.nodes;
  const std::vector<int> finals = act::training::FinalPrimaries(ledger, shards);
  run.ledger = act::training::Reconcile(ledger, finals);
  run.initial_loss = GlobalLoss(o.problem, o.nodes, std::vector<float>(w.size(), 0.0f));
  run.final_loss = GlobalLoss(o.problem, o.nodes, w);
  if (kill_ns <= 0) return;
  const auto victim = static_cast<uint32_t>(o.kill_node);
  for (const auto& r : ledger) {
    if (r.shard != victim || r.t_ns < kill_ns) continue;
    if (r.kind == act::training::LedgerKind::kPromote && run.detect_ms < 0) {
      run.detect_ms = static_cast<double>(r.t_ns - kill_ns) / 1e6;
      run.backup = static_cast<int>(r.node);
    }
    if (r.kind == act::training::LedgerKind::kApply && r.version >= 2) {
      const double ms = static_cast<double>(r.t_ns - kill_ns) / 1e6;
      if (run.failover_ms < 0 || ms < run.failover_ms) run.failover_ms = ms;
    }
  }
}

}  // namespace

Result<PsTrainingRun> RunPsTraining(const PsTrainingOptions& opt) {
  PsTrainingOptions o = opt;
  if (Status s = CheckOptions(o); !s.ok()) return s.error();
  if (o.rtt.n == 0) {
    auto m = LayoutRtts(o.nodes, o.layout);
    if (!m.ok()) return m.error();
    o.rtt = std::move(*m);
  }
  if (o.kill_step < 0) o.kill_step = o.steps / 2;
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = (std::filesystem::path(tmp && *tmp ? tmp : "/tmp") / "toposcope-ps-XXXXXX").string();
  if (!mkdtemp(dir.data())) return MakeKindError(ErrorKind::kOutput, dir + ": cannot make the ledger directory");
  auto procs = ForkProcesses(o.nodes, [&](int self, int up, int down) { NodeMain(o, dir, self, up, down); });
  if (!procs.ok()) return procs.error();
  std::string error = ExchangePorts(*procs) ? "" : "a node ended before it started";
  int64_t kill_ns = 0;
  if (error.empty() && o.kill_node >= 0) {
    uint64_t word = 0;
    const int fd = procs->up[static_cast<size_t>(o.kill_node)];
    if (ReadAll(fd, &word, sizeof word) && word == kKilledMarker) {
      kill_ns = NowNs();
      kill(procs->pids[static_cast<size_t>(o.kill_node)], SIGKILL);
    } else {
      std::string text(word < (1ULL << 24) ? word : 0, '\0');  // the word was its result's length
      const json j = json::parse(ReadAll(fd, text.data(), text.size()) ? text : "", nullptr, false);
      error = fmt::format("node {} ended before its step {}{}", o.kill_node, o.kill_step,
                          j.is_object() && j.contains("error") ? ": " + j["error"].get<std::string>() : "");
    }
  }
  std::vector<json> reports(static_cast<size_t>(o.nodes));
  for (int i = 0; i < o.nodes; ++i) {
    if (i == o.kill_node) continue;
    const json j = json::parse(ReadText(procs->up[static_cast<size_t>(i)]), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      if (error.empty()) error = fmt::format("node {} ended without its result", i);
    } else if (j.contains("error")) {
      if (error.empty()) error = j["error"].get<std::string>();
    } else {
      reports[static_cast<size_t>(i)] = j;
    }
  }
  ReapProcesses(*procs);
  auto ledger = error.empty() ? ReadLedgers(dir, o.nodes)
                              : Result<std::vector<act::training::LedgerRecord>>(std::vector<act::training::LedgerRecord>{});
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!error.empty()) return MakeKindError(ErrorKind::kInternal, "parameter-server run " + o.name + ": " + error);
  if (!ledger.ok()) return ledger.error();
  PsTrainingRun run;
  run.name = o.name;
  run.nodes = o.nodes;
  run.steps = o.steps;
  run.sparse = o.sparse;
  run.victim = o.kill_node;
  for (const auto& v : act::training::RankedNeighbours(o.rtt, o.sparse ? o.neighbours : 0))
    run.heartbeat_edges += static_cast<int>(v.size());
  Summarize(o, reports, *ledger, kill_ns, run);
  return run;
}

}  // namespace toposcope::experiments
