// formats/trace/chrome_trace: streaming reader and writer of Chrome trace event JSON (Kineto, HTA, the
// NCCL example profiler, toposcope's own traces). Also holds the trace_event.h free functions
// (ParseNcclKernelName, ContextValue).
//
// Reading: nlohmann::json's SAX parser runs over a std::streambuf that pulls from our InputStream
// (gzip/zstd transparent) and, when lenient, quotes bare tokens that are not JSON (the NCCL example
// profiler's `"Stream": 0x5020000567d0`, `"datatype": ncclFloat32`) and turns a curly opening
// quote into a straight one. Events are never collected into a DOM: one small capture per event
// keeps its top-level scalars and the scalar members of `args` (nested arrays/objects skipped).
// Top-level distributedInfo / deviceProperties go into a small capped DOM (MetaCapture), their
// pg_config rank lists straight into runs (plain `int,` stretches lexed beside the parser); the
// metadata is read once, by the first of the two passes, and the second pass skips the bytes of
// every top-level value the first one read. So a trace listing every rank of a 100,000-rank job
// costs little more to read than its events.
// Time: the `ts`/`dur` number's own text is parsed exactly (decimal microseconds -> integer ns,
// rounded half away from zero), so epoch-scale timestamps lose nothing to double rounding.
#include "toposcope/formats/trace/chrome_trace.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <istream>
#include <limits>
#include <optional>
#include <sstream>
#include <streambuf>
#include <utility>

#include <nlohmann/json.hpp>

#include "toposcope/base/text.h"

namespace toposcope::formats {
namespace {

using nlohmann::json;

constexpr int64_t kEpochThresholdNs = 100'000'000'000'000'000;  // 1973: ts*1000 above this is epoch
constexpr size_t kMaxMetaValues = 100000;    // cap on one captured top-level metadata value (rank lists aside)
constexpr size_t kMaxTokenBytes = 4096;      // lenient filter: longest bare token it rewrites
constexpr size_t kMaxFixesTracked = 1 << 20;  // lenient filter: offset-map entries kept

// ---------------------------------------------------------------------------------------------
// Exact decimal parsing.

// Parses a JSON number text (as the lexer saw it) as a count of units times 10^shift, rounded to
// an integer half away from zero. Fails on overflow or junk.
std::optional<int64_t> ParseDecimalScaled(std::string_view s, int shift) {
  bool neg = false;
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    neg = s[i] == '-';
    ++i;
  }
  std::string digits;
  int frac_digits = 0;
  bool seen_digit = false;
  bool in_frac = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      seen_digit = true;
      if (!(digits.empty() && c == '0')) digits += c;
      if (in_frac) ++frac_digits;
    } else if (c == '.' && !in_frac) {
      in_frac = true;
    } else {
      break;
    }
  }
  if (!seen_digit) return std::nullopt;
  int64_t exp10 = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
      eneg = s[i] == '-';
      ++i;
    }
    if (i >= s.size()) return std::nullopt;
    int64_t e = 0;
    for (; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      e = std::min<int64_t>(e * 10 + (s[i] - '0'), 100000);
    }
    exp10 = eneg ? -e : e;
  }
  if (i != s.size()) return std::nullopt;
  // digits has leading zeros stripped only before the first non-zero digit, but frac_digits counts
  // every fractional digit (zeros too), so the value is digits * 10^(exp10 - frac_digits).
  // Leading zeros dropped from the fraction do not change the value.
  const int64_t k = exp10 - frac_digits + shift;
  if (digits.empty()) return 0;
  // At most 19 digits are kept, so v < 10^19 + 1 fits in uint64 (< 1.8e19).
  uint64_t v = 0;
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (neg ? 1 : 0);
  if (k >= 0) {
    if (static_cast<int64_t>(digits.size()) + k > 19) return std::nullopt;
    for (char c : digits) v = v * 10 + static_cast<unsigned>(c - '0');
    for (int64_t j = 0; j < k; ++j) v *= 10;
  } else {
    const int64_t drop = -k;
    const auto n = static_cast<int64_t>(digits.size());
    if (n - drop > 19) return std::nullopt;
    for (int64_t j = 0; j < n - drop; ++j) v = v * 10 + static_cast<unsigned>(digits[static_cast<size_t>(j)] - '0');
    const int64_t first_dropped = n - drop;  // index of the first dropped digit (may be < 0)
    if (first_dropped >= 0 && digits[static_cast<size_t>(first_dropped)] >= '5') v += 1;
  }
  if (v > limit) return std::nullopt;
  if (!neg) return static_cast<int64_t>(v);
  if (v == limit) return std::numeric_limits<int64_t>::min();
  return -static_cast<int64_t>(v);
}

// ---------------------------------------------------------------------------------------------
// Streambuf over an InputStream, with the optional lenient rewrite.

class InputStreamBuf : public std::streambuf {
 public:
  InputStreamBuf(InputStream& in, bool lenient) : in_(in), lenient_(lenient) { raw_.resize(1 << 16); }

  // Bytes handed to the parser so far (in the rewritten stream).
  [[nodiscard]] int64_t Position() const { return base_ + (gptr() - eback()); }
  // Maps a position in the rewritten stream back to the input.
  [[nodiscard]] int64_t ToOriginal(int64_t pos) const {
    auto it = std::upper_bound(fixes_.begin(), fixes_.end(), std::make_pair(pos, std::numeric_limits<int64_t>::max()));
    if (it == fixes_.begin()) return pos;
    --it;
    return std::max<int64_t>(0, pos - it->second);
  }
  [[nodiscard]] const Error* error() const { return failed_ ? &error_ : nullptr; }
  [[nodiscard]] int64_t fixes() const { return fix_count_; }
  // Moves the read position forward to `pos` (in the rewritten stream) without handing the bytes
  // in between to the parser: they are still read (and rewritten, so positions stay those of a
  // full read), never lexed. Stops early at the end of the input.
  void SkipTo(int64_t pos) {
    while (Position() < pos) {
      if (gptr() == egptr() && traits_type::eq_int_type(underflow(), traits_type::eof())) return;
      const int64_t n = std::min<int64_t>(egptr() - gptr(), pos - Position());
      gbump(static_cast<int>(n));
      skipped_ += n;
    }
  }
  // Bytes SkipTo passed over.
  [[nodiscard]] int64_t skipped() const { return skipped_; }
  // The bytes buffered after the read position (possibly none), the byte before it (-1: not
  // buffered), and a step over n of the buffered bytes (lexed by the caller, not the parser).
  [[nodiscard]] std::string_view Ahead() const { return {gptr(), static_cast<size_t>(egptr() - gptr())}; }
  [[nodiscard]] int PrevByte() const { return gptr() > eback() ? static_cast<unsigned char>(gptr()[-1]) : -1; }
  void Consume(size_t n) {
    gbump(static_cast<int>(n));
    consumed_ += static_cast<int64_t>(n);
  }
  [[nodiscard]] int64_t consumed() const { return consumed_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    base_ += egptr() - eback();
    while (true) {
      if (eof_) {
        if (lenient_ && !token_.empty()) {
          out_.clear();
          FlushToken();
          if (!out_.empty()) {
            setg(out_.data(), out_.data(), out_.data() + out_.size());
            return traits_type::to_int_type(*gptr());
          }
        }
        setg(nullptr, nullptr, nullptr);
        return traits_type::eof();
      }
      auto r = in_.Read(raw_.data(), raw_.size());
      if (!r.ok()) {
        failed_ = true;
        error_ = r.error();
        eof_ = true;
        continue;
      }
      const size_t n = *r;
      if (n == 0) {
        eof_ = true;
        continue;
      }
      if (!lenient_) {
        setg(raw_.data(), raw_.data(), raw_.data() + n);
        return traits_type::to_int_type(*gptr());
      }
      out_.clear();
      Filter(raw_.data(), n);
      if (!out_.empty()) {
        setg(out_.data(), out_.data(), out_.data() + out_.size());
        return traits_type::to_int_type(*gptr());
      }
    }
  }

 private:
  static bool IsDelim(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':' || c == '{' ||
           c == '}' || c == '[' || c == ']' || c == '"';
  }

  int64_t OutPos() const { return base_ + static_cast<int64_t>(out_.size()); }

  // Numbers and structure ("0,1,2,...]" of a long rank list): outside a string and not after a
  // ':' (no bare token to rewrite), byte by byte they would pass through unchanged.
  static bool IsPlain(unsigned char c) {
    return (c >= '0' && c <= '9') || c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '-' ||
           c == '+' || c == '.' || c == 'e' || c == 'E' || c == '[' || c == ']' || c == '{' || c == '}';
  }
  // Copies the run of plain bytes from p[i] (plain, outside a string, no pending token, last_sig_
  // not ':') in one go and leaves the state the byte-by-byte path would; returns the run's end.
  size_t PassPlainRun(const char* p, size_t i, size_t n) {
    size_t stop = i;
    while (stop < n && IsPlain(static_cast<unsigned char>(p[stop]))) ++stop;
    out_.append(p + i, stop - i);
    token_overlong_ = !IsDelim(static_cast<unsigned char>(p[stop - 1]));  // inside a bare token
    for (size_t k = stop; k-- > i;) {
      const char b = p[k];
      if (b == ' ' || b == '\t' || b == '\n' || b == '\r') continue;
      last_sig_ = IsDelim(static_cast<unsigned char>(b)) ? b : 'a';
      break;
    }
    return stop;
  }

