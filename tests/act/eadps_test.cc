// EADPS state machine: a jump wakes it, the hot and cool holds, hysteresis, the cool-down, a clean
// (steady) series decides nothing, bad input (empty, one window, NaN) is named; the physical rules
// (a marking onset held, dip-and-return cycles) fire on their patterns and not on steady marks,
// wobbling counts or lone dips; the rank re-order
// keeps ring neighbours off avoided pairs; NCCL settings carry their reasons.
#include "toposcope/act/eadps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace toposcope::act {
namespace eadps_test {

constexpr int64_t kSec = 1'000'000'000;
constexpr int64_t kWin = kSec / 2;  // 0.5 s windows

// A series of one link: bits[k] in window k (0.5 s each) from t = 0.
std::vector<EntropyPoint> Series(const std::string& link, const std::vector<double>& bits) {
  std::vector<EntropyPoint> out;
  for (size_t k = 0; k < bits.size(); ++k) {
    EntropyPoint p;
    p.link = link;
    p.window_start_ns = static_cast<int64_t>(k) * kWin;
    p.window_ns = kWin;
    p.bits = bits[k];
    p.shown_bits = 8.0 + 0.01 * static_cast<double>(k);
    out.push_back(p);
  }
  return out;
}

std::vector<double> Repeat(double v, int n) { return std::vector<double>(static_cast<size_t>(n), v); }

std::vector<double> Concat(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(Eadps, CleanSeriesDecidesNothing) {
  // Small noise around 1 bit, no jump above 0.15.
  std::vector<double> bits;
  for (int k = 0; k < 200; ++k) bits.push_back(1.0 + 0.05 * std::sin(k));
  auto r = ReplaySchedule(Series("a~b", bits), EadpsOptions{});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_TRUE(r->decisions.empty());
  EXPECT_EQ(r->links, 1);
  EXPECT_EQ(r->windows, 200);
}

TEST(Eadps, HotHoldAfterJumpMovesOff) {
  // 10 windows at 1 bit, then 3.0 bits: the jump wakes; 3 s = 6 windows of 0.5 s.
  auto r = ReplaySchedule(Series("a~b", Concat(Repeat(1.0, 10), Repeat(3.0, 10))), EadpsOptions{});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->decisions.size(), 1u);
  const EadpsDecision& d = r->decisions[0];
  EXPECT_EQ(d.action, "move_off");
  EXPECT_EQ(d.evidence.rule, "hot_hold");
  EXPECT_EQ(d.evidence.link, "a~b");
  EXPECT_EQ(d.evidence.run_start_ns, 10 * kWin);
  EXPECT_EQ(d.t_ns, 16 * kWin);  // the end of window 15: 6 windows held
  EXPECT_DOUBLE_EQ(d.evidence.held_s, 3.0);
  EXPECT_EQ(d.evidence.wake_ns, 10 * kWin);
  EXPECT_NEAR(d.evidence.wake_jump_bits, 2.0, 1e-12);
  ASSERT_EQ(d.evidence.bits.size(), 6u);
  ASSERT_EQ(d.evidence.shown_bits.size(), 6u);
  EXPECT_DOUBLE_EQ(d.evidence.shown_bits[0], 8.10);
  EXPECT_EQ(d.evidence.estimator, "message_size");
  EXPECT_EQ(d.evidence.shown_estimator, "seed_header");
}

TEST(Eadps, HotHoldOneWindowShortDoesNothing) {
  auto r = ReplaySchedule(Series("a~b", Concat(Concat(Repeat(1.0, 10), Repeat(3.0, 5)), Repeat(1.0, 10))), EadpsOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->decisions.empty());
}

TEST(Eadps, NoJumpNoWake) {
  // Above the hot threshold from the start with no jump: the engine never wakes.
  auto r = ReplaySchedule(Series("a~b", Repeat(3.0, 40)), EadpsOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->decisions.empty());
  // A slow ramp (steps of 0.1 bit) crosses 2.5 without a single jump > 0.15: no decision either.
  std::vector<double> ramp;
  for (int k = 0; k <= 25; ++k) ramp.push_back(0.5 + 0.1 * k);
  auto r2 = ReplaySchedule(Series("a~b", Concat(ramp, Repeat(3.0, 20))), EadpsOptions{});
  ASSERT_TRUE(r2.ok());
  EXPECT_TRUE(r2->decisions.empty());
}

TEST(Eadps, HysteresisKeepsTheRun) {
  // After the jump the entropy dips to 2.45 (within 0.1 of 2.5): the run continues.
  std::vector<double> hot = {3.0, 2.7, 2.45, 2.6, 2.45, 2.7};
  auto r = ReplaySchedule(Series("a~b", Concat(Repeat(1.0, 4), hot)), EadpsOptions{});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->decisions.size(), 1u);
  // Without hysteresis the dips end the run: nothing fires.
  EadpsOptions o;
  o.hysteresis_bits = 0;
  auto r2 = ReplaySchedule(Series("a~b", Concat(Repeat(1.0, 4), hot)), o);
  ASSERT_TRUE(r2.ok());
  EXPECT_TRUE(r2->decisions.empty());
}

