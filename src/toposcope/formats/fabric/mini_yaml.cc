// formats/fabric/mini_yaml: see mini_yaml.h. A line-based recursive-descent reader: lines are cut into
// (indent, text without comment), block collections are read by indent, inline values (scalars
// and flow collections) by a small cursor parser.
#include "toposcope/formats/fabric/mini_yaml.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/text.h"

namespace toposcope::formats {
namespace {

constexpr int kMaxDepth = 64;

struct YLine {
  int64_t no = 0;      // 1-based line number
  int indent = 0;      // leading spaces
  std::string text;    // content after the indent, comment and trailing blanks removed
};

struct Fail {
  int64_t line = 0;
  int64_t col = 0;
  std::string msg;
};

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// Appends the UTF-8 encoding of a code point.
void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Reads a quoted scalar starting at s[*pos] (a quote). On success *pos is past the closing quote.
bool ReadQuoted(std::string_view s, size_t* pos, std::string* out, std::string* err) {
  const char q = s[*pos];
  size_t i = *pos + 1;
  out->clear();
  while (i < s.size()) {
    const char c = s[i];
    if (q == '\'') {
      if (c == '\'') {
        if (i + 1 < s.size() && s[i + 1] == '\'') {
          out->push_back('\'');
          i += 2;
          continue;
        }
        *pos = i + 1;
        return true;
      }
      out->push_back(c);
      ++i;
      continue;
    }
    if (c == '"') {
      *pos = i + 1;
      return true;
    }
    if (c != '\\') {
      out->push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= s.size()) break;
    const char e = s[i + 1];
    i += 2;
    // The one-character escapes: the letter after '\\' and what it stands for.
    static constexpr std::string_view kEscaped = "\\\"/ ntr0abefv";
    static constexpr std::string_view kMeant("\\\"/ \n\t\r\0\a\b\x1b\f\v", 13);
    if (const size_t k = kEscaped.find(e); k != std::string_view::npos) {
      out->push_back(kMeant[k]);
      continue;
    }
    switch (e) {
      case 'x':
      case 'u':
      case 'U': {
        const size_t n = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
        if (i + n > s.size()) {
          *err = "truncated escape in a double-quoted scalar";
          return false;
        }
        uint32_t cp = 0;
        for (size_t k = 0; k < n; ++k) {
          const int h = HexDigitValue(s[i + k]);
          if (h < 0) {
            *err = "bad hex digit in an escape";
            return false;
          }
          cp = cp * 16 + static_cast<uint32_t>(h);
        }
        i += n;
        if (e == 'x') {
          out->push_back(static_cast<char>(cp));
        } else {
          if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            *err = "escape is not a valid code point";
            return false;
          }
          AppendUtf8(out, cp);
        }
        break;
      }
      default:
        *err = std::string("unknown escape \\") + e;
        return false;
    }
  }
  *err = "unterminated quoted scalar";
  return false;
}

// Cuts the comment off a line: '#' at the start or after a blank, outside quoted scalars that
// start a token. Sets *err on an unterminated quote.
std::string StripComment(std::string_view s, std::string* err) {
  size_t i = 0;
  char prev = ' ';
  while (i < s.size()) {
    const char c = s[i];
    if (c == '#' && IsBlank(prev)) return std::string(s.substr(0, i));
    if ((c == '"' || c == '\'') &&
        (IsBlank(prev) || prev == '-' || prev == ':' || prev == '[' || prev == '{' || prev == ',' || i == 0)) {
      size_t p = i;
      std::string tmp;
      if (!ReadQuoted(s, &p, &tmp, err)) return {};
      i = p;
      prev = c;
      continue;
    }
    prev = c;
    ++i;
  }
  return std::string(s);
}

bool StartsSeqItem(std::string_view t) { return !t.empty() && t[0] == '-' && (t.size() == 1 || t[1] == ' '); }

// Position of the ':' that ends a mapping key on this text, or npos.
size_t FindKeyColon(std::string_view t) {
  if (t.empty()) return std::string_view::npos;
  size_t i = 0;
  if (t[0] == '"' || t[0] == '\'') {
    std::string tmp, err;
    size_t p = 0;
    if (!ReadQuoted(t, &p, &tmp, &err)) return std::string_view::npos;
    while (p < t.size() && IsBlank(t[p])) ++p;
    if (p < t.size() && t[p] == ':' && (p + 1 == t.size() || IsBlank(t[p + 1]))) return p;
    return std::string_view::npos;
  }
  if (t[0] == '[' || t[0] == '{') return std::string_view::npos;
  for (; i < t.size(); ++i) {
    if (t[i] == ':' && (i + 1 == t.size() || IsBlank(t[i + 1]))) return i;
  }
  return std::string_view::npos;
}

class Parser {
 public:
  explicit Parser(std::vector<YLine> lines) : lines_(std::move(lines)) {}

