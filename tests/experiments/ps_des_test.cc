// experiments/ps_des: the parameter-server graph simulated at 512 nodes with crashes injected: every
// crash fails over to one of the victim's 3 lowest-RTT peers, no acknowledged update is lost or
// doubled; the sparse graph's overhead and failover time are below the full graph's (its detector
// waits 3 x the mean RTT of 4 near peers, the full graph's of every peer); deterministic.
#include "toposcope/experiments/ps_des.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace toposcope::experiments {
namespace ps_des_test {

PsDesOptions Small(bool sparse) {
  PsDesOptions o;
  o.nodes = 512;
  o.steps = 8;
  o.crashes = 4;
  o.sparse = sparse;
  return o;
}

TEST(PsDesTest, CrashesFailOverExactlyOnce) {
  auto sparse = SimulatePsGraph(Small(true));
  ASSERT_TRUE(sparse.ok()) << sparse.error().ToString();
  auto full = SimulatePsGraph(Small(false));
  ASSERT_TRUE(full.ok()) << full.error().ToString();
  auto rtt = LayoutRttFunction(512, PsLayout{});
  ASSERT_TRUE(rtt.ok());
  for (const auto* r : {&*sparse, &*full}) {
    ASSERT_EQ(r->failovers.size(), 4u);
    for (const auto& f : r->failovers) {
      const auto top3 = act::training::RankedNeighbours(*rtt, 3)[static_cast<size_t>(f.node)];
      EXPECT_NE(std::find(top3.begin(), top3.end(), f.backup), top3.end());
      EXPECT_GT(f.detect_ms, 0);
      EXPECT_GE(f.failover_ms, f.detect_ms);
    }
    EXPECT_EQ(r->ledger.lost, 0);
    EXPECT_EQ(r->ledger.duplicates, 0);
    // Every survivor's worker finished: 508 workers x 8 steps x 2 shards acknowledged at least.
    EXPECT_GE(r->ledger.acked, 508 * 8 * 2);
    EXPECT_GT(r->ledger.replays, 0);
  }
  EXPECT_EQ(sparse->heartbeat_edges, 512 * 4);
  EXPECT_EQ(full->heartbeat_edges, 512 * 511);
  EXPECT_LT(sparse->overhead_mb_s * 20, full->overhead_mb_s);
  EXPECT_LT(sparse->mean_failover_ms, full->mean_failover_ms);
}

TEST(PsDesTest, DeterministicAndNoCrashNoFailover) {
  auto a = SimulatePsGraph(Small(true));
  auto b = SimulatePsGraph(Small(true));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->events, b->events);
  EXPECT_EQ(a->overhead_bytes, b->overhead_bytes);
  EXPECT_DOUBLE_EQ(a->mean_failover_ms, b->mean_failover_ms);
  PsDesOptions o = Small(true);
  o.crashes = 0;
  auto c = SimulatePsGraph(o);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->failovers.empty());
  EXPECT_EQ(c->ledger.acked, 512 * 8 * 2);
  EXPECT_EQ(c->ledger.applied, c->ledger.acked);
  o.crashes = 100;  // more than nodes / 8
  EXPECT_EQ(SimulatePsGraph(o).error().kind, ErrorKind::kUsage);
}

}  // namespace ps_des_test
}  // namespace toposcope::experiments
