// Reader/writer throughput of ibnetdiscover topology files: the real NDR DGX H100 SuperPOD dump
// (40 switches, 582 CAs, 300 KB) and that fabric replicated 32 times with distinct GUIDs
// (1,280 switches, 18,624 CAs, about 9.6 MB), parsed whole and streamed node by node.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "toposcope/formats/fabric/ibnetdiscover.h"

namespace toposcope::formats {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string& RealText() {
  static const std::string text =
      Slurp(std::string(TOPOSCOPE_FIXTURES) + "/ibnetdiscover/topograph_ndr_dgx_h100_superpod_40switch_582ca.out");
  return text;
}

// Replaces the two hex digits after "X-" (ids) to make copy `k` of the fabric distinct.
std::string Relabel(const std::string& id, int k) {
  char buf[3];
  std::snprintf(buf, sizeof buf, "%02x", k & 0xff);
  std::string out = id;
  if (out.size() == 18) {
    out[2] = buf[0];
    out[3] = buf[1];
  }
  return out;
}

const std::string& ScaledText(int copies) {
  static std::string text;
  if (!text.empty()) return text;
  Diagnostics diag;
  auto f = ParseIbnetdiscover(RealText(), "real", diag);
  IbFabric big;
  big.generated_on = f->generated_on;
  big.initiated_from = f->initiated_from;
  for (int k = 0; k < copies; ++k) {
    for (IbNode n : f->nodes) {
      n.id = Relabel(n.id, k);
      n.guid = n.id.substr(2);
      for (IbPortLink& p : n.ports) p.peer_guid = Relabel(p.peer_guid, k);
      big.nodes.push_back(std::move(n));
    }
  }
  text = WriteIbnetdiscover(big);
  return text;
}

void BM_ParseReal(benchmark::State& state) {
  const std::string& text = RealText();
  for (auto _ : state) {
    Diagnostics diag;
    auto f = ParseIbnetdiscover(text, "real", diag);
    benchmark::DoNotOptimize(f);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseReal)->Unit(benchmark::kMillisecond);

void BM_ParseScaled32(benchmark::State& state) {
  const std::string& text = ScaledText(32);
  int64_t nodes = 0;
  for (auto _ : state) {
    Diagnostics diag;
    auto f = ParseIbnetdiscover(text, "scaled", diag);
    nodes = static_cast<int64_t>(f->nodes.size());
    benchmark::DoNotOptimize(f);
  }
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseScaled32)->Unit(benchmark::kMillisecond);

void BM_WriteScaled32(benchmark::State& state) {
  const std::string& text = ScaledText(32);
  Diagnostics diag;
  auto f = ParseIbnetdiscover(text, "scaled", diag);
  for (auto _ : state) {
    std::string out = WriteIbnetdiscover(*f);
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_WriteScaled32)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace toposcope::formats

BENCHMARK_MAIN();