TEST(Eadps, CoolHoldMergesOnlyAfterAMove) {
  // Hot (moved off at 3 s), then quiet after the cool-down: merge after 5 s below 1.8.
  auto bits = Concat(Concat(Repeat(1.0, 4), Repeat(3.0, 20)), Repeat(1.0, 30));
  auto r = ReplaySchedule(Series("a~b", bits), EadpsOptions{});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->decisions.size(), 2u);
  EXPECT_EQ(r->decisions[0].action, "move_off");
  EXPECT_EQ(r->decisions[1].action, "merge");
  EXPECT_EQ(r->decisions[1].evidence.rule, "cool_hold");
  EXPECT_EQ(r->decisions[1].evidence.run_start_ns, 24 * kWin);
  EXPECT_EQ(r->decisions[1].t_ns, 34 * kWin);
  // A quiet link that was never moved is never merged, even when a jump wakes it.
  auto q = ReplaySchedule(Series("a~b", Concat(Repeat(1.7, 4), Repeat(0.5, 30))), EadpsOptions{});
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->decisions.empty());
}

TEST(Eadps, CooldownStopsFlapping) {
  // Hot, quiet, hot again in quick succession: with a long cool-down only the first move fires.
  auto bits = Concat(Concat(Concat(Repeat(1.0, 4), Repeat(3.0, 8)), Repeat(1.0, 12)), Repeat(3.0, 8));
  EadpsOptions o;
  o.cooldown_s = 60;
  auto r = ReplaySchedule(Series("a~b", bits), o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->decisions.size(), 1u);
  EXPECT_EQ(r->decisions[0].action, "move_off");
  // With no cool-down the link flaps: merge after 5 s of quiet, move off again 3 s into the heat.
  o.cooldown_s = 0;
  auto r2 = ReplaySchedule(Series("a~b", bits), o);
  ASSERT_TRUE(r2.ok());
  ASSERT_EQ(r2->decisions.size(), 3u);
  EXPECT_EQ(r2->decisions[1].action, "merge");
  EXPECT_EQ(r2->decisions[2].action, "move_off");
}

TEST(Eadps, OptionsAreUsed) {
  EadpsOptions o;
  o.hot_bits = 3.5;
  auto r = ReplaySchedule(Series("a~b", Concat(Repeat(1.0, 10), Repeat(3.0, 10))), o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->decisions.empty());
  o = EadpsOptions{};
  o.hot_hold_s = 1;
  auto r2 = ReplaySchedule(Series("a~b", Concat(Repeat(1.0, 10), Repeat(3.0, 10))), o);
  ASSERT_TRUE(r2.ok());
  ASSERT_EQ(r2->decisions.size(), 1u);
  EXPECT_EQ(r2->decisions[0].t_ns, 12 * kWin);
}

