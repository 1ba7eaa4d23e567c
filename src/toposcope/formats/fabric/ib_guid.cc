// formats/fabric/ib_guid: see ib_guid.h.
#include "toposcope/formats/fabric/ib_guid.h"

#include "toposcope/base/text.h"

namespace toposcope::formats {

std::string TakeGuidWord(std::string_view* rest, bool upper_x) {
  if (!StartsWith(*rest, "0x") && !(upper_x && StartsWith(*rest, "0X"))) return "";
  const size_t sp = rest->find_first_of(" \t");
  std::string guid(rest->substr(0, sp));
  *rest = sp == std::string_view::npos ? std::string_view() : Trim(rest->substr(sp));
  return guid;
}

}  // namespace toposcope::formats
