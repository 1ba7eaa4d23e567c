// act/training/async_barrier: the trigger (both thresholds), the latency read off probes across
// inferred pods, envelopes (round trip, cut or forged), a corrupted payload caught by its digest and
// replaced by the full tensor (counted), the staleness bound (no gradient older than s steps is used,
// a worker cannot start a step before the other region's step - s is here), and the egress queues.
#include "toposcope/act/training/async_barrier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "toposcope/base/rng.h"

namespace toposcope::act::training {
namespace async_barrier_test {

std::vector<float> Gaussian(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.Normal());
  return v;
}

CodecOptions Q4() {
  CodecOptions o;
  o.kind = CodecKind::kQuant4;
  o.bucket = 64;
  return o;
}

TEST(AsyncBarrierTest, TriggerNeedsBothConditions) {
  EXPECT_TRUE(DecideBarrier(121, 0.2).asynchronous);
  EXPECT_FALSE(DecideBarrier(120, 0.2).asynchronous);   // not above the threshold
  EXPECT_FALSE(DecideBarrier(500, 0.85).asynchronous);  // not below the ratio
  EXPECT_FALSE(DecideBarrier(5, 0.1).asynchronous);
  BarrierTriggerOptions o;
  o.latency_threshold_us = 10;
  o.ratio_threshold = 0.95;
  EXPECT_TRUE(DecideBarrier(11, 0.9, o).asynchronous);
  EXPECT_NE(DecideBarrier(500, 0.9).reason.find("0.900 >= 0.85"), std::string::npos);
}

TEST(AsyncBarrierTest, CompressionRatioOfTheCodecs) {
  const double q4 = CompressionRatio(Q4(), 4096);
  EXPECT_GT(q4, 0.125);
  EXPECT_LT(q4, 0.16);  // a nibble per value plus a float scale per 64 values plus the header
  CodecOptions topk;
  topk.kind = CodecKind::kTopK;
  topk.topk_fraction = 0.1;
  EXPECT_LT(CompressionRatio(topk, 4096), 0.2);
}

TEST(AsyncBarrierTest, LatencyFromProbesAcrossPods) {
  analysis::LeafInference inf;
  inf.pods = {{"pod-00", {}, {"a", "b"}}, {"pod-01", {}, {"c", "d"}}};
  std::vector<formats::PathProbe> probes;
  auto add = [&](std::string s, std::string d, double rtt) {
    formats::PathProbe p;
    p.src = std::move(s);
    p.dst = std::move(d);
    p.rtt_us = rtt;
    probes.push_back(p);
  };
  add("a", "b", 5);  // same pod: not counted
  add("a", "c", 300);
  add("b", "d", 320);
  add("d", "a", 1000);
  add("c", "x", 2000);  // unplaced host
  add("a", "d", NAN);
  auto l = CrossRegionLatencyFromProbes(probes, inf);
  ASSERT_TRUE(l.ok()) << l.error().ToString();
  EXPECT_EQ(l->probes, 3);
  EXPECT_DOUBLE_EQ(l->median_rtt_us, 320);
  EXPECT_DOUBLE_EQ(l->one_way_us, 160);
  inf.pods.resize(1);
  EXPECT_FALSE(CrossRegionLatencyFromProbes(probes, inf).ok());
}

TEST(AsyncBarrierTest, EnvelopeRoundTripAndBadBuffers) {
  BarrierSender s(3, 256, true, Q4());
  auto e = s.Send(7, Gaussian(256, 1));
  ASSERT_TRUE(e.ok());
  const auto bytes = SerializeEnvelope(*e);
  EXPECT_EQ(bytes.size(), kEnvelopeHeaderBytes + e->payload.size());
  auto back = ParseEnvelope(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->worker, 3u);
  EXPECT_EQ(back->step, 7u);
  EXPECT_EQ(back->digest, e->digest);
  EXPECT_EQ(back->payload, e->payload);
  EXPECT_TRUE(Reconstruct(*back, 256).ok());
  EXPECT_FALSE(Reconstruct(*back, 255).ok());
  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 1);
  EXPECT_FALSE(ParseEnvelope(cut).ok());
  std::vector<uint8_t> forged = bytes;
  forged[0] = 'X';
  EXPECT_FALSE(ParseEnvelope(forged).ok());
}

