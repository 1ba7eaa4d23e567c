// act/training/ps_graph: neighbours by RTT, the backup among the top 3, the three failure detectors at
// their thresholds, route updates (stale versions refused whole), epochs (round trip, in order, gaps,
// a demoted primary's refused, duplicates skipped), commits, the ledger file format, and the
// reconciliation catching a lost and a doubled update.
#include "toposcope/act/training/ps_graph.h"

#include <gtest/gtest.h>

#include <vector>

namespace toposcope::act::training {
namespace ps_graph_test {

// Five nodes on a line, RTT = 100 µs x distance.
RttMatrix Line(int n) {
  std::vector<double> us(static_cast<size_t>(n * n));
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) us[static_cast<size_t>(a * n + b)] = 100.0 * std::abs(a - b);
  auto m = MakeRttMatrix(n, us);
  EXPECT_TRUE(m.ok());
  return *m;
}

TEST(PsGraphTest, NeighboursAreTheLowestRtts) {
  const RttMatrix m = Line(7);
  const auto k4 = RankedNeighbours(m, 4);
  EXPECT_EQ(k4[0], (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(k4[3], (std::vector<int>{2, 4, 1, 5}));  // ties: lower id first
  const auto full = RankedNeighbours(m, 0);
  EXPECT_EQ(full[3].size(), 6u);
  EXPECT_DOUBLE_EQ(MeanRtt(m, 0, k4[0]), 250.0);
  EXPECT_DOUBLE_EQ(MeanRtt(m, 0, full[0]), 350.0);
  EXPECT_FALSE(MakeRttMatrix(1, {0}).ok());
  EXPECT_FALSE(MakeRttMatrix(2, {0, -1, 1, 0}).ok());
  EXPECT_FALSE(MakeRttMatrix(2, {0, 1, 1}).ok());
}

TEST(PsGraphTest, BackupIsChosenAmongTheTopThree) {
  const RttMatrix m = Line(7);
  std::vector<bool> alive(7, true);
  alive[3] = false;
  // Node 3's peers by RTT: 2, 4, 1, 5, 0, 6. Of the top 3 (2, 4, 1), 2 and 4 are the most central
  // (mean RTT to the other alive nodes 240 µs each, 1: 280 µs); 2 comes first.
  const auto ranked = RankedNeighbours(m, 0);
  EXPECT_EQ(ChooseBackup(m, ranked[3], alive), 2);
  alive[2] = false;  // 2 dead: the top 3 alive are 4, 1, 5; 4 is the most central
  EXPECT_EQ(ChooseBackup(m, ranked[3], alive), 4);
  // Node 0's peers by RTT are 1, 2, 3, 4, 5, 6; with 2 and 3 dead its alive top 3 are 1, 4, 5 (mean
  // RTTs 325, 250, 275 µs): 4, never 6 (the fourth alive).
  EXPECT_EQ(ChooseBackup(m, ranked[0], alive), 4);
  std::vector<bool> none(7, false);
  EXPECT_EQ(ChooseBackup(m, ranked[0], none), -1);
}

TEST(PsGraphTest, HeartbeatLateByThreeMeanRtts) {
  HeartbeatDetector d(1000, 0);  // heartbeats every 1 ms, last heard at 0
  EXPECT_FALSE(d.Late(1000 + 2999, 1000));
  EXPECT_TRUE(d.Late(1000 + 3000, 1000));
  EXPECT_DOUBLE_EQ(d.DeadlineUs(1000), 4000);
  d.Heard(2500);
  EXPECT_FALSE(d.Late(4000, 1000));
  EXPECT_TRUE(d.Late(6500, 1000));
  d.Heard(100);  // an old frame does not move it back
  EXPECT_DOUBLE_EQ(d.last_us(), 2500);
}

TEST(PsGraphTest, SyncFailuresAboveFifteenPercentForTwoRounds) {
  SyncFailureDetector d;
  EXPECT_FALSE(d.Round(100, 16));
  EXPECT_FALSE(d.Round(100, 15));  // 15 % is not above: the run restarts
  EXPECT_FALSE(d.Round(100, 16));
  EXPECT_TRUE(d.Round(100, 40));
  SyncFailureDetector e;
  EXPECT_FALSE(e.Round(0, 0));
  EXPECT_FALSE(e.Round(20, 4));
  EXPECT_FALSE(e.Round(20, 2));
}

TEST(PsGraphTest, VarianceJumpOfMoreThanEightSigma) {
  VarianceJumpDetector d;
  const double base[] = {1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 1.0, 1.0};  // mean 1, sd 0.0598
  for (double v : base) EXPECT_FALSE(d.Observe(v));
  EXPECT_FALSE(d.Observe(1.45));  // 7.5 sigma: not yet
  VarianceJumpDetector e;
  for (double v : base) e.Observe(v);
  EXPECT_TRUE(e.Observe(1.5));  // 8.4 sigma
  EXPECT_TRUE(e.Fired());
  VarianceJumpDetector f;  // before the warm-up nothing fires
  EXPECT_FALSE(f.Observe(1));
  EXPECT_FALSE(f.Observe(100));
  EXPECT_NEAR(GradientVariance(std::vector<float>{1, 3}), 1.0, 1e-12);
}

TEST(PsGraphTest, StaleRouteVersionsAreRefused) {
  RouteTable t(4);
  EXPECT_EQ(t.Primary(2), 2);
  const RouteChange move = t.Promote(2, 3);
  EXPECT_EQ(move.entry.version, 2u);
  auto wire = ParseRoute(SerializeRoute({move}));
  ASSERT_TRUE(wire.ok());
  EXPECT_EQ(t.Apply(*wire), RouteApply::kApplied);
  EXPECT_EQ(t.Primary(2), 3);
  EXPECT_EQ(t.Apply({move}), RouteApply::kStale);  // the same version again
  EXPECT_EQ(t.Apply({RouteChange{2, {1, 1}}}), RouteApply::kStale);
  // Atomic: one stale change refuses the whole update, the fresh one included.
  EXPECT_EQ(t.Apply({RouteChange{0, {1, 2}}, RouteChange{2, {0, 2}}}), RouteApply::kStale);
  EXPECT_EQ(t.Primary(0), 0);
  EXPECT_EQ(t.stale_refused(), 3);
  EXPECT_EQ(t.Apply({RouteChange{9, {1, 5}}}), RouteApply::kStale);  // unknown shard
  EXPECT_FALSE(ParseRoute(std::vector<uint8_t>{'T', 'S', 'R', 'T', 2, 0, 0, 0}).ok());
}

TEST(PsGraphTest, EpochsReplicateInOrderAndSkipDuplicates) {
  ShardCopy primary(0, 2), replica(0, 2);
  EXPECT_TRUE(primary.ApplyPush({1, 0}, std::vector<float>{1, 2}));
  EXPECT_FALSE(primary.ApplyPush({1, 0}, std::vector<float>{1, 2}));  // a retry: not applied again
  EXPECT_EQ(primary.values(), (std::vector<float>{1, 2}));
  auto e1 = primary.CloseEpoch(1);
  ASSERT_TRUE(e1.has_value());
  EXPECT_EQ(e1->number, 1u);
  EXPECT_EQ(e1->entries.size(), 2u);  // the update and its re-acknowledgement
  EXPECT_FALSE(primary.CloseEpoch(1).has_value());
  primary.ApplyPush({2, 0}, std::vector<float>{10, 10});
  auto e2 = primary.CloseEpoch(1);
  auto wire = ParseEpoch(SerializeEpoch(*e2));
  ASSERT_TRUE(wire.ok());
  EXPECT_EQ(replica.ApplyEpoch(*wire), EpochApply::kGap);
  std::vector<UpdateId> replayed, skipped;
  for (const Epoch* e : primary.EpochsAfter(replica.last_epoch())) {
    EXPECT_EQ(replica.ApplyEpoch(*e, &replayed, &skipped), EpochApply::kApplied);
  }
  EXPECT_EQ(replica.ApplyEpoch(*e1), EpochApply::kOld);
  EXPECT_EQ(replica.values(), primary.values());
  EXPECT_EQ(replayed.size(), 2u);
  EXPECT_TRUE(skipped.empty());
  // The replica is promoted (version 2) and a retry of {2, 0} reaches it before a pulled epoch that
  // holds it: applied once. The old primary's epochs (version 1) are refused live, taken as pulled.
  ShardCopy late(0, 2);
  EXPECT_TRUE(late.ApplyPush({2, 0}, std::vector<float>{10, 10}));
  late.SeeVersion(2);
  EXPECT_EQ(late.ApplyEpoch(*e1), EpochApply::kStaleVersion);
  EXPECT_EQ(late.ApplyEpoch(*e1, nullptr, nullptr, true), EpochApply::kApplied);
  EXPECT_EQ(late.ApplyEpoch(*e2, &replayed, &skipped, true), EpochApply::kApplied);
  EXPECT_EQ(skipped, (std::vector<UpdateId>{{2, 0}}));
  EXPECT_EQ(late.values(), primary.values());
  // A demoted primary's epoch (version 1) is refused once version 2 is seen.
  ShardCopy r2(0, 2);
  r2.SeeVersion(2);
  EXPECT_EQ(r2.ApplyEpoch(*e1), EpochApply::kStaleVersion);
  Epoch bad = *e2;
  bad.number = 1;
  bad.entries[0].delta = {1};
  EXPECT_EQ(ShardCopy(0, 2).ApplyEpoch(bad), EpochApply::kBadSize);
  auto cut = SerializeEpoch(*e2);
  cut.pop_back();
  EXPECT_FALSE(ParseEpoch(cut).ok());
}

TEST(PsGraphTest, CommitsWaitForEveryLiveReplica) {
  CommitTracker c;
  c.Add(1, {4, 5, 6});
  c.Add(2, {4, 5, 6});
  c.Ack(2, 4);
  c.Ack(2, 5);
  c.Ack(2, 6);
  EXPECT_TRUE(c.PopCommitted().empty());  // epoch 1 first
  c.Ack(1, 4);
  c.Ack(1, 5);
  EXPECT_TRUE(c.PopCommitted().empty());
  c.Drop(6);  // 6 died
  EXPECT_EQ(c.PopCommitted(), (std::vector<uint64_t>{1, 2}));
  EXPECT_TRUE(c.empty());
}

std::vector<LedgerRecord> RoundTrip(const std::vector<LedgerRecord>& in) {
  std::vector<uint8_t> bytes(in.size() * kLedgerRecordBytes);
  for (size_t i = 0; i < in.size(); ++i) SerializeLedgerRecord(in[i], bytes.data() + i * kLedgerRecordBytes);
  auto out = ParseLedger(bytes);
  EXPECT_TRUE(out.ok());
  return out.ok() ? *out : std::vector<LedgerRecord>{};
}

TEST(PsGraphTest, LedgerCatchesLostAndDoubledUpdates) {
  using K = LedgerKind;
  // Shard 0 on node 0, replicated to node 1; node 0 dies, node 1 takes over with version 2.
  std::vector<LedgerRecord> ok = {
      {K::kApply, 0, 0, {7, 1}, 1, 10},  {K::kReplay, 1, 0, {7, 1}, 1, 11},  {K::kAcked, 7, 0, {7, 1}, 1, 12},
      {K::kApply, 0, 0, {7, 2}, 1, 13},  // applied by the old primary, never replicated nor acked
      {K::kPromote, 1, 0, {0, 2}, 2, 20}, {K::kApply, 1, 0, {7, 2}, 2, 21}, {K::kAcked, 7, 0, {7, 2}, 2, 22},
      {K::kSkip, 1, 0, {7, 1}, 2, 23},   // a retry of an update node 1 already held
  };
  const auto primaries = FinalPrimaries(RoundTrip(ok), 1);
  EXPECT_EQ(primaries, std::vector<int>{1});
  Reconciliation r = Reconcile(RoundTrip(ok), primaries);
  EXPECT_EQ(r.acked, 2);
  EXPECT_EQ(r.applied, 2);
  EXPECT_EQ(r.lost, 0);
  EXPECT_EQ(r.duplicates, 0);
  EXPECT_EQ(r.skipped, 1);
  // The backup applies the retry of an update it had replayed: a duplicate.
  auto doubled = ok;
  doubled.push_back({K::kApply, 1, 0, {7, 1}, 2, 30});
  r = Reconcile(doubled, primaries);
  EXPECT_EQ(r.duplicates, 1);
  EXPECT_EQ(r.duplicate_ids, (std::vector<UpdateId>{{7, 1}}));
  // An update acknowledged by the old primary but never replicated: lost.
  auto lost = ok;
  lost.push_back({K::kApply, 0, 0, {7, 3}, 1, 14});
  lost.push_back({K::kAcked, 7, 0, {7, 3}, 1, 15});
  r = Reconcile(lost, primaries);
  EXPECT_EQ(r.lost, 1);
  EXPECT_EQ(r.lost_ids, (std::vector<UpdateId>{{7, 3}}));
  // Without the promotion the final primary is node 0, which holds {7, 1} and {7, 2}.
  EXPECT_EQ(Reconcile(ok, {0}).lost, 0);
  std::vector<uint8_t> bad(kLedgerRecordBytes + 3);
  EXPECT_FALSE(ParseLedger(bad).ok());
  std::vector<uint8_t> kind(kLedgerRecordBytes);
  kind[0] = 9;
  EXPECT_FALSE(ParseLedger(kind).ok());
}

}  // namespace ps_graph_test
}  // namespace toposcope::act::training
