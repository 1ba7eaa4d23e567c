// bench/entropy_bench: traffic entropy throughput. Packets/s through TrafficEntropyAccumulator::Add
// (each packet given a capture link and a host-pair link, so two link updates per packet), the
// Finish cost per window (seed numpy replica + Miller-Madow + flow + message-size entropies and the
// spectrum), and the raw estimators: the seed replica over a 1024-bin histogram and the FFT
// periodogram of a long series.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "toposcope/analysis/traffic/traffic_entropy.h"
#include "toposcope/base/rng.h"
#include "toposcope/stats/entropy.h"

namespace {

using toposcope::Rng;
using toposcope::analysis::EntropyOptions;
using toposcope::analysis::TrafficEntropyAccumulator;
using toposcope::formats::RocePacket;

// `n` packets over `pairs` host pairs x 8 QPs, 4 KiB WRITE FIRST/MIDDLE/LAST messages of 64
// packets, ~1 Mpps across the capture, in time order.
struct Feed {
  std::vector<RocePacket> packets;
  std::vector<uint32_t> src_qps;
  std::vector<std::vector<std::string>> links;  // per pair
  std::vector<int> pair_of;
};

Feed MakeFeed(int n, int pairs) {
  Feed f;
  Rng rng(1);
  f.packets.reserve(n);
  for (int p = 0; p < pairs; ++p) {
    f.links.push_back({"capture:leaf" + std::to_string(p % 4), "host" + std::to_string(p) + "~host" + std::to_string(p + pairs)});
  }
  std::vector<uint32_t> psn(static_cast<size_t>(pairs) * 8, 0);
  for (int i = 0; i < n; ++i) {
    const int pair = static_cast<int>(rng.Below(pairs));
    const int q = static_cast<int>(rng.Below(8));
    uint32_t& s = psn[pair * 8 + q];
    RocePacket p;
    p.ts_ns = static_cast<int64_t>(i) * 1000;
    p.src_ip = toposcope::IpAddress::V4(0x0a000000u + pair);
    p.dst_ip = toposcope::IpAddress::V4(0x0a010000u + pair);
    p.udp_src_port = static_cast<uint16_t>(0xc000 + q);
    p.dest_qp = 0x100 + pair * 8 + q;
    p.psn = s & 0xffffff;
    const uint32_t k = s % 64;
    p.opcode = k == 0 ? 0x06 : (k == 63 ? 0x08 : 0x07);
    if (k == 0) {
      p.has_reth = true;
      p.reth_dma_len = 64 * 4096;
    }
    p.payload_bytes = 4096;
    ++s;
    f.packets.push_back(p);
    f.src_qps.push_back(0x900 + pair * 8 + q);
    f.pair_of.push_back(pair);
  }
  return f;
}

void BM_AccumulatorAdd(benchmark::State& state) {
  const Feed f = MakeFeed(1'000'000, static_cast<int>(state.range(0)));
  for (auto _ : state) {
    TrafficEntropyAccumulator acc;
    for (size_t i = 0; i < f.packets.size(); ++i) acc.Add(f.packets[i], f.src_qps[i], f.links[f.pair_of[i]]);
    benchmark::DoNotOptimize(acc.packets());
    state.PauseTiming();
    auto r = acc.Finish();  // not timed here
    benchmark::DoNotOptimize(r.samples.data());
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(f.packets.size()));
  state.counters["links"] = static_cast<double>(state.range(0)) + std::min<int64_t>(state.range(0), 4);
}
BENCHMARK(BM_AccumulatorAdd)->Arg(1)->Arg(16)->Arg(256)->Unit(benchmark::kMillisecond);

void BM_AccumulatorFinish(benchmark::State& state) {
  // 1 s of capture at 1 Mpps, 16 pairs: 20 links x 10 windows.
  const Feed f = MakeFeed(1'000'000, 16);
  int64_t samples = 0;
  for (auto _ : state) {
    state.PauseTiming();
    TrafficEntropyAccumulator acc;
    for (size_t i = 0; i < f.packets.size(); ++i) acc.Add(f.packets[i], f.src_qps[i], f.links[f.pair_of[i]]);
    state.ResumeTiming();
    auto r = acc.Finish();
    samples = static_cast<int64_t>(r.samples.size());
    benchmark::DoNotOptimize(r.samples.data());
  }
  state.counters["windows"] = static_cast<double>(samples / 4);
  state.SetItemsProcessed(state.iterations() * samples / 4);
}
BENCHMARK(BM_AccumulatorFinish)->Unit(benchmark::kMillisecond);

void BM_SeedEntropyFromCounts(benchmark::State& state) {
  Rng rng(2);
  std::vector<uint32_t> counts(1024, 0);
  for (int i = 0; i < state.range(0); ++i) ++counts[rng.Below(1024)];
  for (auto _ : state) benchmark::DoNotOptimize(toposcope::stats::SeedHeaderEntropyBitsFromCounts(counts));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SeedEntropyFromCounts)->Arg(100)->Arg(100000);

void BM_PowerSpectrum(benchmark::State& state) {
  Rng rng(3);
  std::vector<double> x(static_cast<size_t>(state.range(0)));
  for (double& v : x) v = rng.Normal();
  for (auto _ : state) {
    auto s = toposcope::stats::ComputePowerSpectrum(x, 10.0);
    benchmark::DoNotOptimize(toposcope::stats::SpectralFlatness(s.power));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_PowerSpectrum)->Arg(4096)->Arg(36000);  // 36000 = 1 h of 100 ms windows

}  // namespace
BENCHMARK_MAIN();
