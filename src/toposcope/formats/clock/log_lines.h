// formats/clock/log_lines: what the clock-sync readers (chrony, linuxptp, sync CSV) share: the
// warning for a record whose line repeats the previous record's, and the non-blank lines of a log.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"

namespace toposcope::formats {

// Warns when an accepted record's line (trimmed) repeats the previous accepted record's.
class RepeatedLines {
 public:
  // For the record on line `ln` (`raw` as read, `t` trimmed): warns on a repeat, then remembers it.
  void Check(std::string_view source, int64_t ln, std::string_view raw, std::string_view t, Diagnostics& diag) {
    if (t == prev_) diag.Warn(source, ln, raw, "repeats line " + std::to_string(prev_line_));
    prev_.assign(t);
    prev_line_ = ln;
  }

 private:
  std::string prev_;
  int64_t prev_line_ = 0;
};

class LogLines {
 public:
  explicit LogLines(LineReader& lines) : lines_(lines) {}

  // The next non-blank line: `raw` as read, `t` trimmed; false at the end (or on an I/O error,
  // kept in the LineReader).
  bool Next(std::string_view* raw, std::string_view* t) {
    while (lines_.Next(raw)) {
      *t = Trim(*raw);
      if (t->empty()) continue;
      ++nonblank_;
      raw_ = *raw;
      t_ = *t;
      return true;
    }
    return false;
  }
  // The 1-based number of the line Next gave last.
  [[nodiscard]] int64_t line_number() const { return lines_.line_number(); }
  // How many non-blank lines Next gave.
  [[nodiscard]] int64_t nonblank() const { return nonblank_; }

  // For an accepted record on the current line: warns when the line (trimmed) repeats the previous
  // accepted record's, then remembers it.
  void CheckRepeat(std::string_view source, Diagnostics& diag) {
    repeats_.Check(source, line_number(), raw_, t_, diag);
  }

 private:
  LineReader& lines_;
  std::string_view raw_, t_;
  int64_t nonblank_ = 0;
  RepeatedLines repeats_;
};

}  // namespace toposcope::formats
