// act/training/ps_graph: see the header.
#include "toposcope/act/training/ps_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace toposcope::act::training {
namespace {

constexpr char kRouteMagic[4] = {'T', 'S', 'R', 'T'};
constexpr char kEpochMagic[4] = {'T', 'S', 'E', 'P'};

void PutU32(std::vector<uint8_t>& o, uint32_t v) {
  for (int i = 0; i < 4; ++i) o.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void PutU64(std::vector<uint8_t>& o, uint64_t v) {
  for (int i = 0; i < 8; ++i) o.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void PutU64At(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Reads little-endian fields off a buffer, remembering the first short read.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> b) : b_(b) {}
  uint64_t Get(int bytes) {
    if (pos_ + static_cast<size_t>(bytes) > b_.size()) {
      short_at_ = std::min(short_at_, pos_);
      pos_ = b_.size();
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(b_[pos_ + static_cast<size_t>(i)]) << (8 * i);
    pos_ += static_cast<size_t>(bytes);
    return v;
  }
  bool Floats(size_t n, std::vector<float>& out) {
    if (pos_ + n * sizeof(float) > b_.size()) {
      short_at_ = std::min(short_at_, pos_);
      pos_ = b_.size();
      return false;
    }
    out.resize(n);
    if (n > 0) std::memcpy(out.data(), b_.data() + pos_, n * sizeof(float));
    pos_ += n * sizeof(float);
    return true;
  }
  [[nodiscard]] bool ok() const { return short_at_ == std::numeric_limits<size_t>::max(); }
  [[nodiscard]] size_t short_at() const { return short_at_; }
  [[nodiscard]] size_t pos() const { return pos_; }
  [[nodiscard]] size_t size() const { return b_.size(); }

 private:
  std::span<const uint8_t> b_;
  size_t pos_ = 0;
  size_t short_at_ = std::numeric_limits<size_t>::max();
};

}  // namespace

Result<RttMatrix> MakeRttMatrix(int n, std::vector<double> us) {
  if (n < 2) return MakeKindError(ErrorKind::kUsage, fmt::format("{} node(s): the graph needs at least 2", n));
  if (us.size() != static_cast<size_t>(n) * static_cast<size_t>(n)) {
    return MakeKindError(ErrorKind::kUsage, fmt::format("{} RTTs given for {} nodes ({} needed)", us.size(), n,
                                                        static_cast<size_t>(n) * static_cast<size_t>(n)));
  }
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      double& v = us[static_cast<size_t>(a) * static_cast<size_t>(n) + static_cast<size_t>(b)];
      if (a == b) {
        v = 0;
      } else if (!std::isfinite(v) || v < 0) {
        return MakeKindError(ErrorKind::kUsage, fmt::format("RTT from node {} to node {} is {}", a, b, v));
      }
    }
  }
  return RttMatrix{n, std::move(us), {}};
}