  void NoteFix(int64_t delta_added) {
    ++fix_count_;
    cumulative_ += delta_added;
    if (fixes_.size() < kMaxFixesTracked) fixes_.emplace_back(OutPos(), cumulative_);
  }

  static bool IsJsonNumber(std::string_view t) {
    size_t i = 0;
    if (i < t.size() && t[i] == '-') ++i;
    if (i >= t.size()) return false;
    if (t[i] == '0') {
      ++i;
    } else if (t[i] >= '1' && t[i] <= '9') {
      while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    } else {
      return false;
    }
    if (i < t.size() && t[i] == '.') {
      ++i;
      const size_t b = i;
      while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
      if (i == b) return false;
    }
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
      ++i;
      if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
      const size_t b = i;
      while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
      if (i == b) return false;
    }
    return i == t.size();
  }

  void FlushToken() {
    std::string_view t = token_;
    static constexpr std::string_view kOpen = "\xE2\x80\x9C";
    static constexpr std::string_view kClose = "\xE2\x80\x9D";
    if (token_overlong_ || t == "true" || t == "false" || t == "null" || IsJsonNumber(t)) {
      out_ += t;
    } else if (StartsWith(t, kOpen) || StartsWith(t, kClose)) {
      // A curly quote opening a string: `{“name": ...`.
      out_ += '"';
      std::string_view rest = t.substr(3);
      if (EndsWith(rest, kClose) || EndsWith(rest, kOpen)) {
        out_ += rest.substr(0, rest.size() - 3);
        out_ += '"';
        NoteFix(-4);
      } else {
        out_ += rest;
        in_string_ = true;
        NoteFix(-2);
      }
    } else {
      out_ += '"';
      for (char c : t) {
        if (c == '\\') out_ += '\\';
        out_ += c;
      }
      out_ += '"';
      NoteFix(2 + static_cast<int64_t>(std::count(t.begin(), t.end(), '\\')));
    }
    token_.clear();
    token_overlong_ = false;
  }

  void Filter(const char* p, size_t n) {
    out_.reserve(n + 64);
    for (size_t i = 0; i < n; ++i) {
      const char c = p[i];
      const auto u = static_cast<unsigned char>(c);
      if (in_string_) {
        if (escape_) {
          out_ += c;
          escape_ = false;
          continue;
        }
        // Copy the run up to the next quote or backslash in one go. One scan that stops at either:
        // looking for the quote first would rescan the rest of the chunk at every backslash.
        size_t stop = i;
        while (stop < n && p[stop] != '"' && p[stop] != '\\') ++stop;
        out_.append(p + i, stop - i);
        if (stop >= n) {
          i = n - 1;
          continue;
        }
        out_ += p[stop];
        if (p[stop] == '\\') {
          escape_ = true;
        } else {
          in_string_ = false;
          last_sig_ = '"';
        }
        i = stop;
        continue;
      }
      if (token_.empty() && last_sig_ != ':' && IsPlain(u)) {
        i = PassPlainRun(p, i, n) - 1;
        continue;
      }
      if (!token_.empty() || token_overlong_) {
        if (!IsDelim(u)) {
          if (token_overlong_) {
            out_ += c;
          } else if (token_.size() >= kMaxTokenBytes) {
            out_ += token_;
            out_ += c;
            token_.clear();
            token_overlong_ = true;
          } else {
            token_ += c;
          }
          continue;
        }
        if (token_overlong_) {
          token_overlong_ = false;
        } else {
          FlushToken();
        }
        if (in_string_) {  // the token opened a string (curly quote): this delimiter is content
          --i;
          continue;
        }
      }
      if (IsDelim(u)) {
        out_ += c;
        if (c == '"') in_string_ = true;
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') last_sig_ = c;
        continue;
      }
      // A bare token: rewrite it only as an object member's value (`"Stream": 0x...`) or when it
      // may be a curly quote; anything else goes through untouched for the parser to judge.
      if (last_sig_ == ':' || u == 0xE2) {
        token_ += c;
      } else {
        out_ += c;
        token_overlong_ = true;
      }
      last_sig_ = 'a';
    }
  }

  InputStream& in_;
  bool lenient_;
  std::vector<char> raw_;
  std::string out_;
  int64_t base_ = 0;
  int64_t skipped_ = 0;
  int64_t consumed_ = 0;
  bool eof_ = false;
  bool failed_ = false;
  Error error_;
  // lenient state
  bool in_string_ = false;
  bool escape_ = false;
  std::string token_;
  bool token_overlong_ = false;  // inside a bare token that passes through unchanged
  char last_sig_ = 0;             // last non-blank byte outside strings ('a': a bare token)
  std::vector<std::pair<int64_t, int64_t>> fixes_;  // (rewritten position, bytes added so far)
  int64_t cumulative_ = 0;
  int64_t fix_count_ = 0;
};

