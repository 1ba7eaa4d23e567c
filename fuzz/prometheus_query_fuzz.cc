// libFuzzer target for the Prometheus query API reader (formats/dcgm/prometheus_query): counts must
// balance on any input, every rejected record must be in the diagnostics, the samples handed on
// must match the summary, and their DCGM view must not fail; the API time parser must not fail.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "toposcope/formats/dcgm/prometheus_query.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  ReadCounts counts;
  auto parsed = formats::ParsePromQueryResponse(text, "fuzz", diag, counts);
  if (!counts.Balanced()) __builtin_trap();
  if (diag.rejected_total() != counts.rejected) __builtin_trap();
  (void)formats::ParsePromApiTimeNs(text.substr(0, 64));
  if (!parsed.ok()) return 0;
  if (static_cast<int64_t>(parsed->samples.size()) != parsed->info.samples) __builtin_trap();
  if (parsed->info.samples != counts.accepted) __builtin_trap();
  for (const auto& s : parsed->samples) (void)formats::ToDcgmSample(s);
  return 0;
}