TEST(AsyncBarrierTest, DigestMismatchFallsBackToTheFullTensorAndIsCounted) {
  const size_t n = 512;
  BarrierConfig c;
  c.workers = 2;
  c.asynchronous = false;
  auto st = BarrierState::Make(c, n);
  ASSERT_TRUE(st.ok());
  BarrierSender s0(0, n, true, Q4()), s1(1, n, true, Q4());
  auto e0 = s0.Send(0, Gaussian(n, 2));
  auto e1 = s1.Send(0, Gaussian(n, 3));
  ASSERT_TRUE(e0.ok() && e1.ok());
  EXPECT_EQ(st->Deliver(*e0), Delivery::kAccepted);
  GradientEnvelope bad = *e1;
  bad.payload[bad.payload.size() / 2] ^= 0x11;  // a flipped nibble decodes, to another tensor
  EXPECT_EQ(st->Deliver(bad), Delivery::kNeedFull);
  EXPECT_EQ(st->stats().digest_mismatches, 1);
  EXPECT_EQ(st->stats().full_fallbacks, 1);
  EXPECT_FALSE(st->Ready(0, 0));
  EXPECT_EQ(st->Missing(0, 0), std::vector<int>{1});
  auto full = s1.Fallback(0);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->kind, PayloadKind::kFull);
  EXPECT_EQ(full->digest, e1->digest);  // the same reconstruction, sent in full
  EXPECT_EQ(st->Deliver(*full), Delivery::kAccepted);
  ASSERT_TRUE(st->Ready(0, 0));
  auto upd = st->Take(0, 0);
  ASSERT_TRUE(upd.ok());
  // The update equals the one of an uncorrupted exchange, to the bit.
  auto clean = BarrierState::Make(c, n);
  ASSERT_TRUE(clean.ok());
  EXPECT_EQ(clean->Deliver(*e0), Delivery::kAccepted);
  EXPECT_EQ(clean->Deliver(*e1), Delivery::kAccepted);
  auto ref = clean->Take(0, 0);
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(*upd, *ref);
  EXPECT_EQ(st->Deliver(*e0), Delivery::kDuplicate);  // already used
  EXPECT_FALSE(s1.Fallback(99).ok());
}

TEST(AsyncBarrierTest, StalenessBoundIsRespected) {
  const size_t n = 8;
  for (int s : {0, 1, 2}) {
    BarrierConfig c;
    c.workers = 4;  // regions {0, 0, 1, 1}
    c.staleness_steps = s;
    auto st = BarrierState::Make(c, n);
    ASSERT_TRUE(st.ok());
    EXPECT_EQ(st->Lag(0, 1), 0);
    EXPECT_EQ(st->Lag(0, 2), s);
    // Worker 0's view: its region delivers every step at once, the other region's steps come late.
    for (uint64_t t = 0; t < 10; ++t) {
      for (int w : {0, 1})
        ASSERT_EQ(st->Deliver(FullEnvelope(w, t, std::vector<float>(n, 1.0f))), Delivery::kAccepted);
      // Step t needs the other region's step t - s: not ready before it is delivered.
      if (static_cast<int64_t>(t) >= s) {
        EXPECT_FALSE(st->Ready(0, t)) << "s=" << s << " t=" << t;
        for (int w : {2, 3})
          st->Deliver(FullEnvelope(w, t - static_cast<uint64_t>(s), std::vector<float>(n, 1.0f)));
      }
      ASSERT_TRUE(st->Ready(0, t));
      auto u = st->Take(0, t);
      ASSERT_TRUE(u.ok());
      const float expect = static_cast<int64_t>(t) >= s ? 1.0f : 0.5f;  // before step s: own region only
      EXPECT_FLOAT_EQ((*u)[0], expect);
    }
    EXPECT_EQ(st->stats().max_staleness_used, s);
  }
  BarrierConfig sync;
  sync.workers = 4;
  sync.asynchronous = false;
  auto st = BarrierState::Make(sync, n);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->Lag(0, 3), 0);
  BarrierConfig bad;
  bad.staleness_steps = 17;
  EXPECT_FALSE(BarrierState::Make(bad, n).ok());
  bad.staleness_steps = 1;
  bad.region_of = {0, 1};
  EXPECT_FALSE(BarrierState::Make(bad, n).ok());
}

TEST(AsyncBarrierTest, EgressQueuesSerialiseThenAddLatency) {
  TransportModel m;
  m.cross = {100, 8};  // 8 Gb/s: 1000 bytes take 1 µs
  EgressQueues q;
  EXPECT_DOUBLE_EQ(q.Send(0, 1000, true, m), 101);
  EXPECT_DOUBLE_EQ(q.Send(0, 1000, true, m), 102);         // waits for the first
  EXPECT_DOUBLE_EQ(q.Send(50, 1000, true, m), 151);        // the queue was free again
  EXPECT_NEAR(q.Send(0, 50000, false, m), 5 + 1.0, 1e-9);  // the intra queue is separate: 400 Gb/s
}

}  // namespace async_barrier_test
}  // namespace toposcope::act::training
