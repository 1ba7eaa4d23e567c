// Throughput of the streaming Chrome trace reader (MB/s of JSON, both passes included) on a large
// synthetic Kineto-like trace written by ChromeTraceWriter to a temp file (2M events by default,
// TOPOSCOPE_TRACE_BENCH_EVENTS overrides), with peak RSS (VmHWM) before/after the read reported as
// counters to show memory stays flat; also the writer's throughput and the JSONL event reader's.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "toposcope/formats/trace/chrome_trace.h"
#include "toposcope/formats/trace/event_jsonl.h"

namespace {

using toposcope::Diagnostics;
using toposcope::ReadCounts;
using toposcope::formats::ChromeTraceWriter;
using toposcope::formats::TraceEvent;

// Peak resident set (kB) from /proc/self/status, -1 when unavailable.
int64_t VmHwmKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoll(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

int64_t BenchEvents() {
  if (const char* s = std::getenv("TOPOSCOPE_TRACE_BENCH_EVENTS")) return std::max<int64_t>(1000, std::atoll(s));
  return 2'000'000;
}

TraceEvent MakeEvent(int64_t i) {
  TraceEvent e;
  const int gpu = static_cast<int>(i % 8);
  e.local_ts_ns = 1711964646000000000 + i * 1537;
  e.dur_ns = 1000 + (i % 5000);
  e.device = (i % 3 == 0) ? "cpu" : "gpu" + std::to_string(gpu);
  e.type = (i % 3 == 0) ? "aten::mm" : (i % 7 == 0 ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL" : "void gemm_kernel<float>");
  e.category = (i % 3 == 0) ? "cpu_op" : "kernel";
  e.context = "corr=" + std::to_string(i);
  e.pid = (i % 3 == 0) ? 4037 : gpu;
  e.tid = (i % 3 == 0) ? 4037 : 7;
  e.rank = 0;
  return e;
}

// The distributedInfo of rank 0 of a `world`-rank NCCL job.
toposcope::formats::DistributedInfo NcclRank0Info(int world) {
  toposcope::formats::DistributedInfo d;
  d.present = true;
  d.backend = "nccl";
  d.rank = 0;
  d.world_size = world;
  return d;
}

// Writes the synthetic trace once per process; returns its path and size.
const std::string& TracePath(int64_t* bytes) {
  static std::string path;
  static int64_t size = 0;
  if (path.empty()) {
    path = "/tmp/toposcope_trace_bench_" + std::to_string(::getpid()) + ".json";
    std::ofstream out(path, std::ios::binary);
    ChromeTraceWriter w(out);
    w.SetDistributedInfo(NcclRank0Info(8));
    w.SetBaseTime(1711964646000000000);
    const int64_t n = BenchEvents();
    for (int64_t i = 0; i < n; ++i) w.Write(MakeEvent(i));
    w.Finish();
    out.close();
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    size = static_cast<int64_t>(in.tellg());
    std::atexit([] { std::remove(path.c_str()); });
  }
  *bytes = size;
  return path;
}

void BM_ChromeTraceRead(benchmark::State& state) {
  int64_t bytes = 0;
  const std::string& path = TracePath(&bytes);
  const int64_t hwm_before = VmHwmKb();
  int64_t events = 0;
  for (auto _ : state) {
    Diagnostics diag;
    ReadCounts counts;
    int64_t n = 0;
    int64_t sum = 0;
    auto info = toposcope::formats::ReadChromeTraceFile(
        path, {}, [&](TraceEvent&& e) {
          ++n;
          sum += e.dur_ns;
        },
        diag, counts);
    if (!info.ok() || counts.rejected != 0) state.SkipWithError("read failed");
    benchmark::DoNotOptimize(sum);
    events = n;
  }
  const int64_t hwm_after = VmHwmKb();
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["events"] = static_cast<double>(events);
  state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["VmHWM_before_MB"] = static_cast<double>(hwm_before) / 1024.0;
  state.counters["VmHWM_after_MB"] = static_cast<double>(hwm_after) / 1024.0;
  state.counters["VmHWM_growth_MB"] = static_cast<double>(hwm_after - hwm_before) / 1024.0;
}
BENCHMARK(BM_ChromeTraceRead)->Unit(benchmark::kMillisecond)->Iterations(2);

// A trace whose distributedInfo lists every rank of a `world`-rank job (pg_config[0].ranks =
// 0..world-1: ~590 kB of JSON at 100,000) ahead of 3,000 events, as every rank of such a job
// writes it: the cost of one read (both passes) beyond world 0 is what the rank list adds.
const std::string& WideWorldTracePath(int world, int64_t* bytes) {
  static std::map<int, std::pair<std::string, int64_t>> made;
  auto& [path, size] = made[world];
  if (path.empty()) {
    const int kWorld = world;
    path = "/tmp/toposcope_trace_bench_world" + std::to_string(world) + "_" + std::to_string(::getpid()) + ".json";
    std::ofstream out(path, std::ios::binary);
    ChromeTraceWriter w(out);
    toposcope::formats::DistributedInfo d = NcclRank0Info(kWorld);
    d.pg_count = 1;
    toposcope::formats::ProcessGroupConfig pg;
    pg.pg_name = "0";
    pg.pg_desc = "default_pg";
    pg.backend_config = "cuda:nccl";
    pg.pg_size = kWorld;
    pg.ranks.AppendRun(0, kWorld - 1);
    d.pg_config.push_back(std::move(pg));
    w.SetDistributedInfo(d);
    w.SetBaseTime(1711964646000000000);
    for (int64_t i = 0; i < 3000; ++i) w.Write(MakeEvent(i));
    w.Finish();
    out.close();
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    size = static_cast<int64_t>(in.tellg());
    if (made.size() == 1) {
      std::atexit([] {
        for (const auto& [w, p] : made) std::remove(p.first.c_str());
      });
    }
  }
  *bytes = size;
  return path;
}

void BM_ChromeTraceReadWideWorld(benchmark::State& state) {
  int64_t bytes = 0;
  const std::string& path = WideWorldTracePath(static_cast<int>(state.range(0)), &bytes);
  int64_t events = 0;
  size_t ranks = 0;
  for (auto _ : state) {
    Diagnostics diag;
    ReadCounts counts;
    int64_t n = 0;
    auto info = toposcope::formats::ReadChromeTraceFile(path, {}, [&](TraceEvent&&) { ++n; }, diag, counts);
    if (!info.ok() || counts.rejected != 0 || info->distributed.pg_config.size() != 1 || !diag.items().empty()) {
      state.SkipWithError("read failed");
      break;
    }
    ranks = info->distributed.pg_config[0].ranks.size();
    events = n;
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["events"] = static_cast<double>(events);
  state.counters["ranks"] = static_cast<double>(ranks);
  state.counters["file_kB"] = static_cast<double>(bytes) / 1e3;
}
BENCHMARK(BM_ChromeTraceReadWideWorld)->Arg(0)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_ChromeTraceWrite(benchmark::State& state) {
  const int64_t n = 200000;
  int64_t bytes = 0;
  for (auto _ : state) {
    std::ofstream out("/dev/null");
    ChromeTraceWriter w(out);
    for (int64_t i = 0; i < n; ++i) w.Write(MakeEvent(i));
    w.Finish();
    bytes = static_cast<int64_t>(out.tellp());
  }
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
  if (bytes > 0) state.SetBytesProcessed(state.iterations() * bytes);
}
BENCHMARK(BM_ChromeTraceWrite)->Unit(benchmark::kMillisecond);

void BM_EventJsonlRead(benchmark::State& state) {
  std::string text;
  for (int64_t i = 0; i < 200000; ++i) {
    TraceEvent e = MakeEvent(i);
    e.host = "node-" + std::to_string(i % 16);
    text += toposcope::formats::WriteEventJsonlLine(e);
    text += '\n';
  }
  for (auto _ : state) {
    Diagnostics diag;
    ReadCounts counts;
    auto ev = toposcope::formats::ParseEventJsonl(text, "bench", diag, counts);
    benchmark::DoNotOptimize(ev.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_EventJsonlRead)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
