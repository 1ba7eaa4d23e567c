// base/text: small, allocation-light helpers for parsing text formats: trimming, splitting,
// strict number parsing (rejecting NaN, infinities and trailing junk).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toposcope {

// The text without leading and trailing spaces, tabs and line breaks.
std::string_view Trim(std::string_view s);
// True when `s` begins with `prefix` / ends with `suffix` / holds `needle` anywhere.
bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);
bool Contains(std::string_view s, std::string_view needle);

// Splits on runs of spaces and tabs; no empty fields.
std::vector<std::string_view> SplitWhitespace(std::string_view s);
// Splits on one delimiter character; keeps empty fields.
std::vector<std::string_view> Split(std::string_view s, char delim);

// Steps through text held in memory line by line. Each line is a view into the text, without its
// '\n' and without one '\r' before it; a final '\n' gives no empty last line, and empty text has
// no lines. The text must outlive the cursor.
class TextLines {
 public:
  explicit TextLines(std::string_view text) : text_(text) {}
  // Sets `line` to the next line; false (and `line` untouched) after the last one.
  bool Next(std::string_view* line);
  // Skips blank lines: sets `raw` to the next line with text and `trimmed` to it trimmed; false after
  // the last one.
  bool NextNonBlank(std::string_view* raw, std::string_view* trimmed) {
    while (Next(raw)) {
      *trimmed = Trim(*raw);
      if (!trimmed->empty()) return true;
    }
    return false;
  }
  // The 1-based number of the line Next gave last; 0 before the first.
  [[nodiscard]] int64_t line_number() const { return line_no_; }
  // True when no line is left for Next.
  [[nodiscard]] bool at_end() const { return pos_ >= text_.size(); }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int64_t line_no_ = 0;
};

// All the lines of the text as TextLines gives them (views into the text).
std::vector<std::string_view> SplitLines(std::string_view text);

// What SplitCsvLine does with a quote inside an unquoted cell: keep it as text, or fail the line.
enum class CsvBareQuote { kAllow, kReject };
// Splits one CSV line (RFC 4180 quoting, no embedded newlines): unquoted cells are trimmed, quoted
// cells kept verbatim ("" is a quote); a trailing comma gives a last empty cell. False on an
// unterminated quote or text after a closing quote, and with kReject on a quote inside an unquoted
// cell (as Go's encoding/csv does).
bool SplitCsvLine(std::string_view line, std::vector<std::string>& cells,
                  CsvBareQuote bare_quote = CsvBareQuote::kAllow);

// The value of one hex digit (0-9, a-f, A-F); -1 for any other character.
constexpr int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// 1 to 16 hex digits (no prefix, nothing else) as a number; nullopt otherwise.
std::optional<uint64_t> ParseHexU64(std::string_view digits);

// The text with ASCII letters lowered (other bytes unchanged).
std::string ToLowerAscii(std::string_view s);

// True when the two texts are equal ignoring ASCII case.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// The pieces joined, in one allocation (also avoids GCC 12's -Wrestrict false positive on
// "literal" + std::string).
std::string Cat(std::initializer_list<std::string_view> parts);

// True when the text is one or more ASCII digits.
bool AllDigits(std::string_view s);

// One CSV cell as written: quoted (RFC 4180, "" for a quote) when it holds a comma, a quote or a
// line break, starts or ends with a blank or tab, or starts with '#' (our readers' comment mark).
std::string CsvCell(std::string_view s);

// True when the text holds an ASCII control character (below 0x20, or DEL).
bool HasControlChars(std::string_view s);

// True when the text is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF): names that must survive a JSON round trip.
bool ValidUtf8(std::string_view s);

// Parses a whole field as a finite double; nullopt on junk, NaN, infinity or overflow.
std::optional<double> ParseDouble(std::string_view s);
// Parses a whole field as a signed 64-bit integer (decimal, or hex with 0x); nullopt otherwise.
std::optional<int64_t> ParseInt(std::string_view s);

// The text without its ANSI escape sequences (CSI `ESC [ params final` and two-byte `ESC x`), as
// coloured terminals and `rdma -color` write them. Cannot fail.
std::string StripAnsi(std::string_view text);

// True when the text looks binary (NUL bytes or many control bytes) in its first bytes.
bool LooksBinary(std::string_view head);

// Appends the decimal text of `v` to `out`.
void AppendDecimal(std::string* out, int64_t v);

// Each item as `line(item)` writes it, followed by '\n', concatenated.
template <class Item, class LineFn>
std::string JoinLines(const std::vector<Item>& items, LineFn&& line) {
  std::string out;
  for (const Item& item : items) {
    out += line(item);
    out += '\n';
  }
  return out;
}

// One entry of a name table: an enum value and its name (a literal, so the text is NUL-terminated).
template <class E>
struct NamedValue {
  E value;
  std::string_view name;
};

// The name of `value` in `table`; `fallback` when the table does not list it.
template <class E, size_t N>
constexpr std::string_view NameIn(const NamedValue<E> (&table)[N], E value, std::string_view fallback) {
  for (const NamedValue<E>& e : table) {
    if (e.value == value) return e.name;
  }
  return fallback;
}

// The value of the first entry of `table` named `name`; nullopt when no entry has that name.
template <class E, size_t N>
constexpr std::optional<E> ValueIn(const NamedValue<E> (&table)[N], std::string_view name) {
  for (const NamedValue<E>& e : table) {
    if (e.name == name) return e.value;
  }
  return std::nullopt;
}

// printf into a std::string (any length).
std::string StringPrintf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Formats a double with a fixed number of decimals, "-0" normalised to "0".
std::string FormatFixed(double v, int decimals);

// A share 0..1 as a whole percentage: 0.256 -> "26%".
std::string FormatPercent(double share);

// The Levenshtein distance of two strings (insertions, deletions and substitutions of bytes).
size_t EditDistance(std::string_view a, std::string_view b);

// The name of `names` nearest to `typed` by EditDistance, when it is near enough to be a typo (at
// most 2 edits, and fewer than half of the longer name's length); empty otherwise. Ties: the first.
std::string ClosestName(std::string_view typed, const std::vector<std::string>& names);

}  // namespace toposcope
