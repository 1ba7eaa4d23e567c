#include "toposcope/formats/dcgm/dcgm_csv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "toposcope/base/text.h"
#include "toposcope/formats/dcgm/sample_reader_base.h"

namespace toposcope::formats {
namespace {

// A record (with quoted newlines) longer than this is rejected as an unterminated quote.
constexpr size_t kMaxRecordBytes = size_t{1} << 20;
// More header columns than this is not a DCGM CSV.
constexpr size_t kMaxColumns = 4096;
// Largest GPU index accepted.
constexpr int64_t kMaxGpu = 1 << 20;

// True when a quoted field is still open at the end of `s` (`open`: it was open at its start).
// Follows RFC 4180: a quote opens a field only at the field's start (after blanks); inside, a
// doubled quote is a quote. A stray quote in an unquoted field does not open anything.
bool QuoteOpenAtEnd(std::string_view s, bool open) {
  bool in_quotes = open;
  bool field_start = !open;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < s.size() && s[i + 1] == '"') {
          ++i;
        } else {
          in_quotes = false;
        }
      }
    } else if (c == ',') {
      field_start = true;
    } else if (c == '"' && field_start) {
      in_quotes = true;
      field_start = false;
    } else if (c != ' ' && c != '\t') {
      field_start = false;
    }
  }
  return in_quotes;
}

