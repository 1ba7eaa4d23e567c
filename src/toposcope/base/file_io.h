// base/file_io: reading inputs, with transparent gzip (.gz) and zstd (.zst) decompression chosen
// by the content's magic bytes, as a whole text or streamed line by line (LineReader), also over
// text already in memory (TextLineReader); writing output files.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "toposcope/base/result.h"

namespace toposcope {

enum class Compression { kNone, kGzip, kZstd };

// Detects compression from the first bytes of a file.
Compression DetectCompression(std::string_view head);

// A byte stream over a file, decompressing as it goes.
class InputStream {
 public:
  virtual ~InputStream() = default;
  // Reads up to `n` bytes; returns the number read, 0 at the end, or an Error.
  virtual Result<size_t> Read(char* buf, size_t n) = 0;
  [[nodiscard]] virtual const std::string& path() const = 0;
};

// Opens `path` ("-" is standard input). Fails when the file cannot be opened.
Result<std::unique_ptr<InputStream>> OpenInput(const std::string& path);

// Reads the whole (decompressed) content. Fails on unreadable or corrupt input, or when the
// decompressed size passes `max_bytes`.
Result<std::string> ReadFileText(const std::string& path, size_t max_bytes = size_t{1} << 31);

// Reads the first up to `n` decompressed bytes (for format detection).
Result<std::string> ReadHead(const std::string& path, size_t n = 8192);

// Streams lines (without the trailing '\n' or "\r\n"). Memory stays bounded by the longest line.
class LineReader {
 public:
  explicit LineReader(std::unique_ptr<InputStream> in) : in_(std::move(in)) {}
  // Gets the next line; false at the end. An I/O or decompression error ends the stream and is
  // kept in error().
  bool Next(std::string_view* line);
  [[nodiscard]] int64_t line_number() const { return line_no_; }
  [[nodiscard]] int64_t byte_offset() const { return line_start_offset_; }
  [[nodiscard]] const Error* error() const { return failed_ ? &error_ : nullptr; }

 private:
  bool Fill();
  std::unique_ptr<InputStream> in_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
  bool failed_ = false;
  Error error_;
  std::string line_;
  int64_t line_no_ = 0;
  int64_t consumed_ = 0;
  int64_t line_start_offset_ = 0;
};

// An InputStream over text held in memory (the text must outlive the stream). Used by the
// readers' string overloads so that they share the streaming code path.
class TextInputStream final : public InputStream {
 public:
  TextInputStream(std::string_view text, std::string path) : text_(text), path_(std::move(path)) {}
  Result<size_t> Read(char* buf, size_t n) override {
    const size_t k = std::min(n, text_.size() - pos_);
    if (k > 0) std::memcpy(buf, text_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  [[nodiscard]] const std::string& path() const override { return path_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  std::string path_;
};

// A LineReader over in-memory text.
inline LineReader TextLineReader(std::string_view text, std::string path = "<text>") {
  return LineReader(std::make_unique<TextInputStream>(text, std::move(path)));
}

// Writes text to a file, creating parent directories. Fails with a clear Error.
Status WriteFileText(const std::string& path, std::string_view text);

}  // namespace toposcope
