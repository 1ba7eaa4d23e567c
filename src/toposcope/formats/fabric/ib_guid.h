// formats/fabric/ib_guid: the GUID word that the infiniband-diags readers (iblinkinfo,
// ibqueryerrors) take off the front of a header or port line: `0x<hex>` up to the first blank.
#pragma once

#include <string>
#include <string_view>

namespace toposcope::formats {

// When `*rest` starts with "0x" (or "0X" too, with upper_x), returns that word, the GUID as
// printed, and leaves in `*rest` what follows it, trimmed. Else returns "" and leaves `*rest` as it
// was.
std::string TakeGuidWord(std::string_view* rest, bool upper_x = false);

}  // namespace toposcope::formats
