#include "toposcope/sim/naming.h"

#include <utility>

#include "toposcope/base/rng.h"
#include "toposcope/base/text.h"

namespace toposcope::sim {
namespace {

constexpr NamedValue<NameStyle> kStyleNames[] = {{NameStyle::kPlain, "plain"},
                                                 {NameStyle::kDgx, "dgx"},
                                                 {NameStyle::kRackNode, "rack-node"},
                                                 {NameStyle::kCloudIp, "cloud-ip"}};

// A second stream for the order, so that the draw and the order are independent.
constexpr uint64_t kOrderLabel = 0x0dde12ULL;

std::string Padded(uint64_t v, int width) {
  std::string s = std::to_string(v);
  if (static_cast<int>(s.size()) < width) s.insert(0, static_cast<size_t>(width) - s.size(), '0');
  return s;
}

std::string DrawOne(NameStyle style, NameKind kind, Rng& rng) {
  const std::string letter(1, static_cast<char>('a' + rng.Below(8)));
  switch (style) {
    case NameStyle::kPlain:
    case NameStyle::kDgx:
      if (kind == NameKind::kHost) return "dgx-" + letter + Padded(1 + rng.Below(40), 2) + "-" + Padded(1 + rng.Below(32), 2);
      if (kind == NameKind::kSwitch) return "ib-" + letter + Padded(1 + rng.Below(40), 2) + "-sw" + std::to_string(1 + rng.Below(9));
      return "mirror-" + Padded(rng.Below(10000), 4);
    case NameStyle::kRackNode:
      if (kind == NameKind::kHost) return "gpu-r" + std::to_string(1 + rng.Below(64)) + "-n" + std::to_string(1 + rng.Below(32));
      if (kind == NameKind::kSwitch) return "qm9700-r" + std::to_string(1 + rng.Below(64)) + "-" + std::to_string(1 + rng.Below(9));
      return "span" + std::to_string(rng.Below(100000));
    case NameStyle::kCloudIp:
      if (kind == NameKind::kHost) {
        return "ip-10-" + std::to_string(rng.Below(256)) + "-" + std::to_string(rng.Below(256)) + "-" +
               std::to_string(1 + rng.Below(254));
      }
      if (kind == NameKind::kSwitch) return "sw-10-250-" + std::to_string(rng.Below(256)) + "-" + std::to_string(1 + rng.Below(254));
      return "cap-" + std::to_string(0x100000 + rng.Below(0xeffff));
  }
  return "x" + std::to_string(rng.NextU64());
}

}  // namespace

std::string_view NameStyleName(NameStyle style) { return NameIn(kStyleNames, style, "plain"); }

std::optional<NameStyle> ParseNameStyle(std::string_view name) { return ValueIn(kStyleNames, name); }

NameStyle NameStyleOfSeed(uint64_t seed) {
  constexpr NameStyle kReal[] = {NameStyle::kDgx, NameStyle::kRackNode, NameStyle::kCloudIp};
  return kReal[seed % 3];
}

std::vector<std::string> DrawNames(int n, NameStyle style, NameKind kind, uint64_t seed, uint64_t label,
                                   std::set<std::string>& taken) {
  Rng rng(Rng::Mix(seed, label));
  std::vector<std::string> out;
  // The styles hold tens of thousands of names; past that, a numbered suffix keeps them unique.
  for (int tries = 0; static_cast<int>(out.size()) < n; ++tries) {
    std::string name = DrawOne(style, kind, rng);
    if (tries > 20 * n + 1000) name += "-" + std::to_string(tries);
    if (taken.insert(name).second) out.push_back(std::move(name));
  }
  Rng order(Rng::Mix(seed, label ^ kOrderLabel));
  for (size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[order.Below(i)]);
  return out;
}

}  // namespace toposcope::sim