// Splits one CSV record into cells. Unquoted cells are trimmed; quoted cells are unescaped into
// `storage` (one string per cell index) and may have blanks around the quotes. Returns false with
// `why` on a malformed quote.
bool SplitCsv(std::string_view rec, std::vector<std::string_view>* cells, std::deque<std::string>* storage,
              std::string* why) {
  cells->clear();
  size_t pos = 0;
  while (true) {
    size_t p = pos;
    while (p < rec.size() && (rec[p] == ' ' || rec[p] == '\t')) ++p;
    if (p < rec.size() && rec[p] == '"') {
      const size_t k = cells->size();
      if (storage->size() <= k) storage->resize(k + 1);
      std::string& st = (*storage)[k];
      st.clear();
      size_t i = p + 1;
      bool closed = false;
      while (i < rec.size()) {
        const size_t q = rec.find('"', i);
        if (q == std::string_view::npos) break;
        st.append(rec.data() + i, q - i);
        if (q + 1 < rec.size() && rec[q + 1] == '"') {
          st += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        closed = true;
        break;
      }
      if (!closed) {
        *why = "unterminated quoted field";
        return false;
      }
      while (i < rec.size() && (rec[i] == ' ' || rec[i] == '\t')) ++i;
      cells->push_back(st);
      if (i == rec.size()) return true;
      if (rec[i] != ',') {
        *why = Cat({"text after a closing quote at column ", std::to_string(i + 1)});
        return false;
      }
      pos = i + 1;
      continue;
    }
    const size_t comma = rec.find(',', pos);
    const std::string_view cell = rec.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (cell.find('"') != std::string_view::npos) {
      *why = "quote inside an unquoted field";
      return false;
    }
    cells->push_back(Trim(cell));
    if (comma == std::string_view::npos) return true;
    pos = comma + 1;
  }
}

bool IsNanCell(std::string_view s) {
  return s.empty() || EqualsIgnoreCase(s, "N/A") || EqualsIgnoreCase(s, "NA") || EqualsIgnoreCase(s, "nan") ||
         EqualsIgnoreCase(s, "null") || EqualsIgnoreCase(s, "none");
}

// A value cell: a fast path for short integers (exact as doubles), else the strict ParseDouble.
std::optional<double> ParseValue(std::string_view s) {
  size_t i = s.size() > 0 && s[0] == '-' ? 1 : 0;
  if (s.size() > i && s.size() - i <= 15) {
    int64_t v = 0;
    for (; i < s.size(); ++i) {
      const char c = s[i];
      if (c < '0' || c > '9') break;
      v = v * 10 + (c - '0');
    }
    if (i == s.size()) return s[0] == '-' ? -static_cast<double>(v) : static_cast<double>(v);
  }
  return ParseDouble(s);
}

std::optional<int> ParseGpu(std::string_view s) {
  if (s.size() > 3 && EqualsIgnoreCase(s.substr(0, 3), "gpu")) s.remove_prefix(3);
  if (!AllDigits(s) || s.size() > 9) return std::nullopt;
  int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  if (v > kMaxGpu) return std::nullopt;
  return static_cast<int>(v);
}

std::optional<int64_t> ParseTs(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (auto e = ParseEpochAutoNs(s)) return e;
  return ParseIsoTimeNs(s);
}

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Returns why a field or host name cannot be one, naming its first control character (a byte below
// 0x20 but the newline a quoted cell may hold, or 0x7f: no DCGM field, metric or host name has one,
// and the text a writer makes of it need not read back: a CR is lost at a line end, a header full
// of them looks binary); empty when the name is usable. `what`: "field name" or "host name".
std::string ControlCharacterIn(std::string_view name, const char* what = "field name") {
  for (size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f) {
      return StringPrintf("%s has a control character (byte 0x%02x at offset %zu)", what, c, i);
    }
  }
  return {};
}

enum class Col { kTs, kHost, kGpu, kField, kValue, kOther };

Col Classify(std::string_view lower) {
  if (lower == "ts" || lower == "timestamp" || lower == "time") return Col::kTs;
  if (lower == "host" || lower == "hostname" || lower == "instance") return Col::kHost;
  if (lower == "gpu" || lower == "entity" || lower == "gpu_id") return Col::kGpu;
  if (lower == "field" || lower == "metric" || lower == "field_id") return Col::kField;
  if (lower == "value") return Col::kValue;
  return Col::kOther;
}

class CsvParser : SampleReaderBase {
 public:
  CsvParser(std::string_view source, const CsvSampleSink& sink, Diagnostics& diag, ReadCounts& counts)
      : SampleReaderBase(source, diag, counts), sink_(sink) {}

  // Feeds one physical line. Joins lines while a quoted field is open.
  void Line(std::string_view line, int64_t line_no) {
    if (failed_) return;
    if (!pending_.empty() || pending_open_) {
      pending_ += '\n';
      pending_.append(line);
      pending_open_ = QuoteOpenAtEnd(line, pending_open_);
      if (pending_open_) {
        if (pending_.size() > kMaxRecordBytes) {
          if (header_done_) {
            ++counts_.read;
            Reject(pending_line_, pending_, "unterminated quoted field (record too long)");
          }
          pending_.clear();
          pending_open_ = false;
        }
        return;
      }
      std::string rec = std::move(pending_);
      pending_.clear();
      Record(rec, pending_line_);
      return;
    }
    if (line.find('"') != std::string_view::npos && QuoteOpenAtEnd(line, false)) {
      pending_.assign(line);
      pending_open_ = true;
      pending_line_ = line_no;
      return;
    }
    Record(line, line_no);
  }

  Result<DcgmCsvSummary> Finish(const Error* io_error) {
    if (pending_open_ && header_done_) {
      ++counts_.read;
      Reject(pending_line_, pending_, "unterminated quoted field at the end of the input");
    }
    if (io_error != nullptr) return *io_error;
    if (failed_) return header_error_;
    if (!header_done_) {
      return MakeError(std::string(source_), 0, 0, "no DCGM CSV header found",
                       "expected a header such as `ts,host,gpu,field,value` or `ts,host,gpu,<fields...>`");
    }
    if (counts_.read > 0 && counts_.accepted == 0) {
      return MakeError(std::string(source_), first_reject_line(), 0, "no DCGM CSV row could be read",
                       "see the rejected rows");
    }
    return std::move(summary_);
  }

 private:
  void Record(std::string_view rec, int64_t line_no) {
    if (!header_done_ && line_no == 1 && StartsWith(rec, "\xEF\xBB\xBF")) rec.remove_prefix(3);  // BOM
    const std::string_view t = Trim(rec);
    if (t.empty() || t[0] == '#') return;
    if (!header_done_) return Header(rec, line_no);
    Row(rec, line_no);
  }

  void Header(std::string_view rec, int64_t line_no) {
    std::string why;
    auto fail = [&](std::string msg) {
      failed_ = true;
      header_error_ = MakeError(std::string(source_), line_no, 0, std::move(msg),
                                "expected a header such as `ts,host,gpu,field,value` or `ts,host,gpu,<fields...>`");
    };
    if (LooksBinary(rec.substr(0, 512))) return fail("not a DCGM CSV: binary data");
    if (!SplitCsv(rec, &cells_, &storage_, &why)) return fail(Cat({"bad CSV header: ", why}));
    if (cells_.size() > kMaxColumns) return fail("not a DCGM CSV: too many columns");
    header_done_ = true;
    n_cols_ = cells_.size();
    int field_col = -1;
    int value_col = -1;
    std::vector<int> others;
    for (size_t i = 0; i < cells_.size(); ++i) {
      const std::string name(cells_[i]);
      summary_.columns.push_back(name);
      const Col c = Classify(ToLowerAscii(name));
      const int idx = static_cast<int>(i);
      // The column index each kind goes to, in Col order (kOther has none); a second column of a
      // kind is one more wide-form column.
      int* const slots[] = {&ts_col_, &host_col_, &gpu_col_, &field_col, &value_col};
      if (c == Col::kHost && host_col_ < 0) host_is_instance_ = EqualsIgnoreCase(name, "instance");
      int* const slot = c == Col::kOther ? nullptr : slots[static_cast<size_t>(c)];
      if (slot != nullptr && *slot < 0) {
        *slot = idx;
      } else {
        others.push_back(idx);
      }
    }
    if (ts_col_ < 0 || gpu_col_ < 0) {
      header_done_ = false;
      summary_.columns.clear();
      return fail("not a DCGM CSV: the header has no ts/timestamp/time or no gpu/entity/gpu_id column");
    }
    if (field_col >= 0 && value_col >= 0) {
      summary_.layout = DcgmCsvLayout::kLong;
      field_col_ = field_col;
      value_col_ = value_col;
    } else {
      summary_.layout = DcgmCsvLayout::kWide;
      if (field_col >= 0) others.push_back(field_col);
      if (value_col >= 0) others.push_back(value_col);
      std::sort(others.begin(), others.end());
      for (int i : others) {
        if (cells_[static_cast<size_t>(i)].empty()) continue;  // an unnamed column (index) is ignored
        if (std::string bad = ControlCharacterIn(cells_[static_cast<size_t>(i)]); !bad.empty()) {
          header_done_ = false;
          summary_.columns.clear();
          summary_.field_columns.clear();
          wide_cols_.clear();
          return fail(Cat({"bad CSV header: column ", std::to_string(i + 1), ": ", bad}));
        }
        wide_cols_.push_back(i);
        summary_.field_columns.push_back(summary_.columns[static_cast<size_t>(i)]);
      }
      if (wide_cols_.empty()) {
        header_done_ = false;
        summary_.columns.clear();
        summary_.field_columns.clear();
        return fail("not a DCGM CSV: no field/value columns and no field columns");
      }
    }
  }

  // The last-ts check of one series: 1 = accepted, 0 = duplicate (rejected). Warns on out-of-order.
  bool CheckSeries(uint64_t key, int64_t ts, int64_t line_no, std::string_view rec) {
    auto [it, inserted] = last_ts_.try_emplace(key, ts);
    if (inserted) return true;
    if (it->second == ts) return false;
    if (ts < it->second) {
      ++summary_.out_of_order;
      diag_.Warn(source_, line_no, ClipRaw(rec), "ts earlier than the series' previous sample (out of order)");
    }
    it->second = ts;
    return true;
  }

  void Row(std::string_view rec, int64_t line_no) {
    ++counts_.read;
    std::string why;
    if (!SplitCsv(rec, &cells_, &storage_, &why)) return Reject(line_no, rec, why);
    if (cells_.size() != n_cols_) {
      return Reject(line_no, rec,
                    Cat({"wrong column count: ", std::to_string(cells_.size()), ", the header has ",
                         std::to_string(n_cols_)}));
    }
    const std::string_view ts_text = cells_[static_cast<size_t>(ts_col_)];
    const auto ts = ParseTs(ts_text);
    if (!ts) return Reject(line_no, rec, ts_text.empty() ? "missing ts" : "bad ts (not ISO-8601 or epoch s/ms/us/ns)");
    const std::string_view gpu_text = cells_[static_cast<size_t>(gpu_col_)];
    const auto gpu = ParseGpu(gpu_text);
    if (!gpu) return Reject(line_no, rec, "bad gpu (expected an index such as 3 or GPU3)");
    std::string_view host;
    if (host_col_ >= 0) {
      host = cells_[static_cast<size_t>(host_col_)];
      if (host_is_instance_) {
        const size_t colon = host.rfind(':');
        if (colon != std::string_view::npos && AllDigits(host.substr(colon + 1))) host = host.substr(0, colon);
      }
      if (std::string bad = ControlCharacterIn(host, "host name"); !bad.empty()) return Reject(line_no, rec, bad);
    }
    const std::hash<std::string_view> h;
    const uint64_t host_gpu = Mix(h(host) ^ Mix(static_cast<uint64_t>(*gpu)));
    sample_.ts_ns = *ts;
    sample_.host.assign(host);
    sample_.gpu = *gpu;
    sample_.line = line_no;
    if (summary_.layout == DcgmCsvLayout::kLong) {
      const std::string_view field = cells_[static_cast<size_t>(field_col_)];
      if (field.empty()) return Reject(line_no, rec, "empty field name");
      if (std::string bad = ControlCharacterIn(field); !bad.empty()) return Reject(line_no, rec, bad);
      const std::string_view vtext = cells_[static_cast<size_t>(value_col_)];
      double value = NAN;
      if (!IsNanCell(vtext)) {
        const auto v = ParseValue(vtext);
        if (!v) return Reject(line_no, rec, "bad number in the value column");
        value = *v;
      }
      if (!CheckSeries(Mix(host_gpu ^ Mix(h(field))), *ts, line_no, rec)) {
        return Reject(line_no, rec, "duplicate sample (same ts, host, gpu and field as the previous one)");
      }
      sample_.field.assign(field);
      sample_.value = value;
      Emit();
    } else {
      values_.resize(wide_cols_.size());
      for (size_t k = 0; k < wide_cols_.size(); ++k) {
        const std::string_view vtext = cells_[static_cast<size_t>(wide_cols_[k])];
        if (IsNanCell(vtext)) {
          values_[k] = NAN;
          continue;
        }
        const auto v = ParseValue(vtext);
        if (!v) return Reject(line_no, rec, Cat({"bad number in column '", summary_.field_columns[k], "'"}));
        values_[k] = *v;
      }
      if (!CheckSeries(host_gpu, *ts, line_no, rec)) {
        return Reject(line_no, rec, "duplicate row (same ts, host and gpu as the previous one)");
      }
      for (size_t k = 0; k < wide_cols_.size(); ++k) {
        sample_.field.assign(summary_.field_columns[k]);
        sample_.value = values_[k];
        Emit();
      }
    }
    ++summary_.rows;
    ++counts_.accepted;
  }

  void Emit() {
    ++summary_.samples;
    if (std::isnan(sample_.value)) ++summary_.nan_values;
    if (sink_) sink_(sample_);
  }

  const CsvSampleSink& sink_;
  DcgmCsvSummary summary_;
  bool header_done_ = false;
  bool failed_ = false;
  Error header_error_;
  size_t n_cols_ = 0;
  int ts_col_ = -1;
  int host_col_ = -1;
  bool host_is_instance_ = false;
  int gpu_col_ = -1;
  int field_col_ = -1;
  int value_col_ = -1;
  std::vector<int> wide_cols_;
  std::vector<double> values_;
  std::vector<std::string_view> cells_;
  std::deque<std::string> storage_;  // deque: growing it keeps the views into earlier cells valid
  std::string pending_;
  bool pending_open_ = false;
  int64_t pending_line_ = 0;
  std::unordered_map<uint64_t, int64_t> last_ts_;
  CsvSample sample_;
};

bool NeedsQuote(std::string_view s) {
  if (s.empty()) return false;
  if (s.front() == ' ' || s.front() == '\t' || s.back() == ' ' || s.back() == '\t') return true;
  return s.find_first_of(",\"\n\r") != std::string_view::npos || s[0] == '#';
}

void AppendCell(std::string* out, std::string_view s) {
  if (!NeedsQuote(s)) {
    out->append(s);
    return;
  }
  *out += '"';
  for (char c : s) {
    if (c == '"') *out += '"';
    *out += c;
  }
  *out += '"';
}

void AppendTs(std::string* out, int64_t ts_ns, CsvTimeStyle style) {
  switch (style) {
    case CsvTimeStyle::kEpochNs:
      AppendDecimal(out, ts_ns);
      return;
    case CsvTimeStyle::kEpochMs:
      AppendDecimal(out, ts_ns / 1000000);
      return;
    case CsvTimeStyle::kIso:
      out->append(FormatIsoTimeNs(ts_ns));
      return;
  }
}

void AppendValue(std::string* out, double v) {
  if (!std::isfinite(v)) return;  // NaN (and infinities) as an empty cell
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;
  out->append(buf, static_cast<size_t>(ptr - buf));
}

void AppendRowStart(std::string* out, int64_t ts_ns, std::string_view host, int gpu, CsvTimeStyle style) {
  AppendTs(out, ts_ns, style);
  *out += ',';
  AppendCell(out, host);
  *out += ',';
  AppendDecimal(out, gpu);
}

}  // namespace

