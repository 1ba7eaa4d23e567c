// formats/fabric/ibnetdiscover: see ibnetdiscover.h. A line state machine: attribute lines collect
// into the pending node, a Switch/Ca/Rt header opens it, `[p]` lines add ports, and the next
// attribute line, header or the end of input closes (emits) it.
#include "toposcope/formats/fabric/ibnetdiscover.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_set>
#include <utility>

#include "toposcope/base/text.h"

namespace toposcope::formats {
namespace {

bool IsHex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Strips leading zeros and lowercases a hex string ("0008F1" -> "8f1"; "0" stays "0").
std::string CanonHex(std::string_view s) {
  size_t i = 0;
  while (i + 1 < s.size() && s[i] == '0') ++i;
  std::string out(s.substr(i));
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Parses a non-negative decimal int with a maximum; nullopt otherwise.
std::optional<int> ParseBounded(std::string_view s, int max_value) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v > max_value) return std::nullopt;
  return v;
}

class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  void SkipBlanks() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  bool Eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool EatStr(std::string_view t) {
    if (s_.substr(i_).substr(0, t.size()) == t) {
      i_ += t.size();
      return true;
    }
    return false;
  }
  [[nodiscard]] bool AtEnd() const { return i_ >= s_.size(); }
  [[nodiscard]] char Peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  // Reads up to (not including) `c`; false when `c` is not found.
  bool ReadUntil(char c, std::string_view* out) {
    const size_t e = s_.find(c, i_);
    if (e == std::string_view::npos) return false;
    *out = s_.substr(i_, e - i_);
    i_ = e;
    return true;
  }
  // Reads a run of non-blank characters.
  std::string_view Word() {
    const size_t b = i_;
    while (i_ < s_.size() && s_[i_] != ' ' && s_[i_] != '\t') ++i_;
    return s_.substr(b, i_ - b);
  }
  // Reads "[N]" with N in 0..max; nullopt on anything else (position undefined).
  std::optional<int> Bracketed(int max) {
    if (!Eat('[')) return std::nullopt;
    std::string_view num;
    if (!ReadUntil(']', &num)) return std::nullopt;
    ++i_;
    return ParseBounded(num, max);
  }
  [[nodiscard]] std::string_view Rest() const { return s_.substr(std::min(i_, s_.size())); }
  [[nodiscard]] size_t pos() const { return i_; }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

// Checks "S-<16 hex>" (or H-/R-) and returns the letter, or '\0'.
char IdKind(std::string_view id) {
  if (id.size() != 18 || id[1] != '-') return '\0';
  if (id[0] != 'S' && id[0] != 'H' && id[0] != 'R') return '\0';
  return IsHex(id.substr(2)) ? id[0] : '\0';
}

bool KnownWidth(std::string_view w) {
  return w == "1x" || w == "2x" || w == "4x" || w == "8x" || w == "12x" || w == "??";
}
bool KnownSpeed(std::string_view s) {
  return s == "SDR" || s == "DDR" || s == "QDR" || s == "FDR10" || s == "FDR" || s == "EDR" || s == "HDR" ||
         s == "NDR" || s == "XDR" || s == "???";
}

// Splits "4xQDR" / "12xEDR" / "?????" into width and speed.
bool SplitWidthSpeed(std::string_view tok, std::string* width, std::string* speed) {
  size_t x = tok.find('x');
  if (StartsWith(tok, "??")) {
    x = 1;
  } else if (x == std::string_view::npos) {
    return false;
  }
  *width = std::string(tok.substr(0, x + 1));
  *speed = std::string(tok.substr(x + 1));
  return KnownWidth(*width) && KnownSpeed(*speed);
}

const char* KindWord(IbNodeKind k) {
  switch (k) {
    case IbNodeKind::kSwitch: return "Switch";
    case IbNodeKind::kCa: return "Ca";
    case IbNodeKind::kRouter: return "Rt";
  }
  return "Ca";
}

struct Pending {
  std::string vendid, devid, sysimgguid, guid, port0_guid, chassis_info;
  std::string guid_key;  // "switchguid" / "caguid" / "rtguid" ("" when none)
  int chassis = 0;
  bool any = false;
  int64_t first_line = 0;
};

class Reader {
 public:
  Reader(std::string_view source, const IbNodeSink& sink, Diagnostics& diag, ReadCounts& counts,
         IbnetdiscoverHeader* header)
      : source_(source), sink_(sink), diag_(diag), counts_(counts), header_(header) {}

