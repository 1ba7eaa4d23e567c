// libFuzzer target for the path-probe reader (CSV, JSONL, traceroute, ibtracert): counts must
// balance on any input and every probe must reach the sink with a destination; probes written in
// our CSV and JSONL layouts must re-parse without rejects into the same probes (rtt to 3
// decimals, per-hop RTTs not written). The JSONL form is written for the first kJsonRoundTripProbes
// probes only: building and parsing JSON costs several times the first parse under the
// sanitizers, and each JSONL line is a probe of its own.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/formats/fabric/path_probe.h"

namespace {
constexpr size_t kJsonRoundTripProbes = 8;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  std::vector<PathProbe> probes;
  auto sum = ParsePathProbes(text, "fuzz", diag, [&](const PathProbe& p) { probes.push_back(p); }, "src0");
  if (!sum.ok()) return 0;
  if (!sum->counts.Balanced() || diag.RejectedFor("fuzz") != sum->counts.rejected) __builtin_trap();
  if (static_cast<int64_t>(probes.size()) != sum->probes) __builtin_trap();
  std::string jsonl;
  for (auto& p : probes) {
    if (p.dst.empty()) __builtin_trap();
    if (!std::isnan(p.rtt_us) && !(p.rtt_us >= 0)) __builtin_trap();
  }
  if (probes.size() > kJsonRoundTripProbes) probes.resize(kJsonRoundTripProbes);
  for (auto& p : probes) {
    p.hop_rtt_us.clear();
    if (!std::isnan(p.rtt_us)) p.rtt_us = std::round(p.rtt_us * 1000.0) / 1000.0;
    jsonl += FormatPathProbeJsonLine(p);
  }
  if (probes.empty()) return 0;
  Diagnostics d2;
  std::vector<PathProbe> again;
  auto s2 = ParsePathProbes(jsonl, "fuzz-rewritten", d2, [&](const PathProbe& p) { again.push_back(p); });
  if (!s2.ok() || s2->counts.rejected != 0 || again.size() != probes.size()) __builtin_trap();
  for (size_t i = 0; i < probes.size(); ++i) {
    const auto& a = probes[i];
    const auto& b = again[i];
    if (a.src != b.src || a.dst != b.dst || a.hops != b.hops || a.ts_ns != b.ts_ns) __builtin_trap();
    if (std::isnan(a.rtt_us) != std::isnan(b.rtt_us)) __builtin_trap();
    if (!std::isnan(a.rtt_us) && std::fabs(a.rtt_us - b.rtt_us) > 1.5e-3) __builtin_trap();
  }
  return 0;
}
