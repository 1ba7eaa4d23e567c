// libFuzzer target for the QP state-log reader (CSV and JSONL): counts must balance on any input,
// every accepted record reaches the sink, and what parses must write (CSV and JSONL) and re-parse
// without rejects into the same records. The JSONL form is written for the first
// kJsonRoundTripRecords records only: building and parsing JSON costs ten times the CSV parse under
// the sanitizers, and the first records of an accepted log are an accepted log themselves (the
// reader's duplicate and order checks look back only), so the check holds for every prefix.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toposcope/formats/rdma/qp_state_log.h"

namespace {
constexpr size_t kJsonRoundTripRecords = 8;
}  // namespace

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
  const size_t json_n = std::min(recs.size(), kJsonRoundTripRecords);
  for (size_t i = 0; i < recs.size(); ++i) {
    csv += FormatQpStateCsvLine(recs[i]);
    if (i < json_n) jsonl += FormatQpStateJsonLine(recs[i]);
  }
  std::vector<QpStateRecord> json_recs(recs.begin(), recs.begin() + static_cast<std::ptrdiff_t>(json_n));
  for (const auto& [w, want] : {std::pair{&csv, &recs}, std::pair{&jsonl, &json_recs}}) {
    Diagnostics d2;
    std::vector<QpStateRecord> again;
    auto s2 = ParseQpStateLog(*w, "fuzz-rewritten", d2, [&](const QpStateRecord& r) { again.push_back(r); });
    if (recs.empty()) continue;
    if (!s2.ok() || s2->counts.rejected != 0 || again != *want) __builtin_trap();
  }
  return 0;
}