  // Handles one line. Returns false when the input is unusable (first meaningful line foreign).
  bool Line(std::string_view raw, int64_t no, std::string* foreign_reason) {
    std::string_view line = raw;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string_view t = Trim(line);
    if (t.empty()) return true;
    if (t[0] == '#') {
      Comment(t);
      saw_header_comment_ = saw_header_comment_ || StartsWith(t, "# Topology file:");
      return true;
    }
    if (!started_) {
      if (!saw_header_comment_ && !LooksLikeFirstLine(t)) {
        *foreign_reason = "the first line is not ibnetdiscover output: " + ClipRaw(t, 60);
        return false;
      }
      started_ = true;
    }
    ++counts_.read;
    if (t[0] == '[') {
      PortLine(t, no);
    } else if (StartsWith(t, "Switch") || StartsWith(t, "Ca") || StartsWith(t, "Rt")) {
      if (!HeaderLine(t, no)) Reject(no, t, last_reason_);
    } else if (t.find('=') != std::string_view::npos && !StartsWith(t, "Hostname:")) {
      AttrLine(t, no);
    } else if (StartsWith(t, "Chassis ") || t == "Non-Chassis Nodes" || StartsWith(t, "Hostname:")) {
      Accept();  // -g grouping structure lines
    } else {
      Reject(no, t, "not an ibnetdiscover topology line");
    }
    return true;
  }

  void Finish() {
    Flush();
    if (pending_.any) {
      diag_.Warn(source_, pending_.first_line, "", "node attributes without a Switch/Ca/Rt header");
      pending_ = Pending{};
    }
  }

  [[nodiscard]] bool started() const { return started_; }

 private:
  static bool LooksLikeFirstLine(std::string_view t) {
    return StartsWith(t, "vendid=") || StartsWith(t, "devid=") || StartsWith(t, "sysimgguid=") ||
           StartsWith(t, "switchguid=") || StartsWith(t, "caguid=") || StartsWith(t, "rtguid=") ||
           StartsWith(t, "Switch\t") || StartsWith(t, "Ca\t") || StartsWith(t, "Rt\t") ||
           StartsWith(t, "Chassis ") || t == "Non-Chassis Nodes";
  }

  void Accept() { ++counts_.accepted; }
  void Reject(int64_t no, std::string_view raw, std::string_view reason) {
    ++counts_.rejected;
    diag_.Reject(source_, no, raw, reason);
  }

  void Comment(std::string_view t) {
    if (header_ == nullptr) return;
    std::string_view rest = Trim(t.substr(1));
    if (StartsWith(rest, "Topology file: generated on")) {
      header_->generated_on = std::string(Trim(rest.substr(std::string_view("Topology file: generated on").size())));
    } else if (StartsWith(rest, "Initiated from ")) {
      header_->initiated_from = std::string(Trim(rest.substr(std::string_view("Initiated from ").size())));
    } else if (StartsWith(rest, "Reported max hops discovered:")) {
      auto v = ParseInt(Trim(rest.substr(std::string_view("Reported max hops discovered:").size())));
      if (v && *v >= 0) header_->max_hops = *v;
    } else if (StartsWith(rest, "Total MADs used:")) {
      auto v = ParseInt(Trim(rest.substr(std::string_view("Total MADs used:").size())));
      if (v && *v >= 0) header_->total_mads = *v;
    }
  }

  void Flush() {
    if (node_) {
      sink_(std::move(*node_));
      node_.reset();
    }
    skipping_ports_ = false;
  }

