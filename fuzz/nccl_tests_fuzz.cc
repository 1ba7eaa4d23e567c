// libFuzzer target for the nccl-tests output reader: counts must balance on any input, the
// diagnostics must match the rejected count, every row must carry finite non-negative figures, and
// the sniffer and prefix stripper must accept anything.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "toposcope/formats/nccl/nccl_tests.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)LooksLikeNcclTests(text);
  (void)StripLauncherPrefix(text);
  Diagnostics diag;
  auto r = ParseNcclTests(text, "fuzz", diag);
  if (!r.ok()) return 0;
  if (!r->counts.Balanced()) __builtin_trap();
  if (diag.rejected_total() != r->counts.rejected) __builtin_trap();
  for (const NcclTestsRun& run : r->runs) {
    for (const NcclTestsRow& row : run.rows) {
      if (row.size_bytes < 0 || row.count < 0) __builtin_trap();
      for (const NcclTestsTiming* t : {&row.out_of_place, &row.in_place}) {
        if (!std::isfinite(t->time_us) || t->time_us < 0 || t->busbw_gbps < 0 || t->algbw_gbps < 0) __builtin_trap();
      }
    }
  }
  return 0;
}