  bool Parse(YamlNode* root) {
    if (lines_.empty()) {
      root->kind = YamlNode::Kind::kNull;
      return true;
    }
    size_t i = 0;
    if (lines_[0].indent != 0) return SetFail(lines_[0], 1, "the document does not start at column 1");
    if (!Block(&i, 0, root, 0)) return false;
    if (i < lines_.size()) return SetFail(lines_[i], lines_[i].indent + 1, "unexpected indentation or content");
    return true;
  }

  Fail fail;

 private:
  bool SetFail(const YLine& l, int64_t col, std::string msg) {
    fail = {l.no, col, std::move(msg)};
    return false;
  }

  // A block node whose first line is lines_[*i] at exactly `indent`.
  bool Block(size_t* i, int indent, YamlNode* out, int depth) {
    if (depth > kMaxDepth) return SetFail(lines_[*i], 1, "nesting deeper than 64 levels");
    const YLine& l = lines_[*i];
    if (StartsSeqItem(l.text)) return Seq(i, indent, out, depth);
    if (FindKeyColon(l.text) != std::string_view::npos) return Map(i, indent, out, depth);
    // A lone scalar or flow collection.
    if (!Inline(l, l.text, out, depth)) return false;
    ++*i;
    return true;
  }

  // The value after "key:" or "- " when it is empty: a nested block, a sequence at the same
  // indent (mapping values only), or null.
  bool NestedValue(size_t* i, int indent, bool allow_same_indent_seq, int64_t line_no, YamlNode* out,
                   int depth) {
    if (*i < lines_.size()) {
      const YLine& n = lines_[*i];
      if (n.indent > indent) return Block(i, n.indent, out, depth + 1);
      if (allow_same_indent_seq && n.indent == indent && StartsSeqItem(n.text)) {
        return Seq(i, indent, out, depth + 1);
      }
    }
    out->kind = YamlNode::Kind::kNull;
    out->line = line_no;
    return true;
  }

  bool Seq(size_t* i, int indent, YamlNode* out, int depth) {
    out->kind = YamlNode::Kind::kSeq;
    out->line = lines_[*i].no;
    while (*i < lines_.size()) {
      YLine& l = lines_[*i];
      if (l.indent < indent) break;
      if (l.indent > indent) return SetFail(l, l.indent + 1, "unexpected indentation in a sequence");
      if (!StartsSeqItem(l.text)) break;
      YamlNode item;
      size_t k = 1;
      while (k < l.text.size() && l.text[k] == ' ') ++k;
      if (k >= l.text.size()) {
        ++*i;
        if (!NestedValue(i, indent, false, l.no, &item, depth)) return false;
      } else {
        const std::string rest = l.text.substr(k);
        if (StartsSeqItem(rest) || FindKeyColon(rest) != std::string_view::npos) {
          // Compact nested collection: re-read this line as if it started at the rest's column.
          l.indent = indent + static_cast<int>(k);
          l.text = rest;
          if (!Block(i, l.indent, &item, depth + 1)) return false;
        } else {
          if (!Inline(l, rest, &item, depth)) return false;
          ++*i;
        }
      }
      out->seq.push_back(std::move(item));
    }
    return true;
  }

