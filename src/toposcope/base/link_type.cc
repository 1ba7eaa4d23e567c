#include "toposcope/base/link_type.h"

#include <array>

#include "toposcope/base/text.h"

namespace toposcope {
namespace {

constexpr std::array<std::string_view, 10> kNames = {"NVLINK", "NVSWITCH", "C2C", "PIX", "PXB",
                                                     "PHB",    "NODE",     "SYS", "NET", "UNKNOWN"};

}  // namespace

std::string_view LinkTypeName(LinkType t) { return kNames[static_cast<size_t>(t)]; }

std::optional<LinkType> ParseLinkTypeName(std::string_view s) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (EqualsIgnoreCase(s, kNames[i])) return static_cast<LinkType>(i);
  }
  return std::nullopt;
}

bool IsNvlinkFamily(LinkType t) {
  return t == LinkType::kNvlink || t == LinkType::kNvswitch || t == LinkType::kC2c;
}
bool IsPcie(LinkType t) {
  return t == LinkType::kPix || t == LinkType::kPxb || t == LinkType::kPhb || t == LinkType::kNode ||
         t == LinkType::kSys;
}

std::optional<LinkClass> ParseNvsmiCell(std::string_view cell) {
  cell = Trim(cell);
  if (cell.size() > 2 && cell[0] == 'N' && cell[1] == 'V') {
    auto n = ParseInt(cell.substr(2));
    if (!n || *n <= 0 || *n > 1000) return std::nullopt;
    return LinkClass{LinkType::kNvlink, static_cast<int>(*n)};
  }
  for (LinkType t : {LinkType::kPix, LinkType::kPxb, LinkType::kPhb, LinkType::kNode, LinkType::kSys}) {
    if (cell == LinkTypeName(t)) return LinkClass{t, 0};
  }
  return std::nullopt;
}

std::string NvsmiCell(const LinkClass& c) {
  if (IsNvlinkFamily(c.type)) return "NV" + std::to_string(c.lanes);
  return std::string(LinkTypeName(c.type));
}

}  // namespace toposcope
