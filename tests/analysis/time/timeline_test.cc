// Tests of analysis/timeline: clock mapping and the k-way merge, in memory and through spilled runs.
#include <gtest/gtest.h>

#include "toposcope/analysis/time/timeline.h"

namespace toposcope::analysis {
namespace timeline_test {

EventSource Source(const std::string& host, std::vector<int64_t> local_ts) {
  return [host, local_ts](const formats::TraceEventSink& sink) -> Status {
    for (size_t i = 0; i < local_ts.size(); ++i) {
      formats::TraceEvent e;
      e.host = host;
      e.local_ts_ns = local_ts[i];
      e.type = host + "#" + std::to_string(i);
      e.device = "gpu0";
      sink(std::move(e));
    }
    return {};
  };
}

ClockModel Constant(double offset_ns) {
  ClockModel m;
  m.kind = ClockModelKind::kLinear;
  m.segments.push_back({0, 0, 0, offset_ns, 0, 0});
  return m;
}

std::vector<MergedEvent> Merge(size_t run_events, MergeStats* st) {
  // Host a runs 1000 ns fast, host b 500 ns slow; c has no clock model.
  const ClockModel a = Constant(1000), b = Constant(-500);
  std::map<std::string, const ClockModel*> clocks{{"a", &a}, {"b", &b}};
  std::vector<EventSource> sources{Source("a", {5000, 1100, 3000}), Source("b", {500, 2500, 2500}),
                                   Source("c", {2000, 0})};
  std::vector<MergedEvent> out;
  MergeOptions opt;
  opt.run_events = run_events;
  const Status s = MergeTimeline(sources, clocks, [&](const MergedEvent& m) { out.push_back(m); }, st, opt);
  EXPECT_TRUE(s.ok());
  return out;
}

TEST(Timeline, MapsAndMergesInMemoryAndThroughRuns) {
  for (size_t run : {size_t{1000}, size_t{2}, size_t{1}}) {
    MergeStats st;
    const auto out = Merge(run, &st);
    ASSERT_EQ(out.size(), 8U);
    EXPECT_EQ(st.events_in, 8);
    EXPECT_EQ(st.events_out, 8);
    EXPECT_EQ(st.without_clock, 2);
    std::vector<int64_t> g;
    std::vector<std::string> types;
    for (const auto& m : out) {
      g.push_back(m.global_ns);
      types.push_back(m.event.type);
    }
    EXPECT_EQ(g, (std::vector<int64_t>{0, 100, 1000, 2000, 2000, 3000, 3000, 4000}));
    // Ties break by source, then order in the source.
    EXPECT_EQ(types, (std::vector<std::string>{"c#1", "a#1", "b#0", "a#2", "c#0", "b#1", "b#2", "a#0"}));
    EXPECT_EQ(out[0].event.device, "gpu0");
  }
}

TEST(Timeline, SourceErrorsAreReported) {
  std::vector<EventSource> sources{[](const formats::TraceEventSink&) -> Status { return MakeError("boom"); }};
  MergeStats st;
  const Status s = MergeTimeline(sources, {}, [](const MergedEvent&) {}, &st);
  EXPECT_FALSE(s.ok());
}

}  // namespace timeline_test
}  // namespace toposcope::analysis