  bool Map(size_t* i, int indent, YamlNode* out, int depth) {
    out->kind = YamlNode::Kind::kMap;
    out->line = lines_[*i].no;
    while (*i < lines_.size()) {
      const YLine& l = lines_[*i];
      if (l.indent < indent) break;
      if (l.indent > indent) return SetFail(l, l.indent + 1, "unexpected indentation in a mapping");
      if (StartsSeqItem(l.text)) {
        // "- " at a mapping's indent ends it only when the mapping is a compact item's; else bad.
        break;
      }
      const size_t colon = FindKeyColon(l.text);
      if (colon == std::string_view::npos) return SetFail(l, l.indent + 1, "expected 'key: value'");
      std::string key;
      if (l.text[0] == '"' || l.text[0] == '\'') {
        size_t p = 0;
        std::string err;
        if (!ReadQuoted(l.text, &p, &key, &err)) return SetFail(l, l.indent + 1, err);
      } else {
        key = std::string(Trim(std::string_view(l.text).substr(0, colon)));
        if (key.empty()) return SetFail(l, l.indent + 1, "empty mapping key");
        if (key[0] == '?' || key[0] == '&' || key[0] == '*' || key[0] == '!' || key[0] == '<') {
          return SetFail(l, l.indent + 1, "complex keys, anchors, aliases, tags and merge keys are not supported");
        }
      }
      for (const auto& kv : out->map) {
        if (kv.first == key) return SetFail(l, l.indent + 1, "duplicate key '" + key + "'");
      }
      const std::string_view rest = Trim(std::string_view(l.text).substr(colon + 1));
      const int64_t key_line = l.no;
      YamlNode value;
      if (rest.empty()) {
        const int64_t no = l.no;
        ++*i;
        if (!NestedValue(i, indent, true, no, &value, depth)) return false;
      } else {
        if (!Inline(l, rest, &value, depth)) return false;
        ++*i;
      }
      out->map.push_back(YamlKeyValue{std::move(key), std::move(value)});
      out->key_lines.push_back(key_line);
    }
    return true;
  }

  // An inline value filling the rest of a line.
  bool Inline(const YLine& l, std::string_view s, YamlNode* out, int depth) {
    size_t pos = 0;
    std::string err;
    if (!Flow(s, &pos, out, false, depth, &err, l.no)) {
      return SetFail(l, l.indent + 1 + static_cast<int64_t>(pos), err);
    }
    while (pos < s.size() && IsBlank(s[pos])) ++pos;
    if (pos != s.size()) {
      return SetFail(l, l.indent + 1 + static_cast<int64_t>(pos), "unexpected text after a value");
    }
    return true;
  }

  // The items of a flow collection whose opening bracket is at `pos`, up to `close`: `item()` reads
  // one (false on an error); items are separated by ','. `what` names the collection in errors.
  template <class ItemFn>
  static bool FlowItems(std::string_view s, size_t* pos, char close, const char* what, std::string* err,
                        ItemFn&& item) {
    ++*pos;
    for (;;) {
      while (*pos < s.size() && IsBlank(s[*pos])) ++*pos;
      if (*pos >= s.size()) {
        *err = std::string("unterminated flow ") + what;
        return false;
      }
      if (s[*pos] == close) {
        ++*pos;
        return true;
      }
      if (!item()) return false;
      while (*pos < s.size() && IsBlank(s[*pos])) ++*pos;
      if (*pos < s.size() && s[*pos] == ',') {
        ++*pos;
        continue;
      }
      if (*pos < s.size() && s[*pos] == close) continue;
      *err = std::string("expected ',' or '") + close + "' in a flow " + what;
      return false;
    }
  }