class StringInputStream : public InputStream {
 public:
  StringInputStream(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}
  Result<size_t> Read(char* buf, size_t n) override {
    const size_t k = std::min(n, text_.size() - pos_);
    std::memcpy(buf, text_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  [[nodiscard]] const std::string& path() const override { return source_; }

 private:
  std::string_view text_;
  std::string source_;
  size_t pos_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Captured scalars.

struct Scalar {
  enum Kind { kNone, kInt, kUint, kFloat, kString, kBool, kNull } kind = kNone;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string text;  // string value, or the float's own text

  void Clear() { kind = kNone; text.clear(); }
  // An unsigned JSON number: kInt when it fits int64, else kUint.
  static Scalar Unsigned(uint64_t v) {
    Scalar s;
    if (v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      s.kind = kInt;
      s.i = static_cast<int64_t>(v);
    } else {
      s.kind = kUint;
      s.u = v;
    }
    return s;
  }
  // A JSON float (with its text as written, when kept) and a JSON string.
  static Scalar Float(double v, std::string text = {}) {
    Scalar s;
    s.kind = kFloat;
    s.d = v;
    s.text = std::move(text);
    return s;
  }
  static Scalar String(std::string&& v) {
    Scalar s;
    s.kind = kString;
    s.text = std::move(v);
    return s;
  }
  [[nodiscard]] bool numeric() const { return kind == kInt || kind == kUint || kind == kFloat; }
  [[nodiscard]] std::optional<int64_t> AsInt() const {
    if (kind == kInt) return i;
    if (kind == kUint && u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return static_cast<int64_t>(u);
    return std::nullopt;
  }
  [[nodiscard]] double AsDouble() const {
    if (kind == kInt) return static_cast<double>(i);
    if (kind == kUint) return static_cast<double>(u);
    return d;
  }
  // Text for a context value; empty (and false) for null/none.
  bool Text(std::string* out) const {
    switch (kind) {
      case kInt: *out = std::to_string(i); return true;
      case kUint: *out = std::to_string(u); return true;
      case kFloat: *out = text; return true;
      case kString: *out = text; return true;
      case kBool: *out = i ? "true" : "false"; return true;
      default: return false;
    }
  }
};

// Numeric value -> ns (value is microseconds unless shift says otherwise).
std::optional<int64_t> ScalarToScaled(const Scalar& s, int shift) {
  int64_t mul = 1;
  for (int k = 0; k < shift; ++k) mul *= 10;
  if (s.kind == Scalar::kInt) {
    int64_t r = 0;
    if (__builtin_mul_overflow(s.i, mul, &r)) return std::nullopt;
    return r;
  }
  if (s.kind == Scalar::kUint) {
    if (s.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    int64_t r = 0;
    if (__builtin_mul_overflow(static_cast<int64_t>(s.u), mul, &r)) return std::nullopt;
    return r;
  }
  if (s.kind == Scalar::kFloat) return ParseDecimalScaled(s.text, shift);
  return std::nullopt;
}

using ArgList = std::vector<std::pair<std::string, Scalar>>;

const Scalar* FindArg(const ArgList& args, std::string_view key) {
  for (const auto& [k, v] : args) {
    if (k == key) return &v;
  }
  return nullptr;
}

void AppendSanitized(std::string* out, std::string_view v) {
  for (char c : v) *out += (c == ';' || c == '=') ? '_' : c;
}

// Context keys in canonical order: (context key, arg names tried in order). "id" is the event's
// top-level id.
struct ContextKey {
  std::string_view key;
  std::array<std::string_view, 2> args;
};
constexpr std::array<ContextKey, 6> kContextKeys = {{
    {"id", {"", ""}},
    {"corr", {"correlation", ""}},
    {"coll", {"Collective name", ""}},
    {"pg", {"Process Group Name", ""}},
    {"seq", {"Seq", "SeqNum"}},
    {"comm", {"CommHash", ""}},
}};

std::string ComposeContext(const Scalar& id, const ArgList& args) {
  if (const Scalar* s = FindArg(args, "toposcope_context"); s != nullptr && s->kind == Scalar::kString) {
    return s->text;
  }
  std::string out;
  std::string v;
  for (const auto& ck : kContextKeys) {
    const Scalar* s = nullptr;
    if (ck.key == "id") {
      s = id.kind != Scalar::kNone ? &id : nullptr;
    } else {
      for (auto name : ck.args) {
        if (name.empty()) continue;
        s = FindArg(args, name);
        if (s != nullptr && s->kind != Scalar::kNull) break;
        s = nullptr;
      }
    }
    if (s == nullptr || !s->Text(&v)) continue;
    if (!out.empty()) out += ';';
    out += ck.key;
    out += '=';
    AppendSanitized(&out, v);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// JSON output helpers.

std::string JsonString(std::string_view s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

// True when `v` is exactly the decimal spelling of an int64 (or, when allow_u64, of a uint64).
bool IsCanonicalInt(std::string_view v, bool allow_u64) {
  if (v.empty() || v.size() > 20) return false;
  if (allow_u64 && v[0] != '-') {
    uint64_t u = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), u);
    if (ec != std::errc() || p != v.data() + v.size()) return false;
    return std::to_string(u) == v;
  }
  int64_t x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size()) return false;
  return std::to_string(x) == v;
}

std::string FormatDouble(double v) {
  if (!std::isfinite(v)) return "0";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  std::string s = buf;
  // Keep it a JSON number (%.17g never gives "inf" here).
  return s;
}

// ---------------------------------------------------------------------------------------------
// Top-level metadata capture.

json ScalarToJson(const Scalar& s) {
  switch (s.kind) {
    case Scalar::kInt: return s.i;
    case Scalar::kUint: return s.u;
    case Scalar::kFloat: return s.d;
    case Scalar::kString: return s.text;
    case Scalar::kBool: return s.i != 0;
    default: return nullptr;
  }
}

// Captures one top-level metadata value (distributedInfo, deviceProperties) from SAX events as a
// json DOM of at most kMaxMetaValues values (the rest is counted in dropped()), except the
// distributedInfo.pg_config[*].ranks arrays: their integers go straight into a RankList (the DOM
// holds a binary placeholder whose subtype indexes rank_lists()), never cut and never counted, so
// a 100,000-rank list costs a few runs, not a DOM node per rank. A rank is the integer's low 32
// bits as an int; other elements of a ranks array (and anything nested in it) are ignored.
class MetaCapture {
 public:
  void Begin(std::string_view name, bool is_object) {
    name_ = name;
    root_ = is_object ? json::object() : json::array();
    frames_.clear();
    frames_.push_back({&root_, is_object, false, false});
    rank_lists_.clear();
    key_.clear();
    count_ = 0;
    dropped_ = 0;
    in_ranks_ = false;
    ranks_nest_ = 0;
  }
  void Key(const std::string& k) {
    if (!in_ranks_) key_ = k;
  }
  void Value(const Scalar& s) {
    if (in_ranks_) {
      if (ranks_nest_ > 0) return;
      if (s.kind == Scalar::kInt) rank_lists_.back().Append(static_cast<int>(s.i));
      if (s.kind == Scalar::kUint) rank_lists_.back().Append(static_cast<int>(static_cast<int64_t>(s.u)));
      return;
    }
    json* slot = Slot();
    if (slot != nullptr) *slot = ScalarToJson(s);
  }
  void Start(bool is_object) {
    if (in_ranks_) {
      ++ranks_nest_;
      return;
    }
    const Frame& top = frames_.back();
    if (top.pg_item && top.node != nullptr && !is_object && key_ == "ranks") {
      rank_lists_.emplace_back();
      (*top.node)[key_] = json::binary(json::binary_t::container_type{}, rank_lists_.size() - 1);
      in_ranks_ = true;
      ranks_nest_ = 0;
      return;
    }
    const bool pg_list = name_ == "distributedInfo" && frames_.size() == 1 && top.is_object && !is_object &&
                         key_ == "pg_config";
    const bool pg_item = top.pg_list && is_object;
    json* slot = Slot();
    if (slot != nullptr) *slot = is_object ? json::object() : json::array();
    frames_.push_back({slot, is_object, pg_list, pg_item});
  }
  // Ends the innermost open container; true when that was the whole value.
  bool End() {
    if (in_ranks_) {
      if (ranks_nest_ > 0) {
        --ranks_nest_;
      } else {
        in_ranks_ = false;
      }
      return false;
    }
    frames_.pop_back();
    return frames_.empty();
  }

  // True inside a ranks array, outside anything nested in it: the next integers are ranks.
  [[nodiscard]] bool at_ranks() const { return in_ranks_ && ranks_nest_ == 0; }
  void AppendRank(int rank) { rank_lists_.back().Append(rank); }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const json& root() const { return root_; }
  [[nodiscard]] std::vector<RankList>& rank_lists() { return rank_lists_; }
  [[nodiscard]] size_t dropped() const { return dropped_; }
  // The rank list a ranks member holds (its placeholder), or nullptr.
  RankList* RanksOf(const json& v) {
    if (!v.is_binary() || !v.get_binary().has_subtype()) return nullptr;
    const auto i = v.get_binary().subtype();
    return i < rank_lists_.size() ? &rank_lists_[i] : nullptr;
  }
  // Frees what the capture holds.
  void Clear() {
    root_ = json();
    rank_lists_.clear();
    frames_.clear();
  }

 private:
  struct Frame {
    json* node;    // nullptr: dropped (past the cap)
    bool is_object;
    bool pg_list;  // distributedInfo.pg_config
    bool pg_item;  // an object of pg_config
  };
  // Where the next value goes in the innermost container, or nullptr when it is dropped.
  json* Slot() {
    json* top = frames_.back().node;
    if (top == nullptr || ++count_ > kMaxMetaValues) {
      ++dropped_;
      return nullptr;
    }
    if (top->is_array()) {
      top->push_back(nullptr);
      return &top->back();
    }
    return &(*top)[key_];
  }

  std::string name_;
  json root_;
  std::vector<Frame> frames_;
  std::vector<RankList> rank_lists_;
  std::string key_;
  size_t count_ = 0;
  size_t dropped_ = 0;
  bool in_ranks_ = false;
  int ranks_nest_ = 0;  // containers open inside a ranks array
};

// SAX over a string-valued distributedInfo (a JSON object in a string), into a MetaCapture.
class MetaStringSax {
 public:
  explicit MetaStringSax(MetaCapture& cap) : cap_(cap) {}
  bool null() { return Put(Scalar{}); }
  bool boolean(bool v) {
    Scalar s;
    s.kind = Scalar::kBool;
    s.i = v ? 1 : 0;
    return Put(s);
  }
  bool number_integer(json::number_integer_t v) {
    Scalar s;
    s.kind = Scalar::kInt;
    s.i = v;
    return Put(s);
  }
  bool number_unsigned(json::number_unsigned_t v) { return Put(Scalar::Unsigned(v)); }
  bool number_float(json::number_float_t v, const json::string_t& /*unused*/) { return Put(Scalar::Float(v)); }
  bool string(json::string_t& v) { return Put(Scalar::String(std::move(v))); }
  bool binary(json::binary_t& /*unused*/) { return Put(Scalar{}); }
  bool start_object(std::size_t /*unused*/) {
    if (!started_) {
      started_ = true;
      cap_.Begin("distributedInfo", true);
    } else {
      cap_.Start(true);
    }
    return true;
  }
  bool start_array(std::size_t /*unused*/) {
    if (!started_) return false;  // not an object
    cap_.Start(false);
    return true;
  }
  bool end_object() { return End(); }
  bool end_array() { return End(); }
  bool key(json::string_t& k) {
    cap_.Key(k);
    return true;
  }
  bool parse_error(std::size_t /*unused*/, const std::string& /*unused*/, const nlohmann::detail::exception& /*unused*/) {
    return false;
  }
  [[nodiscard]] bool complete() const { return complete_; }

 private:
  bool Put(const Scalar& s) {
    if (!started_) return false;  // not an object
    cap_.Value(s);
    return true;
  }
  bool End() {
    complete_ = cap_.End();
    return true;
  }
  MetaCapture& cap_;
  bool started_ = false;
  bool complete_ = false;
};

// ---------------------------------------------------------------------------------------------
// The SAX handler.

enum class Mode { kScan, kEmit, kEmitOnePass };

struct PassOutcome {
  bool root_seen = false;       // root value started (object or array)
  bool not_trace = false;       // root was a scalar
  bool saw_events = false;      // a traceEvents array (or array root) was entered
  bool parse_failed = false;
  int64_t error_offset = -1;
  std::string error_message;
  bool lexed_aside = false;     // some bytes were lexed beside the parser (its positions miss them)
};

// What the scan pass leaves for the emit pass: where each top-level value other than the events
// array starts and ends ([first, second) positions in the rewritten stream), so that the emit pass
// skips those bytes instead of lexing them again.
struct ScanMemo {
  std::vector<std::pair<int64_t, int64_t>> top_values;
};

// How a pass links to the others of a read.
struct PassLinks {
  ScanMemo* memo = nullptr;              // filled by a scan pass, used by the emit pass after it
  const PassOutcome* scan = nullptr;     // the scan pass's outcome, for the emit pass after it
  bool fast_ranks = false;               // scan: lex plain rank lists beside the parser
};

class TraceSax {
 public:
  TraceSax(Mode mode, ChromeTraceInfo& info, const ChromeTraceOptions& options, std::string_view source,
           const TraceEventSink* sink, Diagnostics* diag, ReadCounts* counts, InputStreamBuf& buf,
           const PassLinks& links)
      : mode_(mode), info_(info), opt_(options), source_(source), sink_(sink), diag_(diag),
        counts_(counts), buf_(buf), memo_(links.memo), fast_ranks_(links.fast_ranks && mode == Mode::kScan) {}

  PassOutcome outcome;

  // --- nlohmann SAX interface.
  bool null() { Scalar s; s.kind = Scalar::kNull; return OnScalar(s); }
  bool boolean(bool v) { Scalar s; s.kind = Scalar::kBool; s.i = v ? 1 : 0; return OnScalar(s); }
  bool number_integer(json::number_integer_t v) { Scalar s; s.kind = Scalar::kInt; s.i = v; return OnScalar(s); }
  bool number_unsigned(json::number_unsigned_t v) {
    Scalar s = Scalar::Unsigned(v);
    return OnScalar(s);
  }
  bool number_float(json::number_float_t v, const json::string_t& text) {
    Scalar s = Scalar::Float(v, text);
    return OnScalar(s);
  }
  bool string(json::string_t& v) {
    Scalar s = Scalar::String(std::move(v));
    return OnScalar(s);
  }
  bool binary(json::binary_t& /*unused*/) { Scalar s; s.kind = Scalar::kNull; return OnScalar(s); }
  bool start_object(std::size_t /*unused*/) { return OnStart(true); }
  bool start_array(std::size_t /*unused*/) { return OnStart(false); }
  bool end_object() { return OnEnd(); }
  bool end_array() { return OnEnd(); }
  bool key(json::string_t& k) {
    if (in_event_) {
      if (ev_ignore_ > 0) return true;
      if (ev_level_ == 1) {
        key1_ = k;
      } else {
        key2_ = k;
      }
      return true;
    }
    if (meta_active_) {
      meta_.Key(k);
      return true;
    }
    if (skip_ > 0) return true;
    if (depth_ == 1) top_key_ = k;
    return true;
  }
  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception& ex) {
    outcome.parse_failed = true;
    // The lexer's position counts the bytes it consumed; the stream buffer knows the same.
    const int64_t pos = std::max<int64_t>(static_cast<int64_t>(position), 0);
    outcome.error_offset = buf_.ToOriginal(std::max<int64_t>(pos - 1, 0));
    std::string what = ex.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix.
    if (auto p = what.find("] "); p != std::string::npos && StartsWith(what, "[json.")) what = what.substr(p + 2);
    outcome.error_message = what;
    last_token_ = last_token;
    return false;
  }

  [[nodiscard]] const std::string& last_token() const { return last_token_; }
  [[nodiscard]] bool events_started() const { return events_emitted_any_; }

 private:
  // ---- dispatch
  bool OnScalar(Scalar& s) {
    if (in_event_) {
      if (ev_ignore_ > 0) return true;
      if (ev_level_ == 1) {
        SetEventField(s);
      } else {
        args_.emplace_back(key2_, std::move(s));
      }
      return true;
    }
    if (meta_active_) {
      meta_.Value(s);
      if (fast_ranks_ && meta_.at_ranks() && (s.kind == Scalar::kInt || s.kind == Scalar::kUint)) LexRanks();
      return true;
    }
    if (skip_ > 0) return true;
    if (depth_ == 0) {
      outcome.not_trace = true;
      return false;
    }
    if (events_depth_ == depth_) {
      // A non-object element of the events array.
      if (mode_ != Mode::kScan) {
        ++counts_->read;
        ++counts_->rejected;
        std::string raw;
        s.Text(&raw);
        diag_->RejectAtByte(source_, buf_.ToOriginal(buf_.Position() - 1), raw, "trace event is not an object");
      }
      return true;
    }
    if (depth_ == 1 && root_object_) TopScalar(top_key_, s);
    return true;
  }

  bool OnStart(bool is_object) {
    if (in_event_) {
      if (ev_ignore_ > 0) {
        ++ev_ignore_;
      } else if (ev_level_ == 1 && is_object && key1_ == "args") {
        ev_level_ = 2;
      } else {
        ev_ignore_ = 1;
      }
      return true;
    }
    if (meta_active_) {
      meta_.Start(is_object);
      return true;
    }
    if (skip_ > 0) {
      ++skip_;
      return true;
    }
    if (depth_ == 0) {
      outcome.root_seen = true;
      depth_ = 1;
      if (is_object) {
        root_object_ = true;
      } else {
        info_.array_form = true;
        events_depth_ = 1;
        outcome.saw_events = true;
      }
      return true;
    }
    if (depth_ == events_depth_) {
      if (is_object) {
        BeginEvent();
      } else {
        if (mode_ != Mode::kScan) {
          ++counts_->read;
          ++counts_->rejected;
          diag_->RejectAtByte(source_, buf_.ToOriginal(buf_.Position() - 1), "[", "trace event is not an object");
        }
        skip_ = 1;
      }
      return true;
    }
    if (depth_ == 1 && root_object_) {
      if (top_key_ == "traceEvents" && !is_object) {
        depth_ = 2;
        events_depth_ = 2;
        outcome.saw_events = true;
        return true;
      }
      return OnTopValueStart(is_object);
    }
    skip_ = 1;
    return true;
  }

  // A top-level value other than the events array: the scan pass notes where it starts (and
  // captures distributedInfo / deviceProperties), the emit pass skips what the scan pass read.
  bool OnTopValueStart(bool is_object) {
    const int64_t start = buf_.Position() - 1;
    if (mode_ == Mode::kEmit) {
      const size_t i = top_value_index_++;
      if (memo_ != nullptr && i < memo_->top_values.size() && memo_->top_values[i].first == start) {
        buf_.SkipTo(memo_->top_values[i].second - 1);  // the parser reads the closing bracket next
      }
      skip_ = 1;
      return true;
    }
    top_value_start_ = start;
    if (top_key_ == "distributedInfo" || top_key_ == "deviceProperties") {
      meta_active_ = true;
      meta_.Begin(top_key_, is_object);
      return true;
    }
    skip_ = 1;
    return true;
  }
  void OnTopValueEnd() {
    if (top_value_start_ < 0) return;
    if (memo_ != nullptr) memo_->top_values.emplace_back(top_value_start_, buf_.Position());
    top_value_start_ = -1;
  }

  bool OnEnd() {
    if (in_event_) {
      if (ev_ignore_ > 0) {
        --ev_ignore_;
      } else if (ev_level_ == 2) {
        ev_level_ = 1;
      } else {
        in_event_ = false;
        FinishEvent();
      }
      return true;
    }
    if (meta_active_) {
      if (meta_.End()) {
        meta_active_ = false;
        OnTopValueEnd();
        ApplyMeta(meta_.name(), meta_.root(), meta_);
        NoteDropped(meta_);
        meta_.Clear();
      }
      return true;
    }
    if (skip_ > 0) {
      if (--skip_ == 0) OnTopValueEnd();
      return true;
    }
    if (depth_ == events_depth_) {
      events_depth_ = -1;
      depth_ -= 1;
      return true;
    }
    depth_ = std::max(0, depth_ - 1);
    return true;
  }

  // ---- top-level metadata
  // Right after a rank the parser has read the byte after it; when that was a comma, the plain
  // `int,` pairs buffered next ("1,2,3,") are lexed here, each only when the byte after its comma
  // (buffered too) starts another number, so the parser goes on with a number after the comma it
  // holds, as it would have. Integers of up to 18 digits; anything else is left to the parser.
  void LexRanks() {
    if (buf_.PrevByte() != ',') return;
    const std::string_view a = buf_.Ahead();
    size_t done = 0;
    for (size_t i = 0;;) {
      size_t j = i;
      const bool neg = j < a.size() && a[j] == '-';
      if (neg) ++j;
      const size_t d0 = j;
      uint64_t v = 0;  // 19 digits at most: < 10^19 < 2^64
      while (j < a.size() && a[j] >= '0' && a[j] <= '9' && j - d0 < 19) v = v * 10 + static_cast<unsigned>(a[j++] - '0');
      const size_t digits = j - d0;
      if (digits == 0 || digits > 18 || (a[d0] == '0' && digits > 1)) break;
      if (j + 1 >= a.size() || a[j] != ',' || !(a[j + 1] == '-' || (a[j + 1] >= '0' && a[j + 1] <= '9'))) break;
      const auto x = static_cast<int64_t>(v);  // < 10^18
      meta_.AppendRank(static_cast<int>(neg ? -x : x));
      i = j + 1;
      done = i;
    }
    if (done > 0) buf_.Consume(done);
  }

  void NoteDropped(const MetaCapture& cap) {
    if (cap.dropped() == 0) return;
    diag_->Warn(source_, 0, cap.name(),
                "only the first " + std::to_string(kMaxMetaValues) + " values of " + cap.name() + " were read; " +
                    std::to_string(cap.dropped()) +
                    " more were dropped (pg_config ranks lists are read whole and do not count)");
  }

  void NoteLateMeta(std::string_view what) {
    if (mode_ == Mode::kEmitOnePass && events_emitted_any_) {
      diag_->Warn(source_, 0, std::string(what),
                  "metadata follows traceEvents in a one-pass read; events already read did not use it");
    }
  }

  void TopScalar(const std::string& key, const Scalar& s) {
    if (mode_ == Mode::kEmit) return;  // the scan pass read the metadata
    if (key == "baseTimeNanoseconds") {
      std::optional<int64_t> v = ScalarToScaled(s, 0);
      if (!v && s.kind == Scalar::kString) v = ParseInt(Trim(s.text));
      if (v) {
        if (!info_.has_base_time) NoteLateMeta("baseTimeNanoseconds");
        info_.has_base_time = true;
        info_.base_time_ns = *v;
        info_.relative_axis = false;
      }
    } else if (key == "displayTimeUnit" && s.kind == Scalar::kString) {
      info_.display_time_unit = s.text;
    } else if (key == "traceName" && s.kind == Scalar::kString) {
      info_.trace_name = s.text;
    } else if (key == "schemaVersion") {
      if (auto v = s.AsInt()) info_.schema_version = *v;
    } else if (key == "distributedInfo" && s.kind == Scalar::kString) {
      MetaCapture cap;
      MetaStringSax sax(cap);
      bool ok = false;
      try {
        ok = json::sax_parse(s.text, &sax, json::input_format_t::json, true, false);
      } catch (const std::exception&) {
        ok = false;
      }
      if (ok && sax.complete()) {
        ApplyMeta("distributedInfo", cap.root(), cap);
        NoteDropped(cap);
      }
    }
  }

  static int IntOr(const json& o, const char* k, int dflt) {
    auto it = o.find(k);
    if (it == o.end() || !it->is_number_integer()) return dflt;
    const auto v = it->get<int64_t>();
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) return dflt;
    return static_cast<int>(v);
  }
  static std::string StrOr(const json& o, const char* k) {
    auto it = o.find(k);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  }

  // Applies a captured value; the ranks lists move out of `cap`.
  void ApplyMeta(const std::string& name, const json& j, MetaCapture& cap) {
    if (name == "distributedInfo" && j.is_object()) {
      if (!info_.distributed.present) NoteLateMeta("distributedInfo");
      DistributedInfo d;
      d.present = true;
      d.backend = StrOr(j, "backend");
      d.rank = IntOr(j, "rank", -1);
      d.world_size = IntOr(j, "world_size", -1);
      d.pg_count = IntOr(j, "pg_count", -1);
      d.nccl_version = StrOr(j, "nccl_version");
      if (auto it = j.find("pg_config"); it != j.end() && it->is_array()) {
        for (const auto& p : *it) {
          if (!p.is_object()) continue;
          ProcessGroupConfig pg;
          pg.pg_name = StrOr(p, "pg_name");
          pg.pg_desc = StrOr(p, "pg_desc");
          pg.backend_config = StrOr(p, "backend_config");
          pg.pg_size = IntOr(p, "pg_size", -1);
          if (auto r = p.find("ranks"); r != p.end()) {
            if (RankList* ranks = cap.RanksOf(*r)) pg.ranks = std::move(*ranks);
          }
          d.pg_config.push_back(std::move(pg));
        }
      }
      info_.distributed = std::move(d);
    } else if (name == "deviceProperties" && j.is_array()) {
      info_.devices.clear();
      for (const auto& p : j) {
        if (!p.is_object()) continue;
        DeviceProperties dp;
        dp.id = IntOr(p, "id", -1);
        dp.name = StrOr(p, "name");
        if (auto it = p.find("totalGlobalMem"); it != p.end() && it->is_number_integer()) {
          dp.total_global_mem_bytes = it->get<int64_t>();
        }
        dp.compute_major = IntOr(p, "computeMajor", -1);
        dp.compute_minor = IntOr(p, "computeMinor", -1);
        dp.num_sms = IntOr(p, "numSms", -1);
        info_.devices.push_back(std::move(dp));
      }
    }
  }

  // ---- events
  void BeginEvent() {
    in_event_ = true;
    ev_level_ = 1;
    ev_ignore_ = 0;
    key1_.clear();
    key2_.clear();
    ph_.Clear();
    name_.Clear();
    cat_.Clear();
    ts_.Clear();
    dur_.Clear();
    pid_.Clear();
    tid_.Clear();
    id_.Clear();
    args_.clear();
    ev_offset_ = buf_.ToOriginal(buf_.Position() - 1);
  }

  void SetEventField(Scalar& s) {
    const std::string& k = key1_;
    if (k == "ph") ph_ = std::move(s);
    else if (k == "name") name_ = std::move(s);
    else if (k == "cat") cat_ = std::move(s);
    else if (k == "ts") ts_ = std::move(s);
    else if (k == "dur") dur_ = std::move(s);
    else if (k == "pid") pid_ = std::move(s);
    else if (k == "tid") tid_ = std::move(s);
    else if (k == "id") id_ = std::move(s);
  }

  static int64_t IdOf(const Scalar& s) {
    if (auto v = s.AsInt()) return *v;
    return -1;
  }

  std::string RawSummary() const {
    std::string raw = "{";
    std::string v;
    auto add = [&](const char* k, const Scalar& s) {
      if (s.kind == Scalar::kNone) return;
      if (raw.size() > 1) raw += ", ";
      raw += k;
      raw += ": ";
      if (s.kind == Scalar::kNull) {
        raw += "null";
      } else {
        s.Text(&v);
        raw += v;
      }
    };
    add("ph", ph_);
    add("name", name_);
    add("cat", cat_);
    add("ts", ts_);
    add("dur", dur_);
    add("pid", pid_);
    add("tid", tid_);
    raw += "}";
    return raw;
  }

  void Reject(const std::string& reason) {
    ++counts_->rejected;
    diag_->RejectAtByte(source_, ev_offset_, RawSummary(), reason);
  }

  std::string DeviceFor(int64_t pid, bool pid_numeric) const {
    if (const Scalar* s = FindArg(args_, "device_name"); s != nullptr && s->kind == Scalar::kString) return s->text;
    if (const Scalar* s = FindArg(args_, "device"); s != nullptr) {
      if (auto v = s->AsInt()) return "gpu" + std::to_string(*v);
    }
    if (pid_numeric) {
      auto it = info_.process_labels.find(pid);
      if (it != info_.process_labels.end() && StartsWith(it->second, "GPU ")) {
        if (auto n = ParseInt(Trim(std::string_view(it->second).substr(4)))) return "gpu" + std::to_string(*n);
      }
    }
    return "cpu";
  }

  void ScanMetadataEvent() {
    if (ph_.kind != Scalar::kString || ph_.text != "M" || name_.kind != Scalar::kString) return;
    const auto pid = pid_.AsInt();
    if (!pid) return;
    const Scalar* name = FindArg(args_, "name");
    const Scalar* labels = FindArg(args_, "labels");
    if (name_.text == "process_name" && name != nullptr && name->kind == Scalar::kString) {
      info_.process_names[*pid] = name->text;
    } else if (name_.text == "process_labels" && labels != nullptr && labels->kind == Scalar::kString) {
      info_.process_labels[*pid] = labels->text;
    } else if (name_.text == "thread_name" && name != nullptr && name->kind == Scalar::kString) {
      if (auto tid = tid_.AsInt()) info_.thread_names[{*pid, *tid}] = name->text;
    }
  }

  void FinishEvent() {
    if (mode_ == Mode::kScan) {
      ScanMetadataEvent();
      return;
    }
    if (mode_ == Mode::kEmitOnePass) ScanMetadataEvent();
    ++counts_->read;
    if (ph_.kind == Scalar::kNone) return Reject("missing ph");
    if (ph_.kind != Scalar::kString || ph_.text.size() != 1 ||
        std::string_view("XBEiIMstfbneC").find(ph_.text[0]) == std::string_view::npos) {
      std::string v;
      ph_.Text(&v);
      return Reject("unknown ph '" + v + "'");
    }
    const char ph = ph_.text[0];
    TraceEvent e;
    e.phase = ph;
    // Time.
    if (ts_.kind == Scalar::kNone) {
      if (ph != 'M') return Reject("missing ts");
    } else {
      if (!ts_.numeric()) return Reject("ts is not a number");
      auto ts_ns = ScalarToScaled(ts_, 3);
      if (!ts_ns) return Reject("ts out of range");
      int64_t local = *ts_ns;
      if (info_.has_base_time && __builtin_add_overflow(info_.base_time_ns, *ts_ns, &local)) {
        return Reject("ts out of range after adding baseTimeNanoseconds");
      }
      if (!info_.has_base_time && !axis_decided_) {
        info_.relative_axis = local < kEpochThresholdNs;
        axis_decided_ = true;
      }
      e.local_ts_ns = local;
    }
    if (dur_.kind != Scalar::kNone) {
      if (!dur_.numeric()) return Reject("dur is not a number");
      auto d = ScalarToScaled(dur_, 3);
      if (!d) return Reject("dur out of range");
      if (*d < 0) return Reject("dur is negative");
      e.dur_ns = *d;
    }
    // Identity.
    bool pid_numeric = true;
    if (auto p = pid_.AsInt()) {
      e.pid = *p;
    } else if (pid_.kind == Scalar::kNone) {
      e.pid = 0;
    } else {
      e.pid = -1;
      pid_numeric = false;
    }
    if (auto t = tid_.AsInt()) {
      e.tid = *t;
    } else {
      e.tid = tid_.kind == Scalar::kNone ? 0 : -1;
    }
    if (name_.kind != Scalar::kNone) name_.Text(&e.type);
    if (cat_.kind != Scalar::kNone) cat_.Text(&e.category);
    e.source_file = std::string(source_);
    e.byte_offset = ev_offset_;
    e.line = 0;
    if (!opt_.host.empty()) {
      e.host = opt_.host;
    } else if (const Scalar* h = FindArg(args_, "host"); h != nullptr && h->kind == Scalar::kString) {
      e.host = h->text;
    }
    if (opt_.rank_override >= 0) {
      e.rank = opt_.rank_override;
    } else if (const Scalar* r = FindArg(args_, "rank"); r != nullptr && r->AsInt() &&
               *r->AsInt() >= -1 && *r->AsInt() <= std::numeric_limits<int>::max()) {
      e.rank = static_cast<int>(*r->AsInt());
    } else {
      e.rank = info_.distributed.rank;
    }
    e.device = DeviceFor(e.pid, pid_numeric);

    if (ph == 'M') {
      for (const char* k : {"name", "labels", "sort_index"}) {
        if (const Scalar* s = FindArg(args_, k)) {
          s->Text(&e.context);
          break;
        }
      }
      ++counts_->accepted;
      if (opt_.include_metadata_events) Emit(std::move(e));
      return;
    }
    if (ph == 'C') {
      int series = 0;
      for (const auto& [k, v] : args_) {
        if (!v.numeric()) continue;
        TraceEvent c = e;
        c.context = k;
        c.value = v.AsDouble();
        Emit(std::move(c));
        ++series;
      }
      if (series == 0) return Reject("counter event without a numeric series in args");
      ++counts_->accepted;
      return;
    }
    e.context = ComposeContext(id_, args_);
    ++counts_->accepted;
    Emit(std::move(e));
  }

  void Emit(TraceEvent&& e) {
    events_emitted_any_ = true;
    ++info_.events_emitted;
    if (*sink_) (*sink_)(std::move(e));
  }

  Mode mode_;
  ChromeTraceInfo& info_;
  const ChromeTraceOptions& opt_;
  std::string_view source_;
  const TraceEventSink* sink_;
  Diagnostics* diag_;
  ReadCounts* counts_;
  InputStreamBuf& buf_;

  int depth_ = 0;
  bool root_object_ = false;
  int events_depth_ = -1;
  int skip_ = 0;
  std::string top_key_;
  bool axis_decided_ = false;
  bool events_emitted_any_ = false;
  std::string last_token_;

  ScanMemo* memo_;
  bool fast_ranks_;
  int64_t top_value_start_ = -1;  // scan: where the open top-level value began (-1: none open)
  size_t top_value_index_ = 0;    // emit: top-level values met so far

  // metadata value capture
  bool meta_active_ = false;
  MetaCapture meta_;

  // event capture
  bool in_event_ = false;
  int ev_level_ = 0;
  int ev_ignore_ = 0;
  int64_t ev_offset_ = -1;
  std::string key1_, key2_;
  Scalar ph_, name_, cat_, ts_, dur_, pid_, tid_, id_;
  ArgList args_;
};

PassOutcome RunPass(InputStream& in, Mode mode, ChromeTraceInfo& info, const ChromeTraceOptions& options,
                    std::string_view source, const TraceEventSink& sink, Diagnostics& diag, ReadCounts& counts,
                    const PassLinks& links = {}) {
  const PassOutcome* scan = links.scan;
  InputStreamBuf buf(in, options.lenient_hex);
  std::istream is(&buf);
  TraceSax sax(mode, info, options, source, &sink, &diag, &counts, buf, links);
  bool ok = false;
  try {
    ok = json::sax_parse(is, &sax, json::input_format_t::json, true, false);
  } catch (const std::exception& ex) {
    sax.outcome.parse_failed = true;
    sax.outcome.error_offset = buf.ToOriginal(buf.Position());
    sax.outcome.error_message = ex.what();
  }
  PassOutcome out = sax.outcome;
  out.lexed_aside = buf.consumed() > 0;
  if (!ok && !out.parse_failed && !out.not_trace) {
    out.parse_failed = true;
    out.error_offset = buf.ToOriginal(buf.Position());
    out.error_message = "parse stopped";
  }
  if (const Error* e = buf.error()) {
    out.parse_failed = true;
    out.error_offset = buf.ToOriginal(buf.Position());
    out.error_message = "read error: " + e->message;
  } else if (buf.skipped() > 0 && out.parse_failed && scan != nullptr && scan->parse_failed) {
    // The parser did not see the skipped bytes, so its position and line/column are short of them;
    // the scan pass stopped at the same token having seen them all.
    out.error_offset = scan->error_offset;
    out.error_message = scan->error_message;
  }
  if (mode != Mode::kScan && out.parse_failed && out.root_seen) {
    info.truncated = true;
    info.error_byte_offset = out.error_offset;
    ++counts.read;
    ++counts.rejected;
    std::string reason = "JSON breaks off at byte " + std::to_string(out.error_offset) + " (" + out.error_message +
                         "); " + std::to_string(info.events_emitted) + " events before it were kept, nothing after it is read";
    diag.RejectAtByte(source, out.error_offset, sax.last_token(), reason);
  }
  return out;
}

Result<ChromeTraceInfo> Finish(const PassOutcome& p, std::string_view source, ChromeTraceInfo info) {
  if (!p.root_seen || p.not_trace) {
    std::string msg = "not a Chrome trace: the input is not a JSON object or array";
    if (p.parse_failed && !p.error_message.empty()) msg += " (" + p.error_message + ")";
    return MakeError(std::string(source), 0, 0, msg, "expected {\"traceEvents\":[...]} or [...]");
  }
  if (!p.saw_events && !p.parse_failed) {
    return MakeError(std::string(source), 0, 0, "not a Chrome trace: no traceEvents array",
                     "a Chrome/Kineto trace has a top-level \"traceEvents\" list");
  }
  return info;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// trace_event.h free functions.

CollectiveInfo ParseNcclKernelName(std::string_view name) {
  CollectiveInfo ci;
  name = Trim(name);
  if (StartsWith(name, "void ")) name = Trim(name.substr(5));
  if (auto p = name.find('('); p != std::string_view::npos) name = name.substr(0, p);
  if (auto p = name.find('<'); p != std::string_view::npos) name = name.substr(0, p);
  name = Trim(name);
  static constexpr std::array<std::string_view, 9> kAlgos = {"COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS_TREE", "COLLNET",
                                                             "RING", "TREE", "NVLS", "PAT", "CollNet"};
  static constexpr std::array<std::string_view, 3> kProtos = {"LL128", "SIMPLE", "LL"};
  auto parts = Split(name, '_');
  auto join = [&](size_t b, size_t e) {
    std::string s;
    for (size_t i = b; i < e; ++i) {
      if (i > b) s += '_';
      s += parts[i];
    }
    return s;
  };
  // Matches an algorithm spelled over parts[i..]; returns how many parts it spans (0: none).
  auto algo_at = [&](size_t i, std::string* out) -> size_t {
    for (auto a : kAlgos) {
      auto ap = Split(a, '_');
      if (i + ap.size() > parts.size()) continue;
      bool ok = true;
      for (size_t k = 0; k < ap.size() && ok; ++k) ok = parts[i + k] == ap[k];
      if (ok) {
        *out = std::string(a);
        return ap.size();
      }
    }
    return 0;
  };
  auto is_proto = [&](std::string_view p) {
    return std::find(kProtos.begin(), kProtos.end(), p) != kProtos.end();
  };
  if (StartsWith(name, "ncclKernel_") && parts.size() >= 2 && !parts[1].empty()) {
    ci.is_nccl = true;
    ci.era = 218;
    ci.collective = std::string(parts[1]);
    size_t i = 2;
    std::string algo;
    if (size_t n = algo_at(i, &algo); n > 0 && i + n < parts.size() && is_proto(parts[i + n])) {
      ci.algo = algo;
      ci.proto = std::string(parts[i + n]);
      i += n + 1;
    } else {
      ci.generic = true;
    }
    if (i < parts.size()) ci.redop = std::string(parts[i++]);
    if (i < parts.size()) ci.dtype = join(i, parts.size());
    return ci;
  }
  if (StartsWith(name, "ncclDevKernel_") && parts.size() >= 2 && !parts[1].empty()) {
    ci.is_nccl = true;
    ci.era = 219;
    ci.collective = std::string(parts[1]);
    size_t end = parts.size();
    // Suffix _<ALGO>_<PROTO>.
    if (end >= 4 && is_proto(parts[end - 1])) {
      for (size_t start = 2; start + 1 < end; ++start) {
        std::string algo;
        const size_t n = algo_at(start, &algo);
        if (n > 0 && start + n == end - 1) {
          ci.algo = algo;
          ci.proto = std::string(parts[end - 1]);
          end = start;
          break;
        }
      }
    }
    ci.generic = ci.algo.empty();
    if (end > 2) ci.redop = std::string(parts[2]);
    if (end > 3) ci.dtype = join(3, end);
    return ci;
  }
  // Pre-2.8 spellings (ncclAllReduceRingLLKernel_sum_f32): NCCL, nothing decoded.
  if (StartsWith(name, "nccl") && Contains(name, "Kernel") && !StartsWith(name, "ncclKernel_") &&
      !StartsWith(name, "ncclDevKernel_")) {
    ci.is_nccl = true;
  }
  return ci;
}

std::string ContextValue(std::string_view context, std::string_view key) {
  for (auto part : Split(context, ';')) {
    auto eq = part.find('=');
    if (eq == std::string_view::npos) continue;
    if (part.substr(0, eq) == key) return std::string(part.substr(eq + 1));
  }
  return {};
}

void AppendJsonString(std::string* out, std::string_view s) {
  *out += '"';
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': *out += "\\\""; break;
        case '\\': *out += "\\\\"; break;
        case '\n': *out += "\\n"; break;
        case '\r': *out += "\\r"; break;
        case '\t': *out += "\\t"; break;
        default:
          if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\u%04x", c);
            *out += buf;
          } else {
            *out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // Validate one UTF-8 sequence; replace invalid bytes by U+FFFD.
    size_t len = 0;
    uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) ok = false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (ok) {
      if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
          (cp >= 0xD800 && cp <= 0xDFFF)) {
        ok = false;
      }
    }
    if (ok) {
      out->append(s.data() + i, len);
      i += len;
    } else {
      *out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  *out += '"';
}


// ---------------------------------------------------------------------------------------------
// Reading.

std::unique_ptr<std::streambuf> MakeInputStreamBuf(InputStream& in) {
  return std::make_unique<InputStreamBuf>(in, false);
}

std::unique_ptr<InputStream> MakeStringInputStream(std::string_view text, std::string source) {
  return std::make_unique<StringInputStream>(text, std::move(source));
}

Result<ChromeTraceInfo> ReadChromeTrace(const std::function<Result<std::unique_ptr<InputStream>>()>& open,
                                        std::string_view source, const ChromeTraceOptions& options,
                                        const TraceEventSink& sink, Diagnostics& diag, ReadCounts& counts) {
  ChromeTraceInfo info;
  auto s1 = open();
  if (!s1.ok()) return s1.error();
  ReadCounts scratch;
  ScanMemo memo;
  PassOutcome p1 = RunPass(**s1, Mode::kScan, info, options, source, sink, diag, scratch, {&memo, nullptr, true});
  if (!p1.root_seen || p1.not_trace || (!p1.saw_events && !p1.parse_failed)) return Finish(p1, source, info);
  s1->reset();
  if (p1.parse_failed && p1.lexed_aside) {
    // The parser's position and line/column miss the ranks lexed beside it: a plain scan (of a
    // broken input only) finds where and how the JSON breaks, as the emit pass reports it.
    auto s3 = open();
    if (!s3.ok()) return s3.error();
    ChromeTraceInfo again;
    Diagnostics quiet;
    ReadCounts none;
    const PassOutcome exact = RunPass(**s3, Mode::kScan, again, options, source, sink, quiet, none);
    p1.error_offset = exact.error_offset;
    p1.error_message = exact.error_message;
  }
  auto s2 = open();
  if (!s2.ok()) return s2.error();
  const PassOutcome p2 = RunPass(**s2, Mode::kEmit, info, options, source, sink, diag, counts, {&memo, &p1, false});
  return Finish(p2, source, std::move(info));
}

Result<ChromeTraceInfo> ReadChromeTraceFile(const std::string& path, const ChromeTraceOptions& options,
                                            const TraceEventSink& sink, Diagnostics& diag, ReadCounts& counts) {
  if (path == "-") {
    auto in = OpenInput(path);
    if (!in.ok()) return in.error();
    return ReadChromeTraceOnePass(**in, path, options, sink, diag, counts);
  }
  return ReadChromeTrace([&path]() { return OpenInput(path); }, path, options, sink, diag, counts);
}

Result<ChromeTraceInfo> ReadChromeTraceOnePass(InputStream& in, std::string_view source,
                                               const ChromeTraceOptions& options, const TraceEventSink& sink,
                                               Diagnostics& diag, ReadCounts& counts) {
  ChromeTraceInfo info;
  const PassOutcome p = RunPass(in, Mode::kEmitOnePass, info, options, source, sink, diag, counts);
  return Finish(p, source, std::move(info));
}

Result<ChromeTraceInfo> ParseChromeTrace(std::string_view text, std::string_view source,
                                         const ChromeTraceOptions& options, const TraceEventSink& sink,
                                         Diagnostics& diag, ReadCounts& counts) {
  const std::string src(source);
  return ReadChromeTrace(
      [&]() -> Result<std::unique_ptr<InputStream>> { return MakeStringInputStream(text, src); }, source, options,
      sink, diag, counts);
}

Result<std::vector<TraceEvent>> ParseChromeTraceEvents(std::string_view text, std::string_view source,
                                                       const ChromeTraceOptions& options, Diagnostics& diag,
                                                       ReadCounts& counts, ChromeTraceInfo* info) {
  std::vector<TraceEvent> events;
  auto r = ParseChromeTrace(text, source, options, [&](TraceEvent&& e) { events.push_back(std::move(e)); }, diag,
                            counts);
  if (!r.ok()) return r.error();
  if (info != nullptr) *info = std::move(*r);
  return events;
}

// ---------------------------------------------------------------------------------------------
// RankList.

RankList::RankList(std::initializer_list<int> ranks) {
  for (int r : ranks) Append(r);
}

void RankList::Append(int rank) { AppendRun(rank, rank); }

void RankList::AppendRun(int first, int last) {
  if (last < first) return;
  size_ += static_cast<size_t>(static_cast<int64_t>(last) - first + 1);
  if (!runs_.empty() && runs_.back().last != std::numeric_limits<int>::max() && runs_.back().last + 1 == first) {
    runs_.back().last = last;
    return;
  }
  runs_.push_back({first, last});
}

std::vector<int> RankList::ToVector() const {
  std::vector<int> out;
  out.reserve(size_);
  for (const RankRun& r : runs_) {
    for (int64_t v = r.first; v <= r.last; ++v) out.push_back(static_cast<int>(v));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Writing.

std::string FormatUsFromNs(int64_t ns) {
  const bool neg = ns < 0;
  const uint64_t a = neg ? (0 - static_cast<uint64_t>(ns)) : static_cast<uint64_t>(ns);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%s%llu.%03llu", neg ? "-" : "", static_cast<unsigned long long>(a / 1000),
                static_cast<unsigned long long>(a % 1000));
  return buf;
}

ChromeTraceWriter::ChromeTraceWriter(std::ostream& out) : out_(out) {}

ChromeTraceWriter::~ChromeTraceWriter() { Finish(); }

void ChromeTraceWriter::SetBaseTime(int64_t base_time_ns) {
  if (started_) return;
  has_base_ = true;
  base_ns_ = base_time_ns;
  header_ += "\"baseTimeNanoseconds\":" + std::to_string(base_time_ns) + ",";
}

namespace {

// The ranks, comma separated.
void AppendRanks(std::string* out, const RankList& ranks) {
  out->reserve(out->size() + ranks.size() * 7);
  bool first = true;
  char buf[16];
  for (const RankRun& r : ranks.runs()) {
    for (int64_t v = r.first; v <= r.last; ++v) {
      if (!first) *out += ',';
      first = false;
      const auto res = std::to_chars(buf, buf + sizeof(buf), v);
      out->append(buf, res.ptr);
    }
  }
}

}  // namespace

void ChromeTraceWriter::SetDistributedInfo(const DistributedInfo& d) {
  if (started_) return;
  std::string s = "\"distributedInfo\":{";
  bool first = true;
  auto sep = [&]() {
    if (!first) s += ',';
    first = false;
  };
  if (!d.backend.empty()) { sep(); s += "\"backend\":" + JsonString(d.backend); }
  if (d.rank >= 0) { sep(); s += "\"rank\":" + std::to_string(d.rank); }
  dist_rank_ = d.rank;
  if (d.world_size >= 0) { sep(); s += "\"world_size\":" + std::to_string(d.world_size); }
  if (d.pg_count >= 0) { sep(); s += "\"pg_count\":" + std::to_string(d.pg_count); }
  if (!d.pg_config.empty()) {
    sep();
    s += "\"pg_config\":[";
    for (size_t i = 0; i < d.pg_config.size(); ++i) {
      const auto& p = d.pg_config[i];
      if (i > 0) s += ',';
      s += "{\"pg_name\":" + JsonString(p.pg_name) + ",\"pg_desc\":" + JsonString(p.pg_desc) +
           ",\"backend_config\":" + JsonString(p.backend_config);
      if (p.pg_size >= 0) s += ",\"pg_size\":" + std::to_string(p.pg_size);
      s += ",\"ranks\":[";
      AppendRanks(&s, p.ranks);
      s += "]}";
    }
    s += ']';
  }
  if (!d.nccl_version.empty()) { sep(); s += "\"nccl_version\":" + JsonString(d.nccl_version); }
  s += "},";
  header_ += s;
}

void ChromeTraceWriter::SetDeviceProperties(const std::vector<DeviceProperties>& devices) {
  if (started_) return;
  std::string s = "\"deviceProperties\":[";
  for (size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    if (i > 0) s += ',';
    s += "{\"id\":" + std::to_string(d.id) + ",\"name\":" + JsonString(d.name);
    if (d.total_global_mem_bytes >= 0) s += ",\"totalGlobalMem\":" + std::to_string(d.total_global_mem_bytes);
    if (d.compute_major >= 0) s += ",\"computeMajor\":" + std::to_string(d.compute_major);
    if (d.compute_minor >= 0) s += ",\"computeMinor\":" + std::to_string(d.compute_minor);
    if (d.num_sms >= 0) s += ",\"numSms\":" + std::to_string(d.num_sms);
    s += '}';
  }
  s += "],";
  header_ += s;
}

void ChromeTraceWriter::SetSchemaVersion(int64_t version) {
  if (started_) return;
  header_ += "\"schemaVersion\":" + std::to_string(version) + ",";
}

void ChromeTraceWriter::SetTraceName(const std::string& name) {
  if (started_) return;
  header_ += "\"traceName\":" + JsonString(name) + ",";
}

void ChromeTraceWriter::BeginEvents() {
  if (started_) return;
  started_ = true;
  out_ << "{\"displayTimeUnit\":\"ns\"," << header_ << "\"traceEvents\":[\n";
}

void ChromeTraceWriter::Sep() {
  BeginEvents();
  if (!first_event_) out_ << ",\n";
  first_event_ = false;
}

namespace {

std::string MetaEvent(const char* name, int64_t pid, int64_t tid, const std::string& args) {
  return "{\"ph\":\"M\",\"name\":\"" + std::string(name) + "\",\"pid\":" + std::to_string(pid) +
         ",\"tid\":" + std::to_string(tid) + ",\"args\":{" + args + "}}";
}

// A trace event's context decomposed into Kineto arg names: the args (JSON members) and the id, and
// whether that decomposition reads back as the same context (else `args` and `id_text` are unused).
struct KinetoContext {
  std::string args;
  std::string id_text;
  bool canonical = false;
};

KinetoContext DecomposeContext(const std::string& context) {
  KinetoContext out;
  std::string& args = out.args;
  std::string& id_text = out.id_text;
  bool& canonical = out.canonical;
  if (!context.empty()) {
    Scalar id;
    ArgList al;
    std::string kargs;
    bool ok = true;
    for (auto part : Split(context, ';')) {
      auto eq = part.find('=');
      if (eq == std::string_view::npos) {
        ok = false;
        break;
      }
      auto k = part.substr(0, eq);
      auto v = part.substr(eq + 1);
      const ContextKey* ck = nullptr;
      for (const auto& c : kContextKeys) {
        if (c.key == k) ck = &c;
      }
      if (ck == nullptr) {
        ok = false;
        break;
      }
      Scalar sv;
      const bool as_int = IsCanonicalInt(v, k == "comm" || k == "id");
      if (as_int) {
        if (v[0] == '-') {
          sv.kind = Scalar::kInt;
          std::from_chars(v.data(), v.data() + v.size(), sv.i);
        } else {
          uint64_t u = 0;
          std::from_chars(v.data(), v.data() + v.size(), u);
          sv = Scalar::Unsigned(u);
        }
      } else {
        sv.kind = Scalar::kString;
        sv.text = std::string(v);
      }
      std::string vtext = as_int ? std::string(v) : JsonString(v);
      if (k == "id") {
        id = sv;
        id_text = vtext;
      } else {
        if (!kargs.empty()) kargs += ',';
        kargs += JsonString(ck->args[0]) + ":" + vtext;
        al.emplace_back(std::string(ck->args[0]), std::move(sv));
      }
    }
    if (ok && ComposeContext(id, al) == context) {
      canonical = true;
      args = kargs;
    } else {
      id_text.clear();
    }
  }
  return out;
}

}  // namespace

void ChromeTraceWriter::WriteProcessName(int64_t pid, const std::string& name) {
  Sep();
  out_ << MetaEvent("process_name", pid, 0, "\"name\":" + JsonString(name));
}
void ChromeTraceWriter::WriteProcessLabels(int64_t pid, const std::string& labels) {
  Sep();
  out_ << MetaEvent("process_labels", pid, 0, "\"labels\":" + JsonString(labels));
}
void ChromeTraceWriter::WriteProcessSortIndex(int64_t pid, int64_t sort_index) {
  Sep();
  out_ << MetaEvent("process_sort_index", pid, 0, "\"sort_index\":" + std::to_string(sort_index));
}
void ChromeTraceWriter::WriteThreadName(int64_t pid, int64_t tid, const std::string& name) {
  Sep();
  out_ << MetaEvent("thread_name", pid, tid, "\"name\":" + JsonString(name));
}
void ChromeTraceWriter::WriteThreadSortIndex(int64_t pid, int64_t tid, int64_t sort_index) {
  Sep();
  out_ << MetaEvent("thread_sort_index", pid, tid, "\"sort_index\":" + std::to_string(sort_index));
}

void ChromeTraceWriter::Write(const TraceEvent& e) {
  Sep();
  std::string s;
  s.reserve(256);
  s += "{\"ph\":";
  const char ph = std::string_view("XBEiIMstfbneC").find(e.phase) == std::string_view::npos ? 'X' : e.phase;
  s += '"';
  s += ph;
  s += '"';
  if (!e.category.empty()) {
    s += ",\"cat\":";
    AppendJsonString(&s, e.category);
  }
  s += ",\"name\":";
  AppendJsonString(&s, e.type);
  s += ",\"pid\":" + std::to_string(e.pid) + ",\"tid\":" + std::to_string(e.tid);
  if (e.local_ts_ns != kNoTime || ph != 'M') {
    int64_t rel = e.local_ts_ns == kNoTime ? 0 : e.local_ts_ns;
    if (has_base_ && __builtin_sub_overflow(rel, base_ns_, &rel)) rel = 0;
    s += ",\"ts\":" + FormatUsFromNs(rel);
  }
  if (ph == 'X' || e.dur_ns != 0) s += ",\"dur\":" + FormatUsFromNs(e.dur_ns);
  if (ph == 'i' || ph == 'I') s += ",\"s\":\"t\"";

  if (ph == 'M') {
    std::string_view key = "name";
    if (e.type == "process_labels") key = "labels";
    if (EndsWith(e.type, "_sort_index")) key = "sort_index";
    s += ",\"args\":{\"";
    s += key;
    s += "\":";
    if (key == "sort_index" && IsCanonicalInt(e.context, false)) {
      s += e.context;
    } else {
      AppendJsonString(&s, e.context);
    }
    s += "}}";
    out_ << s;
    ++events_written_;
    return;
  }
  if (ph == 'C') {
    s += ",\"args\":{";
    AppendJsonString(&s, e.context);
    s += ':' + FormatDouble(e.value) + "}}";
    out_ << s;
    ++events_written_;
    return;
  }

  // Context: decompose into Kineto arg names when that reads back identically.
  const KinetoContext kc = DecomposeContext(e.context);
  std::string args = kc.args;
  const std::string& id_text = kc.id_text;
  const bool canonical = kc.canonical;
  if (!id_text.empty()) s += ",\"id\":" + id_text;
  auto add_arg = [&](std::string_view k, const std::string& v_json) {
    if (!args.empty()) args += ',';
    args += '"';
    args += k;
    args += "\":";
    args += v_json;
  };
  if (!e.context.empty() && !canonical) add_arg("toposcope_context", JsonString(e.context));
  if (e.device != "cpu") {
    std::string_view d = e.device;
    if (StartsWith(d, "gpu") && IsCanonicalInt(d.substr(3), false) && d[3] != '-') {
      add_arg("device", std::string(d.substr(3)));
    } else {
      add_arg("device_name", JsonString(e.device));
    }
  }
  if (!e.host.empty()) add_arg("host", JsonString(e.host));
  if (e.rank != dist_rank_) add_arg("rank", std::to_string(e.rank));
  if (!args.empty()) s += ",\"args\":{" + args + "}";
  s += '}';
  out_ << s;
  ++events_written_;
}

bool ChromeTraceWriter::Finish() {
  if (finished_) return static_cast<bool>(out_);
  BeginEvents();
  finished_ = true;
  out_ << "\n]}\n";
  out_.flush();
  return static_cast<bool>(out_);
}

std::string WriteChromeTrace(const std::vector<TraceEvent>& events, const ChromeTraceInfo* meta) {
  std::ostringstream os;
  {
    ChromeTraceWriter w(os);
    if (meta != nullptr) {
      if (meta->has_base_time) w.SetBaseTime(meta->base_time_ns);
      if (meta->schema_version >= 0) w.SetSchemaVersion(meta->schema_version);
      if (!meta->trace_name.empty()) w.SetTraceName(meta->trace_name);
      if (meta->distributed.present) w.SetDistributedInfo(meta->distributed);
      if (!meta->devices.empty()) w.SetDeviceProperties(meta->devices);
    }
    for (const auto& e : events) w.Write(e);
    w.Finish();
  }
  return os.str();
}

}  // namespace toposcope::formats
