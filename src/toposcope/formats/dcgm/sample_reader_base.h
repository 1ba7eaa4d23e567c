// formats/dcgm/sample_reader_base: what the line-at-a-time DCGM sample readers (TSDB CSV, Prometheus text)
// share: the input's name, the diagnostics and counts they fill, and rejecting a record while
// keeping the line of the first one rejected (where "no row could be read" points).
#pragma once

#include <cstdint>
#include <string_view>

#include "toposcope/base/diagnostics.h"

namespace toposcope::formats {

class SampleReaderBase {
 protected:
  SampleReaderBase(std::string_view source, Diagnostics& diag, ReadCounts& counts)
      : source_(source), diag_(diag), counts_(counts) {}

  // Counts a rejected record and reports it with its raw text (clipped) and reason.
  void Reject(int64_t line_no, std::string_view raw, std::string_view reason) {
    ++counts_.rejected;
    if (first_reject_line_ == 0) first_reject_line_ = line_no;
    diag_.Reject(source_, line_no, ClipRaw(raw), reason);
  }
  // The line of the first rejected record; 0 when none was.
  [[nodiscard]] int64_t first_reject_line() const { return first_reject_line_; }

  std::string_view source_;
  Diagnostics& diag_;
  ReadCounts& counts_;

 private:
  int64_t first_reject_line_ = 0;
};

}  // namespace toposcope::formats
