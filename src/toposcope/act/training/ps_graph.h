// act/training/ps_graph: the protocol of the sparse parameter-server graph with failover (§4.4), as
// pure logic (no I/O, no clock: the real run on loopback, experiments/ps_training, and the
// discrete-event simulation, experiments/ps_des, drive it).
//
// - Graph: each node heartbeats its k = 4 lowest-RTT peers (the full graph: every peer); a node is
//   watched by the peers it heartbeats. Shard i starts on node i; its replicas are node i's 3
//   lowest-RTT peers, which hold every committed epoch of the shard.
// - Failure detectors (any one fires): a heartbeat late by >= 3 x the watcher's mean RTT over its
//   neighbours; a sync failure rate above 15 % for 2 rounds in a row; the local gradient variance
//   jumping by more than 8 sigma over its running mean.
// - Backup: among the failed primary's replicas still alive, the first 3 by latency, the one with
//   the smallest mean RTT to the alive nodes (ties: the nearer one).
// - Routes: one entry per shard (primary, version); a route update names the entries it changes
//   and is applied whole or not at all: an entry not newer than the table's makes it stale.
// - Exactly once: every gradient update has an id (worker, step). A shard's copy keeps the ids it
//   holds and applies an id once; the primary batches its applies into epochs that its replicas
//   apply in order (a gap: they pull the epochs after the last one they hold, incrementally); the
//   primary acknowledges an update only once every live replica holds its epoch. After a run the
//   ledger of applies, replays and acknowledgements is reconciled against the final primaries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/formats/fabric/path_probe.h"

namespace toposcope::act::training {

// Round-trip times between n nodes, µs: us[a * n + b] (the diagonal 0), or, for graphs too large to
// hold n x n values (the simulation's thousands of nodes), a function of the pair.
struct RttMatrix {
  int n = 0;
  std::vector<double> us;
  std::function<double(int, int)> fn;  // when set, At calls it instead of reading us
  [[nodiscard]] double At(int a, int b) const {
    if (fn) return a == b ? 0.0 : fn(a, b);
    return us[static_cast<size_t>(a) * static_cast<size_t>(n) + static_cast<size_t>(b)];
  }
};
// Fails (kUsage) on n < 2, another size, or a negative or non-finite RTT off the diagonal.
Result<RttMatrix> MakeRttMatrix(int n, std::vector<double> us);
// The median RTT per host pair (either direction) of the first `n` hosts in name order among the
// probes' ends. Fails (kInput) with fewer than n hosts or a pair no finite probe joins (named).
Result<RttMatrix> RttMatrixFromProbes(const std::vector<formats::PathProbe>& probes, int n,
                                      std::vector<std::string>* hosts = nullptr);

// Each node's peers by RTT (ties: lower id), the first k (k <= 0 or k >= n - 1: all of them).
std::vector<std::vector<int>> RankedNeighbours(const RttMatrix& rtt, int k);
// The mean RTT from `node` to `peers`.
double MeanRtt(const RttMatrix& rtt, int node, const std::vector<int>& peers);
// The backup of a failed primary: among the first `top` alive nodes of `ranked` (its peers by RTT),
// the one with the smallest mean RTT to the alive nodes; ties: the earlier in `ranked`. -1: none.
int ChooseBackup(const RttMatrix& rtt, const std::vector<int>& ranked, const std::vector<bool>& alive,
                 int top = 3);

struct DetectorOptions {
  double heartbeat_late_rtts = 3;   // late by >= this many mean RTTs
  double sync_failure_rate = 0.15;  // above this ...
  int sync_failure_rounds = 2;      // ... for this many rounds in a row
  double variance_jump_sigmas = 8;  // above the running mean by more than this many sigma
  int variance_warmup = 8;          // observations before the variance detector may fire
};

// One watcher's view of one peer's heartbeats (every frame from the peer counts).
class HeartbeatDetector {
 public:
  HeartbeatDetector(double interval_us, double start_us) : interval_us_(interval_us), last_us_(start_us) {}
  void Heard(double now_us) { last_us_ = std::max(last_us_, now_us); }
  // How late the next heartbeat is at now_us (<= 0: not late).
  [[nodiscard]] double LateUs(double now_us) const { return now_us - (last_us_ + interval_us_); }
  // Late by >= late_rtts x mean_rtt_us.
  [[nodiscard]] bool Late(double now_us, double mean_rtt_us, double late_rtts = 3) const {
    return LateUs(now_us) >= late_rtts * mean_rtt_us;
  }
  // The time at which Late turns true, if nothing is heard before.
  [[nodiscard]] double DeadlineUs(double mean_rtt_us, double late_rtts = 3) const {
    return last_us_ + interval_us_ + late_rtts * mean_rtt_us;
  }
  [[nodiscard]] double last_us() const { return last_us_; }

