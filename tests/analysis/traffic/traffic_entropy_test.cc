// Tests for analysis/traffic_entropy: per-window estimators against stats/entropy on hand-built
// packets, message reassembly into size classes, summaries (QPs, polarisation advice, seed
// determinism), spectral modes on synthetic periodic / white / steady traffic, independence of the
// feeding order across captures, and determinism.
#include "toposcope/analysis/traffic/traffic_entropy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <cstdio>
#include <string>
#include <vector>

#include "toposcope/base/rng.h"
#include "toposcope/stats/entropy.h"

namespace toposcope::analysis {
namespace traffic_entropy_test {

namespace op = formats::roce_op;
using formats::RocePacket;

constexpr int64_t kMs = 1'000'000;

RocePacket Pkt(int64_t ts_ns, uint8_t opcode, uint32_t dest_qp, uint32_t psn, uint32_t payload,
               uint32_t dst_ip = 0x0a000002, uint16_t sport = 0xc001) {
  RocePacket p;
  p.ts_ns = ts_ns;
  p.src_ip = IpAddress::V4(0x0a000001);
  p.dst_ip = IpAddress::V4(dst_ip);
  p.udp_src_port = sport;
  p.udp_dst_port = formats::kRoceV2UdpPort;
  p.opcode = opcode;
  p.dest_qp = dest_qp;
  p.psn = psn;
  p.payload_bytes = payload;
  return p;
}

RocePacket WriteFirst(int64_t ts_ns, uint32_t qp, uint32_t psn, uint32_t payload, uint32_t dma_len) {
  RocePacket p = Pkt(ts_ns, op::kWriteFirst, qp, psn, payload);
  p.has_reth = true;
  p.reth_dma_len = dma_len;
  return p;
}

const std::vector<std::string> kLink = {"capture:sw1"};

std::vector<const LinkEntropySample*> SamplesOf(const TrafficEntropyReport& r, const std::string& estimator) {
  std::vector<const LinkEntropySample*> out;
  for (const auto& s : r.samples) {
    if (EntropyEstimatorName(s.estimator) == estimator) out.push_back(&s);
  }
  return out;
}

TEST(TrafficEntropy, LinkIds) {
  EXPECT_EQ(CaptureLinkId("leaf3:eth1"), "capture:leaf3:eth1");
  EXPECT_EQ(HostPairLinkId("node-b", "node-a"), "node-a~node-b");
  EXPECT_EQ(HostPairLinkId("10.0.0.1", "10.0.0.2"), "10.0.0.1~10.0.0.2");
  EXPECT_EQ(SpectrumSeriesName(SpectrumSeries::kMessageSizeBits), "message_size_bits");
}

TEST(TrafficEntropy, EmptyAndIgnored) {
  TrafficEntropyAccumulator acc;
  acc.Add(Pkt(0, op::kSendOnly, 5, 1, 10), 0, {});
  EXPECT_EQ(acc.packets(), 0);
  const TrafficEntropyReport r = acc.Finish();
  EXPECT_TRUE(r.samples.empty());
  EXPECT_TRUE(r.links.empty());
  EXPECT_TRUE(r.modes.empty());
}

TEST(TrafficEntropy, OneWindowMatchesStatsEstimators) {
  // Two 8 KiB RDMA WRITEs (FIRST with RETH + LAST) and two 1 MiB WRITE ONLY, then ACKs back.
  TrafficEntropyAccumulator acc;
  std::vector<uint32_t> symbols;
  std::vector<uint32_t> counts(1024, 0);
  auto add = [&](const RocePacket& p, uint32_t src_qp) {
    acc.Add(p, src_qp, kLink);
    const uint32_t s = stats::SeedHeaderSymbol(src_qp, p.psn, p.dest_qp);
    symbols.push_back(s);
    ++counts[s];
  };
  add(WriteFirst(1 * kMs, 0x100, 10, 4096, 8192), 0x200);
  add(Pkt(2 * kMs, op::kWriteLast, 0x100, 11, 4096), 0x200);
  add(WriteFirst(3 * kMs, 0x100, 12, 4096, 8192), 0x200);
  add(Pkt(4 * kMs, op::kWriteLast, 0x100, 13, 4096), 0x200);
  RocePacket big = Pkt(5 * kMs, op::kWriteOnly, 0x100, 14, 4096);
  big.has_reth = true;
  big.reth_dma_len = 1 << 20;
  add(big, 0x200);
  big.ts_ns = 6 * kMs;
  big.psn = 15;
  add(big, 0x200);
  // ACKs from the responder to the requester's QP 0x200 (no payload).
  RocePacket ack = Pkt(7 * kMs, op::kAcknowledge, 0x200, 15, 0, 0x0a000001);
  ack.has_aeth = true;
  add(ack, 0x100);
  add(ack, 0x100);
  const TrafficEntropyReport r = acc.Finish();
  ASSERT_EQ(r.samples.size(), 4u);
  EXPECT_EQ(EntropyEstimatorName(r.samples[0].estimator), "seed_header");
  EXPECT_EQ(EntropyEstimatorName(r.samples[1].estimator), "miller_madow_header");
  EXPECT_EQ(EntropyEstimatorName(r.samples[2].estimator), "flow_qp");
  EXPECT_EQ(EntropyEstimatorName(r.samples[3].estimator), "message_size");
  for (const auto& s : r.samples) {
    EXPECT_EQ(s.link, "capture:sw1");
    EXPECT_EQ(s.window_start_ns, 0);
    EXPECT_EQ(s.packets, 8);
    EXPECT_FALSE(s.not_enough_packets);
  }
  EXPECT_DOUBLE_EQ(r.samples[0].bits, stats::SeedHeaderEntropyBits(symbols));
  EXPECT_DOUBLE_EQ(r.samples[1].bits, stats::MillerMadowBits(counts));
  EXPECT_EQ(r.samples[2].bits, 0.0);  // all payload bytes on one flow (ACKs carry none)
  EXPECT_DOUBLE_EQ(r.samples[3].bits, 1.0);  // two 8 KiB + two 1 MiB messages
  ASSERT_EQ(r.links.size(), 1u);
  const LinkEntropySummary& l = r.links[0];
  EXPECT_EQ(l.packets, 8);
  EXPECT_EQ(l.windows, 1);
  EXPECT_EQ(l.messages, 4);
  EXPECT_EQ(l.payload_bytes, 6 * 4096);
  EXPECT_EQ(l.qps, 1);  // one requester flow; the ACK flow is not a data QP
  EXPECT_EQ(l.udp_src_ports, 1);
  EXPECT_TRUE(l.polarisation_risk);
  EXPECT_NE(l.advice.find("NCCL_IB_QPS_PER_CONNECTION"), std::string::npos);
  EXPECT_DOUBLE_EQ(l.seed_bits_median, r.samples[0].bits);
  EXPECT_DOUBLE_EQ(l.message_size_bits_median, 1.0);
  ASSERT_EQ(r.modes.size(), 1u);
  EXPECT_EQ(TrafficModeName(r.modes[0].mode), "insufficient_data");
}

TEST(TrafficEntropy, SendReassemblyUdAndFlows) {
  TrafficEntropyAccumulator acc;
  // SEND 4096 + 4096 + 100 = 8292 B (class 14), then SEND ONLY 100 B (class 7) on another QP.
  acc.Add(Pkt(0, op::kSendFirst, 7, 1, 4096), 9, kLink);
  acc.Add(Pkt(1, op::kSendMiddle, 7, 2, 4096), 9, kLink);
  acc.Add(Pkt(2, op::kSendLast, 7, 3, 100), 9, kLink);
  acc.Add(Pkt(3, op::kSendOnly, 8, 1, 100), 9, kLink);
  // A SEND LAST whose FIRST was never seen is no message.
  acc.Add(Pkt(4, op::kSendLast, 8, 2, 100), 9, kLink);
  // UD SEND ONLY with DETH (src QP from the DETH); 0-byte: class 0.
  RocePacket ud = Pkt(5, 0x64, 1, 77, 0);
  ud.has_deth = true;
  ud.deth_src_qp = 0x55;
  acc.Add(ud, 0, kLink);
  const TrafficEntropyReport r = acc.Finish();
  ASSERT_EQ(r.links.size(), 1u);
  EXPECT_EQ(r.links[0].messages, 3);
  EXPECT_EQ(r.links[0].qps, 3);
  const auto msg = SamplesOf(r, "message_size");
  ASSERT_EQ(msg.size(), 1u);
  EXPECT_NEAR(msg[0]->bits, std::log2(3.0), 1e-12);
  EXPECT_TRUE(msg[0]->not_enough_packets);  // 6 < 8
  // Flow bytes: QP 7 8292 B, QP 8 200 B, QP 1 0 B.
  const auto flow = SamplesOf(r, "flow_qp");
  const double want = stats::ShannonBitsWeights(std::vector<double>{8292, 200, 0});
  EXPECT_DOUBLE_EQ(flow[0]->bits, want);
  // The UD packet hashed with the DETH source QP.
  std::vector<uint32_t> symbols = {
      stats::SeedHeaderSymbol(9, 1, 7), stats::SeedHeaderSymbol(9, 2, 7),   stats::SeedHeaderSymbol(9, 3, 7),
      stats::SeedHeaderSymbol(9, 1, 8), stats::SeedHeaderSymbol(9, 2, 8), stats::SeedHeaderSymbol(0x55, 77, 1)};
  EXPECT_DOUBLE_EQ(SamplesOf(r, "seed_header")[0]->bits, stats::SeedHeaderEntropyBits(symbols));
}

TEST(TrafficEntropy, WindowsFlagsAndDeterministicLinks) {
  EntropyOptions opt;
  opt.window_ns = 10 * kMs;
  TrafficEntropyAccumulator acc(opt);
  const std::vector<std::string> ctrl = {"a~b"}, data = {"c~d"};
  // "a~b": the same control packet repeated (1 symbol) -> seed entropy ~ 0 -> deterministic.
  for (int i = 0; i < 30; ++i) acc.Add(Pkt(i * kMs, op::kSendOnly, 3, 42, 8), 4, ctrl);
  // "c~d": 16 QPs, consecutive PSNs, 3 windows; window 2 has only 3 packets.
  uint32_t psn = 0;
  for (int i = 0; i < 20; ++i) {
    for (uint32_t qp = 1; qp <= 16; ++qp) {
      acc.Add(Pkt(i * kMs / 2, op::kSendOnly, qp, psn++, 4096, 0x0a000002, static_cast<uint16_t>(0xc000 + qp)), 0,
              data);
    }
  }
  for (int i = 0; i < 3; ++i) acc.Add(Pkt(25 * kMs + i, op::kSendOnly, 1, psn++, 4096), 0, data);
  const TrafficEntropyReport r = acc.Finish();
  ASSERT_EQ(r.links.size(), 2u);
  EXPECT_EQ(r.links[0].link, "a~b");
  EXPECT_EQ(r.links[1].link, "c~d");
  EXPECT_TRUE(r.links[0].deterministic);
  EXPECT_LT(r.links[0].seed_bits_median, 1e-6);
  EXPECT_FALSE(r.links[1].deterministic);
  EXPECT_GT(r.links[1].seed_bits_median, 6.0);
  EXPECT_EQ(r.links[1].qps, 16);
  EXPECT_EQ(r.links[1].udp_src_ports, 16);
  EXPECT_FALSE(r.links[1].polarisation_risk);
  EXPECT_NEAR(r.links[1].flow_bits_median, 4.0, 1e-12);  // 16 equal flows
  EXPECT_EQ(r.links[1].windows, 2);                      // windows 0 and 2
  // Samples: by link, then window, then estimator.
  std::vector<std::pair<std::string, int64_t>> order;
  for (const auto& s : r.samples) {
    if (s.estimator == EntropyEstimator::kSeedHeader) order.emplace_back(s.link, s.window_start_ns);
    if (s.estimator == EntropyEstimator::kSeedHeader) {
      EXPECT_EQ(s.deterministic, s.bits < opt.deterministic_below_bits);
    }
  }
  const std::vector<std::pair<std::string, int64_t>> want = {
      {"a~b", 0}, {"a~b", 10 * kMs}, {"a~b", 20 * kMs}, {"c~d", 0}, {"c~d", 20 * kMs}};
  EXPECT_EQ(order, want);
  // The 3-packet window is flagged and left out of the medians.
  for (const auto& s : r.samples) {
    if (s.link == "c~d" && s.window_start_ns == 20 * kMs) {
      EXPECT_TRUE(s.not_enough_packets);
    }
  }
}

// Synthetic traffic: `packets_in_window(w)` packets of `bytes` each, one QP per packet mod 8.
template <typename F>
TrafficEntropyReport Synth(int windows, F packets_in_window, EntropyOptions opt = {}, int ce_above = -1) {
  TrafficEntropyAccumulator acc(opt);
  uint32_t psn = 0;
  for (int w = 0; w < windows; ++w) {
    const int n = packets_in_window(w);
    for (int i = 0; i < n; ++i) {
      const int64_t ts = w * opt.window_ns + (opt.window_ns * i) / std::max(n, 1);
      auto p = Pkt(ts, op::kWriteOnly, 1 + (psn % 8), psn, 4096);
      // A queue builds in the busy windows: the switch marks ECN CE.
      p.ip_ecn_ce = ce_above >= 0 && n > ce_above && i % 10 == 0;
      acc.Add(p, 0, kLink);
      ++psn;
    }
  }
  return acc.Finish();
}

TEST(TrafficEntropy, PeriodicCongestionIsFound) {
  // Bursts every 1 s (10 windows of 100 ms): 2 busy windows, 8 quiet ones, for 12.8 s.
  const TrafficEntropyReport r = Synth(128, [](int w) { return w % 10 < 2 ? 200 : 20; }, {}, 100);
  ASSERT_EQ(r.modes.size(), 1u);
  const LinkEntropyMode& m = r.modes[0];
  EXPECT_EQ(TrafficModeName(m.mode), "periodic_congestion") << m.evidence;
  EXPECT_NEAR(m.dominant_period_s, 1.0, 0.05);
  EXPECT_LT(m.fisher_p, 0.01);
  EXPECT_GT(m.low_freq_peak_ratio, 10.0);
  EXPECT_LT(m.spectral_flatness, 0.35);
  EXPECT_EQ(m.spectrum_windows, 128);
  EXPECT_EQ(SpectrumSeriesName(m.series), "bytes");
  std::printf("periodic: %s\n", m.evidence.c_str());
  EXPECT_NE(m.evidence.find("Fisher p"), std::string::npos);
  // The same on the seed-entropy series.
  EntropyOptions opt;
  opt.spectrum_series = SpectrumSeries::kSeedBits;
  const TrafficEntropyReport r2 = Synth(128, [](int w) { return w % 10 < 2 ? 200 : 20; }, opt, 100);
  EXPECT_EQ(TrafficModeName(r2.modes[0].mode), "periodic_congestion") << r2.modes[0].evidence;
  EXPECT_NEAR(r2.modes[0].dominant_period_s, 1.0, 0.05);
  // The same cadence with no congestion mark is the job's own rhythm, not congestion.
  const TrafficEntropyReport calm = Synth(128, [](int w) { return w % 10 < 2 ? 200 : 20; });
  EXPECT_EQ(TrafficModeName(calm.modes[0].mode), "steady") << calm.modes[0].evidence;
  EXPECT_NEAR(calm.modes[0].dominant_period_s, 1.0, 0.05);
}

TEST(TrafficEntropy, WhiteNoiseIsContentionAndFlatIsSteady) {
  Rng rng(5);
  std::vector<int> noisy(240);
  for (int& n : noisy) n = 1 + static_cast<int>(rng.Exponential() * 60);
  const TrafficEntropyReport r = Synth(240, [&](int w) { return noisy[w]; });
  EXPECT_EQ(TrafficModeName(r.modes[0].mode), "multi_tenant_contention") << r.modes[0].evidence;
  EXPECT_GE(r.modes[0].spectral_flatness, 0.35);
  EXPECT_GE(r.modes[0].cv, 0.2);
  EXPECT_EQ(r.modes[0].spectrum_windows, 240);

  std::vector<int> flat(240);
  for (int& n : flat) n = 100 + static_cast<int>(rng.Below(3));
  const TrafficEntropyReport s = Synth(240, [&](int w) { return flat[w]; });
  EXPECT_EQ(TrafficModeName(s.modes[0].mode), "steady") << s.modes[0].evidence;
  std::printf("white: %s\nflat: %s\n", r.modes[0].evidence.c_str(), s.modes[0].evidence.c_str());
  EXPECT_LT(s.modes[0].cv, 0.05);

  const TrafficEntropyReport c = Synth(49, [](int) { return 10; });
  EXPECT_EQ(TrafficModeName(c.modes[0].mode), "steady");  // constant series
  EXPECT_EQ(c.modes[0].spectrum_windows, 48);  // cut to 2^4 * 3

  const TrafficEntropyReport few = Synth(5, [](int) { return 10; });
  EXPECT_EQ(TrafficModeName(few.modes[0].mode), "insufficient_data");
}

void ExpectSameReport(const TrafficEntropyReport& a, const TrafficEntropyReport& b) {
  ASSERT_EQ(a.samples.size(), b.samples.size());
  for (size_t i = 0; i < a.samples.size(); ++i) {
    EXPECT_EQ(a.samples[i].link, b.samples[i].link);
    EXPECT_EQ(a.samples[i].window_start_ns, b.samples[i].window_start_ns);
    EXPECT_EQ(a.samples[i].packets, b.samples[i].packets);
    EXPECT_EQ(a.samples[i].estimator, b.samples[i].estimator);
    EXPECT_EQ(a.samples[i].bits, b.samples[i].bits) << i;
  }
  ASSERT_EQ(a.links.size(), b.links.size());
  for (size_t i = 0; i < a.links.size(); ++i) {
    EXPECT_EQ(a.links[i].link, b.links[i].link);
    EXPECT_EQ(a.links[i].packets, b.links[i].packets);
    EXPECT_EQ(a.links[i].seed_bits_median, b.links[i].seed_bits_median);
    EXPECT_EQ(a.links[i].message_size_bits_median, b.links[i].message_size_bits_median);
    EXPECT_EQ(a.links[i].advice, b.links[i].advice);
  }
  ASSERT_EQ(a.modes.size(), b.modes.size());
  for (size_t i = 0; i < a.modes.size(); ++i) {
    EXPECT_EQ(a.modes[i].mode, b.modes[i].mode);
    EXPECT_EQ(a.modes[i].evidence, b.modes[i].evidence);
  }
}

TEST(TrafficEntropy, FeedingOrderAcrossCapturesDoesNotMatter) {
  // Two captures (index 0 and 1) both feed the host-pair link "h1~h2" and their own capture link.
  Rng rng(9);
  struct Item {
    RocePacket p;
    uint32_t src_qp;
    std::vector<std::string> links;
  };
  std::vector<Item> cap[2];
  for (int c = 0; c < 2; ++c) {
    uint32_t psn = 100;
    for (int i = 0; i < 3000; ++i) {
      const int64_t ts = i * 2 * kMs + c * kMs + static_cast<int64_t>(rng.Below(kMs));
      const uint32_t qp = 1 + static_cast<uint32_t>(rng.Below(4)) + 10 * c;
      RocePacket p = i % 3 == 0 ? WriteFirst(ts, qp, psn, 4096, 4096u << rng.Below(8))
                                : Pkt(ts, op::kSendOnly, qp, psn, static_cast<uint32_t>(rng.Below(5000)));
      p.capture_index = c;
      ++psn;
      cap[c].push_back({p, 50u + c, {"h1~h2", c == 0 ? "capture:x" : "capture:y"}});
    }
  }
  EntropyOptions opt;
  opt.close_after_ns = 0;  // compact eagerly so late packets must re-open windows
  TrafficEntropyAccumulator merged(opt), sequential(opt);
  size_t i0 = 0, i1 = 0;
  while (i0 < cap[0].size() || i1 < cap[1].size()) {
    const bool take0 = i1 >= cap[1].size() || (i0 < cap[0].size() && cap[0][i0].p.ts_ns <= cap[1][i1].p.ts_ns);
    const Item& it = take0 ? cap[0][i0++] : cap[1][i1++];
    merged.Add(it.p, it.src_qp, it.links);
  }
  for (int c : {1, 0}) {
    for (const Item& it : cap[c]) sequential.Add(it.p, it.src_qp, it.links);
  }
  EXPECT_EQ(merged.packets(), 6000);
  const TrafficEntropyReport a = merged.Finish();
  const TrafficEntropyReport b = sequential.Finish();
  ASSERT_EQ(a.links.size(), 3u);
  EXPECT_EQ(a.links[0].link, "capture:x");
  EXPECT_EQ(a.links[2].link, "h1~h2");
  EXPECT_EQ(a.links[2].packets, 6000);
  ExpectSameReport(a, b);
}

TEST(TrafficEntropy, Deterministic) {
  auto run = [] {
    Rng rng(77);
    std::vector<int> n(64);
    for (int& v : n) v = static_cast<int>(rng.Below(300));
    return Synth(64, [&](int w) { return n[w]; });
  };
  ExpectSameReport(run(), run());
}

}  // namespace traffic_entropy_test
}  // namespace toposcope::analysis