  static bool Flow(std::string_view s, size_t* pos, YamlNode* out, bool in_flow, int depth, std::string* err,
                   int64_t line_no) {
    if (depth > kMaxDepth) {
      *err = "nesting deeper than 64 levels";
      return false;
    }
    while (*pos < s.size() && IsBlank(s[*pos])) ++*pos;
    out->line = line_no;
    if (*pos >= s.size()) {
      out->kind = YamlNode::Kind::kNull;
      return true;
    }
    const char c = s[*pos];
    if (c == '[') {
      out->kind = YamlNode::Kind::kSeq;
      return FlowItems(s, pos, ']', "sequence", err, [&] {
        YamlNode item;
        if (!Flow(s, pos, &item, true, depth + 1, err, line_no)) return false;
        if (item.IsNull()) {
          *err = "empty item in a flow sequence";
          return false;
        }
        out->seq.push_back(std::move(item));
        return true;
      });
    }
    if (c == '{') {
      out->kind = YamlNode::Kind::kMap;
      return FlowItems(s, pos, '}', "mapping", err, [&] {
        YamlNode key;
        if (!FlowScalar(s, pos, &key, true, err, line_no)) return false;
        while (*pos < s.size() && IsBlank(s[*pos])) ++*pos;
        if (*pos >= s.size() || s[*pos] != ':') {
          *err = "expected ':' after a flow mapping key";
          return false;
        }
        ++*pos;
        YamlNode value;
        if (!Flow(s, pos, &value, true, depth + 1, err, line_no)) return false;
        for (const auto& kv : out->map) {
          if (kv.first == key.scalar) {
            *err = "duplicate key '" + key.scalar + "'";
            return false;
          }
        }
        out->map.push_back(YamlKeyValue{key.scalar, std::move(value)});
        out->key_lines.push_back(line_no);
        return true;
      });
    }
    return FlowScalar(s, pos, out, in_flow, err, line_no);
  }

  static bool FlowScalar(std::string_view s, size_t* pos, YamlNode* out, bool in_flow, std::string* err,
                         int64_t line_no) {
    out->line = line_no;
    if (*pos >= s.size()) {
      *err = "missing value";
      return false;
    }
    const char c = s[*pos];
    if (c == '"' || c == '\'') {
      out->kind = YamlNode::Kind::kScalar;
      out->quoted = true;
      return ReadQuoted(s, pos, &out->scalar, err);
    }
    if (c == '&' || c == '*' || c == '!' || c == '|' || c == '>' || c == '%' || c == '@' || c == '`') {
      *err = std::string("'") + c + "' (anchors, aliases, tags, block scalars, directives) is not supported";
      return false;
    }
    if (in_flow && (c == ']' || c == '}' || c == ',')) {
      *err = "missing value";
      return false;
    }
    size_t end = *pos;
    while (end < s.size()) {
      const char d = s[end];
      if (in_flow && (d == ',' || d == ']' || d == '}' || d == '[' || d == '{')) {
        // '[' inside a plain flow scalar (node[1-2]) is ambiguous: refuse it.
        if (d == '[' || d == '{') {
          *err = "'[' or '{' inside a plain scalar in a flow collection: quote it";
          return false;
        }
        break;
      }
      if (d == ':' && (end + 1 == s.size() || IsBlank(s[end + 1]) ||
                       (in_flow && (s[end + 1] == ',' || s[end + 1] == ']' || s[end + 1] == '}')))) {
        if (in_flow) break;
        *err = "':' followed by a blank inside a plain scalar";
        return false;
      }
      ++end;
    }
    out->kind = YamlNode::Kind::kScalar;
    out->scalar = std::string(Trim(s.substr(*pos, end - *pos)));
    *pos = end;
    if (out->scalar.empty()) {
      out->kind = YamlNode::Kind::kNull;
    } else if (out->scalar == "~" || out->scalar == "null" || out->scalar == "Null" || out->scalar == "NULL") {
      out->kind = YamlNode::Kind::kNull;
      out->scalar.clear();
    }
    return true;
  }

  std::vector<YLine> lines_;
};

}  // namespace

const YamlNode* YamlNode::Find(std::string_view key) const {
  if (kind != Kind::kMap) return nullptr;
  for (const auto& kv : map) {
    if (kv.first == key) return &kv.second;
  }
  return nullptr;
}

std::optional<bool> YamlNode::AsBool() const {
  if (kind != Kind::kScalar || quoted) return std::nullopt;
  if (scalar == "true" || scalar == "True" || scalar == "TRUE") return true;
  if (scalar == "false" || scalar == "False" || scalar == "FALSE") return false;
  return std::nullopt;
}