 private:
  double interval_us_;
  double last_us_;
};

// Sync failures per round: fires once the rate exceeds the threshold for `rounds` rounds in a row.
class SyncFailureDetector {
 public:
  explicit SyncFailureDetector(const DetectorOptions& o = {}) : o_(o) {}
  // One round: `attempts` syncs, `failures` of them failed. Returns Fired().
  bool Round(int64_t attempts, int64_t failures);
  [[nodiscard]] bool Fired() const { return run_ >= o_.sync_failure_rounds; }

 private:
  DetectorOptions o_;
  int run_ = 0;  // rounds in a row above the rate
};

// The local gradient variance over time: fires when one exceeds the running mean of the earlier
// ones by more than `sigmas` running standard deviations (after the warm-up; a flat history fires on
// any rise). A value that fires does not enter the running statistics.
class VarianceJumpDetector {
 public:
  explicit VarianceJumpDetector(const DetectorOptions& o = {}) : o_(o) {}
  bool Observe(double variance);
  [[nodiscard]] bool Fired() const { return fired_; }

 private:
  DetectorOptions o_;
  int64_t n_ = 0;
  double mean_ = 0, m2_ = 0;
  bool fired_ = false;
};
// The variance of a gradient's elements.
double GradientVariance(std::span<const float> g);

struct RouteEntry {
  int32_t primary = 0;
  uint64_t version = 1;
};
struct RouteChange {
  uint32_t shard = 0;
  RouteEntry entry;
};
enum class RouteApply { kApplied, kStale };

// Shard -> primary, each entry versioned.
class RouteTable {
 public:
  explicit RouteTable(int shards = 0);  // shard i on node i, version 1
  // Applies every change, or none when any change's shard is unknown or its version is not newer
  // than the table's (kStale: counted).
  RouteApply Apply(const std::vector<RouteChange>& update);
  // The change that moves `shard` to `node` with the next version (not applied).
  [[nodiscard]] RouteChange Promote(uint32_t shard, int node) const;
  [[nodiscard]] const RouteEntry& Entry(uint32_t shard) const { return entries_[shard]; }
  [[nodiscard]] int Primary(uint32_t shard) const { return entries_[shard].primary; }
  [[nodiscard]] size_t size() const { return entries_.size(); }
  [[nodiscard]] int64_t stale_refused() const { return stale_; }

 private:
  std::vector<RouteEntry> entries_;
  int64_t stale_ = 0;
};
std::vector<uint8_t> SerializeRoute(const std::vector<RouteChange>& update);
// Fails (kInput), naming the byte offset, on a buffer that is not a route update.
Result<std::vector<RouteChange>> ParseRoute(std::span<const uint8_t> bytes);

struct UpdateId {
  uint32_t worker = 0;
  uint64_t step = 0;
  auto operator<=>(const UpdateId&) const = default;
};

// One update in an epoch: its delta to the shard's values, or none (`reack`: an update the copy
// already held, acknowledged again through this epoch).
struct EpochEntry {
  UpdateId id;
  bool reack = false;
  std::vector<float> delta;
};
struct Epoch {
  uint32_t shard = 0;
  uint64_t number = 0;   // 1, 2, ... per shard, across primaries
  uint64_t version = 1;  // the route version of the primary that closed it
  std::vector<EpochEntry> entries;
};
std::vector<uint8_t> SerializeEpoch(const Epoch& e);
Result<Epoch> ParseEpoch(std::span<const uint8_t> bytes);

enum class EpochApply { kApplied, kOld, kGap, kStaleVersion, kBadSize };

// One node's copy of one shard: its values, the ids it holds, its epochs (for pulls), the open epoch.
class ShardCopy {
 public:
  ShardCopy(uint32_t shard, size_t size) : shard_(shard), values_(size, 0.0f) {}
  // The primary applies a pushed update: false (nothing applied, a reack entry opened) when the id
  // is already held. Either way the id goes into the open epoch.
  bool ApplyPush(UpdateId id, std::span<const float> delta);
  [[nodiscard]] bool HasOpen() const { return !open_.entries.empty(); }
  // Closes the open epoch as the next number under `version`; keeps it for pulls.
  std::optional<Epoch> CloseEpoch(uint64_t version);
  // A replica applies an epoch in order: kOld (already held), kGap (an earlier one is missing: pull
  // the epochs after last_epoch()), kStaleVersion (sent live under a route version older than one
  // seen: a demoted primary's). `pulled`: the epoch is history answering a pull, whatever version
  // closed it (a new primary pulls its predecessor's epochs). Ids already held are skipped (listed
  // in `skipped`), the others applied (listed in `replayed`).
  EpochApply ApplyEpoch(const Epoch& e, std::vector<UpdateId>* replayed = nullptr,
                        std::vector<UpdateId>* skipped = nullptr, bool pulled = false);
  // The epochs after `have`, in order (an incremental pull's answer).
  [[nodiscard]] std::vector<const Epoch*> EpochsAfter(uint64_t have) const;
  void SeeVersion(uint64_t v) { version_seen_ = std::max(version_seen_, v); }
  [[nodiscard]] uint64_t last_epoch() const { return epochs_.empty() ? 0 : epochs_.rbegin()->first; }
  [[nodiscard]] bool Holds(UpdateId id) const { return ids_.count(id) > 0; }
  [[nodiscard]] const std::vector<float>& values() const { return values_; }
  [[nodiscard]] size_t held() const { return ids_.size(); }
  [[nodiscard]] uint32_t shard() const { return shard_; }

