// base/output_file: an output file written piece by piece (a large file never has to be in memory
// whole), plain or zstd-compressed as it is written (the readers of base/file_io decompress .zst
// transparently). The simulator streams its datasets through it. FileSink: where a writer puts a
// series of text files (the simulator's datasets, analyze's outputs), each streamed in pieces.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "toposcope/base/result.h"

namespace toposcope {

enum class OutputCompression { kNone, kZstd };

class OutputFile {
 public:
  // Creates `path` (and its parent directories), truncating an existing file. With kZstd the bytes
  // are compressed at `zstd_level` (1..19) as a single zstd frame; the caller chooses the name
  // (e.g. "x.txt.zst"). Fails (kOutput) with the path and the system's reason.
  static Result<std::unique_ptr<OutputFile>> Create(const std::string& path,
                                                    OutputCompression compression = OutputCompression::kNone,
                                                    int zstd_level = 3);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Appends `text`. Fails (kOutput) when the disk refuses it (the path named).
  Status Append(std::string_view text);
  // Ends the compressed frame, flushes and closes; Append after Close fails. Fails (kOutput) like
  // Append. The destructor closes a file not closed (ignoring errors).
  Status Close();

  [[nodiscard]] const std::string& path() const { return path_; }
  // Bytes handed to Append so far, and bytes on disk so far (equal without compression).
  [[nodiscard]] int64_t bytes_in() const { return bytes_in_; }
  [[nodiscard]] int64_t bytes_out() const { return bytes_out_; }

 private:
  OutputFile() = default;
  Status WriteRaw(const void* data, size_t n);
  Status Compress(std::string_view text, bool end);

  std::string path_;
  FILE* file_ = nullptr;
  void* zstd_ = nullptr;  // ZSTD_CCtx* with kZstd
  std::string zbuf_;      // compressed output buffer
  int64_t bytes_in_ = 0;
  int64_t bytes_out_ = 0;
};

// Where a writer puts its files: one file at a time, begun, appended to piece by piece and ended
// (names relative to wherever the sink puts them). A failure stops the writer and is returned.
class FileSink {
 public:
  virtual ~FileSink() = default;
  virtual Status Begin(const std::string& name) = 0;
  virtual Status Append(std::string_view text) = 0;
  virtual Status End() = 0;
  // A whole file at once: Begin, Append, End.
  Status File(const std::string& name, std::string_view text);
};

}  // namespace toposcope