Result<RttMatrix> RttMatrixFromProbes(const std::vector<formats::PathProbe>& probes, int n,
                                      std::vector<std::string>* hosts_out) {
  std::set<std::string> names;
  for (const auto& p : probes) {
    if (!std::isfinite(p.rtt_us) || p.rtt_us < 0) continue;
    names.insert(p.src);
    names.insert(p.dst);
  }
  if (names.size() < static_cast<size_t>(n)) {
    return MakeError(fmt::format("the probes join {} host(s), {} nodes asked for", names.size(), n),
                     "give fewer nodes, or probes between more hosts");
  }
  std::vector<std::string> hosts(names.begin(), names.end());
  hosts.resize(static_cast<size_t>(n));
  std::unordered_map<std::string, int> index;
  for (int i = 0; i < n; ++i) index[hosts[static_cast<size_t>(i)]] = i;
  std::vector<std::vector<double>> samples(static_cast<size_t>(n) * static_cast<size_t>(n));
  for (const auto& p : probes) {
    if (!std::isfinite(p.rtt_us) || p.rtt_us < 0) continue;
    const auto a = index.find(p.src), b = index.find(p.dst);
    if (a == index.end() || b == index.end() || a->second == b->second) continue;
    const int lo = std::min(a->second, b->second), hi = std::max(a->second, b->second);
    samples[static_cast<size_t>(lo) * static_cast<size_t>(n) + static_cast<size_t>(hi)].push_back(p.rtt_us);
  }
  std::vector<double> us(static_cast<size_t>(n) * static_cast<size_t>(n), 0.0);
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      auto& s = samples[static_cast<size_t>(a) * static_cast<size_t>(n) + static_cast<size_t>(b)];
      if (s.empty()) {
        return MakeError(fmt::format("no probe joins {} and {}", hosts[static_cast<size_t>(a)],
                                     hosts[static_cast<size_t>(b)]),
                         "the graph needs an RTT for every pair of its nodes");
      }
      std::sort(s.begin(), s.end());
      const size_t m = s.size() / 2;
      const double med = s.size() % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
      us[static_cast<size_t>(a) * static_cast<size_t>(n) + static_cast<size_t>(b)] = med;
      us[static_cast<size_t>(b) * static_cast<size_t>(n) + static_cast<size_t>(a)] = med;
    }
  }
  if (hosts_out) *hosts_out = hosts;
  return MakeRttMatrix(n, std::move(us));
}

std::vector<std::vector<int>> RankedNeighbours(const RttMatrix& rtt, int k) {
  std::vector<std::vector<int>> out(static_cast<size_t>(rtt.n));
  const int take = (k <= 0 || k >= rtt.n - 1) ? rtt.n - 1 : k;
  for (int a = 0; a < rtt.n; ++a) {
    std::vector<int> peers;
    for (int b = 0; b < rtt.n; ++b) {
      if (b != a) peers.push_back(b);
    }
    std::partial_sort(peers.begin(), peers.begin() + take, peers.end(), [&](int x, int y) {
      const double rx = rtt.At(a, x), ry = rtt.At(a, y);
      return rx != ry ? rx < ry : x < y;
    });
    peers.resize(static_cast<size_t>(take));
    out[static_cast<size_t>(a)] = std::move(peers);
  }
  return out;
}

double MeanRtt(const RttMatrix& rtt, int node, const std::vector<int>& peers) {
  if (peers.empty()) return 0;
  double s = 0;
  for (int p : peers) s += rtt.At(node, p);
  return s / static_cast<double>(peers.size());
}

int ChooseBackup(const RttMatrix& rtt, const std::vector<int>& ranked, const std::vector<bool>& alive, int top) {
  std::vector<int> candidates;
  for (int p : ranked) {
    if (static_cast<int>(candidates.size()) >= top) break;
    if (alive[static_cast<size_t>(p)]) candidates.push_back(p);
  }
  int best = -1;
  double best_mean = std::numeric_limits<double>::infinity();
  for (int c : candidates) {
    double s = 0;
    int count = 0;
    for (int q = 0; q < rtt.n; ++q) {
      if (q == c || !alive[static_cast<size_t>(q)]) continue;
      s += rtt.At(c, q);
      ++count;
    }
    const double mean = count ? s / count : 0;
    if (mean < best_mean) {
      best_mean = mean;
      best = c;
    }
  }
  return best;
}

bool SyncFailureDetector::Round(int64_t attempts, int64_t failures) {
  const double rate = attempts > 0 ? static_cast<double>(failures) / static_cast<double>(attempts) : 0.0;
  run_ = rate > o_.sync_failure_rate ? run_ + 1 : 0;
  return Fired();
}

bool VarianceJumpDetector::Observe(double v) {
  if (!std::isfinite(v)) {
    fired_ = true;
    return true;
  }
  if (n_ >= o_.variance_warmup) {
    const double sd = n_ > 1 ? std::sqrt(m2_ / static_cast<double>(n_ - 1)) : 0.0;
    if (v - mean_ > o_.variance_jump_sigmas * sd && v > mean_) {
      fired_ = true;
      return true;
    }
  }
  ++n_;
  const double d = v - mean_;
  mean_ += d / static_cast<double>(n_);
  m2_ += d * (v - mean_);
  return false;
}

