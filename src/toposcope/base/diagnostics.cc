#include "toposcope/base/diagnostics.h"

#include <algorithm>

namespace toposcope {
namespace {

int64_t& Counter(std::vector<std::pair<std::string, int64_t>>& v, std::string_view key) {
  for (auto& [k, n] : v) {
    if (k == key) return n;
  }
  v.emplace_back(std::string(key), 0);
  return v.back().second;
}

}  // namespace

// The fuzz builds leave this loop out of their coverage: one traced comparison per byte of every
// rejected line guided no search and cost up to a tenth of an execution of the text readers.
#if defined(__clang__)
__attribute__((no_sanitize("coverage")))
#endif
std::string ClipRaw(std::string_view raw, size_t max_len) {
  std::string out;
  const size_t n = std::min(raw.size(), max_len);
  out.reserve(n + 3);
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    out += (c < 0x20 && c != '\t') || c == 0x7f ? '?' : static_cast<char>(c);
  }
  if (raw.size() > max_len) out += "...";
  return out;
}

std::string QuoteRaw(std::string_view s) {
  std::string out = "'";
  out += ClipRaw(s, 40);
  out += "'";
  return out;
}

std::string Diagnostic::ToString() const {
  std::string out = source;
  if (line > 0) {
    out += ':' + std::to_string(line);
  } else if (byte_offset >= 0) {
    out += "@byte " + std::to_string(byte_offset);
  }
  out += severity == Severity::kRejected ? ": rejected: " : ": warning: ";
  out += reason;
  if (!raw.empty()) out += ": \"" + raw + "\"";
  return out;
}

void Diagnostics::Add(Diagnostic d) {
  if (d.severity == Severity::kRejected) {
    ++rejected_total_;
    ++Counter(rejected_per_source_, d.source);
  } else {
    ++warnings_total_;
  }
  int64_t& kept = Counter(kept_per_source_, d.source);
  if (kept < static_cast<int64_t>(max_kept_)) {
    ++kept;
    items_.push_back(std::move(d));
  }
}

void Diagnostics::Reject(std::string_view source, int64_t line, std::string_view raw,
                         std::string_view reason) {
  Add({Severity::kRejected, std::string(source), line, -1, ClipRaw(raw), std::string(reason)});
}

void Diagnostics::RejectAtByte(std::string_view source, int64_t byte_offset, std::string_view raw,
                               std::string_view reason) {
  Add({Severity::kRejected, std::string(source), 0, byte_offset, ClipRaw(raw), std::string(reason)});
}

void Diagnostics::Warn(std::string_view source, int64_t line, std::string_view raw,
                       std::string_view reason) {
  Add({Severity::kWarning, std::string(source), line, -1, ClipRaw(raw), std::string(reason)});
}

void Diagnostics::Absorb(const std::vector<Diagnostic>& items, int64_t rejected_total, int64_t warnings_total,
                         const std::vector<std::pair<std::string, int64_t>>& rejected_per_source) {
  for (const Diagnostic& d : items) {
    int64_t& kept = Counter(kept_per_source_, d.source);
    if (kept < static_cast<int64_t>(max_kept_)) {
      ++kept;
      items_.push_back(d);
    }
  }
  rejected_total_ += rejected_total;
  warnings_total_ += warnings_total;
  for (const auto& [source, n] : rejected_per_source) Counter(rejected_per_source_, source) += n;
}

int64_t Diagnostics::RejectedFor(std::string_view source) const {
  for (const auto& [k, n] : rejected_per_source_) {
    if (k == source) return n;
  }
  return 0;
}

}  // namespace toposcope
