// formats/nccl/nccl_log: NCCL_DEBUG=INFO log reader and writer.
//
// Line formats (checked against NVIDIA/nccl tags v2.12.12-1, v2.16.5-1, v2.18.3-1, v2.21.5-1,
// v2.26.2-1 and master; see also fixtures/real/FORMAT_NOTES.md):
//   prefix     [<ts>] host:pid:tid [cudaDev] NCCL INFO <message>     (ts: NCCL_DEBUG_TIMESTAMP_FORMAT,
//              2.23+, default "[%F %T] ", "%Nf" for N subsecond digits; local time)
//   version    "NCCL version 2.16.5+cuda11.8" (bare line up to 2.2x with stdout logging, or as INFO)
//   ring order "Channel %02d/%02d : " + " %3d"... (<= 2.22, at most 20 ranks)
//              "Channel %02d/%02d :" + " %*d"... (2.23+, width digits(nranks-1), cut at 127 chars
//              with "...")
//   ring       "Ring %02d : %d -> %d -> %d"; 2.3's ring order "Ring %02d : " + " %3d"...
//   old conn   "Ring %02d : %d[%s] -> %d[%s][ [send]| [receive]] via <transport>" (2.3-2.7; 2.4's NET
//              lines without the "[%s]")
//   trees      "Trees [%d] %d/%d/%d->%d->%d ..." (2.5: "...|%d->%d->%d/%d/%d", the down tree, skipped);
//              old "Tree %d : %d -> %d -> %d/%d/%d" (up -> me -> down)
//   comm       "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d" (2.19+)
//              "[api ]comm %p rank %d nranks %d cudaDev %d [nvmlDev %d ]busId %lx [commId 0x%llx ]- Init START|COMPLETE"
//   connection "Channel %02d[/%d] : %d[%s] -> %d[%s][ [send]| [receive]] via <transport>"
//              transports P2P/{direct pointer|CUMEM|MNNVL|IPC|indirect/%d[%s]}[/read][/CE],
//              SHM/{direct|CE}/{direct|CE}, SHM/direct, "direct shared memory" (2.12),
//              NET/<name>/<dev>[(<proxyRank>)][/GDRDMA[(PCI)]][/Shared]
//              and "CollNet %02d/%d : %d [send|receive] via COLLNET/<name>/<dev>[/GDRDMA[(PCI)]]"
//   net using  "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_2:1/IB[/SHARP] [RO]; OOB eth0:10.0.0.1<0>"
//              "NET/Socket : Using [0]eth0:10.0.0.1<0> [1]..."
//   qpn        2.12-2.18: "NET/IB: Dev %d Port %d qpn %d mtu %d LID %d" | "... GID %ld (%lX/%lX)"
//              2.21+:     "NET/IB: %s %d IbDev %d Port %d qpn %d mtu %d LID %d[ subnet-prefix ..]
//                          fifoRkey=0x%x fifoLkey=0x%x"
//                         "NET/IB: %s %d IbDev %d Port %d qpn %d mtu %d query_ece={...} GID %ld (%lX/%lX) fifo..."
//                         "NET/IB: IbDev %d Port %d qpn %d set_ece={...}" (the peer's QP)
// Other lines (NCCL or not) are counted as ignored. A recognised topology line that does not parse
// is rejected with its line number and reason; its records are dropped.
#include "toposcope/formats/nccl/nccl_log.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "toposcope/base/text.h"
#include "toposcope/base/file_io.h"

namespace toposcope::formats {
namespace {

constexpr size_t kBinaryProbe = 8192;
constexpr int kMaxQpn = (1 << 24) - 1;

// A small cursor over one message. Every method either consumes what it matched and returns
// true, or leaves the position alone and returns false (setting `why` when a number overflowed).
class Scan {
 public:
  explicit Scan(std::string_view s) : s_(s) {}
  [[nodiscard]] bool AtEnd() const { return p_ >= s_.size(); }
  [[nodiscard]] std::string_view Rest() const { return s_.substr(p_); }
  [[nodiscard]] size_t pos() const { return p_; }
  void Skip(size_t n) { p_ = std::min(s_.size(), p_ + n); }
  [[nodiscard]] char Peek() const { return AtEnd() ? '\0' : s_[p_]; }
  void Spaces() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t')) ++p_;
  }
  bool Lit(std::string_view lit) {
    if (s_.substr(p_).starts_with(lit)) {
      p_ += lit.size();
      return true;
    }
    return false;
  }
  // Skips spaces, then the literal, then spaces.
  bool Tok(std::string_view lit) {
    const size_t save = p_;
    Spaces();
    if (!Lit(lit)) {
      p_ = save;
      return false;
    }
    Spaces();
    return true;
  }
  // A decimal integer with an optional '-'. On overflow sets `overflow`.
  bool Int64(int64_t* v) {
    size_t q = p_;
    bool neg = false;
    if (q < s_.size() && s_[q] == '-') {
      neg = true;
      ++q;
    }
    const size_t digits_begin = q;
    uint64_t acc = 0;
    bool over = false;
    while (q < s_.size() && s_[q] >= '0' && s_[q] <= '9') {
      const uint64_t d = static_cast<uint64_t>(s_[q] - '0');
      if (acc > (static_cast<uint64_t>(INT64_MAX) - d) / 10) over = true;
      if (!over) acc = acc * 10 + d;
      ++q;
    }
    if (q == digits_begin) return false;
    if (over) {
      overflow = true;
      overflow_text = s_.substr(p_, q - p_);
      return false;
    }
    p_ = q;
    *v = neg ? -static_cast<int64_t>(acc) : static_cast<int64_t>(acc);
    return true;
  }
  // An int in [lo, hi]; out of range sets `overflow`.
  bool Int(int* v, int64_t lo = INT_MIN, int64_t hi = INT_MAX) {
    const size_t save = p_;
    int64_t x = 0;
    if (!Int64(&x)) return false;
    if (x < lo || x > hi) {
      overflow = true;
      overflow_text = s_.substr(save, p_ - save);
      p_ = save;
      return false;
    }
    *v = static_cast<int>(x);
    return true;
  }
  // Text up to (not including) `stop`, or to the end when absent.
  std::string_view Until(char stop) {
    const size_t e = s_.find(stop, p_);
    const size_t end = e == std::string_view::npos ? s_.size() : e;
    std::string_view r = s_.substr(p_, end - p_);
    p_ = end;
    return r;
  }

  bool overflow = false;
  std::string_view overflow_text;

