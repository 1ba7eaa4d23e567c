#include "toposcope/model/pass_dumps.h"

#include <filesystem>

#include "toposcope/base/file_io.h"

namespace toposcope::model {

Result<std::optional<std::string>> ReadPassDump(const std::string& dir, std::string_view pass) {
  const std::filesystem::path path = std::filesystem::path(dir) / "passes" / (std::string(pass) + ".json");
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<std::string>();
  Result<std::string> text = ReadFileText(path.string());
  if (!text.ok()) return text.error();
  return std::optional<std::string>(std::move(*text));
}

Status CheckPassDumpDir(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(std::filesystem::path(dir) / "passes", ec)) {
    return MakeError(dir, 0, 0, "not a dump directory (no passes/ in it)",
                     "write one with `toposcope analyze ... --out DIR --dump-passes`");
  }
  return {};
}

}  // namespace toposcope::model
