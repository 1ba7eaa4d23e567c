// base/json_stream: a JSON document written piece by piece (see the header).
#include "toposcope/base/json_stream.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace toposcope {
namespace {

// Appends what nlohmann's serializer prints to the writer's buffer, flushing it whenever it holds
// a flush's worth: a large value never sits whole in memory as text.
class BufferAdapter final : public nlohmann::detail::output_adapter_protocol<char> {
 public:
  BufferAdapter(std::string* buf, size_t flush_bytes, std::function<void()> flush)
      : buf_(buf), flush_bytes_(flush_bytes), flush_(std::move(flush)) {}
  void write_character(char c) override {
    buf_->push_back(c);
    if (buf_->size() >= flush_bytes_) flush_();
  }
  void write_characters(const char* s, std::size_t n) override {
    buf_->append(s, n);
    if (buf_->size() >= flush_bytes_) flush_();
  }

 private:
  std::string* buf_;
  size_t flush_bytes_;
  std::function<void()> flush_;
};

}  // namespace

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
  size_t depth = stack_.size();
  if (!stack_.empty()) {
    Level& up = stack_.back();
    buf_ += up.empty ? "\n" : ",\n";
    up.empty = false;
    buf_.append(static_cast<size_t>(std::max(indent_, 0)) * depth, ' ');
    if (up.object) {
      buf_ += nlohmann::json(std::string(key)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      buf_ += ": ";
    }
  }
  // Serialised in place, its lines indented to this depth (as a dump of the whole document would
  // place them), in pieces of flush_bytes_.
  nlohmann::detail::serializer<nlohmann::json> out(
      std::make_shared<BufferAdapter>(&buf_, flush_bytes_, [this] { Flush(); }), ' ',
      nlohmann::json::error_handler_t::replace);
  if (indent_ >= 0) {
    const auto step = static_cast<unsigned>(indent_);
    out.dump(value, true, false, step, step * static_cast<unsigned>(depth));
  } else {
    out.dump(value, false, false, 0, 0);
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