 private:
  std::string_view s_;
  size_t p_ = 0;
};

// The reason for a failed numeric field: overflow or plain absence.
std::string NumWhy(const Scan& sc, std::string_view what) {
  if (sc.overflow) return "number out of range for " + std::string(what) + ": " + QuoteRaw(sc.overflow_text);
  return "expected a number for " + std::string(what) + " at " + QuoteRaw(sc.Rest());
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::optional<int64_t> ParseDec(std::string_view s) {
  if (s.empty()) return std::nullopt;
  Scan sc(s);
  int64_t v = 0;
  if (!sc.Int64(&v) || !sc.AtEnd()) return std::nullopt;
  return v;
}

// One whitespace-free RFC 3339 stamp as `kubectl logs --timestamps` writes it before each line
// ("2024-05-01T12:00:00.123456789Z"); kNoTime when `tok` is not one.
int64_t ParseRfc3339Token(std::string_view tok) {
  if (tok.size() < 20 || tok[10] != 'T' || !IsDigit(tok[0])) return kNoTime;
  const auto year = ParseDec(tok.substr(0, 4));
  if (!year || *year < 1900 || *year > 2200 || tok[4] != '-') return kNoTime;
  const auto ns = ParseIsoTimeNs(tok);
  return ns ? *ns : kNoTime;
}

// The RFC 3339 stamp among the launcher's words before the host (kubectl's, with or without its
// `[pod/NAME/CONTAINER]` prefix on either side); kNoTime when there is none.
int64_t FindRfc3339Token(std::string_view pre) {
  for (std::string_view tok : SplitWhitespace(pre)) {
    if (const int64_t ns = ParseRfc3339Token(tok); ns != kNoTime) return ns;
  }
  return kNoTime;
}

// "[2024-05-01 12:00:00.123456] " style: the text inside brackets, as ISO date-time (local time
// as printed; treated as UTC, like the other readers treat zone-less stamps).
int64_t ParseTimestampPrefix(std::string_view pre) {
  pre = Trim(pre);
  if (pre.empty()) return kNoTime;
  // The stamp is usually bracketed and last before the host token (launchers may add text first).
  if (pre.back() == ']') {
    const size_t open = pre.rfind('[');
    if (open == std::string_view::npos) return kNoTime;
    const std::string_view inside = Trim(pre.substr(open + 1, pre.size() - open - 2));
    // `kubectl logs --timestamps --prefix`: a stamp then `[pod/NAME/CONTAINER]`.
    if (inside.starts_with("pod/")) return FindRfc3339Token(pre.substr(0, open));
    pre = inside;
  }
  if (pre.size() < 19 || !IsDigit(pre[0])) return FindRfc3339Token(pre);
  // Only plausible years: ParseIsoTimeNs's int64 ns overflows outside ~1678-2261.
  const auto year = ParseDec(pre.substr(0, 4));
  if (!year || *year < 1900 || *year > 2200 || pre[4] != '-') return kNoTime;
  const auto ns = ParseIsoTimeNs(pre);
  return ns ? *ns : kNoTime;
}

bool IsHexText(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!IsDigit(c) && !((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  }
  return true;
}

}  // namespace

bool ParseNcclLogPrefix(std::string_view line, NcclLogPrefix* prefix, std::string_view* message) {
  static constexpr std::string_view kInfo = "NCCL INFO ";
  static constexpr std::string_view kWarn = "NCCL WARN ";
  size_t pos = line.find(kInfo);
  size_t tag_len = kInfo.size();
  if (pos == std::string_view::npos) {
    pos = line.find(kWarn);
    if (pos == std::string_view::npos) {
      // "NCCL INFO" at the very end (empty message).
      if (line.ends_with("NCCL INFO")) {
        pos = line.size() - 9;
        tag_len = 9;
      } else {
        return false;
      }
    }
  }
  *prefix = NcclLogPrefix{};
  *message = line.substr(pos + tag_len);
  std::string_view left = line.substr(0, pos);
  while (!left.empty() && left.back() == ' ') left.remove_suffix(1);
  // WARN lines carry "file.cc:123" (and "(func)") before the tag: drop tokens up to the "[dev]".
  if (!left.empty() && left.back() != ']') {
    const size_t b = left.rfind(" [");
    if (b != std::string_view::npos) {
      const size_t close = left.find(']', b);
      if (close != std::string_view::npos) left = left.substr(0, close + 1);
    }
  }
  if (!left.empty() && left.back() == ']') {
    const size_t open = left.rfind('[');
    if (open != std::string_view::npos) {
      if (auto d = ParseDec(left.substr(open + 1, left.size() - open - 2));
          d && *d >= INT_MIN && *d <= INT_MAX) {
        prefix->cuda_dev = static_cast<int>(*d);
      }
      left = left.substr(0, open);
      while (!left.empty() && left.back() == ' ') left.remove_suffix(1);
    }
  }
  // The host:pid:tid token is the last whitespace-separated token.
  const size_t sp = left.find_last_of(" \t");
  std::string_view token = sp == std::string_view::npos ? left : left.substr(sp + 1);
  std::string_view before = sp == std::string_view::npos ? std::string_view{} : left.substr(0, sp);
  // Split from the right: tid, pid, host (launcher prefixes such as "[1,0]<stdout>:" come first).
  const size_t c2 = token.rfind(':');
  if (c2 != std::string_view::npos) {
    const size_t c1 = c2 == 0 ? std::string_view::npos : token.rfind(':', c2 - 1);
    if (c1 != std::string_view::npos) {
      auto pid = ParseDec(token.substr(c1 + 1, c2 - c1 - 1));
      auto tid = ParseDec(token.substr(c2 + 1));
      if (pid && tid) {
        prefix->pid = *pid;
        prefix->tid = *tid;
        const size_t c0 = c1 == 0 ? std::string_view::npos : token.rfind(':', c1 - 1);
        std::string_view host = c0 == std::string_view::npos ? token.substr(0, c1)
                                                             : token.substr(c0 + 1, c1 - c0 - 1);
        // A "[...]" stamp glued to the host ("[..]<stdout>:[2024-..]") is not part of it.
        prefix->host = std::string(host);
        if (c0 != std::string_view::npos) {
          before = line.substr(0, static_cast<size_t>(token.data() - line.data()) + c0);
        }
      } else {
        prefix->host = std::string(token.substr(0, token.find(':')));
      }
    } else {
      prefix->host = std::string(token.substr(0, token.find(':')));
    }
  } else {
    prefix->host = std::string(token);
  }
  prefix->ts_ns = ParseTimestampPrefix(before);
  return true;
}

const char* NcclTransportName(NcclTransport t) {
  switch (t) {
    case NcclTransport::kP2p: return "P2P";
    case NcclTransport::kShm: return "SHM";
    case NcclTransport::kNet: return "NET";
    case NcclTransport::kCollNet: return "CollNet";
    case NcclTransport::kNvls: return "NVLS";
    case NcclTransport::kUnknown: break;
  }
  return "unknown";
}

bool LooksLikeNcclLog(std::string_view head) {
  if (LooksBinary(head)) return false;
  return head.find(" NCCL INFO ") != std::string_view::npos ||
         head.find("] NCCL INFO") != std::string_view::npos ||
         head.find(" NCCL WARN ") != std::string_view::npos ||
         head.starts_with("NCCL version ") || head.find("\nNCCL version ") != std::string_view::npos;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Message parsers. Each returns an empty string on success or the reason for rejecting.

// What the reasons call the parts of the `<channel> : <a> -> <b> ->` that starts Ring and old Tree
// lines.
struct ChainWords {
  const char* line;     // "Ring"
  const char* channel;  // "the ring channel"
  const char* a;        // the first rank as a number: "the previous rank"
  const char* after_a;  // ... and before its '->'
  const char* b;
  const char* after_b;
};

// Reads `<channel> : <a> -> <b> ->`; "" when it is there, else why not.
std::string ParseChainStart(Scan& sc, const ChainWords& w, int* channel, int* a, int* b) {
  if (!sc.Int(channel, 0)) return NumWhy(sc, w.channel);
  if (!sc.Tok(":")) return std::string("expected ':' after ") + w.channel;
  if (!sc.Int(a, -1)) return NumWhy(sc, w.a);
  if (!sc.Tok("->")) return std::string(w.line) + " line missing '->' after " + w.after_a;
  if (!sc.Int(b, 0)) return NumWhy(sc, w.b);
  if (!sc.Tok("->")) return std::string(w.line) + " line missing '->' after " + w.after_b;
  return {};
}

std::string ParseRingLine(std::string_view msg, NcclRingLine* r) {
  Scan sc(msg);
  sc.Lit("Ring");
  sc.Spaces();
  static constexpr ChainWords kWords{"Ring",      "the ring channel", "the previous rank", "the previous rank",
                                     "this rank", "this rank"};
  if (std::string why = ParseChainStart(sc, kWords, &r->channel, &r->prev, &r->me); !why.empty()) return why;
  if (!sc.Int(&r->next, -1)) return NumWhy(sc, "the next rank");
  sc.Spaces();
  if (!sc.AtEnd()) return "unexpected text after the Ring line: " + QuoteRaw(sc.Rest());
  return {};
}

// "Trees [0] 14/-1/-1->13->12 [1] ...": appends one record per channel.
std::string ParseTrees(std::string_view msg, const NcclTreeLine& base, std::vector<NcclTreeLine>* out) {
  Scan sc(msg);
  sc.Lit("Trees");
  sc.Spaces();
  while (!sc.AtEnd()) {
    NcclTreeLine t = base;
    if (!sc.Lit("[")) return "expected '[channel]' in the Trees line at " + QuoteRaw(sc.Rest());
    if (!sc.Int(&t.channel, 0)) return NumWhy(sc, "a tree channel");
    if (!sc.Lit("]")) return "expected ']' after the tree channel";
    sc.Spaces();
    for (int i = 0; i < 3; ++i) {
      if (i > 0 && !sc.Lit("/")) return "expected 'd0/d1/d2' children in the Trees line";
      if (!sc.Int(&t.down[static_cast<size_t>(i)], -1)) return NumWhy(sc, "a tree child");
    }
    if (!sc.Lit("->")) return "Trees entry missing '->' after the children";
    if (!sc.Int(&t.me, 0)) return NumWhy(sc, "the tree rank");
    if (!sc.Lit("->")) return "Trees entry missing '->' after the rank";
    if (!sc.Int(&t.up, -1)) return NumWhy(sc, "the tree parent");
    // 2.5 prints the down tree after '|' ("...->155->153|153->155->154/-1/-1"): the same edges.
    if (sc.Lit("|")) sc.Until(' ');
    out->push_back(std::move(t));
    sc.Spaces();
  }
  return {};
}

// Old "Tree %d : up -> me -> d0/d1/d2".
std::string ParseOldTree(std::string_view msg, NcclTreeLine* t) {
  Scan sc(msg);
  sc.Lit("Tree");
  sc.Spaces();
  t->old_format = true;
  static constexpr ChainWords kWords{"Tree",       "the tree channel", "the tree parent",
                                     "the parent", "the tree rank",    "the rank"};
  if (std::string why = ParseChainStart(sc, kWords, &t->channel, &t->up, &t->me); !why.empty()) return why;
  for (int i = 0; i < 3; ++i) {
    if (i > 0 && !sc.Lit("/")) return "expected 'd0/d1/d2' children in the Tree line";
    if (!sc.Int(&t->down[static_cast<size_t>(i)], -1)) return NumWhy(sc, "a tree child");
  }
  sc.Spaces();
  if (!sc.AtEnd()) return "unexpected text after the Tree line: " + QuoteRaw(sc.Rest());
  return {};
}

// The ranks of a ring order (after "Channel 00/16 :").
std::string ParseRingOrderRanks(std::string_view rest, NcclRingOrder* r) {
  rest = Trim(rest);
  if (rest.ends_with("...")) {
    r->truncated = true;
    rest.remove_suffix(3);
    // The last number may have been cut by the "...": keep only complete ones.
    if (!rest.empty() && IsDigit(rest.back())) {
      const size_t sp = rest.find_last_of(' ');
      rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(0, sp);
    }
  }
  for (std::string_view tok : SplitWhitespace(rest)) {
    Scan sc(tok);
    int v = 0;
    if (!sc.Int(&v, 0) || !sc.AtEnd()) {
      if (sc.overflow) return "rank number out of range in the ring order: " + QuoteRaw(tok);
      return "non-numeric rank " + QuoteRaw(tok) + " in the ring order";
    }
    r->ranks.push_back(v);
  }
  if (r->ranks.empty() && !r->truncated) return "ring order without ranks";
  return {};
}

// "<rank>[<dev>]"; with `dev_optional` a bare "<rank>" too (2.4's "Ring 00 : 7 -> 8 [send] via NET").
bool ParseRankDev(Scan& sc, int* rank, std::string* dev, std::string* why, bool dev_optional = false) {
  if (!sc.Int(rank, 0)) {
    *why = NumWhy(sc, "a rank");
    return false;
  }
  if (dev_optional && sc.Peek() != '[') return true;
  if (!sc.Lit("[")) {
    *why = "expected '[dev]' after rank";
    return false;
  }
  std::string_view d = sc.Until(']');
  if (!sc.Lit("]")) {
    *why = "unterminated '[dev]' after rank";
    return false;
  }
  if (d.empty()) {
    *why = "empty '[dev]' after rank";
    return false;
  }
  *dev = std::string(d);
  return true;
}

// A flag of a transport written as a suffix.
struct SuffixFlag {
  std::string_view suffix;
  bool NcclConnection::*flag;
};

// Peels the `flags` off the end of `rest`, each at most once and in the order given, setting them in `c`.
template <size_t N>
void PeelSuffixFlags(const SuffixFlag (&flags)[N], std::string_view& rest, NcclConnection* c) {
  for (const SuffixFlag& f : flags) {
    if (!rest.ends_with(f.suffix)) continue;
    c->*f.flag = true;
    rest.remove_suffix(f.suffix.size());
  }
}

// NET/<name>/<dev>[(proxy)][/GDRDMA[(PCI)]][/Shared] (and COLLNET/...).
std::string ParseNetVia(std::string_view rest, NcclConnection* c) {
  static constexpr SuffixFlag kFlags[] = {
      {"/Shared", &NcclConnection::shared}, {"(PCI)", &NcclConnection::gdr_pci}, {"/GDRDMA", &NcclConnection::gdrdma}};
  PeelSuffixFlags(kFlags, rest, c);
  const size_t slash = rest.rfind('/');
  if (slash == std::string_view::npos || slash == 0) {
    return "network transport without '<name>/<dev>': " + QuoteRaw(rest);
  }
  c->net_name = std::string(rest.substr(0, slash));
  Scan sc(rest.substr(slash + 1));
  if (!sc.Int(&c->net_dev, 0)) return NumWhy(sc, "the network device");
  if (sc.Lit("(")) {
    if (!sc.Int(&c->proxy_rank, 0)) return NumWhy(sc, "the proxy rank");
    if (!sc.Lit(")")) return "expected ')' after the proxy rank";
  }
  if (!sc.AtEnd()) return "unexpected text in the network transport: " + QuoteRaw(sc.Rest());
  return {};
}

std::string ParseVia(std::string_view via, NcclConnection* c) {
  via = Trim(via);
  if (via.empty()) return "empty transport after 'via'";
  c->via = std::string(via);
  if (via == "direct shared memory") {
    c->transport = NcclTransport::kShm;
    c->p2p_kind = std::string(via);
    return {};
  }
  const size_t slash = via.find('/');
  const std::string_view head = via.substr(0, slash);
  std::string_view rest = slash == std::string_view::npos ? std::string_view{} : via.substr(slash + 1);
  if (head == "P2P") {
    c->transport = NcclTransport::kP2p;
    static constexpr SuffixFlag kFlags[] = {{"/CE", &NcclConnection::ce}, {"/read", &NcclConnection::read}};
    PeelSuffixFlags(kFlags, rest, c);
    if (rest.starts_with("indirect/")) {
      c->p2p_kind = "indirect";
      Scan sc(rest.substr(9));
      std::string why;
      if (!ParseRankDev(sc, &c->indirect_rank, &c->indirect_dev, &why)) return "P2P/indirect: " + why;
      if (!sc.AtEnd()) return "unexpected text after P2P/indirect: " + QuoteRaw(sc.Rest());
      return {};
    }
    if (rest.empty()) return "P2P transport without a kind";
    c->p2p_kind = std::string(rest);
    return {};
  }
  if (head == "SHM") {
    c->transport = NcclTransport::kShm;
    c->p2p_kind = std::string(rest);
    return {};
  }
  if (head == "NET") {
    c->transport = NcclTransport::kNet;
    return ParseNetVia(rest, c);
  }
  if (head == "COLLNET") {
    c->transport = NcclTransport::kCollNet;
    return ParseNetVia(rest, c);
  }
  if (head == "NVLS") {
    c->transport = NcclTransport::kNvls;
    c->p2p_kind = std::string(rest);
    return {};
  }
  c->transport = NcclTransport::kUnknown;
  return {};
}

// Direction tag then " via ...".
std::string ParseDirVia(Scan& sc, NcclConnection* c) {
  sc.Spaces();
  if (sc.Lit("[send]")) {
    c->dir = NcclConnection::Dir::kSend;
  } else if (sc.Lit("[receive]")) {
    c->dir = NcclConnection::Dir::kReceive;
  }
  sc.Spaces();
  if (!sc.Lit("via")) return "connection line without 'via': " + QuoteRaw(sc.Rest());
  if (sc.Peek() != ' ') return "expected a space after 'via'";
  return ParseVia(sc.Rest(), c);
}

// "Channel 00/0 : 1[1] -> 0[0] [receive] via ..." after "Channel 00/0" was read.
std::string ParseConnectionTail(Scan& sc, NcclConnection* c) {
  if (!sc.Tok(":")) return "expected ':' after the channel";
  std::string why;
  if (!ParseRankDev(sc, &c->from_rank, &c->from_dev, &why)) return why;
  if (!sc.Tok("->")) return "connection line missing '->' between the ranks";
  if (!ParseRankDev(sc, &c->to_rank, &c->to_dev, &why)) return why;
  return ParseDirVia(sc, c);
}

// The connection lines of NCCL 2.3-2.7, labelled "Ring": "Ring 00 : 3[3] -> 4[4] via P2P/IPC",
// "Ring 00 : 1[23000] -> 8[1e000] [send] via NET/IB/1/GDRDMA", and 2.4's "Ring 00 : 7 -> 8 [receive]
// via NET/Socket/0" without the device in brackets. Read as connections without "/conn".
std::string ParseRingConnection(std::string_view msg, NcclConnection* c) {
  Scan sc(msg);
  sc.Lit("Ring");
  sc.Spaces();
  if (!sc.Int(&c->channel, 0)) return NumWhy(sc, "the ring channel");
  c->has_conn_index = false;
  if (!sc.Tok(":")) return "expected ':' after the ring channel";
  std::string why;
  if (!ParseRankDev(sc, &c->from_rank, &c->from_dev, &why, true)) return why;
  if (!sc.Tok("->")) return "ring connection line missing '->' between the ranks";
  if (!ParseRankDev(sc, &c->to_rank, &c->to_dev, &why, true)) return why;
  why = ParseDirVia(sc, c);
  if (why.empty() && c->transport == NcclTransport::kCollNet) {
    why = "COLLNET transport on a Ring line (NCCL prints those as 'CollNet NN/N : rank ...')";
  }
  return why;
}

// The ring order of NCCL 2.3 (rank 0): "Ring 00 :    0   1   2   3" (no channel count: nchannels -1).
bool IsOldRingOrder(std::string_view msg) {
  const size_t colon = msg.find(':');
  if (colon == std::string_view::npos) return false;
  const std::string_view rest = Trim(msg.substr(colon + 1));
  if (rest.empty()) return false;
  for (const char c : rest) {
    if (!IsDigit(c) && c != ' ' && c != '.') return false;
  }
  return true;
}

// "CollNet 00/0 : 3 [send] via COLLNET/SHARP/0/GDRDMA".
std::string ParseCollNet(std::string_view msg, NcclConnection* c) {
  Scan sc(msg);
  sc.Lit("CollNet");
  sc.Spaces();
  if (!sc.Int(&c->channel, 0)) return NumWhy(sc, "the channel");
  if (sc.Lit("/")) {
    if (!sc.Int(&c->conn_index, 0)) return NumWhy(sc, "the connection index");
  } else {
    c->has_conn_index = false;
  }
  if (!sc.Tok(":")) return "expected ':' after the channel";
  if (!sc.Int(&c->from_rank, 0)) return NumWhy(sc, "the rank");
  std::string why = ParseDirVia(sc, c);
  if (why.empty() && c->transport != NcclTransport::kCollNet) {
    why = "CollNet line with a transport other than COLLNET/: " + QuoteRaw(c->via);
  }
  return why;
}

// Either a ring order or a connection; fills one of the two and says which.
std::string ParseChannel(std::string_view msg, NcclRingOrder* order, NcclConnection* conn,
                         bool* is_order) {
  Scan sc(msg);
  sc.Lit("Channel");
  sc.Spaces();
  int channel = -1;
  if (!sc.Int(&channel, 0)) return NumWhy(sc, "the channel");
  int second = -1;
  bool has_second = false;
  if (sc.Lit("/")) {
    if (!sc.Int(&second, 0)) return NumWhy(sc, "the channel count or connection index");
    has_second = true;
  }
  const std::string_view after = sc.Rest();
  const bool looks_conn = after.find("->") != std::string_view::npos ||
                          after.find(" via ") != std::string_view::npos ||
                          after.find('[') != std::string_view::npos;
  if (!looks_conn) {
    if (!has_second) return "channel line without '/nChannels' and without '->'";
    *is_order = true;
    order->channel = channel;
    order->nchannels = second;
    if (!sc.Tok(":")) return "expected ':' after 'Channel NN/NN'";
    return ParseRingOrderRanks(sc.Rest(), order);
  }
  *is_order = false;
  conn->channel = channel;
  conn->has_conn_index = has_second;
  conn->conn_index = has_second ? second : 0;
  std::string why = ParseConnectionTail(sc, conn);
  if (why.empty() && conn->transport == NcclTransport::kCollNet) {
    why = "COLLNET transport on a Channel line (NCCL prints those as 'CollNet NN/N : rank ...')";
  }
  return why;
}

// Comm lines: the 2.19+ rank-info line and the "... - Init START|COMPLETE" lines.
// Returns "skip" (not an init line: Destroy/Abort/...) through *skip.
std::string ParseComm(std::string_view msg, NcclCommInit* c, bool* skip) {
  *skip = false;
  std::string_view body = msg;
  bool is_init = false;
  for (const auto& [suffix, kind] : {std::pair<std::string_view, NcclCommInitKind>{"Init COMPLETE", NcclCommInitKind::kInitComplete},
                                      {"Init START", NcclCommInitKind::kInitStart}}) {
    std::string_view t = Trim(body);
    if (t.ends_with(suffix)) {
      t.remove_suffix(suffix.size());
      t = Trim(t);
      if (!t.ends_with("-")) return "expected '- Init ...' at the end of the comm line";
      t.remove_suffix(1);
      body = t;
      c->kind = kind;
      is_init = true;
      break;
    }
  }
  std::vector<std::string_view> toks = SplitWhitespace(body);
  size_t i = 0;
  if (!toks.empty() && toks[0] != "comm") {
    c->api = std::string(toks[0]);
    i = 1;
  }
  if (i >= toks.size() || toks[i] != "comm") {
    *skip = true;
    return {};
  }
  ++i;
  if (!is_init) {
    // Only the rank-info spelling ("rank %d nRanks %d nNodes ...", 2.19+) is a topology line; a copy
    // cut inside it (" nRank" with a capital R, which no older comm line prints) is one too, and is
    // then rejected for what it lacks rather than dropped unseen.
    const bool rank_info = msg.find(" nNodes ") != std::string_view::npos || msg.find(" nRank") != std::string_view::npos;
    if (!rank_info || !c->api.empty()) {
      *skip = true;
      return {};
    }
    c->kind = NcclCommInitKind::kRankInfo;
  }
  if (i >= toks.size()) return "comm line without a pointer";
  c->comm = std::string(toks[i++]);
  if (!c->comm.starts_with("0x") && c->comm != "(nil)") {
    return "comm pointer is not hex: " + QuoteRaw(c->comm);
  }
  bool have_rank = false;
  while (i < toks.size()) {
    const std::string_view key = toks[i];
    if (i + 1 >= toks.size()) return "comm line key " + QuoteRaw(key) + " without a value";
    const std::string_view val = toks[i + 1];
    i += 2;
    auto as_int = [&](int* out, int64_t lo) -> std::string {
      auto v = ParseDec(val);
      if (!v) return "non-numeric value " + QuoteRaw(val) + " for " + std::string(key);
      if (*v < lo || *v > INT_MAX) return "value out of range for " + std::string(key) + ": " + QuoteRaw(val);
      *out = static_cast<int>(*v);
      return {};
    };
    std::string why;
    if (key == "rank") {
      why = as_int(&c->rank, 0);
      have_rank = true;
    } else if (key == "nranks" || key == "nRanks") {
      why = as_int(&c->nranks, 1);
    } else if (key == "nNodes") {
      why = as_int(&c->nnodes, 1);
    } else if (key == "localRanks") {
      why = as_int(&c->local_ranks, 1);
    } else if (key == "localRank") {
      why = as_int(&c->local_rank, 0);
    } else if (key == "MNNVL") {
      why = as_int(&c->mnnvl, 0);
    } else if (key == "cudaDev") {
      why = as_int(&c->cuda_dev, -1);
    } else if (key == "nvmlDev") {
      why = as_int(&c->nvml_dev, -1);
    } else if (key == "busId") {
      if (!IsHexText(val)) return "busId is not hex: " + QuoteRaw(val);
      c->bus_id = std::string(val);
    } else if (key == "commId") {
      if (!val.starts_with("0x") || !IsHexText(val.substr(2))) return "commId is not hex: " + QuoteRaw(val);
      c->comm_id = std::string(val);
    }  // other keys (parent, splitCount, color, key) are not kept
    if (!why.empty()) return why;
  }
  if (!have_rank) return "comm line without 'rank'";
  if (c->nranks > 0 && c->rank >= c->nranks) {
    return StringPrintf("rank %d is not below nranks %d", c->rank, c->nranks);
  }
  return {};
}

// "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_2:1/IB [RO]; OOB eth0:10.0.0.1<0>".
std::string ParseNetUsing(std::string_view msg, NcclNetUsing* u) {
  const size_t colon = msg.find(" : Using");
  u->net_name = std::string(msg.substr(4, colon - 4));
  std::string_view rest = msg.substr(colon + 8);
  std::string_view oob;
  if (const size_t semi = rest.rfind("; OOB "); semi != std::string_view::npos) {
    oob = Trim(rest.substr(semi + 6));
    rest = rest.substr(0, semi);
  }
  const bool socket = u->net_name == "Socket";
  for (std::string_view tok : SplitWhitespace(rest)) {
    if (tok == "[RO]") {
      u->relaxed_ordering = true;
      continue;
    }
    NcclNetDevice d;
    Scan sc(tok);
    if (!sc.Lit("[")) return "device entry without '[index]': " + QuoteRaw(tok);
    if (!sc.Int(&d.index, 0)) return NumWhy(sc, "the device index");
    if (!sc.Lit("]")) return "expected ']' after the device index in " + QuoteRaw(tok);
    std::string_view body = sc.Rest();
    const size_t c = body.find(':');
    if (c == std::string_view::npos || c == 0) return "device entry without 'name:port': " + QuoteRaw(tok);
    d.name = std::string(body.substr(0, c));
    std::string_view tail = body.substr(c + 1);
    if (socket || tail.find('<') != std::string_view::npos) {
      const size_t lt = tail.rfind('<');
      if (lt == std::string_view::npos || !tail.ends_with(">")) return "socket device without '<port>': " + QuoteRaw(tok);
      d.address = std::string(tail.substr(0, lt));
      auto p = ParseDec(tail.substr(lt + 1, tail.size() - lt - 2));
      if (!p || *p < 0 || *p > 65535) return "bad port in " + QuoteRaw(tok);
      d.port = static_cast<int>(*p);
    } else {
      Scan ps(tail);
      if (!ps.Int(&d.port, 0, 255)) return NumWhy(ps, "the device port");
      if (ps.Lit("/")) {
        d.link_layer = std::string(ps.Until('/'));
        while (ps.Lit("/")) {
          const std::string_view flag = ps.Until('/');
          if (flag == "SHARP") d.sharp = true;
        }
      }
      if (!ps.AtEnd()) return "unexpected text in device entry " + QuoteRaw(tok);
    }
    u->devices.push_back(std::move(d));
  }
  if (!oob.empty()) {
    const size_t c = oob.find(':');
    const size_t lt = oob.rfind('<');
    if (c == std::string_view::npos || lt == std::string_view::npos || lt < c || !oob.ends_with(">")) {
      return "OOB part is not 'iface:address<port>': " + QuoteRaw(oob);
    }
    u->oob_iface = std::string(oob.substr(0, c));
    u->oob_ip = std::string(oob.substr(c + 1, lt - c - 1));
    auto p = ParseDec(oob.substr(lt + 1, oob.size() - lt - 2));
    if (!p || *p < 0 || *p > 65535) return "bad OOB port in " + QuoteRaw(oob);
    u->oob_port = static_cast<int>(*p);
  }
  if (u->devices.empty()) return "'Using' line without devices";
  return {};
}

// GID part: "%ld (%lX/%lX)"; returns the text consumed.
bool ScanGid(Scan& sc, std::string* gid) {
  const std::string_view r = sc.Rest();
  const size_t close = r.find(')');
  if (close == std::string_view::npos || r.find('(') == std::string_view::npos || r.find('(') > close) return false;
  *gid = std::string(r.substr(0, close + 1));
  sc.Skip(close + 1);
  return true;
}

std::string ParseQpn(std::string_view msg, NcclQpn* q) {
  Scan sc(msg);
  sc.Lit("NET/IB:");
  sc.Spaces();
  int qpn = 0;
  auto read_port_qpn = [&]() -> std::string {
    if (!sc.Tok("Port")) return "expected 'Port' in the qpn line";
    if (!sc.Int(&q->port, 0, 255)) return NumWhy(sc, "the port");
    if (!sc.Tok("qpn")) return "expected 'qpn' in the qpn line";
    if (!sc.Int(&qpn, 0, kMaxQpn)) return NumWhy(sc, "the qpn (24 bits)");
    q->qpn = static_cast<uint32_t>(qpn);
    return {};
  };
  auto read_mtu = [&]() -> std::string {
    if (!sc.Tok("mtu")) return "expected 'mtu' in the qpn line";
    if (!sc.Int(&q->mtu, 0)) return NumWhy(sc, "the mtu");
    return {};
  };
  std::string why;
  if (sc.Lit("Dev ")) {  // 2.12-2.18
    sc.Spaces();
    if (!sc.Int(&q->dev, 0)) return NumWhy(sc, "the device");
    if (!(why = read_port_qpn()).empty()) return why;
    if (!(why = read_mtu()).empty()) return why;
    if (sc.Tok("LID")) {
      if (!sc.Int(&q->lid, 0, 0xFFFF)) return NumWhy(sc, "the LID");
    } else if (sc.Tok("GID")) {
      if (!ScanGid(sc, &q->gid)) return "GID without '(prefix/iid)'";
    } else {
      return "qpn line without 'LID' or 'GID'";
    }
    sc.Spaces();
    if (!sc.AtEnd()) return "unexpected text after the qpn line: " + QuoteRaw(sc.Rest());
    return {};
  }
  if (sc.Lit("IbDev ")) {  // the remote QP, "set_ece" (2.21+)
    q->remote = true;
    sc.Spaces();
    if (!sc.Int(&q->ib_dev_index, 0)) return NumWhy(sc, "IbDev");
    if (!(why = read_port_qpn()).empty()) return why;
    sc.Spaces();
    if (sc.Lit("set_ece={")) {
      q->ece = std::string(sc.Until('}'));
      if (!sc.Lit("}")) return "unterminated set_ece={...}";
    }
    sc.Spaces();
    q->extra = std::string(Trim(sc.Rest()));
    return {};
  }
  // 2.21+: "<words> <dev> IbDev <n> Port ..."
  const std::string_view rest = sc.Rest();
  const size_t ib = rest.find(" IbDev ");
  if (ib == std::string_view::npos) return "qpn line without 'Dev' or 'IbDev'";
  std::string_view words = Trim(rest.substr(0, ib));
  const size_t sp = words.rfind(' ');
  if (sp == std::string_view::npos) return "qpn line without a device name before the device number";
  q->ib_dev = std::string(words.substr(0, sp));
  // NCCL's name here is "NCCL Dev" or "NCCL MergedDev"; one that starts with the word of another
  // form of the line ("Dev", "IbDev") would be read as that form once written back.
  const std::string_view first_word = std::string_view(q->ib_dev).substr(0, q->ib_dev.find(' '));
  if (first_word == "Dev" || first_word == "IbDev") {
    return "qpn line whose device name starts with '" + std::string(first_word) + "'";
  }
  {
    Scan ds(words.substr(sp + 1));
    if (!ds.Int(&q->dev, 0) || !ds.AtEnd()) return NumWhy(ds, "the device");
  }
  sc.Skip(ib);
  if (!sc.Tok("IbDev")) return "expected 'IbDev'";
  if (!sc.Int(&q->ib_dev_index, 0)) return NumWhy(sc, "IbDev");
  if (!(why = read_port_qpn()).empty()) return why;
  if (!(why = read_mtu()).empty()) return why;
  if (sc.Tok("LID")) {
    if (!sc.Int(&q->lid, 0, 0xFFFF)) return NumWhy(sc, "the LID");
  } else {
    sc.Spaces();
    if (sc.Lit("query_ece={")) {
      q->ece = std::string(sc.Until('}'));
      if (!sc.Lit("}")) return "unterminated query_ece={...}";
    }
    if (!sc.Tok("GID")) return "qpn line without 'LID' or 'GID'";
    if (!ScanGid(sc, &q->gid)) return "GID without '(prefix/iid)'";
  }
  q->extra = std::string(Trim(sc.Rest()));
  return {};
}

// ---------------------------------------------------------------------------------------------
// The streaming parser.

// A cheap test on the first bytes of an INFO message: false means "certainly not a line
// Dispatch keeps" (Dispatch makes the exact decision).
bool MaybeTopology(std::string_view m) {
  if (m.size() < 4) return false;
  switch (m[0]) {
    case 'C': return m.starts_with("Channel ") || m.starts_with("CollNet ");
    case 'R': return m[1] == 'i';   // Ring
    case 'T': return m[1] == 'r';   // Tree, Trees
    case 'N': return m[1] == 'E' || m[1] == 'C';  // NET/..., NCCL version
    case 'c': return m[1] == 'o';   // comm
    default: break;
  }
  // "<api> comm 0x..." Init lines.
  return m.find(" comm ") != std::string_view::npos;
}

class Parser {
 public:
  Parser(std::string_view source, Diagnostics& diag, const NcclLogSink& sink)
      : diag_(diag), sink_(sink) {
    log_.source = std::string(source);
  }

  // True when the line is an NCCL log line (counted in nccl_lines), whatever became of it.
  bool Feed(std::string_view line, int64_t line_no) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++log_.counts.read;
    if (head_.size() < kBinaryProbe) {
      head_.append(line.substr(0, kBinaryProbe - head_.size()));
      head_.push_back('\n');
    }
    // Fast path: an INFO line whose message cannot be a topology line is counted without
    // parsing its prefix (about half the lines of a typical log).
    if (const size_t tag = line.find("NCCL INFO "); tag != std::string_view::npos) {
      const std::string_view m = Trim(line.substr(tag + 10));
      if (!MaybeTopology(m)) {
        ++log_.nccl_lines;
        Ignore();
        return true;
      }
    }
    NcclLogPrefix at;
    std::string_view msg;
    if (!ParseNcclLogPrefix(line, &at, &msg)) {
      // The bare version banner (stdout), possibly after a timestamp or launcher prefix.
      const size_t v = line.find("NCCL version ");
      const std::string_view pre = v == std::string_view::npos ? std::string_view{} : Trim(line.substr(0, v));
      if (v != std::string_view::npos && (pre.empty() || pre.ends_with(']') || pre.ends_with(':') ||
                                          pre.ends_with('>') || FindRfc3339Token(pre) != kNoTime)) {
        ++log_.nccl_lines;
        SetVersion(line.substr(v + 13));
        ++log_.counts.accepted;
        return true;
      }
      Ignore();
      return false;
    }
    ++log_.nccl_lines;
    const std::string_view tag = line.substr(0, static_cast<size_t>(msg.data() - line.data()));
    const bool is_info = tag.ends_with("NCCL INFO ") || tag.ends_with("NCCL INFO");
    if (!is_info) {
      Ignore();
      return true;
    }
    Dispatch(Trim(msg), std::move(at), line, line_no);
    return true;
  }

  Result<NcclLog> Finish() {
    if (log_.nccl_lines == 0 && LooksBinary(head_)) {
      return MakeError(log_.source, 0, 0, "binary data, not an NCCL_DEBUG=INFO log",
                       "pass the text log written with NCCL_DEBUG=INFO (NCCL_DEBUG_FILE)");
    }
    return std::move(log_);
  }

 private:
  void Ignore() {
    ++log_.ignored_lines;
    ++log_.counts.accepted;
  }
  void Reject(int64_t line_no, std::string_view raw, std::string_view why) {
    ++log_.counts.rejected;
    diag_.Reject(log_.source, line_no, raw, why);
  }
  void Accept() { ++log_.counts.accepted; }

  void SetVersion(std::string_view v) {
    v = Trim(v);
    const size_t sp = v.find(' ');
    if (sp != std::string_view::npos) v = v.substr(0, sp);
    if (log_.nccl_version.empty()) log_.nccl_version = std::string(v);
  }

  using ThreadKey = std::tuple<std::string, int64_t, int64_t>;

  // Parses `msg` with `parse` (it returns why it is not a `Record`, "" when it is one) and sends
  // the record, stamped with its line and prefix; or rejects the line.
  template <class Record, class ParseFn>
  void ParseAndSend(ParseFn&& parse, std::string_view msg, NcclLogPrefix at, std::string_view raw, int64_t line_no) {
    Record rec;
    const std::string why = parse(msg, &rec);
    if (!why.empty()) return Reject(line_no, raw, why);
    Accept();
    rec.line = line_no;
    rec.at = std::move(at);
    sink_(std::move(rec));
  }

  // "Ring 00 :    0   1   2" (2.3): rank 0's ring order, with the comm of its thread.
  void SendOldRingOrder(std::string_view msg, NcclLogPrefix at, std::string_view raw, int64_t line_no) {
    NcclRingOrder order;
    Scan sc(msg);
    sc.Lit("Ring");
    sc.Spaces();
    std::string why;
    if (!sc.Int(&order.channel, 0)) why = NumWhy(sc, "the ring channel");
    if (why.empty() && !sc.Tok(":")) why = "expected ':' after the ring channel";
    if (why.empty()) why = ParseRingOrderRanks(sc.Rest(), &order);
    if (!why.empty()) return Reject(line_no, raw, why);
    Accept();
    order.line = line_no;
    if (auto it = last_comm_.find(ThreadKey{at.host, at.pid, at.tid}); it != last_comm_.end()) order.comm = it->second;
    order.at = std::move(at);
    sink_(std::move(order));
  }

  void Dispatch(std::string_view msg, NcclLogPrefix at, std::string_view raw, int64_t line_no) {
    std::string why;
    if (msg.starts_with("NCCL version ")) {
      SetVersion(msg.substr(13));
      Accept();
      return;
    }
    if (msg.starts_with("Channel ")) {
      NcclRingOrder order;
      NcclConnection conn;
      bool is_order = false;
      why = ParseChannel(msg, &order, &conn, &is_order);
      if (!why.empty()) return Reject(line_no, raw, why);
      Accept();
      if (is_order) {
        order.line = line_no;
        if (auto it = last_comm_.find(ThreadKey{at.host, at.pid, at.tid}); it != last_comm_.end()) {
          order.comm = it->second;
        }
        order.at = std::move(at);
        sink_(std::move(order));
      } else {
        conn.line = line_no;
        conn.at = std::move(at);
        sink_(std::move(conn));
      }
      return;
    }
    if (msg.starts_with("CollNet ") && msg.find(" via ") != std::string_view::npos) {
      return ParseAndSend<NcclConnection>(ParseCollNet, msg, std::move(at), raw, line_no);
    }
    if (msg.starts_with("Ring ") && msg.size() > 5 && IsDigit(msg[5])) {
      if (msg.find(" via ") != std::string_view::npos) {
        if (msg.find("<-") != std::string_view::npos) return Ignore();  // a receive-side trace spelling
        return ParseAndSend<NcclConnection>(ParseRingConnection, msg, std::move(at), raw, line_no);
      }
      if (IsOldRingOrder(msg)) return SendOldRingOrder(msg, std::move(at), raw, line_no);
      return ParseAndSend<NcclRingLine>(ParseRingLine, msg, std::move(at), raw, line_no);
    }
    if (msg.starts_with("Trees")) {
      NcclTreeLine base;
      base.at = at;
      base.line = line_no;
      std::vector<NcclTreeLine> trees;
      why = ParseTrees(msg, base, &trees);
      if (!why.empty()) return Reject(line_no, raw, why);
      Accept();
      for (auto& t : trees) sink_(std::move(t));
      return;
    }
    if (msg.starts_with("Tree ") && msg.size() > 5 && IsDigit(msg[5])) {
      return ParseAndSend<NcclTreeLine>(ParseOldTree, msg, std::move(at), raw, line_no);
    }
    if (msg.starts_with("NET/") && msg.find(" : Using [") != std::string_view::npos) {
      return ParseAndSend<NcclNetUsing>(ParseNetUsing, msg, std::move(at), raw, line_no);
    }
    if (msg.starts_with("NET/IB: ") && msg.find(" qpn ") != std::string_view::npos) {
      return ParseAndSend<NcclQpn>(ParseQpn, msg, std::move(at), raw, line_no);
    }
    if (msg.find("comm ") != std::string_view::npos &&
        (msg.starts_with("comm ") || msg.find(" comm 0x") != std::string_view::npos ||
         msg.find(" comm (nil)") != std::string_view::npos)) {
      NcclCommInit c;
      bool skip = false;
      why = ParseComm(msg, &c, &skip);
      if (skip) return Ignore();
      if (!why.empty()) return Reject(line_no, raw, why);
      Accept();
      c.line = line_no;
      c.at = std::move(at);
      last_comm_[ThreadKey{c.at.host, c.at.pid, c.at.tid}] = c.comm;
      sink_(std::move(c));
      return;
    }
    Ignore();
  }

  Diagnostics& diag_;
  const NcclLogSink& sink_;
  NcclLog log_;
  std::string head_;
  std::map<ThreadKey, std::string> last_comm_;
};

}  // namespace

Result<NcclLog> ReadNcclLogRecords(LineReader& lines, std::string_view source, Diagnostics& diag,
                                   const NcclLogSink& sink) {
  Parser parser(source, diag, sink);
  std::string_view line;
  while (lines.Next(&line)) parser.Feed(line, lines.line_number());
  if (const Error* e = lines.error()) return *e;
  return parser.Finish();
}

namespace {

NcclLogSink Collector(NcclLog* log) {
  return [log](NcclLogRecord&& r) {
    std::visit(
        [log](auto&& rec) {
          using T = std::decay_t<decltype(rec)>;
          if constexpr (std::is_same_v<T, NcclCommInit>) {
            log->comms.push_back(std::move(rec));
          } else if constexpr (std::is_same_v<T, NcclRingOrder>) {
            log->ring_orders.push_back(std::move(rec));
          } else if constexpr (std::is_same_v<T, NcclRingLine>) {
            log->rings.push_back(std::move(rec));
          } else if constexpr (std::is_same_v<T, NcclTreeLine>) {
            log->trees.push_back(std::move(rec));
          } else if constexpr (std::is_same_v<T, NcclConnection>) {
            log->connections.push_back(std::move(rec));
          } else if constexpr (std::is_same_v<T, NcclNetUsing>) {
            log->net_using.push_back(std::move(rec));
          } else {
            log->qpns.push_back(std::move(rec));
          }
        },
        std::move(r));
  };
}

Result<NcclLog> Merge(Result<NcclLog> summary, NcclLog records) {
  if (!summary.ok()) return summary.error();
  records.source = std::move(summary->source);
  records.nccl_version = std::move(summary->nccl_version);
  records.counts = summary->counts;
  records.ignored_lines = summary->ignored_lines;
  records.nccl_lines = summary->nccl_lines;
  return records;
}

}  // namespace

Result<NcclLog> ReadNcclLog(LineReader& lines, std::string_view source, Diagnostics& diag) {
  NcclLog records;
  const NcclLogSink sink = Collector(&records);
  auto summary = ReadNcclLogRecords(lines, source, diag, sink);
  return Merge(std::move(summary), std::move(records));
}

struct NcclLogLineParser::Impl {
  Impl(std::string_view source, Diagnostics& diag) : sink(Collector(&records)), parser(source, diag, sink) {}
  NcclLog records;
  NcclLogSink sink;
  Parser parser;
};

NcclLogLineParser::NcclLogLineParser(std::string_view source, Diagnostics& diag)
    : impl_(std::make_unique<Impl>(source, diag)) {}

NcclLogLineParser::~NcclLogLineParser() = default;

bool NcclLogLineParser::Feed(std::string_view line, int64_t line_no) { return impl_->parser.Feed(line, line_no); }

Result<NcclLog> NcclLogLineParser::Finish() { return Merge(impl_->parser.Finish(), std::move(impl_->records)); }

Result<NcclLog> ParseNcclLog(std::string_view text, std::string_view source, Diagnostics& diag) {
  NcclLog records;
  const NcclLogSink sink = Collector(&records);
  Parser parser(source, diag, sink);
  int64_t line_no = 0;
  size_t b = 0;
  while (b < text.size()) {
    const void* nl = std::memchr(text.data() + b, '\n', text.size() - b);
    const size_t e = nl ? static_cast<size_t>(static_cast<const char*>(nl) - text.data()) : text.size();
    parser.Feed(text.substr(b, e - b), ++line_no);
    b = e + 1;
  }
  return Merge(parser.Finish(), std::move(records));
}

// ---------------------------------------------------------------------------------------------
// Writer.

namespace {
// The ECE text of ConnectX NICs (mlx5), printed when a record leaves `ece` empty.
constexpr const char* kDefaultEce = "supported=1, vendor_id=0x15b3, options=0x30000002, comp_mask=0x0";
}  // namespace

NcclLogWriter::NcclLogWriter(NcclLogEra era, NcclLogPrefix prefix) : era_(era), prefix_(std::move(prefix)) {}

std::string NcclLogWriter::Prefix(const NcclLogPrefix& at_in) const {
  const NcclLogPrefix& at = at_in.host.empty() ? prefix_ : at_in;
  std::string out;
  if (at.ts_ns != kNoTime) {
    // "[%F %T.%6f] " (NCCL_DEBUG_TIMESTAMP_FORMAT with 6 subsecond digits).
    int64_t s = at.ts_ns / 1000000000;
    int64_t ns = at.ts_ns % 1000000000;
    if (ns < 0) {
      ns += 1000000000;
      --s;
    }
    const time_t tt = static_cast<time_t>(s);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[64];
    const size_t n = std::strftime(buf, sizeof(buf), "[%F %T", &tm);
    out.append(buf, n);
    out += StringPrintf(".%06lld] ", static_cast<long long>(ns / 1000));
  }
  out += at.host;
  out += StringPrintf(":%lld:%lld [%d] NCCL INFO ", static_cast<long long>(at.pid),
                      static_cast<long long>(at.tid), at.cuda_dev);
  return out;
}

std::string NcclLogWriter::Info(std::string_view message) {
  std::string out = Prefix(NcclLogPrefix{});
  out.append(message);
  out.push_back('\n');
  return out;
}

std::string NcclLogWriter::Version(std::string_view version_text) {
  std::string out = era_ == NcclLogEra::kV2_26 ? Prefix(NcclLogPrefix{}) : std::string();
  out += "NCCL version ";
  out.append(version_text);
  out.push_back('\n');
  return out;
}

std::string NcclLogWriter::CommInit(const NcclCommInit& c) {
  std::string out = Prefix(c.at);
  if (c.kind == NcclCommInitKind::kRankInfo && era_ == NcclLogEra::kV2_26) {
    out += "comm " + c.comm;
    out += StringPrintf(" rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d\n", c.rank,
                        c.nranks, c.nnodes, c.local_ranks, c.local_rank, c.mnnvl < 0 ? 0 : c.mnnvl);
    return out;
  }
  const char* stage = c.kind == NcclCommInitKind::kInitStart ? "START" : "COMPLETE";
  const std::string bus = c.bus_id.empty() ? std::string("0") : c.bus_id;
  if (era_ == NcclLogEra::kV2_26) {
    const std::string api = c.api.empty() ? std::string("ncclCommInitRank") : c.api;
    out += api + " comm " + c.comm;
    out += StringPrintf(" rank %d nranks %d cudaDev %d nvmlDev %d busId ", c.rank, c.nranks, c.cuda_dev,
                        c.nvml_dev);
    out += bus + " commId " + (c.comm_id.empty() ? std::string("0x0") : c.comm_id) + " - Init " + stage + "\n";
  } else if (era_ == NcclLogEra::kV2_16) {
    out += "comm " + c.comm;
    out += StringPrintf(" rank %d nranks %d cudaDev %d busId ", c.rank, c.nranks, c.cuda_dev);
    out += bus + " commId " + (c.comm_id.empty() ? std::string("0x0") : c.comm_id) + " - Init " + stage + "\n";
  } else {
    out += "comm " + c.comm;
    out += StringPrintf(" rank %d nranks %d cudaDev %d busId ", c.rank, c.nranks, c.cuda_dev);
    out += bus + " - Init " + stage + "\n";
  }
  return out;
}

std::string NcclLogWriter::RingOrder(const NcclRingOrder& r, int nranks) {
  std::string out = Prefix(r.at);
  if (r.nchannels < 0) {
    // Read from the old "Ring 00 : 0 1 2 3" form, which names no channel count: written back so.
    out += StringPrintf("Ring %02d :", r.channel);
    for (const int v : r.ranks) out += StringPrintf(" %d", v);
    out.push_back('\n');
    return out;
  }
  if (era_ == NcclLogEra::kV2_26) {
    // 2.23+ dumpLine: " %*d" with the width of nranks-1, cut at 127 characters with "...".
    std::string line = StringPrintf("Channel %02d/%02d :", r.channel, r.nchannels);
    const int width = static_cast<int>(std::to_string(std::max(nranks - 1, 0)).size());
    for (const int v : r.ranks) {
      if (line.size() >= 127) break;
      line += StringPrintf(" %*d", width, v);
    }
    if (line.size() >= 128) {
      line.resize(124);
      line += "...";
    }
    out += line;
  } else {
    // <= 2.22 dumpLine: " %3d" for at most 20 ranks.
    out += StringPrintf("Channel %02d/%02d : ", r.channel, r.nchannels);
    for (size_t i = 0; i < r.ranks.size() && i < 20; ++i) out += StringPrintf(" %3d", r.ranks[i]);
  }
  out.push_back('\n');
  return out;
}

std::string NcclLogWriter::Ring(const NcclRingLine& r) {
  return Prefix(r.at) + StringPrintf("Ring %02d : %d -> %d -> %d\n", r.channel, r.prev, r.me, r.next);
}

std::string NcclLogWriter::Tree(const NcclTreeLine& t) {
  if (t.old_format) {
    return Prefix(t.at) + StringPrintf("Tree %d : %d -> %d -> %d/%d/%d\n", t.channel, t.up, t.me,
                                       t.down[0], t.down[1], t.down[2]);
  }
  return Trees({t});
}

std::string NcclLogWriter::Trees(const std::vector<NcclTreeLine>& ts) {
  std::string out = Prefix(ts.empty() ? NcclLogPrefix{} : ts.front().at);
  out += "Trees";
  for (const auto& t : ts) {
    out += StringPrintf(" [%d] %d/%d/%d->%d->%d", t.channel, t.down[0], t.down[1], t.down[2], t.me, t.up);
  }
  out.push_back('\n');
  return out;
}

std::string NcclLogWriter::Connection(const NcclConnection& c) {
  std::string out = Prefix(c.at);
  const char* dir = c.dir == NcclConnection::Dir::kSend      ? " [send]"
                    : c.dir == NcclConnection::Dir::kReceive ? " [receive]"
                                                             : "";
  std::string via = c.via;
  if (via.empty()) {  // build it from the fields
    switch (c.transport) {
      case NcclTransport::kP2p:
        via = "P2P/";
        if (c.p2p_kind == "indirect") {
          via += StringPrintf("indirect/%d[", c.indirect_rank) + c.indirect_dev + "]";
        } else {
          via += c.p2p_kind.empty() ? std::string("direct pointer") : c.p2p_kind;
        }
        if (c.read) via += "/read";
        if (c.ce) via += "/CE";
        break;
      case NcclTransport::kShm:
        via = "SHM/" + (c.p2p_kind.empty() ? std::string("direct/direct") : c.p2p_kind);
        if (era_ == NcclLogEra::kV2_12 && c.p2p_kind.empty()) via = "direct shared memory";
        break;
      case NcclTransport::kNet:
      case NcclTransport::kCollNet:
        via = (c.transport == NcclTransport::kNet ? "NET/" : "COLLNET/") + c.net_name +
              StringPrintf("/%d", c.net_dev);
        if (c.proxy_rank >= 0) via += StringPrintf("(%d)", c.proxy_rank);
        if (c.gdrdma) via += "/GDRDMA";
        if (c.gdr_pci) via += "(PCI)";
        if (c.shared) via += "/Shared";
        break;
      case NcclTransport::kNvls:
        via = "NVLS/" + c.p2p_kind;
        break;
      case NcclTransport::kUnknown:
        via = "unknown";
        break;
    }
  }
  if (c.transport == NcclTransport::kCollNet) {
    out += StringPrintf("CollNet %02d/%d : %d%s via ", c.channel, c.conn_index, c.from_rank, dir) + via + "\n";
    return out;
  }
  const bool conn = era_ != NcclLogEra::kV2_12 && c.transport != NcclTransport::kShm;
  if (conn) {
    out += StringPrintf("Channel %02d/%d : ", c.channel, c.conn_index);
  } else {
    out += StringPrintf("Channel %02d : ", c.channel);
  }
  out += StringPrintf("%d[", c.from_rank) + c.from_dev + StringPrintf("] -> %d[", c.to_rank) + c.to_dev + "]" +
         dir + " via " + via + "\n";
  return out;
}

std::string NcclLogWriter::NetUsing(const NcclNetUsing& u) {
  std::string out = Prefix(u.at);
  const std::string name = u.net_name.empty() ? std::string("IB") : u.net_name;
  out += "NET/" + name + " : Using";
  const bool socket = name == "Socket";
  for (const auto& d : u.devices) {
    if (socket || !d.address.empty()) {
      out += StringPrintf(" [%d]", d.index) + d.name + ":" + d.address + StringPrintf("<%d>", d.port);
    } else {
      out += StringPrintf(" [%d]", d.index) + d.name + StringPrintf(":%d/", d.port) +
             (d.link_layer.empty() ? std::string("IB") : d.link_layer);
      if (d.sharp) out += "/SHARP";
    }
  }
  if (!socket) {
    out += u.relaxed_ordering ? " [RO]" : " ";
    out += "; OOB " + u.oob_iface + ":" + u.oob_ip + StringPrintf("<%d>", u.oob_port < 0 ? 0 : u.oob_port);
  }
  out.push_back('\n');
  return out;
}

std::string NcclLogWriter::Qpn(const NcclQpn& q) {
  std::string out = Prefix(q.at);
  if (q.remote) {
    out += StringPrintf("NET/IB: IbDev %d Port %d qpn %u set_ece={", q.ib_dev_index, q.port, q.qpn);
    out += (q.ece.empty() ? std::string(kDefaultEce) : q.ece) + "}";
    if (!q.extra.empty()) out += " " + q.extra;
    out.push_back('\n');
    return out;
  }
  if (era_ != NcclLogEra::kV2_26) {
    out += StringPrintf("NET/IB: Dev %d Port %d qpn %u mtu %d ", q.dev, q.port, q.qpn, q.mtu);
    if (q.gid.empty()) {
      out += StringPrintf("LID %d\n", q.lid);
    } else {
      out += "GID " + q.gid + "\n";
    }
    return out;
  }
  out += "NET/IB: " + (q.ib_dev.empty() ? std::string("NCCL Dev") : q.ib_dev);
  out += StringPrintf(" %d IbDev %d Port %d qpn %u mtu %d ", q.dev, q.ib_dev_index < 0 ? q.dev : q.ib_dev_index,
                      q.port, q.qpn, q.mtu);
  if (q.gid.empty()) {
    out += StringPrintf("LID %d ", q.lid);
    out += q.extra.empty()
               ? StringPrintf("subnet-prefix 18338657682652659712  FLID 0 fifoRkey=0x%x fifoLkey=0x%x",
                              (q.qpn * 7u + 0x1000u) & 0xFFFFFFu, (q.qpn * 13u + 0x2000u) & 0xFFFFFFu)
               : q.extra;
  } else {
    out += "query_ece={" +
           (q.ece.empty() ? std::string(kDefaultEce) : q.ece) +
           "} GID " + q.gid + " ";
    out += q.extra.empty() ? StringPrintf("fifoRkey=0x%x fifoLkey=0x%x", (q.qpn * 7u + 0x1000u) & 0xFFFFFFu,
                                          (q.qpn * 13u + 0x2000u) & 0xFFFFFFu)
                           : q.extra;
  }
  out.push_back('\n');
  return out;
}

}  // namespace toposcope::formats