TEST(Eadps, BadInputIsNamed) {
  auto empty = ReplaySchedule({}, EadpsOptions{});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("empty"), std::string::npos);
  auto one = ReplaySchedule(Series("a~b", {1.0}), EadpsOptions{});
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.error().message.find("single window"), std::string::npos);
  auto nan = ReplaySchedule(Series("a~b", {1.0, NAN, 1.0}), EadpsOptions{});
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.error().message.find("a~b"), std::string::npos);
  EXPECT_NE(nan.error().message.find("500000000 ns"), std::string::npos);
  EadpsOptions bad;
  bad.cool_bits = 2.6;
  EXPECT_FALSE(ReplaySchedule(Series("a~b", {1.0, 1.0}), bad).ok());
  bad = EadpsOptions{};
  bad.estimator = "nope";
  EXPECT_FALSE(ValidateEadpsOptions(bad).ok());
}

TEST(Eadps, StreamingRejectsOutOfOrderWindows) {
  EadpsMachine m(EadpsOptions{});
  auto pts = Series("a~b", {1.0, 1.0, 1.0});
  ASSERT_TRUE(m.Feed(pts[1]).ok());
  auto back = m.Feed(pts[0]);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("out of order"), std::string::npos);
  EXPECT_TRUE(m.Feed(pts[2]).ok());
}

TEST(Eadps, LinksAreIndependent) {
  auto pts = Series("a~b", Concat(Repeat(1.0, 10), Repeat(3.0, 10)));
  auto other = Series("c~d", Repeat(1.0, 20));
  pts.insert(pts.end(), other.begin(), other.end());
  auto r = ReplaySchedule(pts, EadpsOptions{});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->decisions.size(), 1u);
  EXPECT_EQ(r->decisions[0].evidence.link, "a~b");
  EXPECT_EQ(r->links, 2);
}

// Counts only (entropy steady at 1 bit): packets per window and first-seen marks per window.
std::vector<EntropyPoint> CountSeries(const std::string& link, const std::vector<int64_t>& packets,
                                      const std::vector<int64_t>& marks) {
  std::vector<EntropyPoint> out = Series(link, Repeat(1.0, static_cast<int>(packets.size())));
  for (size_t k = 0; k < out.size(); ++k) out[k].packets = packets[k], out[k].marks = marks[k];
  return out;
}

std::vector<int64_t> RepeatN(int64_t v, int n) { return std::vector<int64_t>(static_cast<size_t>(n), v); }

std::vector<int64_t> ConcatN(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(Eadps, MarkOnsetHeldMovesOff) {
  // 20 quiet windows, then 5 marks of 40 packets a window: an onset; 3 s = 6 windows.
  auto r = ReplaySchedule(CountSeries("capture:l0-p5", RepeatN(40, 40), ConcatN(RepeatN(0, 20), RepeatN(5, 20))),
                          EadpsOptions{});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(r->decisions.size(), 1u);
  const DecisionEvidence& e = r->decisions[0].evidence;
  EXPECT_EQ(e.rule, "mark_hold");
  EXPECT_EQ(e.run_start_ns, 20 * kWin);
  EXPECT_EQ(r->decisions[0].t_ns, 26 * kWin);
  ASSERT_EQ(e.marks.size(), 6u);
  EXPECT_EQ(e.marks[0], 5);
  EXPECT_EQ(e.packets[0], 40);
}

TEST(Eadps, MarksFromTheStartOrTooFewDecideNothing) {
  EadpsOptions o;
  // Marked since the first window: the steady state of the link, not an onset.
  auto r = ReplaySchedule(CountSeries("x", RepeatN(40, 40), RepeatN(5, 40)), o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->decisions.empty());
  // Marks below mark_fraction (1 of 400 packets < 1 %).
  r = ReplaySchedule(CountSeries("x", RepeatN(400, 40), ConcatN(RepeatN(0, 20), RepeatN(1, 20))), o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->decisions.empty());
  // The rule off.
  o.mark_fraction = 0;
  r = ReplaySchedule(CountSeries("x", RepeatN(40, 40), ConcatN(RepeatN(0, 20), RepeatN(5, 20))), o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->decisions.empty());
}

TEST(Eadps, ShortGapsJoinAMarkingEpisode) {
  // Marked windows with one unmarked window every third: one episode (gaps < 2 s), decides at 3 s.
  std::vector<int64_t> marks = RepeatN(0, 20);
  for (int k = 0; k < 12; ++k) marks.push_back(k % 3 == 2 ? 0 : 4);
  auto r = ReplaySchedule(CountSeries("x", RepeatN(40, 32), marks), EadpsOptions{});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->decisions.size(), 1u);
  EXPECT_EQ(r->decisions[0].evidence.run_start_ns, 20 * kWin);
  EXPECT_EQ(r->decisions[0].t_ns, 27 * kWin);  // the first marked window ending >= 3 s after the start
}

