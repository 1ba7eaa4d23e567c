// libFuzzer target for the EADPS entropy stream (`schedule --follow`, act/eadps_stream): every line
// either parses into a point with a link, finite bits and a positive window, or is rejected with a
// reason; the state machine fed the accepted points never fails except on windows out of order,
// and every decision it makes names a link it was fed.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "toposcope/act/eadps.h"
#include "toposcope/act/eadps_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  act::EadpsOptions opt;
  opt.hot_hold_s = 0.5;
  opt.cool_hold_s = 0.5;
  act::EadpsMachine m(opt);
  std::set<std::string> fed;
  size_t at = 0;
  while (at <= text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    auto p = act::ParseEntropySampleLine(text.substr(at, nl - at), opt.estimator);
    at = nl + 1;
    if (!p.ok()) {
      if (p.error().message.empty()) __builtin_trap();
      continue;
    }
    if (!p->has_value()) continue;
    const act::EntropyPoint& e = **p;
    if (e.link.empty() || !std::isfinite(e.bits) || e.window_ns <= 0 || e.window_start_ns < 0) __builtin_trap();
    fed.insert(e.link);
    auto d = m.Feed(e);
    if (!d.ok()) {
      if (d.error().message.find("out of order") == std::string::npos) __builtin_trap();
      continue;
    }
    for (const act::EadpsDecision& x : *d) {
      if (fed.count(x.evidence.link) == 0 || x.evidence.bits.empty()) __builtin_trap();
    }
  }
  return 0;
}