  void AttrLine(std::string_view t, int64_t no) {
    Flush();
    const size_t eq = t.find('=');
    const std::string_view key = t.substr(0, eq);
    std::string_view value = t.substr(eq + 1);
    std::string_view tail;
    const size_t hash = value.find('#');
    if (hash != std::string_view::npos) {
      tail = Trim(value.substr(hash + 1));
      value = value.substr(0, hash);
    }
    value = Trim(value);
    auto hexval = [](std::string_view v) -> std::optional<std::string> {
      if (!StartsWith(v, "0x") || !IsHex(v.substr(2)) || v.size() > 18) return std::nullopt;
      return std::string(v);
    };
    if (!pending_.any) pending_.first_line = no;
    if (key == "vendid" || key == "devid") {
      std::string& slot = key == "vendid" ? pending_.vendid : pending_.devid;
      if (!slot.empty()) return Reject(no, t, std::string(key) + "= given twice for one node");
      auto v = hexval(value);
      if (!v) return Reject(no, t, "bad " + std::string(key) + " (want 0x<hex>)");
      slot = *v;
    } else if (key == "sysimgguid") {
      if (!pending_.sysimgguid.empty()) return Reject(no, t, "sysimgguid= given twice for one node");
      auto v = hexval(value);
      if (!v) return Reject(no, t, "bad sysimgguid (want 0x<hex>)");
      pending_.sysimgguid = *v;
      if (StartsWith(tail, "Chassis ")) {
        std::string_view n = tail.substr(8);
        const size_t sp = n.find_first_of(" \t");
        auto c = ParseBounded(n.substr(0, sp), 255);
        if (!c) return Reject(no, t, "bad chassis number");
        pending_.chassis = *c;
      }
    } else if (key == "switchguid" || key == "caguid" || key == "rtguid") {
      if (!pending_.guid_key.empty()) return Reject(no, t, "a second node GUID line before a node header");
      std::string_view g = value;
      std::string port0;
      const size_t paren = g.find('(');
      if (paren != std::string_view::npos) {
        if (key != "switchguid" || g.back() != ')') return Reject(no, t, "bad '(port guid)' after the GUID");
        const std::string_view inner = g.substr(paren + 1, g.size() - paren - 2);
        if (!IsHex(inner) || inner.size() > 16) return Reject(no, t, "bad port GUID in parentheses");
        port0 = std::string(inner);
        g = g.substr(0, paren);
      }
      auto v = hexval(g);
      if (!v) return Reject(no, t, "bad " + std::string(key) + " (want 0x<hex>)");
      pending_.guid_key = std::string(key);
      pending_.guid = v->substr(2);
      pending_.port0_guid = port0;
      pending_.chassis_info = std::string(tail);
    } else {
      return Reject(no, t, "unknown attribute " + QuoteRaw(key));
    }
    pending_.any = true;
    Accept();
  }

  bool Fail(std::string reason) {
    last_reason_ = std::move(reason);
    return false;
  }

