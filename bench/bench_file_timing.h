// The file modes the reader benchmarks share (bench/pandas_compare.py drives them): a "PATH:N" spec,
// a synthetic file written in chunks (large dumps stay small in memory), and one timed pass of a
// reader over a file (open + read + parse; wall and CPU seconds, bytes on disk).
#pragma once

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "toposcope/base/file_io.h"

namespace toposcope::bench {

// "PATH:N" -> (PATH, N); false unless PATH is non-empty and N > 0.
inline bool SplitPathCount(std::string_view spec, std::string* path, int64_t* n) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string_view::npos) return false;
  *path = std::string(spec.substr(0, colon));
  const std::string_view digits = spec.substr(colon + 1);
  *n = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), *n);
  return *n > 0 && !path->empty();
}

// Writes `buf` (a header, or empty) and then `append(&buf, first, count)` for chunks of at most
// `chunk` of the `n` units to `path`. Returns the exit status: 0, or 2 after a message on stderr.
template <typename AppendFn>
int WriteInChunks(const std::string& path, std::string buf, int64_t n, int64_t chunk, AppendFn append) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return 2;
  }
  bool ok = true;
  for (int64_t i = 0; i < n; i += chunk) {
    append(&buf, i, std::min(chunk, n - i));
    ok = ok && std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
    buf.clear();
  }
  ok = std::fclose(f) == 0 && ok;
  if (!ok) std::fprintf(stderr, "write failed: %s\n", path.c_str());
  return ok ? 0 : 2;
}

// What one timed pass over a file measured.
struct FileTiming {
  double seconds = 0;      // wall time of open + read + parse
  double cpu_seconds = 0;  // CPU time of the same
  long long bytes = 0;     // the file's size on disk
};

// Opens `path` and hands its lines to `read`, which returns an empty string or the error's text.
// Returns false after printing the error (opening or reading) on stderr.
template <typename ReadFn>
bool TimeFileRead(const std::string& path, ReadFn read, FileTiming* timing) {
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  auto in = OpenInput(path);
  if (!in.ok()) {
    std::fprintf(stderr, "%s\n", in.error().ToString().c_str());
    return false;
  }
  LineReader lines(std::move(*in));
  const std::string error = read(lines);
  timing->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  timing->cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  if (!error.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return false;
  }
  std::error_code ec;
  timing->bytes = static_cast<long long>(std::filesystem::file_size(path, ec));
  return true;
}

}  // namespace toposcope::bench