bool SameCsvSample(const CsvSample& a, const CsvSample& b) {
  if (a.ts_ns != b.ts_ns || a.host != b.host || a.gpu != b.gpu || a.field != b.field) return false;
  if (std::isnan(a.value) || std::isnan(b.value)) return std::isnan(a.value) && std::isnan(b.value);
  return a.value == b.value;
}

Result<DcgmCsvSummary> ReadDcgmCsv(LineReader& lines, std::string_view source, const CsvSampleSink& sink,
                                   Diagnostics& diag, ReadCounts& counts) {
  CsvParser parser(source, sink, diag, counts);
  std::string_view line;
  while (lines.Next(&line)) parser.Line(line, lines.line_number());
  return parser.Finish(lines.error());
}

Result<DcgmCsvSummary> ReadDcgmCsv(std::string_view text, std::string_view source, const CsvSampleSink& sink,
                                   Diagnostics& diag, ReadCounts& counts) {
  CsvParser parser(source, sink, diag, counts);
  TextLines lines(text);
  std::string_view line;
  while (lines.Next(&line)) parser.Line(line, lines.line_number());
  return parser.Finish(nullptr);
}

Result<DcgmCsv> ParseDcgmCsv(std::string_view text, std::string_view source, Diagnostics& diag,
                             ReadCounts& counts) {
  DcgmCsv out;
  auto summary = ReadDcgmCsv(
      text, source, [&out](const CsvSample& s) { out.samples.push_back(s); }, diag, counts);
  if (!summary.ok()) return summary.error();
  out.summary = std::move(*summary);
  return out;
}