  bool HeaderLine(std::string_view t, int64_t no) {
    Flush();
    Pending attrs = std::move(pending_);
    pending_ = Pending{};
    Cursor c(t);
    IbNode n;
    n.line = no;
    const std::string_view word = c.Word();
    char want = 'S';
    if (word == "Switch") {
      n.kind = IbNodeKind::kSwitch;
    } else if (word == "Ca") {
      n.kind = IbNodeKind::kCa;
      want = 'H';
    } else if (word == "Rt") {
      n.kind = IbNodeKind::kRouter;
      want = 'R';
    } else {
      skipping_ports_ = true;
      return Fail("not an ibnetdiscover topology line");
    }
    skipping_ports_ = true;  // until the header is accepted
    c.SkipBlanks();
    auto np = ParseBounded(c.Word(), 255);
    if (!np || *np < 1) return Fail("bad port count (want 1..255)");
    n.nports = *np;
    c.SkipBlanks();
    std::string_view id;
    if (!c.Eat('"') || !c.ReadUntil('"', &id)) return Fail("missing quoted node id");
    c.Eat('"');
    if (IdKind(id) != want) return Fail(std::string("bad node id ") + QuoteRaw(id) + " for a " + std::string(word));
    n.id = std::string(id);
    c.SkipBlanks();
    if (!c.Eat('#')) return Fail("missing '# \"description\"' after the node id");
    c.SkipBlanks();
    std::string_view rest = c.Rest();
    if (rest.empty() || rest[0] != '"') return Fail("missing quoted node description");
    if (n.kind == IbNodeKind::kSwitch) {
      size_t at = rest.rfind("\" enhanced port 0");
      bool enhanced = true;
      if (at == std::string_view::npos) {
        at = rest.rfind("\" base port 0");
        enhanced = false;
      }
      if (at == std::string_view::npos || at == 0) return Fail("switch header without 'enhanced|base port 0 lid N lmc N'");
      n.desc = std::string(rest.substr(1, at - 1));
      n.enhanced_port0 = enhanced;
      Cursor d(rest.substr(at + (enhanced ? 17 : 13)));
      d.SkipBlanks();
      if (!d.EatStr("lid")) return Fail("switch header without 'lid N'");
      d.SkipBlanks();
      auto lid = ParseBounded(d.Word(), 0xFFFF);
      if (!lid) return Fail("bad switch lid (want 0..65535)");
      d.SkipBlanks();
      if (!d.EatStr("lmc")) return Fail("switch header without 'lmc N'");
      d.SkipBlanks();
      auto lmc = ParseBounded(d.Word(), 7);
      if (!lmc) return Fail("bad switch lmc (want 0..7)");
      d.SkipBlanks();
      if (!d.AtEnd()) return Fail("unexpected text after the switch lmc");
      n.lid = *lid;
      n.lmc = *lmc;
    } else {
      const size_t close = rest.rfind('"');
      if (close == 0) return Fail("unterminated node description");
      n.desc = std::string(rest.substr(1, close - 1));
      const std::string_view after = Trim(rest.substr(close + 1));
      if (!after.empty() && after != "(scp)") return Fail("unexpected text after the node description");
    }
    // Attributes.
    const std::string id_hex = CanonHex(std::string_view(n.id).substr(2));
    if (!attrs.guid_key.empty()) {
      const char* want_key = n.kind == IbNodeKind::kSwitch ? "switchguid" : (n.kind == IbNodeKind::kCa ? "caguid" : "rtguid");
      if (attrs.guid_key != want_key) {
        diag_.Warn(source_, no, t, attrs.guid_key + "= before a " + std::string(word) + " header");
      }
      if (CanonHex(attrs.guid) != id_hex) {
        diag_.Warn(source_, no, t, "node GUID 0x" + attrs.guid + " differs from the id " + n.id);
      }
      n.guid = attrs.guid;
    } else {
      n.guid = id_hex;
    }
    if (n.kind == IbNodeKind::kSwitch) {
      n.port0_guid = attrs.port0_guid;
      n.chassis_info = attrs.chassis_info;
    }
    n.vendid = attrs.vendid;
    n.devid = attrs.devid;
    n.sysimgguid = attrs.sysimgguid;
    n.chassis = n.sysimgguid.empty() ? 0 : attrs.chassis;
    if (!seen_ids_.insert(n.id).second) return Fail("node " + n.id + " was listed before; this block is dropped");
    skipping_ports_ = false;
    node_ = std::make_unique<IbNode>(std::move(n));
    Accept();
    return true;
  }

  void PortLine(std::string_view t, int64_t no) {
    if (!node_) {
      Reject(no, t, skipping_ports_ ? "port line of a rejected node" : "port line outside a node block");
      return;
    }
    IbPortLink p;
    p.line = no;
    std::string reason;
    if (!ParsePort(t, &p, &reason)) {
      Reject(no, t, reason);
      return;
    }
    if (p.port > node_->nports) {
      Reject(no, t, "port " + std::to_string(p.port) + " beyond the node's " + std::to_string(node_->nports) + " ports");
      return;
    }
    for (const IbPortLink& q : node_->ports) {
      if (q.port == p.port) {
        Reject(no, t, "port " + std::to_string(p.port) + " listed twice");
        return;
      }
    }
    if (p.peer_guid == node_->id && p.peer_port == p.port) {
      Reject(no, t, "a port linked to itself");
      return;
    }
    if (p.width == "??" || p.speed == "???") diag_.Warn(source_, no, t, "link width or speed unknown to ibnetdiscover");
    node_->ports.push_back(std::move(p));
    Accept();
  }

