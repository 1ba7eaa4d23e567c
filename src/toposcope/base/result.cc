#include "toposcope/base/result.h"

namespace toposcope {

std::string Error::ToString() const {
  std::string out;
  if (!path.empty()) {
    out += path;
    if (line > 0) {
      out += ':' + std::to_string(line);
      if (col > 0) out += ':' + std::to_string(col);
    }
    out += ": ";
  }
  out += "error: ";
  out += message;
  if (!hint.empty()) out += " (" + hint + ")";
  return out;
}

Error MakeError(std::string message, std::string hint) {
  Error e;
  e.message = std::move(message);
  e.hint = std::move(hint);
  return e;
}

Error MakeError(std::string path, int64_t line, int64_t col, std::string message, std::string hint) {
  Error e;
  e.path = std::move(path);
  e.line = line;
  e.col = col;
  e.message = std::move(message);
  e.hint = std::move(hint);
  return e;
}

Error MakeKindError(ErrorKind kind, std::string message, std::string hint) {
  Error e = MakeError(std::move(message), std::move(hint));
  e.kind = kind;
  return e;
}

Error WithKind(Error e, ErrorKind kind) {
  e.kind = kind;
  return e;
}

std::string_view ErrorKindName(ErrorKind k) {
  switch (k) {
    case ErrorKind::kInput: return "input";
    case ErrorKind::kUsage: return "usage";
    case ErrorKind::kOutput: return "output";
    case ErrorKind::kInternal: return "internal";
  }
  return "internal";
}

}  // namespace toposcope
