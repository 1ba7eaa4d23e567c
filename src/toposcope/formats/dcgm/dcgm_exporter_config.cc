// formats/dcgm/dcgm_exporter_config: the dcgm-exporter counters CSV reader and writer.
//
// dcgm-exporter reads the file with Go's encoding/csv (comment '#', TrimLeadingSpace) and wants
// three cells per record: the DCGM field name, the Prometheus type and the help text. Like it, we
// allow quoted cells (with `""` for a quote); unlike it, we also trim trailing spaces of a cell
// (the shipped files have `DCGM_FI_DEV_DEC_UTIL ,`).
#include "toposcope/formats/dcgm/dcgm_exporter_config.h"

#include <optional>
#include <string>
#include <unordered_set>

#include "toposcope/base/text.h"
#include "toposcope/formats/dcgm/dcgm_fields.h"

namespace toposcope::formats {
namespace {

// Splits one CSV line into trimmed cells as Go's encoding/csv does; nullopt on a broken quote.
std::optional<std::vector<std::string>> SplitCsv(std::string_view line) {
  std::vector<std::string> cells;
  if (!SplitCsvLine(line, cells, CsvBareQuote::kReject)) return std::nullopt;
  return cells;
}

std::optional<ExporterMetricType> ParseType(std::string_view s) {
  static constexpr NamedValue<ExporterMetricType> kTypes[] = {
      {ExporterMetricType::kGauge, "gauge"}, {ExporterMetricType::kCounter, "counter"},
      {ExporterMetricType::kLabel, "label"}, {ExporterMetricType::kHistogram, "histogram"},
      {ExporterMetricType::kSummary, "summary"}};
  return ValueIn(kTypes, s);
}

bool IsFieldName(std::string_view s) {
  if (!StartsWith(s, "DCGM_FI_") && !StartsWith(s, "DCGM_EXP_")) return false;
  if (s.size() > 128) return false;
  for (const char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return s.back() != '_';
}

}  // namespace

std::string_view ExporterMetricTypeName(ExporterMetricType t) {
  switch (t) {
    case ExporterMetricType::kGauge: return "gauge";
    case ExporterMetricType::kCounter: return "counter";
    case ExporterMetricType::kLabel: return "label";
    case ExporterMetricType::kHistogram: return "histogram";
    case ExporterMetricType::kSummary: return "summary";
  }
  return "gauge";
}

Result<std::vector<ExporterCounter>> ParseExporterCountersCsv(std::string_view text,
                                                              std::string_view source,
                                                              Diagnostics& diag,
                                                              ReadCounts& counts) {
  if (LooksBinary(text.substr(0, 4096))) {
    return MakeError(std::string(source), 0, 0, "binary data, not a dcgm-exporter counters CSV");
  }
  std::vector<ExporterCounter> out;
  std::unordered_set<std::string> names;
  TextLines lines(text);
  std::string_view raw, line;
  while (lines.NextNonBlank(&raw, &line)) {
    const int64_t line_no = lines.line_number();
    if (line[0] == '#') continue;
    ++counts.read;
    auto reject = [&](const std::string& reason) {
      ++counts.rejected;
      diag.Reject(source, line_no, raw, reason);
    };
    bool control = false;
    for (const char ch : line) {
      const auto c = static_cast<unsigned char>(ch);
      control = control || (c < 0x20 && c != '\t') || c == 0x7f;
    }
    if (control) {
      reject("control characters in the line");
      continue;
    }
    const auto cells = SplitCsv(line);
    if (!cells) {
      reject("malformed quoting");
      continue;
    }
    if (cells->size() != 3) {
      reject("expected `DCGM_FI_X, gauge|counter|label, help`, got " +
             std::to_string(cells->size()) + " cells");
      continue;
    }
    const std::string& name = (*cells)[0];
    if (!IsFieldName(name)) {
      reject("'" + ClipRaw(name, 60) + "' is not a DCGM_FI_* or DCGM_EXP_* field name");
      continue;
    }
    const auto type = ParseType((*cells)[1]);
    if (!type) {
      reject("unknown metric type '" + ClipRaw((*cells)[1], 40) +
             "' (gauge, counter, label, histogram, summary)");
      continue;
    }
    if (!names.insert(name).second) {
      reject("duplicate field " + name);
      continue;
    }
    ExporterCounter c;
    c.field_name = name;
    c.type = *type;
    c.help = (*cells)[2];
    c.line = line_no;
    if (StartsWith(name, "DCGM_FI_")) {
      if (const DcgmField* f = FindFieldByName(name)) {
        c.field_id = f->id;
      } else {
        diag.Warn(source, line_no, raw, "field " + name + " is not in the DCGM field catalog");
      }
    }
    ++counts.accepted;
    out.push_back(std::move(c));
  }
  if (out.empty()) {
    return MakeError(std::string(source), 0, 0, "no counter line: not a dcgm-exporter counters CSV",
                     "expected lines `DCGM_FI_X, gauge|counter|label, help`");
  }
  return out;
}

std::string WriteExporterCountersCsv(const std::vector<ExporterCounter>& counters) {
  std::string out =
      "# Format\n"
      "# If line starts with a '#' it is considered a comment\n"
      "# DCGM FIELD, Prometheus metric type, help message\n\n";
  for (const ExporterCounter& c : counters) {
    out += c.field_name;
    out += ", ";
    out += ExporterMetricTypeName(c.type);
    out += ", ";
    const std::string_view help = c.help;
    const bool quote = help.find_first_of(",\"") != std::string_view::npos || Trim(help) != help;
    if (quote) {
      out.push_back('"');
      for (const char ch : help) {
        if (ch == '"') out.push_back('"');
        out.push_back(ch);
      }
      out.push_back('"');
    } else {
      out += help;
    }
    out.push_back('\n');
  }
  return out;
}

}  // namespace toposcope::formats