  // `[N]` and an optional `[ext N]` (both 1..255) into `port` and `ext`; `bad_port`/`bad_ext` are the
  // reasons when one is out of range.
  static bool PortNumbers(Cursor& c, const char* bad_port, const char* bad_ext, int* port, int* ext,
                          std::string* reason) {
    auto n = c.Bracketed(255);
    if (!n || *n < 1) return (*reason = bad_port, false);
    *port = *n;
    if (c.EatStr("[ext ")) {
      std::string_view num;
      if (!c.ReadUntil(']', &num)) return (*reason = "unterminated '[ext N]'", false);
      c.Eat(']');
      auto e = ParseBounded(num, 255);
      if (!e || *e < 1) return (*reason = bad_ext, false);
      *ext = *e;
    }
    return true;
  }

  // An optional `(guid)` (up to 16 hex digits) into `guid`; `bad` is the reason when it is malformed.
  static bool PortGuid(Cursor& c, const char* bad, std::string* guid, std::string* reason) {
    if (!c.Eat('(')) return true;
    std::string_view g;
    if (!c.ReadUntil(')', &g) || !IsHex(g) || g.size() > 16) return (*reason = bad, false);
    c.Eat(')');
    *guid = std::string(g);
    return true;
  }

  static bool ParsePort(std::string_view t, IbPortLink* p, std::string* reason) {
    Cursor c(t);
    if (!PortNumbers(c, "bad local port '[N]' (want 1..255)", "bad '[ext N]'", &p->port, &p->ext_port, reason)) {
      return false;
    }
    if (!PortGuid(c, "bad local port GUID in parentheses", &p->port_guid, reason)) return false;
    c.SkipBlanks();
    std::string_view id;
    if (!c.Eat('"') || !c.ReadUntil('"', &id)) return (*reason = "missing quoted peer id", false);
    c.Eat('"');
    if (IdKind(id) == '\0') return (*reason = "bad peer id " + QuoteRaw(id) + " (want S-/H-/R- and 16 hex digits)", false);
    p->peer_guid = std::string(id);
    if (!PortNumbers(c, "bad peer port '[N]' (want 1..255)", "bad peer '[ext N]'", &p->peer_port, &p->peer_ext_port,
                     reason)) {
      return false;
    }
    c.SkipBlanks();
    if (!PortGuid(c, "bad peer port GUID in parentheses", &p->peer_port_guid, reason)) return false;
    c.SkipBlanks();
    if (!c.Eat('#')) return (*reason = "missing '#' comment with the peer's description, lid and speed", false);
    c.SkipBlanks();
    if (c.EatStr("lid ")) {
      c.SkipBlanks();
      auto lid = ParseBounded(c.Word(), 0xFFFF);
      if (!lid) return (*reason = "bad port lid (want 0..65535)", false);
      c.SkipBlanks();
      if (!c.EatStr("lmc")) return (*reason = "missing 'lmc N' after the port lid", false);
      c.SkipBlanks();
      auto lmc = ParseBounded(c.Word(), 7);
      if (!lmc) return (*reason = "bad port lmc (want 0..7)", false);
      c.SkipBlanks();
      p->lid = *lid;
      p->lmc = *lmc;
    }
    const std::string_view rest = c.Rest();
    if (rest.empty() || rest[0] != '"') return (*reason = "missing the peer's quoted description", false);
    const size_t at = rest.rfind("\" lid ");
    if (at == std::string_view::npos || at == 0) return (*reason = "missing 'lid N <width><speed>' after the peer description", false);
    p->peer_desc = std::string(rest.substr(1, at - 1));
    Cursor d(rest.substr(at + 6));
    d.SkipBlanks();
    auto plid = ParseBounded(d.Word(), 0xFFFF);
    if (!plid) return (*reason = "bad peer lid (want 0..65535)", false);
    p->peer_lid = *plid;
    d.SkipBlanks();
    const std::string_view ws = d.Word();
    if (!SplitWidthSpeed(ws, &p->width, &p->speed)) return (*reason = "unknown link width/speed " + QuoteRaw(ws), false);
    p->rate_gbps = IbRateGbps(p->width, p->speed);
    p->extra = std::string(Trim(d.Rest()));
    return true;
  }

