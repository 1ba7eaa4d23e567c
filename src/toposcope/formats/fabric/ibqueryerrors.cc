// formats/fabric/ibqueryerrors: see ibqueryerrors.h.
#include "toposcope/formats/fabric/ibqueryerrors.h"

#include <charconv>
#include <optional>

#include "toposcope/base/text.h"
#include "toposcope/formats/fabric/ib_guid.h"

namespace toposcope::formats {
namespace {

// `Errors for [0x<guid>] "<desc>"`: fills the node's GUID and description; why not, or "".
std::string ReadHeader(std::string_view t, std::string* guid, std::string* desc) {
  std::string_view rest = Trim(t.substr(std::string_view("Errors for").size()));
  *guid = TakeGuidWord(&rest, /*upper_x=*/true);
  const size_t q1 = rest.find('"');
  const size_t q2 = q1 == std::string_view::npos ? q1 : rest.rfind('"');
  if (q2 == std::string_view::npos || q2 == q1) return "header without a quoted node description";
  *desc = std::string(rest.substr(q1 + 1, q2 - q1 - 1));
  return "";
}

std::optional<uint64_t> Number(std::string_view s) {
  uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// `GUID 0x<g> port <n|ALL>: [Name == v] ...`: fills the block; why not, or "".
std::string ReadPort(std::string_view t, PortCounterBlock& b) {
  const std::vector<std::string_view> w = SplitWhitespace(t.substr(0, t.find('[')));
  if (w.size() != 4 || w[0] != "GUID" || !StartsWith(w[1], "0x") || w[2] != "port" || !EndsWith(w[3], ":")) {
    return "expected `GUID 0x<port guid> port <n|ALL>:`";
  }
  b.port_guid = std::string(w[1]);
  const std::string_view port = w[3].substr(0, w[3].size() - 1);
  if (port == "ALL") {
    b.port = 255;
  } else {
    const auto n = Number(port);
    if (!n || *n > 255) return "port " + QuoteRaw(port) + " is not 0..255 or ALL";
    b.port = static_cast<int>(*n);
  }
  std::string_view rest = t.substr(std::min(t.size(), t.find('[')));
  while (!Trim(rest).empty()) {
    rest = Trim(rest);
    const size_t close = rest.find(']');
    if (rest[0] != '[' || close == std::string_view::npos) return "expected `[<Counter> == <value>]`";
    const std::string_view item = rest.substr(1, close - 1);
    const size_t eq = item.find("==");
    const auto v = eq == std::string_view::npos ? std::nullopt : Number(Trim(item.substr(eq + 2)));
    const std::string_view name = eq == std::string_view::npos ? item : Trim(item.substr(0, eq));
    if (!v || name.empty()) return "counter " + QuoteRaw(item) + " is not `<Counter> == <number>`";
    if (!b.counters.emplace(PerfqueryCounterName(name), *v).second) return "counter " + std::string(name) + " printed twice";
    rest = rest.substr(close + 1);
  }
  return "";
}

}  // namespace

Result<PortCounters> ParseIbQueryErrors(std::string_view text, std::string_view source, Diagnostics& diag) {
  if (LooksBinary(text.substr(0, 4096))) {
    return MakeError(std::string(source), 0, 0, "binary input, not ibqueryerrors output");
  }
  PortCounters out;
  out.tool = "ibqueryerrors";
  out.source = std::string(source);
  bool in_node = false, any = false;
  std::string guid, desc;
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
    if (StartsWith(t, "##")) {
      any = any || StartsWith(t, "## Summary:");
      continue;
    }
    if (StartsWith(t, "Errors for")) {
      any = true;
      if (std::string why = ReadHeader(t, &guid, &desc); !why.empty()) {
        in_node = false;
        reject(t, why);
        continue;
      }
      in_node = true;
      ++out.counts.read;
      ++out.counts.accepted;
      continue;
    }
    if (StartsWith(t, "GUID ")) {
      any = true;
      if (!in_node) {
        reject(t, "port line before any `Errors for` header");
        continue;
      }
      PortCounterBlock b;
      b.named_by = "ibqueryerrors";
      b.node_guid = guid;
      b.node_desc = desc;
      b.line = no;
      if (std::string why = ReadPort(t, b); !why.empty()) {
        reject(t, why);
        continue;
      }
      ++out.counts.read;
      ++out.counts.accepted;
      out.blocks.push_back(std::move(b));
      continue;
    }
    if (StartsWith(t, "Link info:") || StartsWith(t, "ibwarn:") || Contains(t, "ibqueryerrors")) {
      diag.Warn(source, no, t, "skipped: a command line, warning or link detail, not a counter");
      continue;
    }
    reject(t, "not ibqueryerrors output (no `Errors for` header or `GUID 0x.. port N: [...]` line)");
  }
  if (!any) {
    return MakeError(std::string(source), 0, 0, "not ibqueryerrors output: no `Errors for` header, port line or summary",
                     "expected the output of ibqueryerrors");
  }
  return out;
}

bool LooksLikeIbQueryErrors(std::string_view head) {
  bool header = false;
  for (std::string_view raw : SplitLines(head)) {
    const std::string_view t = Trim(raw);
    if (StartsWith(t, "## Summary:") && Contains(t, "nodes checked")) return true;
    if (StartsWith(t, "Errors for ") && Contains(t, "\"")) header = true;
    if (header && StartsWith(t, "GUID 0x") && Contains(t, " port ") && Contains(t, ": [")) return true;
  }
  return false;
}

}  // namespace toposcope::formats