double GradientVariance(std::span<const float> g) {
  if (g.empty()) return 0;
  double s = 0, s2 = 0;
  for (float x : g) {
    s += x;
    s2 += static_cast<double>(x) * x;
  }
  const double n = static_cast<double>(g.size());
  return std::max(0.0, s2 / n - (s / n) * (s / n));
}

RouteTable::RouteTable(int shards) {
  for (int i = 0; i < shards; ++i) entries_.push_back(RouteEntry{i, 1});
}

RouteApply RouteTable::Apply(const std::vector<RouteChange>& update) {
  bool fresh = !update.empty();
  for (const auto& c : update) {
    if (c.shard >= entries_.size() || c.entry.version <= entries_[c.shard].version) fresh = false;
  }
  if (!fresh) {
    ++stale_;
    return RouteApply::kStale;
  }
  for (const auto& c : update) entries_[c.shard] = c.entry;
  return RouteApply::kApplied;
}

RouteChange RouteTable::Promote(uint32_t shard, int node) const {
  return RouteChange{shard, RouteEntry{node, entries_[shard].version + 1}};
}

std::vector<uint8_t> SerializeRoute(const std::vector<RouteChange>& update) {
  std::vector<uint8_t> o(kRouteMagic, kRouteMagic + 4);
  PutU32(o, static_cast<uint32_t>(update.size()));
  for (const auto& c : update) {
    PutU32(o, c.shard);
    PutU32(o, static_cast<uint32_t>(c.entry.primary));
    PutU64(o, c.entry.version);
  }
  return o;
}

Result<std::vector<RouteChange>> ParseRoute(std::span<const uint8_t> b) {
  if (b.size() < 8 || std::memcmp(b.data(), kRouteMagic, 4) != 0)
    return MakeError("not a route update at byte 0 (no TSRT)");
  Reader r(b.subspan(4));
  const uint64_t n = r.Get(4);
  if (n * 16 != r.size() - 4) {
    return MakeError(fmt::format("route update: {} changes named at byte 4, {} bytes follow", n, r.size() - 4));
  }
  std::vector<RouteChange> out(n);
  for (auto& c : out) {
    c.shard = static_cast<uint32_t>(r.Get(4));
    c.entry.primary = static_cast<int32_t>(r.Get(4));
    c.entry.version = r.Get(8);
  }
  return out;
}

std::vector<uint8_t> SerializeEpoch(const Epoch& e) {
  std::vector<uint8_t> o(kEpochMagic, kEpochMagic + 4);
  PutU32(o, e.shard);
  PutU64(o, e.number);
  PutU64(o, e.version);
  PutU32(o, static_cast<uint32_t>(e.entries.size()));
  for (const auto& x : e.entries) {
    PutU32(o, x.id.worker);
    PutU64(o, x.id.step);
    o.push_back(x.reack ? 1 : 0);
    PutU32(o, static_cast<uint32_t>(x.delta.size()));
    const size_t at = o.size();
    o.resize(at + x.delta.size() * sizeof(float));
    if (!x.delta.empty()) std::memcpy(o.data() + at, x.delta.data(), x.delta.size() * sizeof(float));
  }
  return o;
}