  std::string_view source_;
  const IbNodeSink& sink_;
  Diagnostics& diag_;
  ReadCounts& counts_;
  IbnetdiscoverHeader* header_;
  Pending pending_;
  std::unique_ptr<IbNode> node_;
  bool skipping_ports_ = false;
  bool started_ = false;
  bool saw_header_comment_ = false;
  std::string last_reason_;
  std::unordered_set<std::string> seen_ids_;
};

void WritePortLine(std::string* out, const IbNode& n, const IbPortLink& p) {
  const bool ca_style = n.kind != IbNodeKind::kSwitch;
  *out += "[" + std::to_string(p.port) + "]";
  if (p.ext_port > 0) *out += "[ext " + std::to_string(p.ext_port) + "]";
  if (!p.port_guid.empty()) *out += "(" + p.port_guid + ") ";
  *out += "\t\"" + p.peer_guid + "\"[" + std::to_string(p.peer_port) + "]";
  if (p.peer_ext_port > 0) *out += "[ext " + std::to_string(p.peer_ext_port) + "]";
  if (!p.peer_port_guid.empty()) {
    if (ca_style) *out += " ";
    *out += "(" + p.peer_port_guid + ") ";
  }
  *out += "\t\t# ";
  if (p.lid >= 0 || p.lmc >= 0) {
    *out += "lid " + std::to_string(std::max(p.lid, 0)) + " lmc " + std::to_string(std::max(p.lmc, 0)) + " ";
  }
  *out += "\"" + p.peer_desc + "\" lid " + std::to_string(std::max(p.peer_lid, 0)) + " " + p.width + p.speed;
  if (!p.extra.empty()) *out += " " + p.extra;
  *out += "\n";
}

}  // namespace

double IbRateGbps(std::string_view width, std::string_view speed) {
  double lanes = 0;
  if (width == "1x") lanes = 1;
  else if (width == "2x") lanes = 2;
  else if (width == "4x") lanes = 4;
  else if (width == "8x") lanes = 8;
  else if (width == "12x") lanes = 12;
  double lane = 0;
  if (speed == "SDR") lane = 2.5;
  else if (speed == "DDR") lane = 5;
  else if (speed == "QDR" || speed == "FDR10") lane = 10;
  else if (speed == "FDR") lane = 14;
  else if (speed == "EDR") lane = 25;
  else if (speed == "HDR") lane = 50;
  else if (speed == "NDR") lane = 100;
  else if (speed == "XDR") lane = 200;
  return lanes * lane;
}

int64_t IbFabric::SwitchCount() const {
  return std::count_if(nodes.begin(), nodes.end(), [](const IbNode& n) { return n.kind == IbNodeKind::kSwitch; });
}
int64_t IbFabric::CaCount() const {
  return std::count_if(nodes.begin(), nodes.end(), [](const IbNode& n) { return n.kind == IbNodeKind::kCa; });
}
int64_t IbFabric::RouterCount() const {
  return std::count_if(nodes.begin(), nodes.end(), [](const IbNode& n) { return n.kind == IbNodeKind::kRouter; });
}

std::unordered_map<std::string, size_t> IbFabric::IndexById() const {
  std::unordered_map<std::string, size_t> idx;
  idx.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) idx.emplace(nodes[i].id, i);
  return idx;
}

bool operator==(const IbFabric& a, const IbFabric& b) {
  return a.nodes == b.nodes && a.generated_on == b.generated_on && a.initiated_from == b.initiated_from &&
         a.max_hops == b.max_hops && a.total_mads == b.total_mads;
}