TEST(Eadps, ThreeDipCyclesMoveOff) {
  // 40 packets a window; from window 20 every fourth window is empty (missing from the series).
  std::vector<EntropyPoint> pts;
  for (const EntropyPoint& p : CountSeries("capture:s1-p2", RepeatN(40, 40), RepeatN(0, 40))) {
    const int64_t k = p.window_start_ns / kWin;
    if (k >= 20 && (k - 20) % 4 == 0) continue;
    pts.push_back(p);
  }
  auto r = ReplaySchedule(pts, EadpsOptions{});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(r->decisions.size(), 1u);
  const DecisionEvidence& e = r->decisions[0].evidence;
  EXPECT_EQ(e.rule, "flap_cycles");
  ASSERT_EQ(e.windows_ns.size(), 3u);
  EXPECT_EQ(e.windows_ns[0], 20 * kWin);
  EXPECT_EQ(e.windows_ns[2], 28 * kWin);
  EXPECT_EQ(r->decisions[0].t_ns, 30 * kWin);  // the window after the third dip came back
  EXPECT_EQ(e.packets[0], 40);                 // the median before the dip
}

TEST(Eadps, SteadyOrSingleDipsDoNotFlap) {
  // Counts varying by 30 % never dip; two dips within 10 s are not three; dips 6 s apart never
  // gather three within 10 s.
  std::vector<int64_t> wobble;
  for (int k = 0; k < 60; ++k) wobble.push_back(k % 2 == 0 ? 40 : 28);
  auto r = ReplaySchedule(CountSeries("x", wobble, RepeatN(0, 60)), EadpsOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->decisions.empty());
  std::vector<int64_t> two = RepeatN(40, 60);
  two[20] = two[24] = 2;
  r = ReplaySchedule(CountSeries("x", two, RepeatN(0, 60)), EadpsOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->decisions.empty());
  std::vector<int64_t> sparse = RepeatN(40, 80);
  for (int k = 10; k < 80; k += 12) sparse[static_cast<size_t>(k)] = 0;
  r = ReplaySchedule(CountSeries("x", sparse, RepeatN(0, 80)), EadpsOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->decisions.empty());
}

TEST(Eadps, CountOnlyWindowsEndEntropyRuns) {
  // A hot run interrupted by a window without an entropy (too few packets) starts again.
  std::vector<EntropyPoint> pts = Series("a~b", Concat(Repeat(1.0, 10), Repeat(3.0, 10)));
  pts[15].has_bits = false;
  pts[15].bits = NAN;
  auto r = ReplaySchedule(pts, EadpsOptions{});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->decisions.size(), 0u);  // 10..14 is 2.5 s, 16..19 2 s: neither holds 3 s
}

TEST(Eadps, BadPhysicalOptionsAreNamed) {
  EadpsOptions o;
  o.dip_fraction = 1.5;
  EXPECT_EQ(ValidateEadpsOptions(o).error().kind, ErrorKind::kUsage);
  o = EadpsOptions{};
  o.flap_cycles = -1;
  EXPECT_NE(ValidateEadpsOptions(o).error().message.find("--flap-cycles"), std::string::npos);
  o = EadpsOptions{};
  o.mark_hold_s = 0;
  EXPECT_FALSE(ValidateEadpsOptions(o).ok());
}

