// model/pass_dumps: reads the pass dumps an earlier run wrote to DIR/passes/<name>.json
// (report::WritePassDump), for `analyze --from-dump DIR`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "toposcope/base/result.h"

namespace toposcope::model {

// The text of `dir`/passes/<pass>.json; nullopt when the file does not exist. Fails when it exists
// but cannot be read.
Result<std::optional<std::string>> ReadPassDump(const std::string& dir, std::string_view pass);

// Fails when `dir`/passes is not a directory (not a dump directory at all).
Status CheckPassDumpDir(const std::string& dir);

}  // namespace toposcope::model
