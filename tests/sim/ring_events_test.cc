// sim/ring_events: the scene is deterministic (same options, same bytes), the event's cable is one
// the ring crosses and is among the affected captures, the captures read back as RoCEv2, and the
// AllReduce measure responds to each event as the model says (congestion and a degraded cable slow
// the static ring; a flapping cable's flows re-hash while it is down; nothing changes outside the
// event).
#include "toposcope/sim/ring_events.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "temp_dir.h"
#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/formats/rdma/pcap_capture.h"

namespace toposcope::sim {
namespace ring_events_test {

RingEventOptions Opt(RingEventKind k, Arch arch = Arch::kFatTree) {
  RingEventOptions o;
  o.arch = arch;
  o.event = k;
  o.seed = 3;
  o.duration_s = 20;
  o.event_start_s = 6;
  o.event_end_s = 14;
  return o;
}

TEST(RingEvents, DeterministicDataset) {
  TempDir a("ring_events_a"), b("ring_events_b");
  auto s = PlanRingEvent(Opt(RingEventKind::kCongestion));
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  auto fa = WriteRingEventDataset(*s, a.str());
  auto fb = WriteRingEventDataset(*s, b.str());
  ASSERT_TRUE(fa.ok() && fb.ok());
  ASSERT_EQ(*fa, *fb);
  for (const std::string& f : *fa) {
    EXPECT_EQ(*ReadFileText((a.path() / f).string()), *ReadFileText((b.path() / f).string())) << f;
  }
  EXPECT_TRUE(std::find(fa->begin(), fa->end(), "truth.json") != fa->end());
  // Every capture reads back as RoCEv2 without rejections.
  for (const std::string& f : *fa) {
    if (f.rfind("captures/", 0) != 0) continue;
    Diagnostics diag;
    auto sum = formats::ReadCapture((a.path() / f).string(), [](const formats::RocePacket&) {}, diag);
    ASSERT_TRUE(sum.ok()) << f;
    EXPECT_EQ(sum->malformed, 0) << f;
    EXPECT_EQ(sum->roce, sum->records) << f;
  }
}

TEST(RingEvents, EventCableIsOnTheRingAndAffected) {
  for (const Arch arch : {Arch::kFatTree, Arch::kDragonfly, Arch::kHhre}) {
    auto s = PlanRingEvent(Opt(RingEventKind::kCongestion, arch));
    ASSERT_TRUE(s.ok());
    ASSERT_GE(s->cable, 0);
    EXPECT_FALSE(s->tenant.empty());
    EXPECT_TRUE(std::find(s->affected_links.begin(), s->affected_links.end(), s->capture_link) != s->affected_links.end());
    auto clean = PlanRingEvent(Opt(RingEventKind::kNone, arch));
    ASSERT_TRUE(clean.ok());
    EXPECT_EQ(clean->cable, -1);
    EXPECT_TRUE(clean->affected_links.empty());
  }
}

TEST(RingEvents, MeasureRespondsToEvents) {
  auto clean = PlanRingEvent(Opt(RingEventKind::kNone));
  auto cong = PlanRingEvent(Opt(RingEventKind::kCongestion));
  auto deg = PlanRingEvent(Opt(RingEventKind::kDegraded));
  ASSERT_TRUE(clean.ok() && cong.ok() && deg.ok());
  const auto base = MeasureRingAllReduce(*clean, clean->order, 1, 10);
  EXPECT_GT(base.busbw_gbps, 0);
  EXPECT_GT(base.time_us, 0);
  // Outside the event nothing changes; inside it the static ring slows down.
  EXPECT_DOUBLE_EQ(MeasureRingAllReduce(*cong, cong->order, 1, 2).time_us, base.time_us);
  EXPECT_GT(MeasureRingAllReduce(*cong, cong->order, 1, 10).time_us, base.time_us);
  EXPECT_GT(MeasureRingAllReduce(*deg, deg->order, 1, 10).time_us, base.time_us);
  EXPECT_EQ(MeasureRingAllReduce(*deg, deg->order, 1, 10).bottleneck, deg->cable_id);
  // Flapping: down for the first quarter of each 2 s period from the start.
  auto flap = PlanRingEvent(Opt(RingEventKind::kFlapping));
  ASSERT_TRUE(flap.ok());
  EXPECT_TRUE(RingEventActive(*flap, 6.1));
  EXPECT_FALSE(RingEventActive(*flap, 7.0));
  EXPECT_FALSE(RingEventActive(*flap, 15));
}

TEST(RingEvents, BadOptions) {
  RingEventOptions o;
  o.hosts = 2;
  EXPECT_EQ(PlanRingEvent(o).error().kind, ErrorKind::kUsage);
  o = RingEventOptions{};
  o.event_end_s = o.duration_s + 1;
  EXPECT_FALSE(ValidateRingEventOptions(o).ok());
  EXPECT_EQ(ParseRingEventKind("flapping"), RingEventKind::kFlapping);
  EXPECT_FALSE(ParseRingEventKind("nope").has_value());
}

}  // namespace ring_events_test
}  // namespace toposcope::sim