TEST(EadpsReorder, NeighboursLeaveTheAvoidedPair) {
  const std::vector<std::string> order = {"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7"};
  const std::set<std::pair<std::string, std::string>> avoid = {{"h2", "h3"}};
  EXPECT_EQ(AvoidedNeighbours(order, avoid), 1);
  const auto out = ReorderAvoiding(order, avoid, {});
  EXPECT_EQ(AvoidedNeighbours(out, avoid), 0);
  ASSERT_EQ(out.size(), order.size());
  EXPECT_EQ(out[0], "h0");
  std::set<std::string> hosts(out.begin(), out.end());
  EXPECT_EQ(hosts.size(), order.size());
  // Nothing to avoid: the order is kept.
  EXPECT_EQ(ReorderAvoiding(order, {}, {}), order);
  // An edge cost (hosts under two leaves) is respected: the new ring still crosses leaves twice.
  auto leaf = [](const std::string& h) { return h < "h4" ? 0 : 1; };
  auto cost = [&](const std::string& a, const std::string& b) { return leaf(a) == leaf(b) ? 2.0 : 4.0; };
  const auto out2 = ReorderAvoiding(order, avoid, cost);
  EXPECT_EQ(AvoidedNeighbours(out2, avoid), 0);
  int crossings = 0;
  for (size_t i = 0; i < out2.size(); ++i) crossings += leaf(out2[i]) != leaf(out2[(i + 1) % out2.size()]) ? 1 : 0;
  EXPECT_EQ(crossings, 2);
}

TEST(EadpsReorder, PenaltyGuardsEveryMove) {
  const std::vector<std::string> order = {"h0", "h1", "h2", "h3", "h4", "h5"};
  const std::set<std::pair<std::string, std::string>> avoid = {{"h2", "h3"}};
  // A guard that refuses any order in which h2 moved: the only way off h2~h3 is moving h3.
  auto keep_h2 = [](const std::vector<std::string>& o) { return o[2] == "h2" ? 0.0 : 1.0; };
  const auto out = ReorderAvoiding(order, avoid, {}, keep_h2);
  EXPECT_EQ(out[2], "h2");
  EXPECT_EQ(AvoidedNeighbours(out, avoid), 0);
  // A guard that refuses every change keeps the order.
  auto frozen = [&](const std::vector<std::string>& o) { return o == order ? 0.0 : 1.0; };
  EXPECT_EQ(ReorderAvoiding(order, avoid, {}, frozen), order);
}

TEST(EadpsNccl, SettingsCarryReasons) {
  SegmentView cable;
  cable.inter_switch = true;
  auto s = NcclSettingsFor("move_off", cable, 1);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].name, "NCCL_IB_QPS_PER_CONNECTION");
  EXPECT_EQ(s[0].value, "4");
  EXPECT_EQ(s[1].name, "NCCL_IB_SPLIT_DATA_ON_QPS");
  EXPECT_EQ(s[2].name, "NCCL_CROSS_NIC");
  EXPECT_EQ(s[2].value, "0");
  EXPECT_EQ(s[3].name, "NCCL_IB_HCA");
  EXPECT_FALSE(s[3].changed);
  for (const NcclSetting& x : s) EXPECT_FALSE(x.reason.empty());
  SegmentView port;
  port.nic_host = "node003";
  port.nic_device = "mlx5_2";
  auto p = NcclSettingsFor("move_off", port, 4);
  EXPECT_EQ(p[0].value, "8");
  EXPECT_EQ(p[3].value, "^=mlx5_2");
  auto m = NcclSettingsFor("merge", cable, 2);
  EXPECT_EQ(m[0].value, "2");
}

}  // namespace eadps_test
}  // namespace toposcope::act