namespace toposcope::analysis {
namespace traffic_entropy_test {

// A marked packet seen on two captures is credited to the one that saw it first; a host pair that
// saw it at the same time as a capture is not credited; unmarked packets are no marks.
TEST(TrafficEntropy, NewMarksGoToTheFirstCaptureOnThePath) {
  TrafficEntropyAccumulator acc;
  const std::vector<std::string> up = {"capture:leaf0-p5", "a~b"};
  const std::vector<std::string> down = {"capture:spine1-p3", "a~b"};
  for (uint32_t k = 0; k < 20; ++k) {
    RocePacket p = Pkt(10 * kMs + k * 1000, op::kWriteOnly, 0x101, 100 + k, 4096);
    p.ip_ecn_ce = k % 4 == 0;  // 5 marked
    acc.Add(p, 0, up);
    p.ts_ns += 700;  // 0.7 us later on the next cable
    acc.Add(p, 0, down);
  }
  const TrafficEntropyReport r = acc.Finish();
  std::map<std::string, std::pair<int64_t, int64_t>> marks;  // link -> (marked, new)
  for (const LinkEntropySample* s : SamplesOf(r, "message_size")) marks[s->link] = {s->marked_packets, s->new_marks};
  EXPECT_EQ(marks["capture:leaf0-p5"], std::make_pair(int64_t{5}, int64_t{5}));
  EXPECT_EQ(marks["capture:spine1-p3"], std::make_pair(int64_t{5}, int64_t{0}));
  EXPECT_EQ(marks["a~b"], std::make_pair(int64_t{10}, int64_t{0}));
}

}  // namespace traffic_entropy_test
}  // namespace toposcope::analysis
