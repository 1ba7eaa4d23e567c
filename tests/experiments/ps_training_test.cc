// experiments/ps_training: 6 node processes on loopback, one killed (SIGKILL) mid-run: its shard's
// backup (one of its 3 lowest-RTT peers) takes over, the failover time is measured, and the ledger
// shows every acknowledged update applied exactly once in the final copies; the loss falls; the
// sparse graph's overhead is below the full graph's; a run with no kill fails nothing over.
#include "toposcope/experiments/ps_training.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace toposcope::experiments {
namespace ps_training_test {

PsTrainingOptions Small(bool sparse, int kill) {
  PsTrainingOptions o;
  o.name = sparse ? "sparse" : "full";
  o.nodes = 6;
  o.steps = 40;
  o.sparse = sparse;
  o.kill_node = kill;
  o.problem.features = 2048;
  o.problem.samples_per_worker = 256;
  return o;
}

TEST(PsTrainingTest, KilledServerFailsOverExactlyOnce) {
  const PsTrainingOptions o = Small(true, 0);
  auto run = RunPsTraining(o);
  ASSERT_TRUE(run.ok()) << run.error().ToString();
  EXPECT_EQ(run->victim, 0);
  auto rtt = LayoutRtts(o.nodes, o.layout);
  ASSERT_TRUE(rtt.ok());
  const auto top3 = act::training::RankedNeighbours(*rtt, 3)[0];
  EXPECT_NE(std::find(top3.begin(), top3.end(), run->backup), top3.end()) << run->backup;
  EXPECT_GT(run->detect_ms, 0);
  EXPECT_GE(run->failover_ms, run->detect_ms);
  EXPECT_LT(run->failover_ms, 1000);
  EXPECT_EQ(run->ledger.lost, 0) << "first lost: worker " << (run->ledger.lost_ids.empty() ? -1 : static_cast<int>(run->ledger.lost_ids[0].worker));
  EXPECT_EQ(run->ledger.duplicates, 0);
  // The 5 survivors acknowledged every step's update to each of the 6 shards; node 0 some before it died.
  EXPECT_GE(run->ledger.acked, 5 * 40 * 6);
  EXPECT_GE(run->ledger.applied, run->ledger.acked);
  EXPECT_GT(run->ledger.replays, 0);
  EXPECT_TRUE(run->routes_agree);
  EXPECT_LT(run->final_loss, 0.9 * run->initial_loss);
}

TEST(PsTrainingTest, SparseGraphCostsLessThanFullAndNoKillNoFailover) {
  auto full = RunPsTraining(Small(false, -1));
  ASSERT_TRUE(full.ok()) << full.error().ToString();
  auto sparse = RunPsTraining(Small(true, -1));
  ASSERT_TRUE(sparse.ok()) << sparse.error().ToString();
  EXPECT_EQ(full->heartbeat_edges, 30);
  EXPECT_EQ(sparse->heartbeat_edges, 24);
  EXPECT_LT(sparse->overhead_mb_s, full->overhead_mb_s);
  for (const auto* r : {&*full, &*sparse}) {
    EXPECT_EQ(r->failover_ms, -1);
    EXPECT_EQ(r->ledger.lost, 0);
    EXPECT_EQ(r->ledger.duplicates, 0);
    EXPECT_EQ(r->ledger.acked, 6 * 40 * 6);
    EXPECT_EQ(r->resent, 0);
  }
}

TEST(PsTrainingTest, RefusesBadOptions) {
  PsTrainingOptions o = Small(true, 0);
  o.nodes = 2;
  EXPECT_EQ(RunPsTraining(o).error().kind, ErrorKind::kUsage);
  o = Small(true, 7);
  EXPECT_EQ(RunPsTraining(o).error().kind, ErrorKind::kUsage);
  o = Small(true, 0);
  o.kill_step = 40;
  EXPECT_EQ(RunPsTraining(o).error().kind, ErrorKind::kUsage);
}

}  // namespace ps_training_test
}  // namespace toposcope::experiments