Result<Epoch> ParseEpoch(std::span<const uint8_t> b) {
  if (b.size() < 4 || std::memcmp(b.data(), kEpochMagic, 4) != 0) return MakeError("not an epoch at byte 0 (no TSEP)");
  Reader r(b.subspan(4));
  Epoch e;
  e.shard = static_cast<uint32_t>(r.Get(4));
  e.number = r.Get(8);
  e.version = r.Get(8);
  const uint64_t n = r.Get(4);
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    EpochEntry x;
    x.id.worker = static_cast<uint32_t>(r.Get(4));
    x.id.step = r.Get(8);
    const uint64_t flag = r.Get(1);
    if (flag > 1) return MakeError(fmt::format("epoch: entry {} has flag {} at byte {}", i, flag, r.pos() + 3));
    x.reack = flag == 1;
    const uint64_t len = r.Get(4);
    if (!r.Floats(len, x.delta)) break;
    e.entries.push_back(std::move(x));
  }
  if (!r.ok()) return MakeError(fmt::format("epoch cut short at byte {}", r.short_at() + 4));
  if (r.pos() != r.size()) return MakeError(fmt::format("epoch: {} bytes after its end", r.size() - r.pos()));
  return e;
}

void ShardCopy::Add(std::span<const float> delta) {
  const size_t n = std::min(delta.size(), values_.size());
  for (size_t i = 0; i < n; ++i) values_[i] += delta[i];
}

bool ShardCopy::ApplyPush(UpdateId id, std::span<const float> delta) {
  EpochEntry x;
  x.id = id;
  if (!ids_.insert(id).second) {
    x.reack = true;
    open_.entries.push_back(std::move(x));
    return false;
  }
  Add(delta);
  x.delta.assign(delta.begin(), delta.end());
  open_.entries.push_back(std::move(x));
  return true;
}

std::optional<Epoch> ShardCopy::CloseEpoch(uint64_t version) {
  if (open_.entries.empty()) return std::nullopt;
  Epoch e = std::move(open_);
  open_ = Epoch{};
  e.shard = shard_;
  e.number = last_epoch() + 1;
  e.version = version;
  SeeVersion(version);
  epochs_[e.number] = e;
  return e;
}

EpochApply ShardCopy::ApplyEpoch(const Epoch& e, std::vector<UpdateId>* replayed, std::vector<UpdateId>* skipped,
                                 bool pulled) {
  if (!pulled && e.version < version_seen_) return EpochApply::kStaleVersion;
  if (e.number <= last_epoch()) return EpochApply::kOld;
  if (e.number != last_epoch() + 1) return EpochApply::kGap;
  for (const auto& x : e.entries) {
    if (!x.reack && x.delta.size() != values_.size()) return EpochApply::kBadSize;
  }
  SeeVersion(e.version);
  for (const auto& x : e.entries) {
    if (x.reack) continue;
    if (!ids_.insert(x.id).second) {
      if (skipped) skipped->push_back(x.id);
      continue;
    }
    Add(x.delta);
    if (replayed) replayed->push_back(x.id);
  }
  epochs_[e.number] = e;
  return EpochApply::kApplied;
}

std::vector<const Epoch*> ShardCopy::EpochsAfter(uint64_t have) const {
  std::vector<const Epoch*> out;
  for (auto it = epochs_.upper_bound(have); it != epochs_.end(); ++it) out.push_back(&it->second);
  return out;
}

void CommitTracker::Add(uint64_t epoch, const std::vector<int>& replicas) {
  waiting_[epoch] = std::set<int>(replicas.begin(), replicas.end());
}

void CommitTracker::Ack(uint64_t epoch, int replica) {
  const auto it = waiting_.find(epoch);
  if (it != waiting_.end()) it->second.erase(replica);
}

void CommitTracker::Drop(int replica) {
  for (auto& [e, w] : waiting_) w.erase(replica);
}

std::vector<uint64_t> CommitTracker::PopCommitted() {
  std::vector<uint64_t> out;
  while (!waiting_.empty() && waiting_.begin()->second.empty()) {
    out.push_back(waiting_.begin()->first);
    waiting_.erase(waiting_.begin());
  }
  return out;
}

