// formats/clock/log_lines: what the chrony and linuxptp log readers share: the non-blank lines of a
// log, counted, and the warning for a record whose line repeats the previous record's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"

namespace toposcope::formats {

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
    if (t_ == prev_) diag.Warn(source, line_number(), raw_, "repeats line " + std::to_string(prev_line_));
    prev_.assign(t_);
    prev_line_ = line_number();
  }

 private:
  LineReader& lines_;
  std::string_view raw_, t_;
  int64_t nonblank_ = 0;
  std::string prev_;
  int64_t prev_line_ = 0;
};

}  // namespace toposcope::formats