const IbNode* IbFabric::FindNode(std::string_view id) const {
  for (const IbNode& n : nodes) {
    if (n.id == id) return &n;
  }
  return nullptr;
}

std::vector<IbLink> IbLinks(const IbFabric& fabric) {
  std::vector<IbLink> links;
  for (const IbNode& n : fabric.nodes) {
    for (const IbPortLink& p : n.ports) {
      IbLink l;
      const bool self_first = std::make_pair(std::string_view(n.id), p.port) <
                              std::make_pair(std::string_view(p.peer_guid), p.peer_port);
      l.a_id = self_first ? n.id : p.peer_guid;
      l.a_port = self_first ? p.port : p.peer_port;
      l.b_id = self_first ? p.peer_guid : n.id;
      l.b_port = self_first ? p.peer_port : p.port;
      l.width = p.width;
      l.speed = p.speed;
      l.rate_gbps = p.rate_gbps;
      links.push_back(std::move(l));
    }
  }
  std::sort(links.begin(), links.end(), [](const IbLink& x, const IbLink& y) {
    return std::tie(x.a_id, x.a_port, x.b_id, x.b_port) < std::tie(y.a_id, y.a_port, y.b_id, y.b_port);
  });
  links.erase(std::unique(links.begin(), links.end(),
                          [](const IbLink& x, const IbLink& y) {
                            return x.a_id == y.a_id && x.a_port == y.a_port && x.b_id == y.b_id && x.b_port == y.b_port;
                          }),
              links.end());
  return links;
}

Status ReadIbnetdiscover(LineReader& lines, std::string_view source, const IbNodeSink& sink, Diagnostics& diag,
                         ReadCounts& counts, IbnetdiscoverHeader* header) {
  const std::string src(source);
  IbnetdiscoverHeader local_header;
  Reader r(source, sink, diag, counts, header != nullptr ? header : &local_header);
  std::string_view line;
  bool first = true;
  std::string foreign;
  while (lines.Next(&line)) {
    if (first) {
      first = false;
      if (LooksBinary(line.substr(0, 4096))) return MakeError(src, 1, 0, "binary input, not ibnetdiscover output");
    }
    if (!r.Line(line, lines.line_number(), &foreign)) {
      return MakeError(src, lines.line_number(), 0, foreign, "expected `ibnetdiscover` topology output");
    }
  }
  if (lines.error() != nullptr) return *lines.error();
  r.Finish();
  if (!r.started()) return MakeError(src, 0, 0, "no ibnetdiscover node in the input", "expected `ibnetdiscover` topology output");
  return {};
}

Result<IbFabric> ParseIbnetdiscover(std::string_view text, std::string_view source, Diagnostics& diag) {
  IbFabric fabric;
  IbnetdiscoverHeader header;
  LineReader lines(std::make_unique<TextInputStream>(text, std::string(source)));
  Status st = ReadIbnetdiscover(
      lines, source, [&](IbNode&& n) { fabric.nodes.push_back(std::move(n)); }, diag, fabric.counts, &header);
  if (!st.ok()) return st.error();
  fabric.generated_on = header.generated_on;
  fabric.initiated_from = header.initiated_from;
  fabric.max_hops = header.max_hops;
  fabric.total_mads = header.total_mads;
  // Both ends of a link must agree.
  const auto idx = fabric.IndexById();
  for (const IbNode& n : fabric.nodes) {
    for (const IbPortLink& p : n.ports) {
      auto it = idx.find(p.peer_guid);
      if (it == idx.end()) continue;
      const IbNode& peer = fabric.nodes[it->second];
      const IbPortLink* back = nullptr;
      for (const IbPortLink& q : peer.ports) {
        if (q.port == p.peer_port) back = &q;
      }
      if (back == nullptr) {
        diag.Warn(source, p.line, "",
                  n.id + "[" + std::to_string(p.port) + "] -> " + p.peer_guid + "[" + std::to_string(p.peer_port) +
                      "], but the peer lists no link on that port");
      } else if (back->peer_guid != n.id || back->peer_port != p.port) {
        diag.Warn(source, p.line, "",
                  n.id + "[" + std::to_string(p.port) + "] -> " + p.peer_guid + "[" + std::to_string(p.peer_port) +
                      "], but the peer's port goes to " + back->peer_guid + "[" + std::to_string(back->peer_port) + "]");
      }
    }
  }
  return fabric;
}

