// Flow table throughput and QP pairing cost: packets/s through FlowTable::Add over 64, 4,096 and
// 65,536 RC connections (RDMA WRITE MIDDLE packets with consecutive PSNs, one coalesced ACK per
// 16 packets back, 1 % of packets replayed as retransmissions), and PairFlows over the resulting
// flow set (reverse-ACK pairing by UDP source port, plus the UDP-port hash search), and the ring
// decomposition of a 1,024-host ring's host flows.
// Reports items_per_second (packets/s for the table, flows/s for pairing).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "toposcope/analysis/traffic/flows.h"
#include "toposcope/analysis/traffic/rings.h"

namespace toposcope::analysis {
namespace {

using formats::RocePacket;

struct Conn {
  IpAddress a, b;
  uint32_t qa, qb, psn;
  uint16_t sport;
};

std::vector<Conn> MakeConns(int n) {
  std::vector<Conn> conns;
  std::mt19937_64 rng(7);
  for (int i = 0; i < n; ++i) {
    Conn c;
    c.a = IpAddress::V4(0x0a000000u + static_cast<uint32_t>(i % 512));
    c.b = IpAddress::V4(0x0a010000u + static_cast<uint32_t>((i * 7 + 1) % 512));
    c.qa = 0x100 + static_cast<uint32_t>(i);
    c.qb = 0x80000 + static_cast<uint32_t>(i);
    c.psn = static_cast<uint32_t>(rng() & 0xffffff);
    c.sport = RoceUdpSourcePort(c.qa, c.qb);
    conns.push_back(c);
  }
  return conns;
}

// A pre-generated packet stream (so the benchmark measures the table, not the generator).
std::vector<RocePacket> MakePackets(std::vector<Conn>& conns, int64_t packets) {
  std::vector<RocePacket> out;
  out.reserve(static_cast<size_t>(packets));
  std::mt19937_64 rng(11);
  int64_t ts = 1700000000000000000;
  while (static_cast<int64_t>(out.size()) < packets) {
    Conn& c = conns[rng() % conns.size()];
    for (int k = 0; k < 16 && static_cast<int64_t>(out.size()) < packets; ++k) {
      RocePacket p;
      p.ts_ns = ts += 250;
      p.src_ip = c.a;
      p.dst_ip = c.b;
      p.udp_src_port = c.sport;
      p.opcode = formats::roce_op::kWriteMiddle;
      p.dest_qp = c.qb;
      const bool retrans = rng() % 100 == 0 && k > 0;
      p.psn = retrans ? (c.psn - 1) & 0xffffff : c.psn;
      if (!retrans) c.psn = (c.psn + 1) & 0xffffff;
      p.payload_bytes = 4096;
      p.wire_len = 4096 + 58;
      out.push_back(p);
    }
    RocePacket ack;
    ack.ts_ns = ts += 100;
    ack.src_ip = c.b;
    ack.dst_ip = c.a;
    ack.udp_src_port = c.sport;
    ack.opcode = formats::roce_op::kAcknowledge;
    ack.dest_qp = c.qa;
    ack.psn = (c.psn - 1) & 0xffffff;
    ack.has_aeth = true;
    ack.aeth_syndrome = 0x1f;
    ack.wire_len = 62;
    out.push_back(ack);
  }
  return out;
}

void BM_FlowTableAdd(benchmark::State& state) {
  auto conns = MakeConns(static_cast<int>(state.range(0)));
  const auto packets = MakePackets(conns, 1 << 20);
  for (auto _ : state) {
    FlowTable t;
    for (const auto& p : packets) t.Add(p);
    benchmark::DoNotOptimize(t.size());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(packets.size()));
  state.counters["flows"] = static_cast<double>(2 * conns.size());
}
BENCHMARK(BM_FlowTableAdd)->Arg(64)->Arg(4096)->Arg(65536)->Unit(benchmark::kMillisecond);

void BM_PairFlows(benchmark::State& state) {
  auto conns = MakeConns(static_cast<int>(state.range(0)));
  const auto packets = MakePackets(conns, 16 * state.range(0) + (1 << 16));
  FlowTable t;
  for (const auto& p : packets) t.Add(p);
  const auto base = t.Flows();
  model::Dataset ds;
  HostMap hosts;
  int64_t paired = 0;
  for (auto _ : state) {
    auto flows = base;
    PairFlows(flows, ds, hosts);
    paired = 0;
    for (const auto& f : flows) paired += f.pairing != QpPairing::kNone;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(base.size()));
  state.counters["flows"] = static_cast<double>(base.size());
  state.counters["paired"] = static_cast<double>(paired);
}
BENCHMARK(BM_PairFlows)->Arg(64)->Arg(4096)->Unit(benchmark::kMillisecond);

void BM_RingsFromFlows(benchmark::State& state) {
  const int hosts = static_cast<int>(state.range(0));
  FlowReport r;
  for (int h = 0; h < hosts; ++h) {
    for (int rail = 0; rail < 8; ++rail) {
      Flow f;
      f.key = FlowKey{IpAddress::V4(0x0a000000u + static_cast<uint32_t>(h * 8 + rail)),
                      IpAddress::V4(0x0a000000u + static_cast<uint32_t>(((h + 1) % hosts) * 8 + rail)), 1};
      f.src_host = "h" + std::to_string(h);
      f.dst_host = "h" + std::to_string((h + 1) % hosts);
      f.data_bytes = 1 << 30;
      r.flows.push_back(f);
    }
  }
  size_t rings = 0;
  for (auto _ : state) {
    auto v = RingsFromFlows(r);
    rings = v.size();
    benchmark::DoNotOptimize(v);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(r.flows.size()));
  state.counters["rings"] = static_cast<double>(rings);
}
BENCHMARK(BM_RingsFromFlows)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace toposcope::analysis

BENCHMARK_MAIN();
