// experiments/barrier_des: iteration times that follow from the model by hand (synchronous: compute
// + serialisation + latency; asynchronous with s = 1: the cross-region round is hidden behind one
// step of compute), bytes counted per message, deterministic results, 1,024 workers, bad options.
#include "toposcope/experiments/barrier_des.h"

#include <gtest/gtest.h>

namespace toposcope::experiments {
namespace barrier_des_test {

BarrierDesOptions Two(bool async) {
  BarrierDesOptions o;
  o.workers = 2;  // one per region
  o.steps = 20;
  o.asynchronous = async;
  o.compute_us = 1000;
  o.message_bytes = 125000;  // 1 Mbit: 100 µs at 10 Gb/s
  o.transport.cross = {400, 10};
  return o;
}

TEST(BarrierDesTest, SynchronousIsComputePlusTransfer) {
  auto r = SimulateBarrier(Two(false));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_NEAR(r->mean_iteration_ms, (1000 + 100 + 400) / 1e3, 1e-9);
  EXPECT_EQ(r->messages, 2 * 20);
  EXPECT_EQ(r->bytes_cross, 2 * 20 * 125000);
  EXPECT_EQ(r->bytes_total, r->bytes_cross);
}

TEST(BarrierDesTest, AsynchronousHidesTheCrossRegionRound) {
  auto r = SimulateBarrier(Two(true));
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->mean_iteration_ms, 1.0, 1e-9);  // 500 µs of transfer + latency < 1 ms of compute
  BarrierDesOptions slow = Two(true);
  slow.transport.cross.latency_us =
      3000;  // longer than a step: T(t+1) = T(t-s) + compute + transfer + latency
  auto s1 = SimulateBarrier(slow);
  ASSERT_TRUE(s1.ok());
  EXPECT_NEAR(s1->mean_iteration_ms, 4.1 / 2, 1e-6);
  slow.staleness_steps = 2;
  auto s2 = SimulateBarrier(slow);
  ASSERT_TRUE(s2.ok());
  EXPECT_NEAR(s2->mean_iteration_ms, 4.1 / 3, 0.05);
}

TEST(BarrierDesTest, ThousandWorkersDeterministic) {
  BarrierDesOptions o;
  o.workers = 1024;
  o.steps = 4;
  o.asynchronous = true;
  o.message_bytes = 9000;
  auto a = SimulateBarrier(o);
  auto b = SimulateBarrier(o);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->messages, int64_t{1024} * 1023 * 4);
  EXPECT_EQ(a->bytes_cross, int64_t{1024} * 512 * 4 * 9000);
  EXPECT_EQ(a->mean_iteration_ms, b->mean_iteration_ms);
  // 512 cross-region envelopes per worker and step at 3.125 Gb/s: the egress queue bounds the period.
  EXPECT_GE(a->mean_iteration_ms, 512 * 9000 * 8 / 3.125e3 / 1e3 * 0.99);
}

TEST(BarrierDesTest, BadOptions) {
  BarrierDesOptions o;
  o.workers = 0;
  EXPECT_FALSE(SimulateBarrier(o).ok());
  o.workers = 2;
  o.compute_trace_us = {{1, 2}};
  EXPECT_FALSE(SimulateBarrier(o).ok());
  o.compute_trace_us.clear();
  o.transport.cross.bandwidth_gbps = 0;
  EXPECT_FALSE(SimulateBarrier(o).ok());
  EXPECT_EQ(BlockRegions(5, 2), (std::vector<int>{0, 0, 0, 1, 1}));
}

}  // namespace barrier_des_test
}  // namespace toposcope::experiments
