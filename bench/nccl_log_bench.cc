// Reader throughput of NCCL_DEBUG=INFO logs (MB/s, one core) on a large synthetic log written once
// in memory with NcclLogWriter (2.26 era, with "[%F %T.%6f] " timestamps on half the hosts): a
// 4,096-rank job on 512 nodes, 32 channels — per rank the comm line, one Trees line, 32 Ring lines,
// P2P/NET connection lines, NET/IB Using and qpn lines — interleaved with the common non-topology
// INFO lines (about half of all lines), as a real multi-rank log is. Streaming (LineReader, records
// to a counting sink) and collecting (ParseNcclLog); plus the writer and the real 2.26.2 excerpt.
// Rates are per CPU second of the reading thread (the machine is shared; wall time is noisier).
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "toposcope/formats/nccl/nccl_log.h"
#include "toposcope/formats/clock/sync_point.h"

namespace toposcope::formats {
namespace {

constexpr int kNodes = 512;
constexpr int kGpusPerNode = 8;
constexpr int kRanks = kNodes * kGpusPerNode;
constexpr int kChannels = 32;

std::string MakeLog(int64_t* records) {
  std::string out;
  out.reserve(size_t{64} << 20);
  *records = 0;
  const int64_t t0 = 1735689600LL * 1000000000LL;
  for (int r = 0; r < kRanks; ++r) {
    const int node = r / kGpusPerNode;
    const int local = r % kGpusPerNode;
    NcclLogPrefix at;
    at.host = "node" + std::to_string(1000 + node);
    at.pid = 100000 + r;
    at.tid = 200000 + r;
    at.cuda_dev = local;
    at.ts_ns = node % 2 == 0 ? t0 + int64_t{r} * 1000003 : kNoTime;
    NcclLogWriter w(NcclLogEra::kV2_26, at);
    auto noise = [&](const char* msg) { out += w.Info(msg); };
    noise("cudaDriverVersion 12080");
    out += w.Version("2.26.2+cuda12.8");
    noise("Bootstrap: Using bond0:192.168.11.9<0>");
    NcclNetUsing u;
    u.net_name = "IB";
    for (int d = 0; d < 8; ++d) u.devices.push_back({d, "mlx5_" + std::to_string(d), 1, "IB", false, ""});
    u.relaxed_ordering = true;
    u.oob_iface = "bond0";
    u.oob_ip = "192.168.11." + std::to_string(node % 250);
    u.oob_port = 0;
    out += w.NetUsing(u);
    noise("Using network IB");
    noise("DMA-BUF is available on GPU device 0");
    NcclCommInit c;
    c.comm = "0x5664a0a6" + std::to_string(1000 + r);
    c.rank = r;
    c.nranks = kRanks;
    c.nnodes = kNodes;
    c.local_ranks = kGpusPerNode;
    c.local_rank = local;
    c.mnnvl = 0;
    out += w.CommInit(c);
    std::vector<NcclTreeLine> trees;
    for (int ch = 0; ch < kChannels; ++ch) {
      NcclTreeLine t;
      t.channel = ch;
      t.me = r;
      t.down = {local == 7 ? -1 : r + 1, -1, -1};
      t.up = local == 0 ? -1 : r - 1;
      trees.push_back(t);
      NcclRingLine g;
      g.channel = ch;
      g.prev = (r + kRanks - 1) % kRanks;
      g.me = r;
      g.next = (r + 1) % kRanks;
      out += w.Ring(g);
    }
    out += w.Trees(trees);
    noise("P2P Chunksize set to 131072");
    if (r == 0) {
      for (int ch = 0; ch < kChannels; ++ch) {
        NcclRingOrder o;
        o.channel = ch;
        o.nchannels = kChannels;
        for (int k = 0; k < kRanks; ++k) o.ranks.push_back((k + ch) % kRanks);
        out += w.RingOrder(o, kRanks);
        ++*records;
      }
    }
    for (int ch = 0; ch < kChannels; ++ch) {
      noise("[Proxy Progress] Device 1 CPU core 4");
      NcclConnection k;
      k.channel = ch;
      k.conn_index = 0;
      k.from_rank = r;
      k.from_dev = std::to_string(local);
      if (local == 7) {
        k.to_rank = (r + 1) % kRanks;
        k.to_dev = "0";
        k.dir = NcclConnection::Dir::kSend;
        k.transport = NcclTransport::kNet;
        k.net_name = "IB";
        k.net_dev = local;
        k.gdrdma = true;
      } else {
        k.to_rank = r + 1;
        k.to_dev = std::to_string(local + 1);
        k.transport = NcclTransport::kP2p;
        k.p2p_kind = "CUMEM";
      }
      out += w.Connection(k);
      noise("Connected all rings, use ring PXN 0 GDR 1");
    }
    for (int q = 0; q < 4; ++q) {
      NcclQpn qp;
      qp.ib_dev = "NCCL Dev";
      qp.dev = local;
      qp.ib_dev_index = local;
      qp.port = 1;
      qp.qpn = static_cast<uint32_t>(0x1000 + r * 4 + q);
      qp.mtu = 5;
      qp.lid = 100 + node;
      out += w.Qpn(qp);
    }
    noise("Connected all trees");
    noise("threadThresholds 8/8/64 | 128/8/64 | 512 | 512");
    noise("32 coll channels, 32 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer");
    *records += 1 + 1 + kChannels * 3 + 4;  // Using, comm, Ring/Trees/connection per channel, qpns
  }
  return out;
}

struct Corpus {
  std::string text;
  int64_t records = 0;
};

const Corpus& Big() {
  static const Corpus c = [] {
    Corpus x;
    x.text = MakeLog(&x.records);
    return x;
  }();
  return c;
}

void BM_ReadNcclLogStreaming4096Ranks(benchmark::State& state) {
  const Corpus& c = Big();
  int64_t records = 0;
  for (auto _ : state) {
    LineReader lines = TextLineReader(c.text, "bench");
    Diagnostics diag;
    int64_t n = 0;
    auto r = ReadNcclLogRecords(lines, "bench", diag, [&n](NcclLogRecord&&) { ++n; });
    if (!r.ok() || r->counts.rejected != 0 || n != c.records) state.SkipWithError("parse failed");
    records += n;
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(c.text.size()));
  state.counters["records/s"] = benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
  state.counters["MB"] = static_cast<double>(c.text.size()) / 1e6;
}
BENCHMARK(BM_ReadNcclLogStreaming4096Ranks)->Unit(benchmark::kMillisecond);

void BM_ParseNcclLogCollect4096Ranks(benchmark::State& state) {
  const Corpus& c = Big();
  for (auto _ : state) {
    Diagnostics diag;
    auto r = ParseNcclLog(c.text, "bench", diag);
    if (!r.ok() || r->counts.rejected != 0) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(c.text.size()));
}
BENCHMARK(BM_ParseNcclLogCollect4096Ranks)->Unit(benchmark::kMillisecond);

void BM_WriteNcclLog4096Ranks(benchmark::State& state) {
  size_t bytes = 0;
  for (auto _ : state) {
    int64_t n = 0;
    const std::string text = MakeLog(&n);
    bytes += text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_WriteNcclLog4096Ranks)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_ReadReal2262RingsTrees(benchmark::State& state) {
  std::ifstream in(std::string(TOPOSCOPE_FIXTURES) +
                   "/nccl_debug_log/nccl2.26.2_2node16gpu_h100_ib_rings_trees_excerpt.log");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  for (auto _ : state) {
    Diagnostics diag;
    auto r = ParseNcclLog(text, "bench", diag);
    if (!r.ok()) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ReadReal2262RingsTrees);

}  // namespace
}  // namespace toposcope::formats

BENCHMARK_MAIN();