 private:
  void Add(std::span<const float> delta);
  uint32_t shard_;
  std::vector<float> values_;
  std::set<UpdateId> ids_;
  std::map<uint64_t, Epoch> epochs_;
  Epoch open_;
  uint64_t version_seen_ = 0;
};

// The primary's epochs awaiting their replicas' acknowledgements.
class CommitTracker {
 public:
  void Add(uint64_t epoch, const std::vector<int>& replicas);
  void Ack(uint64_t epoch, int replica);
  // A replica found dead: no epoch waits for it any more.
  void Drop(int replica);
  // The epochs every replica has acknowledged, oldest first, removed (an epoch commits only after
  // every earlier one).
  std::vector<uint64_t> PopCommitted();
  [[nodiscard]] bool empty() const { return waiting_.empty(); }

 private:
  std::map<uint64_t, std::set<int>> waiting_;
};

enum class LedgerKind : uint8_t {
  kApply = 1,    // a primary applied a pushed update into its copy
  kReplay = 2,   // a copy applied an update from a replicated or pulled epoch
  kSkip = 3,     // a copy refused an update it already held (push or replay)
  kAcked = 4,    // a worker received the acknowledgement of its update (the first one)
  kPromote = 5,  // a node took a shard over (id.step: the route version)
};
struct LedgerRecord {
  LedgerKind kind = LedgerKind::kApply;
  uint32_t node = 0, shard = 0;
  UpdateId id;
  uint64_t version = 0;
  int64_t t_ns = 0;
};
inline constexpr size_t kLedgerRecordBytes = 40;
void SerializeLedgerRecord(const LedgerRecord& r, uint8_t* out);  // kLedgerRecordBytes bytes
// Fails (kInput), naming the record, on a size that is not a whole number of records or an
// unknown kind.
Result<std::vector<LedgerRecord>> ParseLedger(std::span<const uint8_t> bytes);

struct Reconciliation {
  int64_t acked = 0;       // distinct acknowledged updates
  int64_t applied = 0;     // distinct updates in the final copies
  int64_t lost = 0;        // acknowledged, in no final copy
  int64_t duplicates = 0;  // in a final copy more than once (applied and replayed counted alike)
  int64_t replays = 0, skipped = 0;
  std::vector<UpdateId> lost_ids, duplicate_ids;  // the first few of each
};
// The final primary of each shard: the node of its promotion with the highest version, else
// shard i's node i.
std::vector<int> FinalPrimaries(const std::vector<LedgerRecord>& records, int shards);
// Reconciles the ledger of every node: per shard, the applies and replays the final primary made
// into its copy, against the acknowledgements every worker received.
Reconciliation Reconcile(const std::vector<LedgerRecord>& records, const std::vector<int>& final_primary);

}  // namespace toposcope::act::training
