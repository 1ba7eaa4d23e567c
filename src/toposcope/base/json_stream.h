// base/json_stream: writes one JSON document piece by piece, byte for byte as nlohmann::json's
// dump(indent) would print the whole tree (object keys in the order given: pass them sorted to
// match a std::map-ordered nlohmann object), so that a document too large to build in memory can
// be written by sections, each section's small values built as nlohmann::json.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/result.h"

namespace toposcope {

class JsonStreamWriter {
 public:
  // `sink` takes the text in order (chunks of about `flush_bytes`); its first failure is kept and
  // returned by Finish (later output is dropped).
  explicit JsonStreamWriter(std::function<Status(std::string_view)> sink, int indent = 2,
                            size_t flush_bytes = size_t{1} << 20);

  // Opens an object or array: `key` names it inside an object (ignored elsewhere).
  void BeginObject(std::string_view key = {});
  void BeginArray(std::string_view key = {});
  // Writes a complete value (a member under `key` inside an object, an element in an array).
  void Value(std::string_view key, const nlohmann::json& value);
  void Element(const nlohmann::json& value) { Value({}, value); }
  // Closes the innermost object or array.
  void End();
  // Writes raw text as is (e.g. a trailing newline after the document).
  void Raw(std::string_view text);
  // Flushes what is buffered; returns the sink's first failure, if any.
  Status Finish();

 private:
  void Open(std::string_view key, char bracket);
  void Flush();

  std::function<Status(std::string_view)> sink_;
  int indent_;
  size_t flush_bytes_;
  std::string buf_;
  struct Level {
    bool object = false;
    bool empty = true;
  };
  std::vector<Level> stack_;
  Status status_;
};

}  // namespace toposcope
