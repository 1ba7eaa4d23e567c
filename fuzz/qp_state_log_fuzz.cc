// libFuzzer target for the QP state-log reader (CSV and JSONL): counts must balance on any input,
// every accepted record reaches the sink, and what parses must write (CSV and JSONL) and re-parse
// without rejects into the same records.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/formats/rdma/qp_state_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  std::vector<QpStateRecord> recs;
  auto sum = ParseQpStateLog(text, "fuzz", diag, [&](const QpStateRecord& r) { recs.push_back(r); });
  if (!sum.ok()) return 0;
  if (!sum->counts.Balanced() || diag.RejectedFor("fuzz") != sum->counts.rejected) __builtin_trap();
  if (static_cast<int64_t>(recs.size()) != sum->counts.accepted) __builtin_trap();
  for (const auto& r : recs) {
    if (r.host.empty() || r.qp >= (1u << 24) || r.legal != IsLegalQpTransition(r.from, r.to)) __builtin_trap();
  }
  // Re-parse the written forms. Duplicates were rejected, so none remain in `recs`... except
  // that a record equal to an older, out-of-order one is legal input; compare as written.
  std::string csv = QpStateCsvHeader(), jsonl;
  for (const auto& r : recs) {
    csv += FormatQpStateCsvLine(r);
    jsonl += FormatQpStateJsonLine(r);
  }
  for (const std::string* w : {&csv, &jsonl}) {
    Diagnostics d2;
    std::vector<QpStateRecord> again;
    auto s2 = ParseQpStateLog(*w, "fuzz-rewritten", d2, [&](const QpStateRecord& r) { again.push_back(r); });
    if (recs.empty()) continue;
    if (!s2.ok() || s2->counts.rejected != 0 || again != recs) __builtin_trap();
  }
  return 0;
}