std::optional<int64_t> YamlNode::AsInt() const {
  if (kind != Kind::kScalar) return std::nullopt;
  return ParseInt(scalar);
}

std::string_view YamlNode::KindName() const {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kScalar: return "scalar";
    case Kind::kMap: return "mapping";
    case Kind::kSeq: return "sequence";
  }
  return "?";
}

Result<YamlNode> ParseYaml(std::string_view text, std::string_view source) {
  const std::string src(source);
  if (LooksBinary(text.substr(0, 4096))) return MakeError(src, 0, 0, "binary input, not YAML");
  std::vector<YLine> lines;
  int64_t no = 0;
  bool seen_content = false;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    ++no;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    if (no == 1 && raw.size() >= 3 && raw.substr(0, 3) == "\xEF\xBB\xBF") raw.remove_prefix(3);
    int indent = 0;
    while (static_cast<size_t>(indent) < raw.size() && raw[static_cast<size_t>(indent)] == ' ') ++indent;
    std::string_view body = raw.substr(static_cast<size_t>(indent));
    std::string err;
    std::string stripped = StripComment(body, &err);
    if (!err.empty()) return MakeError(src, no, indent + 1, err);
    while (!stripped.empty() && IsBlank(stripped.back())) stripped.pop_back();
    if (stripped.empty()) {
      if (end >= text.size()) break;
      continue;
    }
    if (stripped[0] == '\t') return MakeError(src, no, indent + 1, "tab used for indentation");
    if (indent == 0 && (stripped == "---" || StartsWith(stripped, "--- "))) {
      if (seen_content) return MakeError(src, no, 1, "several YAML documents are not supported");
      if (stripped != "---") return MakeError(src, no, 5, "content after '---' is not supported");
      if (end >= text.size()) break;
      continue;
    }
    if (indent == 0 && stripped == "...") break;
    if (stripped[0] == '%') return MakeError(src, no, indent + 1, "YAML directives are not supported");
    seen_content = true;
    lines.push_back({no, indent, std::move(stripped)});
    if (end >= text.size()) break;
  }
  Parser p(std::move(lines));
  YamlNode root;
  if (!p.Parse(&root)) return MakeError(src, p.fail.line, p.fail.col, p.fail.msg);
  return root;
}

Result<YamlNode> ParseNonEmptyYaml(std::string_view text, std::string_view source, std::string_view expected) {
  if (Trim(text).empty()) return MakeError(std::string(source), 0, 0, "empty input", std::string(expected));
  return ParseYaml(text, source);
}

std::string CheckYamlKeys(const YamlNode& m, std::initializer_list<std::string_view> allowed) {
  for (const auto& kv : m.map) {
    if (std::find(allowed.begin(), allowed.end(), kv.first) == allowed.end()) return "unknown key " + QuoteRaw(kv.first);
  }
  return {};
}

std::string YamlQuote(std::string_view s) {
  bool plain = !s.empty() && !IsBlank(s.front()) && !IsBlank(s.back());
  if (plain) {
    const char c = s[0];
    if (c == '?' || c == ':' || c == ',' || c == '[' || c == ']' || c == '{' || c == '}' || c == '#' ||
        c == '&' || c == '*' || c == '!' || c == '|' || c == '>' || c == '\'' || c == '"' || c == '%' ||
        c == '@' || c == '`') {
      plain = false;
    }
    if (c == '-' && (s.size() == 1 || s[1] == ' ')) plain = false;
    if (s == "~" || s == "null" || s == "Null" || s == "NULL" || s == "---" || s == "...") plain = false;
    if (s.back() == ':') plain = false;
    for (size_t i = 0; i < s.size() && plain; ++i) {
      const auto u = static_cast<unsigned char>(s[i]);
      if (u < 0x20 || u == 0x7f) plain = false;
      if (s[i] == ':' && i + 1 < s.size() && IsBlank(s[i + 1])) plain = false;
      if (s[i] == '#' && i > 0 && IsBlank(s[i - 1])) plain = false;
    }
  }
  if (plain) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

}  // namespace toposcope::formats