void SerializeLedgerRecord(const LedgerRecord& r, uint8_t* p) {
  std::memset(p, 0, kLedgerRecordBytes);
  p[0] = static_cast<uint8_t>(r.kind);
  for (int i = 0; i < 3; ++i) p[1 + i] = static_cast<uint8_t>(r.node >> (8 * i));  // nodes < 2^24
  for (int i = 0; i < 4; ++i) p[4 + i] = static_cast<uint8_t>(r.shard >> (8 * i));
  for (int i = 0; i < 4; ++i) p[8 + i] = static_cast<uint8_t>(r.id.worker >> (8 * i));
  PutU64At(p + 12, r.id.step);
  PutU64At(p + 20, r.version);
  PutU64At(p + 28, static_cast<uint64_t>(r.t_ns));
}

Result<std::vector<LedgerRecord>> ParseLedger(std::span<const uint8_t> b) {
  if (b.size() % kLedgerRecordBytes != 0) {
    return MakeError(fmt::format("ledger of {} bytes: not a whole number of {}-byte records (record {} cut short)",
                                 b.size(), kLedgerRecordBytes, b.size() / kLedgerRecordBytes));
  }
  std::vector<LedgerRecord> out;
  for (size_t at = 0; at < b.size(); at += kLedgerRecordBytes) {
    Reader r(b.subspan(at, kLedgerRecordBytes));
    LedgerRecord x;
    const uint64_t kind = r.Get(1);
    if (kind < 1 || kind > 5) {
      return MakeError(fmt::format("ledger record {} (byte {}): unknown kind {}", at / kLedgerRecordBytes, at, kind));
    }
    x.kind = static_cast<LedgerKind>(kind);
    x.node = static_cast<uint32_t>(r.Get(3));
    x.shard = static_cast<uint32_t>(r.Get(4));
    x.id.worker = static_cast<uint32_t>(r.Get(4));
    x.id.step = r.Get(8);
    x.version = r.Get(8);
    x.t_ns = static_cast<int64_t>(r.Get(8));
    out.push_back(x);
  }
  return out;
}

std::vector<int> FinalPrimaries(const std::vector<LedgerRecord>& records, int shards) {
  std::vector<int> out(static_cast<size_t>(shards));
  std::iota(out.begin(), out.end(), 0);
  std::vector<uint64_t> version(static_cast<size_t>(shards), 1);
  for (const auto& r : records) {
    if (r.kind != LedgerKind::kPromote || r.shard >= static_cast<uint32_t>(shards)) continue;
    if (r.version > version[r.shard]) {
      version[r.shard] = r.version;
      out[r.shard] = static_cast<int>(r.node);
    }
  }
  return out;
}

Reconciliation Reconcile(const std::vector<LedgerRecord>& records, const std::vector<int>& final_primary) {
  Reconciliation rc;
  std::map<std::pair<uint32_t, UpdateId>, int64_t> in_final;  // (shard, id) -> times in the final copy
  std::set<std::pair<uint32_t, UpdateId>> acked;
  for (const auto& r : records) {
    if (r.kind == LedgerKind::kAcked) acked.insert({r.shard, r.id});
    if (r.kind == LedgerKind::kReplay) ++rc.replays;
    if (r.kind == LedgerKind::kSkip) ++rc.skipped;
    if (r.kind != LedgerKind::kApply && r.kind != LedgerKind::kReplay) continue;
    if (r.shard >= final_primary.size() || static_cast<int>(r.node) != final_primary[r.shard]) continue;
    ++in_final[{r.shard, r.id}];
  }
  constexpr size_t kKeep = 8;
  for (const auto& [key, n] : in_final) {
    ++rc.applied;
    if (n > 1) {
      ++rc.duplicates;
      if (rc.duplicate_ids.size() < kKeep) rc.duplicate_ids.push_back(key.second);
    }
  }
  for (const auto& key : acked) {
    ++rc.acked;
    if (!in_final.count(key)) {
      ++rc.lost;
      if (rc.lost_ids.size() < kKeep) rc.lost_ids.push_back(key.second);
    }
  }
  return rc;
}

}  // namespace toposcope::act::training
