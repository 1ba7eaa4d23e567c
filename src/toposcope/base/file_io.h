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
#include <vector>

#include "toposcope/base/diagnostics.h"
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
  // How many bytes the next Read should ask for, at most `n`: a stream that knows how much is left
  // says so (at least 1, so that the end is still seen by a Read returning 0), and a reader's buffer
  // then never grows past the input (a 4 KB text costs no 64 KB buffer).
  [[nodiscard]] virtual size_t ReadSizeHint(size_t n) const { return n; }
};

// The longest line a LineReader hands out. The longest line of any real input seen is a one-line
// Kineto trace of 1.8 MB; a longer line is rejected (its number and length kept) and skipped.
inline constexpr size_t kMaxLineBytes = size_t{16} << 20;
// The most decompressed bytes an input read whole may have: the whole-file formats (nvidia-smi
// topo, NCCL XML, P2P matrices, ibnetdiscover of a large fabric, Slurm topologies) are kilobytes
// to tens of megabytes; a larger one (a decompression bomb) is refused with a clear error.
inline constexpr size_t kMaxWholeInputBytes = size_t{256} << 20;
// The most bytes kept from a pipe or FIFO (copied once to an unlinked temporary file so that it
// can be sniffed and read more than once).
inline constexpr uint64_t kMaxSpoolBytes = uint64_t{16} << 30;
// How long opening a FIFO waits for a writer before it is given up on (an error, not a hang).
inline constexpr int kFifoWriterWaitMs = 3000;

// Opens `path` ("-" is standard input). A pipe or FIFO (including "-" and /dev/fd/N) is copied
// once, on its first open, to an unlinked temporary file, and every later OpenInput of the same
// path reads that copy from its start: sniffing and reading see the same bytes. Fails when the
// file cannot be opened, is a directory, socket or device, when a FIFO gets no writer within
// kFifoWriterWaitMs, or when a pipe carries more than kMaxSpoolBytes.
Result<std::unique_ptr<InputStream>> OpenInput(const std::string& path);

// The path to hand a library that opens files itself (libpcap): `path`, or, for a pipe or FIFO
// already opened through OpenInput, a /proc/self/fd path of its copy. Never fails.
std::string ReadablePathOf(const std::string& path);

// Reads the whole (decompressed) content. Fails on unreadable or corrupt input, or when the
// decompressed size passes `max_bytes` (checked before the buffer grows: no allocation failure).
Result<std::string> ReadFileText(const std::string& path, size_t max_bytes = size_t{1} << 31);

// Reads the first up to `n` decompressed bytes (for format detection).
Result<std::string> ReadHead(const std::string& path, size_t n = 8192);

// A line longer than the LineReader's cap: not handed out, kept here (its number and length).
struct OversizedLine {
  int64_t line = 0;         // 1-based line number
  int64_t byte_offset = 0;  // of its first byte
  int64_t bytes = 0;        // its length without the line end
};

// Streams lines (without the trailing '\n' or "\r\n"). Time is linear in the input and memory
// stays bounded by `max_line_bytes`: a longer line is skipped (it still counts in line numbers)
// and listed in oversized().
class LineReader {
 public:
  explicit LineReader(std::unique_ptr<InputStream> in, size_t max_line_bytes = kMaxLineBytes)
      : in_(std::move(in)), max_line_(max_line_bytes) {}
  // Gets the next line; false at the end. The view points into the reader's buffer and stays
  // valid until the next call. An I/O or decompression error ends the stream and is kept in error().
  bool Next(std::string_view* line);
  [[nodiscard]] int64_t line_number() const { return line_no_; }
  [[nodiscard]] int64_t byte_offset() const { return line_start_offset_; }
  [[nodiscard]] const Error* error() const { return failed_ ? &error_ : nullptr; }
  // The lines skipped so far for passing the cap, in input order.
  [[nodiscard]] const std::vector<OversizedLine>& oversized() const { return oversized_; }
  // Hands over the lines skipped since the last call (each is handed out once).
  std::vector<OversizedLine> TakeOversized() { return std::exchange(oversized_, {}); }
  [[nodiscard]] const std::string& path() const { return in_->path(); }
  [[nodiscard]] size_t max_line_bytes() const { return max_line_; }

 private:
  bool Fill();
  void EndOversized(size_t end, bool newline);
  std::unique_ptr<InputStream> in_;
  size_t max_line_;
  std::string buf_;
  size_t pos_ = 0;
  size_t scan_ = 0;            // buf_[pos_, scan_) holds no '\n'
  bool discarding_ = false;    // inside a line past the cap
  int64_t discarded_ = 0;      // bytes of that line dropped so far
  int64_t discard_start_ = 0;  // byte offset of that line
  std::vector<OversizedLine> oversized_;
  bool eof_ = false;
  bool failed_ = false;
  Error error_;
  int64_t line_no_ = 0;
  int64_t consumed_ = 0;
  int64_t line_start_offset_ = 0;
};

// Counts each line the reader skipped for passing its cap as a read and rejected record of
// `counts`, with a diagnostic naming the file, the line and its length. Call after the format's
// reader is done with `lines`; returns how many there were. Never fails.
int64_t RejectOversizedLines(LineReader& lines, Diagnostics& diag, ReadCounts& counts);

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
  [[nodiscard]] size_t ReadSizeHint(size_t n) const override {
    return std::max<size_t>(1, std::min(n, text_.size() - pos_));
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  std::string path_;
};

// A LineReader over in-memory text, without a line cap (the text is in memory already, bounded
// by whoever read it).
inline LineReader TextLineReader(std::string_view text, std::string path = "<text>") {
  return LineReader(std::make_unique<TextInputStream>(text, std::move(path)), SIZE_MAX);
}

// Writes text to a file, creating parent directories. Fails with a clear Error.
Status WriteFileText(const std::string& path, std::string_view text);

// Makes `dir` ready to take outputs: creates it (and its parents) when missing, and checks that it
// is a directory this process can write into. A kOutput error names the path and the reason: a file
// where a directory must be (the file named), a directory that cannot be created (the system's
// reason), or one that is not writable.
Status PrepareOutputDir(const std::string& dir);

}  // namespace toposcope
