// formats/fabric/iblinkinfo: see iblinkinfo.h.
#include "toposcope/formats/fabric/iblinkinfo.h"

#include <cmath>
#include <optional>
#include <utility>

#include "toposcope/base/text.h"
#include "toposcope/formats/fabric/ib_guid.h"

namespace toposcope::formats {
namespace {

// The speed a lane rate names and its nominal per-lane rate (Gb/s, as ibstat counts it).
struct LaneSpeed {
  double printed_gbps;
  const char* name;
  double nominal_gbps;
};
constexpr LaneSpeed kLaneSpeeds[] = {{2.5, "SDR", 2.5},        {5.0, "DDR", 5},        {10.0, "QDR", 10},
                                     {14.0625, "FDR", 14},     {25.78125, "EDR", 25},  {53.125, "HDR", 50},
                                     {106.25, "NDR", 100},     {212.5, "XDR", 200}};

std::optional<int> SmallInt(std::string_view s, int max) {
  const auto v = ParseInt(s);
  if (!v || *v < 0 || *v > max) return std::nullopt;
  return static_cast<int>(*v);
}

// `<lid> <port>[..]` or `[..]` (no peer): fills lid and port (left -1 for the bare form); why not.
std::string ReadEnd(std::string_view s, bool allow_bare, int* lid, int* port) {
  const size_t open = s.find('[');
  if (open == std::string_view::npos) return "no `[` after the port number";
  const std::vector<std::string_view> w = SplitWhitespace(s.substr(0, open));
  if (w.empty() && allow_bare) return "";
  if (w.size() != 2) return "expected `<lid> <port>[`";
  const auto l = SmallInt(w[0], 0xffff);
  const auto p = SmallInt(w[1], 255);
  if (!l) return "LID " + QuoteRaw(w[0]) + " is not 0..65535";
  if (!p) return "port " + QuoteRaw(w[1]) + " is not 0..255";
  *lid = *l;
  *port = *p;
  return "";
}

// The link between `==(` and `)==>`: width, lane rate, speed, state and phys state; why not.
std::string ReadLink(std::string_view m, IbLinkInfoPort& p) {
  const size_t slash = m.rfind('/');
  if (slash == std::string_view::npos) return "no `<state>/ <phys state>` in the link";
  p.phys_state = std::string(Trim(m.substr(slash + 1)));
  std::vector<std::string_view> w = SplitWhitespace(m.substr(0, slash));
  if (w.empty() || p.phys_state.empty()) return "no `<state>/ <phys state>` in the link";
  p.state = std::string(w.back());
  w.pop_back();
  if (w.empty()) return "";  // `Down/ Polling`: no width or rate
  if (w.size() < 3 || w[2] != "Gbps") return "expected `<width> <rate> Gbps` before the state";
  if (w[0].size() < 2 || (w[0].back() != 'X' && w[0].back() != 'x') || !SmallInt(w[0].substr(0, w[0].size() - 1), 12)) {
    return "width " + QuoteRaw(w[0]) + " is not 1X..12X";
  }
  const auto rate = ParseDouble(w[1]);
  if (!rate || !std::isfinite(*rate) || *rate <= 0) return "rate " + QuoteRaw(w[1]) + " is not a number of Gb/s";
  p.width = std::string(w[0]);
  p.lane_gbps = *rate;
  const bool fdr10 = w.size() > 3 && w[3] == "(FDR10)";
  for (const LaneSpeed& s : kLaneSpeeds) {
    if (std::abs(s.printed_gbps - *rate) < 1e-6) {
      p.speed = fdr10 ? "FDR10" : s.name;
      p.rate_gbps = *SmallInt(p.width.substr(0, p.width.size() - 1), 12) * s.nominal_gbps;
    }
  }
  return "";
}

// One port line; why it is rejected, or "".
std::string ReadPort(std::string_view t, IbLinkInfoPort& p) {
  const size_t open = t.find("==(");
  const size_t close = t.find(")==>");
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return "not an iblinkinfo port line (no `==( ... )==>`)";
  }
  std::string_view left = Trim(t.substr(0, open));
  if (std::string guid = TakeGuidWord(&left); !guid.empty()) p.port_guid = std::move(guid);
  if (std::string why = ReadEnd(left, false, &p.lid, &p.port); !why.empty()) return why;
  if (std::string why = ReadLink(t.substr(open + 3, close - open - 3), p); !why.empty()) return why;
  const std::string_view right = Trim(t.substr(close + 4));
  if (std::string why = ReadEnd(right, true, &p.peer_lid, &p.peer_port); !why.empty()) return "peer: " + why;
  const size_t q1 = right.find('"');
  const size_t q2 = q1 == std::string_view::npos ? q1 : right.find('"', q1 + 1);
  if (q2 == std::string_view::npos) return p.Linked() ? "no quoted peer description" : "";
  p.peer_desc = std::string(right.substr(q1 + 1, q2 - q1 - 1));
  return "";
}

}  // namespace