std::string WriteIbnetdiscover(const IbFabric& fabric) {
  std::string out;
  out.reserve(fabric.nodes.size() * 512);
  out += "#\n# Topology file: generated on " + fabric.generated_on + "\n#\n";
  if (fabric.max_hops >= 0) out += "# Reported max hops discovered: " + std::to_string(fabric.max_hops) + "\n";
  if (fabric.total_mads >= 0) out += "# Total MADs used: " + std::to_string(fabric.total_mads) + "\n";
  if (!fabric.initiated_from.empty()) out += "# Initiated from " + fabric.initiated_from + "\n";
  for (const IbNode& n : fabric.nodes) {
    out += "\n";
    if (!n.vendid.empty()) out += "vendid=" + n.vendid + "\n";
    if (!n.devid.empty()) out += "devid=" + n.devid + "\n";
    if (!n.sysimgguid.empty()) {
      out += "sysimgguid=" + n.sysimgguid;
      if (n.chassis > 0) out += "\t\t# Chassis " + std::to_string(n.chassis);
      out += "\n";
    }
    const std::string guid = n.guid.empty() ? CanonHex(n.id.size() > 2 ? std::string_view(n.id).substr(2) : "0") : n.guid;
    switch (n.kind) {
      case IbNodeKind::kSwitch:
        out += "switchguid=0x" + guid;
        if (!n.port0_guid.empty()) out += "(" + n.port0_guid + ")";
        if (!n.chassis_info.empty()) out += "\t# " + n.chassis_info;
        out += "\n";
        break;
      case IbNodeKind::kCa: out += "caguid=0x" + guid + "\n"; break;
      case IbNodeKind::kRouter: out += "rtguid=0x" + guid + "\n"; break;
    }
    out += std::string(KindWord(n.kind)) + "\t" + std::to_string(n.nports) + " \"" + n.id + "\"\t\t# \"" + n.desc + "\"";
    if (n.kind == IbNodeKind::kSwitch) {
      out += n.enhanced_port0 ? " enhanced" : " base";
      out += " port 0 lid " + std::to_string(std::max(n.lid, 0)) + " lmc " + std::to_string(std::max(n.lmc, 0));
    }
    out += "\n";
    for (const IbPortLink& p : n.ports) WritePortLine(&out, n, p);
  }
  return out;
}

bool LooksLikeIbnetdiscover(std::string_view head) {
  if (head.find("# Topology file:") != std::string_view::npos) return true;
  TextLines lines(head);
  std::string_view l;
  while (lines.Next(&l)) {
    if ((StartsWith(l, "Switch\t") && l.find("\"S-") != std::string_view::npos) ||
        (StartsWith(l, "Ca\t") && l.find("\"H-") != std::string_view::npos) || StartsWith(l, "switchguid=0x") ||
        StartsWith(l, "caguid=0x")) {
      return true;
    }
  }
  return false;
}

std::pair<std::string, std::string> HostOfCaDesc(const std::string& desc) {
  const auto parts = SplitWhitespace(desc);
  if (parts.size() != 2) return {};
  const std::string_view dev = parts[1];
  const bool device = StartsWith(dev, "mlx") || StartsWith(dev, "hfi") || StartsWith(dev, "qib") ||
                      StartsWith(dev, "HCA") || StartsWith(dev, "ibp") || StartsWith(dev, "bnxt") ||
                      StartsWith(dev, "irdma") || StartsWith(dev, "rxe");
  if (!device) return {};
  return {std::string(parts[0]), std::string(dev)};
}

}  // namespace toposcope::formats