void AppendDcgmCsvHeader(std::string* out, DcgmCsvLayout layout, const std::vector<std::string>& wide_fields) {
  if (layout == DcgmCsvLayout::kLong) {
    out->append("ts,host,gpu,field,value\n");
    return;
  }
  out->append("ts,host,gpu");
  for (const auto& f : wide_fields) {
    *out += ',';
    AppendCell(out, f);
  }
  *out += '\n';
}

void AppendDcgmCsvLongRow(std::string* out, const CsvSample& sample, CsvTimeStyle time_style) {
  AppendRowStart(out, sample.ts_ns, sample.host, sample.gpu, time_style);
  *out += ',';
  AppendCell(out, sample.field);
  *out += ',';
  AppendValue(out, sample.value);
  *out += '\n';
}

void AppendDcgmCsvWideRow(std::string* out, int64_t ts_ns, std::string_view host, int gpu,
                          const std::vector<double>& values, CsvTimeStyle time_style) {
  AppendRowStart(out, ts_ns, host, gpu, time_style);
  for (double v : values) {
    *out += ',';
    AppendValue(out, v);
  }
  *out += '\n';
}

std::string WriteDcgmCsvLong(const std::vector<CsvSample>& samples, CsvTimeStyle time_style) {
  std::string out;
  AppendDcgmCsvHeader(&out, DcgmCsvLayout::kLong);
  for (const auto& s : samples) AppendDcgmCsvLongRow(&out, s, time_style);
  return out;
}

std::string WriteDcgmCsvWide(const std::vector<CsvSample>& samples, CsvTimeStyle time_style) {
  std::vector<std::string> fields;
  std::unordered_map<std::string, size_t> index;
  for (const auto& s : samples) {
    if (index.emplace(s.field, fields.size()).second) fields.push_back(s.field);
  }
  std::string out;
  AppendDcgmCsvHeader(&out, DcgmCsvLayout::kWide, fields);
  std::vector<double> row(fields.size(), NAN);
  size_t i = 0;
  while (i < samples.size()) {
    const CsvSample& first = samples[i];
    std::fill(row.begin(), row.end(), NAN);
    size_t j = i;
    while (j < samples.size() && samples[j].ts_ns == first.ts_ns && samples[j].host == first.host &&
           samples[j].gpu == first.gpu) {
      row[index[samples[j].field]] = samples[j].value;
      ++j;
    }
    AppendDcgmCsvWideRow(&out, first.ts_ns, first.host, first.gpu, row, time_style);
    i = j;
  }
  return out;
}

}  // namespace toposcope::formats
