// libFuzzer target for the Prometheus text exposition reader: counts must balance on any input,
// and the samples that parse must write (exact values) and re-parse without rejects into the same
// names, labels (in exporter order), values (NaN kept) and timestamps.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/dcgm/prometheus_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  ReadCounts counts;
  auto parsed = formats::ParsePromText(text, "fuzz", diag, counts);
  if (!counts.Balanced()) __builtin_trap();
  if (diag.rejected_total() != counts.rejected) __builtin_trap();
  if (!parsed.ok()) return 0;
  if (static_cast<int64_t>(parsed->samples.size()) != parsed->summary.samples) __builtin_trap();
  for (const auto& s : parsed->samples) {
    (void)formats::ToDcgmSample(s);
  }

  const std::string written =
      formats::WritePromText(parsed->samples, parsed->summary.metrics, formats::PromValueStyle::kExact);
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = formats::ParsePromText(written, "fuzz-rewritten", diag2, counts2);
  if (!counts2.Balanced() || counts2.rejected != 0) __builtin_trap();
  if (parsed->samples.empty()) return 0;
  if (!again.ok() || again->samples.size() != parsed->samples.size()) __builtin_trap();
  for (size_t i = 0; i < parsed->samples.size(); ++i) {
    formats::PromSample want = parsed->samples[i];
    want.labels = formats::ExporterLabelOrder(want.labels);
    want.scrape_index = again->samples[i].scrape_index;  // boundaries from metadata may move
    if (!formats::SamePromSample(again->samples[i], want)) __builtin_trap();
  }
  return 0;
}
