// base/json_stream: a JSON document written piece by piece (see the header).
#include "toposcope/base/json_stream.h"

#include <utility>

namespace toposcope {

JsonStreamWriter::JsonStreamWriter(std::function<Status(std::string_view)> sink, int indent, size_t flush_bytes)
    : sink_(std::move(sink)), indent_(indent), flush_bytes_(flush_bytes) {}

void JsonStreamWriter::Open(std::string_view key, char bracket) {
  if (!stack_.empty()) {
    Level& up = stack_.back();
    buf_ += up.empty ? "\n" : ",\n";
    up.empty = false;
    buf_.append(static_cast<size_t>(indent_) * stack_.size(), ' ');
    if (up.object) {
      buf_ += nlohmann::json(std::string(key)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      buf_ += ": ";
    }
  }
  buf_ += bracket;
  stack_.push_back({bracket == '{', true});
}

void JsonStreamWriter::BeginObject(std::string_view key) { Open(key, '{'); }
void JsonStreamWriter::BeginArray(std::string_view key) { Open(key, '['); }

void JsonStreamWriter::Value(std::string_view key, const nlohmann::json& value) {
  const std::string text = value.dump(indent_, ' ', false, nlohmann::json::error_handler_t::replace);
  if (stack_.empty()) {
    buf_ += text;
  } else {
    Level& up = stack_.back();
    buf_ += up.empty ? "\n" : ",\n";
    up.empty = false;
    const std::string pad(static_cast<size_t>(indent_) * stack_.size(), ' ');
    buf_ += pad;
    if (up.object) {
      buf_ += nlohmann::json(std::string(key)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      buf_ += ": ";
    }
    // Re-indent the value's own lines (a string value never holds a raw newline: JSON escapes it).
    for (const char c : text) {
      buf_ += c;
      if (c == '\n') buf_ += pad;
    }
  }
  if (buf_.size() >= flush_bytes_) Flush();
}

void JsonStreamWriter::End() {
  if (stack_.empty()) return;
  const Level level = stack_.back();
  stack_.pop_back();
  if (!level.empty) {
    buf_ += '\n';
    buf_.append(static_cast<size_t>(indent_) * stack_.size(), ' ');
  }
  buf_ += level.object ? '}' : ']';
  if (buf_.size() >= flush_bytes_) Flush();
}

void JsonStreamWriter::Raw(std::string_view text) { buf_ += text; }

void JsonStreamWriter::Flush() {
  if (status_.ok() && !buf_.empty()) status_ = sink_(buf_);
  buf_.clear();
}

Status JsonStreamWriter::Finish() {
  Flush();
  return status_;
}

}  // namespace toposcope
