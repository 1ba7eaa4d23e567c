// libFuzzer target for the RDMA host tool readers (rdma res show qp / other resources, ibstat,
// ibv_devinfo, show_gids): counts must balance on any input, and what parses must write, re-parse
// without rejects to the same records, and write back to the same text. The JSON form is written for
// the first kJsonRoundTripQps QPs only (building and parsing JSON costs several times the text parse
// under the sanitizers; the QPs of a table are independent of each other).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/formats/rdma/rdma_tools.h"

namespace {

using namespace toposcope;
using namespace toposcope::formats;

constexpr size_t kJsonRoundTripQps = 8;

template <class T>
std::vector<T> NoLines(std::vector<T> v) {
  for (T& x : v) x.line = 0;
  return v;
}

void CheckQp(std::string_view text) {
  Diagnostics diag;
  auto t = ParseRdmaResQp(text, "fuzz", diag);
  if (!t.ok()) return;
  if (!t->counts.Balanced() || t->counts.accepted != static_cast<int64_t>(t->qps.size())) __builtin_trap();
  const std::string written = WriteRdmaResQp(t->qps);
  if (t->qps.empty()) return;
  Diagnostics d2;
  auto again = ParseRdmaResQp(written, "fuzz-rewritten", d2);
  if (!again.ok() || again->counts.rejected != 0) __builtin_trap();
  if (NoLines(again->qps) != NoLines(t->qps)) __builtin_trap();
  if (WriteRdmaResQp(again->qps) != written) __builtin_trap();
  // The JSON form carries only printable ASCII names (the reader rejects blanks and control bytes;
  // the writer replaces invalid UTF-8).
  auto plain = [](const std::string& s) {
    for (char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (u <= 0x20 || u >= 0x7f) return false;
    }
    return true;
  };
  const std::vector<RdmaQp> head(t->qps.begin(),
                                 t->qps.begin() + static_cast<std::ptrdiff_t>(std::min(t->qps.size(), kJsonRoundTripQps)));
  for (const RdmaQp& q : head) {
    if (!plain(q.dev) || !plain(q.subtype) || !plain(q.comm)) return;
  }
  const std::string json_text = WriteRdmaResQpJson(head);
  Diagnostics d3;
  auto json = ParseRdmaResQp(json_text, "fuzz-json", d3);
  if (!json.ok() || json->counts.rejected != 0 || json->qps.size() != head.size()) __builtin_trap();
}

void CheckRes(std::string_view text) {
  Diagnostics diag;
  auto t = ParseRdmaRes(text, "fuzz", diag);
  if (t.ok() && !t->counts.Balanced()) __builtin_trap();
}

template <class Parse, class Write>
void CheckDevices(std::string_view text, Parse parse, Write write) {
  Diagnostics diag;
  auto l = parse(text, "fuzz", diag);
  if (!l.ok()) return;
  if (!l->counts.Balanced()) __builtin_trap();
  if (l->devices.empty()) return;
  const std::string written = write(l->devices);
  Diagnostics d2;
  auto again = parse(written, "fuzz-rewritten", d2);
  if (!again.ok() || again->counts.rejected != 0) __builtin_trap();
  if (write(again->devices) != written) __builtin_trap();
}

void CheckGids(std::string_view text) {
  Diagnostics diag;
  auto g = ParseShowGids(text, "fuzz", diag);
  if (!g.ok()) return;
  if (!g->counts.Balanced()) __builtin_trap();
  const std::string written = WriteShowGids(g->gids);
  Diagnostics d2;
  auto again = ParseShowGids(written, "fuzz-rewritten", d2);
  if (!again.ok() || again->counts.rejected != 0) __builtin_trap();
  if (NoLines(again->gids) != NoLines(g->gids)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)SniffRdmaTool(text);
  CheckQp(text);
  CheckRes(text);
  CheckDevices(text, ParseIbstat, [](const std::vector<IbDevice>& d) { return WriteIbstat(d); });
  CheckDevices(text, ParseIbvDevinfo, [](const std::vector<IbDevice>& d) { return WriteIbvDevinfo(d); });
  CheckGids(text);
  return 0;
}
