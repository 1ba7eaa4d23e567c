#include "toposcope/formats/dcgm/prometheus_text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "toposcope/base/text.h"
#include "toposcope/formats/dcgm/sample_reader_base.h"

namespace toposcope::formats {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameStart(char c) { return IsAlpha(c) || c == '_' || c == ':'; }
bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c); }
bool IsLabelStart(char c) { return IsAlpha(c) || c == '_'; }
bool IsLabelChar(char c) { return IsLabelStart(c) || IsDigit(c); }

bool IsMetricName(std::string_view s) {
  if (s.empty() || !IsNameStart(s[0])) return false;
  for (char c : s) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

// NaN, +Inf, -Inf, Inf (any case, as Go's ParseFloat takes them); nullopt for anything else.
bool IsNonFiniteToken(std::string_view s) {
  if (EqualsIgnoreCase(s, "nan")) return true;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  return EqualsIgnoreCase(s, "inf") || EqualsIgnoreCase(s, "infinity");
}

// A strict decimal int64: optional '-', digits only.
std::optional<int64_t> ParseTimestampMs(std::string_view s) {
  if (s.empty()) return std::nullopt;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (*first == '+') {
    ++first;
    if (first == last || !IsDigit(*first)) return std::nullopt;
  }
  if (*first != '-' && !IsDigit(*first)) return std::nullopt;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return v;
}

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A 64-bit identity of a series (name + label set), independent of the label order.
uint64_t SeriesHash(const PromSample& s, size_t n_labels) {
  const std::hash<std::string_view> h;
  uint64_t acc = 0;
  for (size_t i = 0; i < n_labels; ++i) {
    const auto& [k, v] = s.labels[i];
    acc += Mix(h(k) ^ Mix(h(v) + 0x51ULL));
  }
  return Mix(h(s.name) ^ Mix(acc));
}

// HELP text unescaping: `\\` and `\n`; other escapes are kept as written.
std::string UnescapeHelp(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      if (s[i + 1] == '\\') {
        out += '\\';
        ++i;
        continue;
      }
      if (s[i + 1] == 'n') {
        out += '\n';
        ++i;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

// The `# TYPE` names.
constexpr NamedValue<PromMetricType> kTypeNames[] = {
    {PromMetricType::kGauge, "gauge"}, {PromMetricType::kCounter, "counter"},
    {PromMetricType::kHistogram, "histogram"}, {PromMetricType::kSummary, "summary"},
    {PromMetricType::kUntyped, "untyped"}};

std::optional<PromMetricType> ParseType(std::string_view s) { return ValueIn(kTypeNames, s); }

constexpr uint8_t kHelpBit = 1;
constexpr uint8_t kTypeBit = 2;

// The line-at-a-time parser behind both ReadPromText overloads.
class PromParser : SampleReaderBase {
 public:
  PromParser(std::string_view source, const PromSampleSink& sink, Diagnostics& diag, ReadCounts& counts,
             const PromReadOptions& options)
      : SampleReaderBase(source, diag, counts), sink_(sink), options_(options) {}

  void Line(std::string_view line, int64_t line_no) {
    size_t i = 0;
    while (i < line.size() && IsBlank(line[i])) ++i;
    if (i == line.size()) return;
    if (line[i] == '#') {
      Comment(line, i + 1, line_no);
    } else {
      Sample(line, i, line_no);
    }
  }

  Result<PromReadSummary> Finish(const Error* io_error) {
    if (io_error != nullptr) return *io_error;
    if (counts_.read > 0 && counts_.accepted == 0) {
      return MakeError(std::string(source_), first_reject_line(), 0,
                       "not Prometheus text exposition: no sample or HELP/TYPE line could be read",
                       "expected lines like `name{label=\"v\"} 1.5` and `# TYPE name gauge`");
    }
    summary_.scrapes = scrape_counter_ + (samples_in_scrape_ > 0 ? 1 : 0);
    return std::move(summary_);
  }

 private:
  void Boundary() {
    if (samples_in_scrape_ > 0) {
      ++scrape_counter_;
      samples_in_scrape_ = 0;
    }
    series_.clear();
    meta_bits_.clear();
  }

  PromMetricInfo& Info(std::string_view name) {
    auto it = meta_index_.find(std::string(name));
    if (it != meta_index_.end()) return summary_.metrics[it->second];
    meta_index_.emplace(std::string(name), summary_.metrics.size());
    summary_.metrics.push_back(PromMetricInfo{std::string(name), {}, PromMetricType::kUntyped, false, false});
    return summary_.metrics.back();
  }

  // A line whose first non-blank character is '#'; `i` is just after it.
  void Comment(std::string_view line, size_t i, int64_t line_no) {
    while (i < line.size() && IsBlank(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !IsBlank(line[j])) ++j;
    const std::string_view keyword = line.substr(i, j - i);
    const bool help = keyword == "HELP";
    const bool type = keyword == "TYPE";
    if (!help && !type) {
      ++summary_.comments;
      return;
    }
    ++counts_.read;
    i = j;
    while (i < line.size() && IsBlank(line[i])) ++i;
    j = i;
    while (j < line.size() && !IsBlank(line[j])) ++j;
    const std::string_view name = line.substr(i, j - i);
    if (name.empty()) return Reject(line_no, line, help ? "HELP line without a metric name" : "TYPE line without a metric name");
    if (!IsMetricName(name)) return Reject(line_no, line, "bad metric name in HELP/TYPE line");
    // The text: after the blanks that follow the name.
    i = j;
    while (i < line.size() && IsBlank(line[i])) ++i;
    std::string_view rest = line.substr(i);
    std::optional<PromMetricType> parsed_type;
    if (type) {
      rest = Trim(rest);
      if (rest.empty()) return Reject(line_no, line, "TYPE line without a type");
      parsed_type = ParseType(rest);
      if (!parsed_type) {
        return Reject(line_no, line, "unknown metric type (expected gauge, counter, histogram, summary or untyped)");
      }
    }
    const uint8_t bit = help ? kHelpBit : kTypeBit;
    uint8_t& bits = meta_bits_[std::string(name)];
    if ((bits & bit) != 0) {
      // The same metric's HELP/TYPE again: a new scrape begins.
      Boundary();
      meta_bits_[std::string(name)] = bit;
    } else {
      bits = static_cast<uint8_t>(bits | bit);
    }
    PromMetricInfo& info = Info(name);
    if (help) {
      info.help = UnescapeHelp(rest);
      info.has_help = true;
    } else {
      info.type = *parsed_type;
      info.has_type = true;
    }
    ++counts_.accepted;
  }

  // Parses one label set starting just after '{'; returns the position after '}' or npos with
  // `why` set.
  size_t Labels(std::string_view line, size_t i, size_t* n_labels, std::string* why) {
    auto& labels = sample_.labels;
    size_t n = 0;
    while (true) {
      while (i < line.size() && IsBlank(line[i])) ++i;
      if (i >= line.size()) {
        *why = "label set not closed with '}'";
        return std::string_view::npos;
      }
      if (line[i] == '}') break;
      if (!IsLabelStart(line[i])) {
        *why = Cat({"label name expected at column ", std::to_string(i + 1)});
        return std::string_view::npos;
      }
      size_t j = i + 1;
      while (j < line.size() && IsLabelChar(line[j])) ++j;
      const std::string_view key = line.substr(i, j - i);
      i = j;
      while (i < line.size() && IsBlank(line[i])) ++i;
      if (i >= line.size() || line[i] != '=') {
        *why = Cat({"'=' expected after label name at column ", std::to_string(i + 1)});
        return std::string_view::npos;
      }
      ++i;
      while (i < line.size() && IsBlank(line[i])) ++i;
      if (i >= line.size() || line[i] != '"') {
        *why = Cat({"'\"' expected to open the label value at column ", std::to_string(i + 1)});
        return std::string_view::npos;
      }
      ++i;
      if (n >= labels.size()) labels.emplace_back();
      auto& [k, v] = labels[n];
      for (size_t m = 0; m < n; ++m) {
        if (labels[m].first == key) {
          *why = Cat({"duplicate label '", key, "'"});
          return std::string_view::npos;
        }
      }
      k.assign(key);
      v.clear();
      // Value up to the closing unescaped quote.
      bool closed = false;
      while (i < line.size()) {
        const size_t q = line.find_first_of("\"\\", i);
        if (q == std::string_view::npos) {
          i = line.size();
          break;
        }
        v.append(line.data() + i, q - i);
        if (line[q] == '"') {
          i = q + 1;
          closed = true;
          break;
        }
        if (q + 1 >= line.size()) {
          i = line.size();
          break;
        }
        const char e = line[q + 1];
        if (e == '\\') {
          v += '\\';
        } else if (e == '"') {
          v += '"';
        } else if (e == 'n') {
          v += '\n';
        } else {
          *why = Cat({"invalid escape '\\", std::string_view(&line[q + 1], 1), "' in label value at column ",
                      std::to_string(q + 1)});
          return std::string_view::npos;
        }
        i = q + 2;
      }
      if (!closed) {
        *why = "unterminated label value";
        return std::string_view::npos;
      }
      ++n;
      while (i < line.size() && IsBlank(line[i])) ++i;
      if (i < line.size() && line[i] == ',') {
        ++i;
        continue;
      }
      if (i < line.size() && line[i] == '}') break;
      *why = Cat({"',' or '}' expected after a label value at column ", std::to_string(i + 1)});
      return std::string_view::npos;
    }
    *n_labels = n;
    return i + 1;
  }

  void Sample(std::string_view line, size_t i, int64_t line_no) {
    ++counts_.read;
    if (!IsNameStart(line[i])) return Reject(line_no, line, "metric name expected");
    size_t j = i + 1;
    while (j < line.size() && IsNameChar(line[j])) ++j;
    sample_.name.assign(line.data() + i, j - i);
    i = j;
    size_t n_labels = 0;
    while (i < line.size() && IsBlank(line[i])) ++i;
    if (i < line.size() && line[i] == '{') {
      std::string why;
      i = Labels(line, i + 1, &n_labels, &why);
      if (i == std::string_view::npos) return Reject(line_no, line, Cat({"bad label syntax: ", why}));
      while (i < line.size() && IsBlank(line[i])) ++i;
    } else if (i == j && i < line.size()) {
      return Reject(line_no, line, "bad character in metric name");
    }
    if (i >= line.size()) return Reject(line_no, line, "missing value");
    j = i;
    while (j < line.size() && !IsBlank(line[j])) ++j;
    const std::string_view value_text = line.substr(i, j - i);
    double value = NAN;
    bool non_finite = false;
    if (IsNonFiniteToken(value_text)) {
      non_finite = true;
    } else {
      const auto v = ParseDouble(value_text);
      if (!v) return Reject(line_no, line, "value is not a number (or is out of range)");
      value = *v;
    }
    i = j;
    while (i < line.size() && IsBlank(line[i])) ++i;
    int64_t ts_ms = kNoTime;
    if (i < line.size()) {
      j = i;
      while (j < line.size() && !IsBlank(line[j])) ++j;
      const auto ts = ParseTimestampMs(line.substr(i, j - i));
      if (!ts || *ts == kNoTime) return Reject(line_no, line, "timestamp is not an integer number of ms");
      ts_ms = *ts;
      i = j;
      while (i < line.size() && IsBlank(line[i])) ++i;
      if (i < line.size()) return Reject(line_no, line, "junk after the timestamp");
    }
    if (sample_.labels.size() != n_labels) sample_.labels.resize(n_labels);
    // Scrape boundaries: a series seen again in this scrape starts the next one.
    const uint64_t key = SeriesHash(sample_, n_labels);
    if (!series_.insert(key).second) {
      Boundary();
      series_.insert(key);
    }
    ++samples_in_scrape_;
    sample_.value = value;
    sample_.ts_ms = ts_ms;
    sample_.scrape_index = options_.first_scrape_index + scrape_counter_;
    sample_.line = line_no;
    ++summary_.samples;
    if (non_finite) ++summary_.non_finite;
    if (ts_ms != kNoTime) ++summary_.with_timestamp;
    ++counts_.accepted;
    if (sink_) sink_(sample_);
  }

  const PromSampleSink& sink_;
  PromReadOptions options_;
  PromReadSummary summary_;
  PromSample sample_;
  std::unordered_map<std::string, size_t> meta_index_;
  std::unordered_map<std::string, uint8_t> meta_bits_;  // HELP/TYPE seen in this scrape
  std::unordered_set<uint64_t> series_;                 // series seen in this scrape
  int64_t scrape_counter_ = 0;
  int64_t samples_in_scrape_ = 0;
};

void AppendEscapedLabelValue(std::string* out, std::string_view v) {
  size_t i = 0;
  while (i < v.size()) {
    const size_t q = v.find_first_of("\\\"\n", i);
    if (q == std::string_view::npos) {
      out->append(v.data() + i, v.size() - i);
      return;
    }
    out->append(v.data() + i, q - i);
    out->append(v[q] == '\\' ? "\\\\" : v[q] == '"' ? "\\\"" : "\\n");
    i = q + 1;
  }
}

void AppendEscapedHelp(std::string* out, std::string_view v) {
  for (char c : v) {
    if (c == '\\') {
      out->append("\\\\");
    } else if (c == '\n') {
      out->append("\\n");
    } else {
      *out += c;
    }
  }
}

void AppendValue(std::string* out, double v, PromValueStyle style) {
  if (std::isnan(v)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "+Inf" : "-Inf");
    return;
  }
  if (v == std::trunc(v) && std::fabs(v) < 9.0e18) {
    AppendDecimal(out, static_cast<int64_t>(v));
    return;
  }
  char buf[400];
  if (style == PromValueStyle::kExporter) {
    const int n = std::snprintf(buf, sizeof(buf), "%f", v);
    if (n > 0) out->append(buf, static_cast<size_t>(std::min<int>(n, static_cast<int>(sizeof(buf)) - 1)));
    return;
  }
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;
  out->append(buf, static_cast<size_t>(ptr - buf));
}

// The labels dcgm-exporter writes first, in its order.
constexpr std::array<std::string_view, 9> kExporterOrder = {
    "gpu", "UUID", "pci_bus_id", "device", "modelName", "GPU_I_PROFILE", "GPU_I_ID", "Hostname", "hostname"};

bool IsExporterLabel(std::string_view k) {
  for (std::string_view e : kExporterOrder) {
    if (e == k) return true;
  }
  return false;
}

// Calls f(label) for each label in exporter order.
template <class F>
void ForEachInExporterOrder(const PromLabels& labels, F&& f) {
  for (std::string_view key : kExporterOrder) {
    for (const auto& kv : labels) {
      if (kv.first == key) f(kv);
    }
  }
  for (const auto& kv : labels) {
    if (!IsExporterLabel(kv.first)) f(kv);
  }
}

std::optional<int> ParseSmallIndex(std::string_view s) {
  s = Trim(s);
  if (s.size() > 3 && EqualsIgnoreCase(s.substr(0, 3), "gpu")) s.remove_prefix(3);
  if (s.empty() || s.size() > 9) return std::nullopt;
  for (char c : s) {
    if (!IsDigit(c)) return std::nullopt;
  }
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

}  // namespace

std::string_view PromMetricTypeName(PromMetricType type) { return NameIn(kTypeNames, type, "untyped"); }

const std::string* PromSample::Label(std::string_view key) const {
  for (const auto& [k, v] : labels) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool SamePromSample(const PromSample& a, const PromSample& b, double value_tolerance) {
  if (a.name != b.name || a.labels != b.labels || a.ts_ms != b.ts_ms || a.scrape_index != b.scrape_index) {
    return false;
  }
  if (std::isnan(a.value) || std::isnan(b.value)) return std::isnan(a.value) && std::isnan(b.value);
  if (value_tolerance > 0) return std::fabs(a.value - b.value) <= value_tolerance;
  return a.value == b.value;
}

Result<PromReadSummary> ReadPromText(LineReader& lines, std::string_view source, const PromSampleSink& sink,
                                     Diagnostics& diag, ReadCounts& counts, const PromReadOptions& options) {
  PromParser parser(source, sink, diag, counts, options);
  std::string_view line;
  while (lines.Next(&line)) parser.Line(line, lines.line_number());
  return parser.Finish(lines.error());
}

Result<PromReadSummary> ReadPromText(std::string_view text, std::string_view source, const PromSampleSink& sink,
                                     Diagnostics& diag, ReadCounts& counts, const PromReadOptions& options) {
  PromParser parser(source, sink, diag, counts, options);
  TextLines lines(text);
  std::string_view line;
  while (lines.Next(&line)) parser.Line(line, lines.line_number());
  return parser.Finish(nullptr);
}

Result<PromText> ParsePromText(std::string_view text, std::string_view source, Diagnostics& diag,
                               ReadCounts& counts, const PromReadOptions& options) {
  PromText out;
  auto summary = ReadPromText(
      text, source, [&out](const PromSample& s) { out.samples.push_back(s); }, diag, counts, options);
  if (!summary.ok()) return summary.error();
  out.summary = std::move(*summary);
  return out;
}

PromLabels ExporterLabelOrder(const PromLabels& labels) {
  PromLabels out;
  out.reserve(labels.size());
  ForEachInExporterOrder(labels, [&out](const auto& kv) { out.push_back(kv); });
  return out;
}

void AppendPromSample(std::string* out, const PromSample& sample, PromValueStyle style) {
  out->append(sample.name);
  if (!sample.labels.empty()) {
    *out += '{';
    bool first = true;
    ForEachInExporterOrder(sample.labels, [&](const auto& kv) {
      if (!first) *out += ',';
      first = false;
      out->append(kv.first);
      out->append("=\"");
      AppendEscapedLabelValue(out, kv.second);
      *out += '"';
    });
    *out += '}';
  }
  *out += ' ';
  AppendValue(out, sample.value, style);
  if (sample.ts_ms != kNoTime) {
    *out += ' ';
    AppendDecimal(out, sample.ts_ms);
  }
  *out += '\n';
}

std::string WritePromSample(const PromSample& sample, PromValueStyle style) {
  std::string out;
  AppendPromSample(&out, sample, style);
  return out;
}

void PromWriter::SetMetadata(const PromMetricInfo& info) { metadata_[info.name] = info; }

void PromWriter::BeginScrape() { written_this_scrape_.clear(); }

void PromWriter::Append(std::string* out, const PromSample& sample) {
  if (!metadata_.empty() && written_this_scrape_.find(sample.name) == written_this_scrape_.end()) {
    written_this_scrape_.insert(sample.name);
    auto it = metadata_.find(sample.name);
    if (it != metadata_.end()) {
      const PromMetricInfo& info = it->second;
      if (info.has_help) {
        out->append("# HELP ");
        out->append(info.name);
        *out += ' ';
        AppendEscapedHelp(out, info.help);
        *out += '\n';
      }
      if (info.has_type) {
        out->append("# TYPE ");
        out->append(info.name);
        *out += ' ';
        out->append(PromMetricTypeName(info.type));
        *out += '\n';
      }
    }
  }
  AppendPromSample(out, sample, style_);
}

std::string WritePromText(const std::vector<PromSample>& samples, const std::vector<PromMetricInfo>& metadata,
                          PromValueStyle style) {
  PromWriter writer(style);
  for (const auto& m : metadata) writer.SetMetadata(m);
  std::string out;
  bool first = true;
  int64_t scrape = 0;
  for (const auto& s : samples) {
    if (first || s.scrape_index != scrape) writer.BeginScrape();
    first = false;
    scrape = s.scrape_index;
    writer.Append(&out, s);
  }
  return out;
}

bool IsDcgmMetric(std::string_view name) { return StartsWith(name, "DCGM_FI_"); }

DcgmPromSample ToDcgmSample(const PromSample& sample) {
  DcgmPromSample d;
  d.field = sample.name;
  d.value = sample.value;
  d.scrape_index = sample.scrape_index;
  if (sample.ts_ms != kNoTime) {
    // ms -> ns, saturating far outside any plausible range.
    constexpr int64_t kMaxMs = INT64_MAX / 1000000;
    if (sample.ts_ms > kMaxMs || sample.ts_ms < -kMaxMs) {
      d.ts_ns = kNoTime;
    } else {
      d.ts_ns = sample.ts_ms * 1000000;
    }
  }
  for (const auto& [k, v] : sample.labels) {
    if (k == "gpu") {
      if (auto g = ParseSmallIndex(v)) d.gpu = *g;
    } else if (k == "Hostname" || k == "hostname") {
      if (d.host.empty() || k == "Hostname") d.host = v;
    } else if (k == "UUID") {
      d.uuid = v;
    } else if (k == "pci_bus_id") {
      d.pci_bus_id = v;
    } else if (k == "modelName") {
      d.model_name = v;
    } else if (k == "GPU_I_PROFILE") {
      d.mig_profile = v;
    } else if (k == "GPU_I_ID") {
      if (auto g = ParseSmallIndex(v)) d.mig_instance = *g;
    } else if (k == "link" || k == "nvlink" || k == "link_id") {
      if (auto g = ParseSmallIndex(v)) d.link = *g;
    }
  }
  return d;
}

}  // namespace toposcope::formats
