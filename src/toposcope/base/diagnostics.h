// base/diagnostics: where readers report what they read, accepted and rejected.
// Every reader counts records: accepted + rejected == read. Each rejected record keeps its
// source, line (or byte offset), raw text and the reason, so nothing is silently dropped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace toposcope {

enum class Severity { kWarning, kRejected };

struct Diagnostic {
  Severity severity = Severity::kRejected;
  std::string source;        // file path (or a name such as "<stdin>")
  int64_t line = 0;          // 1-based line, 0 when the position is a byte offset
  int64_t byte_offset = -1;  // byte offset when there are no lines, else -1
  std::string raw;           // the offending text, cut to a bounded length
  std::string reason;        // why it was rejected or warned about

  // `source:line: rejected: reason: raw` (or `source@byte N: ...`).
  [[nodiscard]] std::string ToString() const;
};

// Counts of one reader over one input.
struct ReadCounts {
  int64_t read = 0;
  int64_t accepted = 0;
  int64_t rejected = 0;
  [[nodiscard]] bool Balanced() const { return accepted + rejected == read; }
};

// A sink shared by the readers of one run. Keeps at most `max_kept` diagnostics per source
// (the counts stay exact).
class Diagnostics {
 public:
  explicit Diagnostics(size_t max_kept_per_source = 200) : max_kept_(max_kept_per_source) {}

  // Records a rejected record at a line.
  void Reject(std::string_view source, int64_t line, std::string_view raw, std::string_view reason);
  // Records a rejected record at a byte offset (binary inputs).
  void RejectAtByte(std::string_view source, int64_t byte_offset, std::string_view raw,
                    std::string_view reason);
  // Records a warning: the record was used but something about it deserves a look.
  void Warn(std::string_view source, int64_t line, std::string_view raw, std::string_view reason);

  // Takes over diagnostics recorded elsewhere (a dumped run, another sink): the items are kept
  // under this sink's per-source limit; the totals are added as given (they may count more than
  // the items, which were already cut).
  void Absorb(const std::vector<Diagnostic>& items, int64_t rejected_total, int64_t warnings_total,
              const std::vector<std::pair<std::string, int64_t>>& rejected_per_source);
  // Rejected records counted per source, in the order the sources first rejected one.
  [[nodiscard]] const std::vector<std::pair<std::string, int64_t>>& rejected_per_source() const {
    return rejected_per_source_;
  }

  [[nodiscard]] const std::vector<Diagnostic>& items() const { return items_; }
  [[nodiscard]] int64_t rejected_total() const { return rejected_total_; }
  [[nodiscard]] int64_t warnings_total() const { return warnings_total_; }
  // Number of rejected records counted for one source.
  [[nodiscard]] int64_t RejectedFor(std::string_view source) const;

 private:
  void Add(Diagnostic d);
  size_t max_kept_;
  std::vector<Diagnostic> items_;
  std::vector<std::pair<std::string, int64_t>> kept_per_source_;
  std::vector<std::pair<std::string, int64_t>> rejected_per_source_;
  int64_t rejected_total_ = 0;
  int64_t warnings_total_ = 0;
};

// Cuts text to at most `max_len` bytes for a diagnostic, replacing control bytes by '?'.
std::string ClipRaw(std::string_view raw, size_t max_len = 160);
// A token quoted for a diagnostic's reason, cut to 40 bytes: 'abc'.
std::string QuoteRaw(std::string_view s);

}  // namespace toposcope