Result<IbLinkInfo> ParseIbLinkInfo(std::string_view text, std::string_view source, Diagnostics& diag) {
  if (LooksBinary(text.substr(0, 4096))) return MakeError(std::string(source), 0, 0, "binary input, not iblinkinfo output");
  IbLinkInfo out;
  out.source = std::string(source);
  bool any_header = false;
  bool in_node = false;
  IbLinkInfoPort node;  // the current header's fields
  int64_t no = 0;
  const auto reject = [&](std::string_view t, const std::string& why) {
    ++out.counts.read;
    ++out.counts.rejected;
    diag.Reject(source, no, t, why);
  };
  for (std::string_view raw : SplitLines(text)) {
    ++no;
    const std::string_view t = Trim(raw);
    if (t.empty()) continue;
    const bool sw = StartsWith(t, "Switch:");
    if ((sw || StartsWith(t, "CA:")) && EndsWith(t, ":") && t.find("==(") == std::string_view::npos) {
      std::string_view rest = Trim(t.substr(sw ? 7 : 3, t.size() - (sw ? 7 : 3) - 1));
      node = IbLinkInfoPort{};
      node.switch_node = sw;
      if (sw) {
        node.node_guid = TakeGuidWord(&rest);
        if (node.node_guid.empty()) {
          in_node = false;
          reject(t, "switch header without a 0x GUID");
          continue;
        }
      }
      node.node_desc = std::string(rest);
      node.node_line = no;
      any_header = in_node = true;
      ++out.counts.read;
      ++out.counts.accepted;
      continue;
    }
    if ((StartsWith(t, "$ ") || StartsWith(t, "# ") || Contains(t, "$ iblinkinfo") || Contains(t, "# iblinkinfo")) &&
        Contains(t, "iblinkinfo") && t.find("==(") == std::string_view::npos) {
      diag.Warn(source, no, t, "shell prompt running iblinkinfo: skipped as preamble, not a record");
      continue;
    }
    if (!in_node) {
      reject(t, t.find("==(") != std::string_view::npos ? "port line before any `Switch:` / `CA:` header"
                                                           : "not iblinkinfo output");
      continue;
    }
    IbLinkInfoPort p = node;
    p.line = no;
    if (std::string why = ReadPort(t, p); !why.empty()) {
      reject(t, why);
      continue;
    }
    ++out.counts.read;
    ++out.counts.accepted;
    out.ports.push_back(std::move(p));
  }
  if (!any_header) {
    return MakeError(std::string(source), 0, 0, "not iblinkinfo output: no `Switch:` or `CA:` header",
                     "expected the output of iblinkinfo");
  }
  return out;
}

bool LooksLikeIbLinkInfo(std::string_view head) {
  bool header = false, port = false;
  for (std::string_view raw : SplitLines(head)) {
    const std::string_view t = Trim(raw);
    if (t.find("==(") != std::string_view::npos) {
      port = port || t.find(")==>") != std::string_view::npos;
    } else if ((StartsWith(t, "Switch: 0x") || StartsWith(t, "CA: ")) && EndsWith(t, ":")) {
      header = true;
    }
    if (header && port) return true;
  }
  return false;
}

}  // namespace toposcope::formats
