// formats/rdma/inventory_csv: reader and writer of toposcope's host inventory CSV (docs/inventory_csv.md).
#include "toposcope/formats/rdma/inventory_csv.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "toposcope/base/text.h"
#include "toposcope/base/file_io.h"

namespace toposcope::formats {
namespace {

enum class Column { kHost, kIp, kNic, kPort, kGid, kRack, kLeaf, kUnknown };

// The column a header cell names (any case).
Column ColumnOf(std::string_view name) {
  static constexpr NamedValue<Column> kColumns[] = {
      {Column::kHost, "host"}, {Column::kIp, "ip"}, {Column::kNic, "nic"}, {Column::kPort, "port"},
      {Column::kGid, "gid"}, {Column::kRack, "rack"}, {Column::kLeaf, "leaf"}};
  return ValueIn(kColumns, ToLowerAscii(name)).value_or(Column::kUnknown);
}

bool IsComment(std::string_view t) { return !t.empty() && t[0] == '#'; }

// Maps an IPv4-mapped IPv6 address (::ffff:a.b.c.d) to IPv4.
IpAddress Unmap(const IpAddress& a) {
  if (!a.is_v6()) return a;
  const auto b = a.bytes();
  for (size_t i = 0; i < 10; ++i) {
    if (b[i] != 0) return a;
  }
  if (b[10] != 0xff || b[11] != 0xff) return a;
  const uint8_t v4[4] = {b[12], b[13], b[14], b[15]};
  return IpAddress::V4(v4);
}

struct Header {
  std::vector<Column> columns;
  int host = -1, ip = -1;
};

// Parses the header cells; an error message when unusable.
std::optional<std::string> ParseHeader(const std::vector<std::string>& cells, Header& h,
                                       std::vector<std::string>& unknown) {
  std::vector<bool> seen(8, false);
  for (size_t i = 0; i < cells.size(); ++i) {
    const Column c = ColumnOf(cells[i]);
    h.columns.push_back(c);
    if (c == Column::kUnknown) {
      unknown.push_back(cells[i]);
      continue;
    }
    const auto k = static_cast<size_t>(c);
    if (seen[k]) return Cat({"the header names column ", QuoteRaw(cells[i]), " twice"});
    seen[k] = true;
    if (c == Column::kHost) h.host = static_cast<int>(i);
    if (c == Column::kIp) h.ip = static_cast<int>(i);
  }
  if (h.host < 0 || h.ip < 0) return std::string("the header lacks a 'host' or 'ip' column");
  return std::nullopt;
}

// The cells of a data row into `row`, by the header's columns; "" when they are valid, else the
// reason for the first cell that is not.
std::string ReadCells(const std::vector<std::string>& cells, const Header& header, InventoryRow& row) {
  for (size_t i = 0; i < cells.size(); ++i) {
    const std::string& c = cells[i];
    switch (header.columns[i]) {
      case Column::kHost:
        row.host = c;
        break;
      case Column::kIp: {
        auto a = IpAddress::Parse(c);
        if (!a) return Cat({"ip ", QuoteRaw(c), " is not an IPv4 or IPv6 address"});
        row.addr = Unmap(*a);
        row.ip = row.addr.ToString();
        break;
      }
      case Column::kNic:
        row.nic = c;
        break;
      case Column::kPort: {
        if (c.empty()) break;
        const bool digits = std::all_of(c.begin(), c.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        auto n = digits && c.size() <= 6 ? ParseInt(c) : std::nullopt;
        if (!n || *n > 65535) return Cat({"port ", QuoteRaw(c), " is not 0..65535"});
        row.port = static_cast<int>(*n);
        break;
      }
      case Column::kGid: {
        if (!c.empty()) {
          auto g = IpAddress::Parse(c);
          if (!g || !g->is_v6())
            return Cat({"gid ", QuoteRaw(c), " is not a GID (IPv6 form, e.g. fe80:0000:...:03da)"});
        }
        row.gid = c;
        break;
      }
      case Column::kRack:
        row.rack = c;
        break;
      case Column::kLeaf:
        row.leaf = c;
        break;
      case Column::kUnknown:
        break;
    }
  }
  return {};
}

}  // namespace

Status ReadInventoryCsv(LineReader& lines, std::string_view source, const InventoryRowSink& sink,
                        Diagnostics& diag, ReadCounts& counts) {
  std::string_view line;
  std::vector<std::string> cells;
  Header header;
  bool have_header = false;
  bool any_text = false;
  // canonical IP -> (host, line of the first row)
  std::unordered_map<IpAddress, std::pair<std::string, int64_t>> owners;
  while (lines.Next(&line)) {
    const int64_t no = lines.line_number();
    std::string_view t = Trim(line);
    if (no == 1 && StartsWith(t, "\xEF\xBB\xBF")) t = Trim(t.substr(3));  // UTF-8 BOM
    if (t.empty()) continue;
    if (!any_text) {
      any_text = true;
      if (LooksBinary(t)) return MakeError(std::string(source), no, 0, "binary input, not an inventory CSV");
    }
    if (IsComment(t)) continue;
    if (!have_header) {
      if (!SplitCsvLine(t, cells)) {
        return MakeError(std::string(source), no, 0, Cat({"not an inventory CSV: bad header ", QuoteRaw(t)}),
                         "the first line must be a header such as host,ip,nic,port,gid,rack,leaf");
      }
      std::vector<std::string> unknown;
      if (auto err = ParseHeader(cells, header, unknown)) {
        return MakeError(std::string(source), no, 0, Cat({"not an inventory CSV: ", *err}),
                         "the first line must be a header such as host,ip,nic,port,gid,rack,leaf");
      }
      if (!unknown.empty()) {
        std::string names;
        for (const std::string& u : unknown) names += Cat({names.empty() ? "" : ", ", QuoteRaw(u)});
        diag.Warn(source, no, t, Cat({"unknown columns ignored: ", names}));
      }
      have_header = true;
      continue;
    }
    ++counts.read;
    auto reject = [&](std::string_view reason) {
      ++counts.rejected;
      diag.Reject(source, no, t, reason);
    };
    if (!SplitCsvLine(t, cells)) {
      reject("unterminated quote or text after a closing quote");
      continue;
    }
    if (cells.size() != header.columns.size()) {
      reject(Cat({"expected ", std::to_string(static_cast<int64_t>(header.columns.size())), " cells, got ",
                  std::to_string(static_cast<int64_t>(cells.size()))}));
      continue;
    }
    InventoryRow row;
    if (const std::string why = ReadCells(cells, header, row); !why.empty()) {
      reject(why);
      continue;
    }
    if (row.host.empty()) {
      reject("empty host");
      continue;
    }
    auto [it, inserted] = owners.try_emplace(row.addr, row.host, no);
    if (!inserted) {
      if (it->second.first == row.host) {
        reject(Cat({"duplicate row for host ", QuoteRaw(row.host), " ip ", row.ip, " (first at line ",
                    std::to_string(it->second.second), ")"}));
      } else {
        reject(Cat({"IP ", row.ip, " already belongs to host ", QuoteRaw(it->second.first), " (line ",
                    std::to_string(it->second.second), ")"}));
      }
      continue;
    }
    row.line = no;
    ++counts.accepted;
    sink(std::move(row));
  }
  if (const Error* e = lines.error()) return *e;
  if (!any_text) return MakeError(std::string(source), 0, 0, "empty input", "expected an inventory CSV with a host,ip header");
  if (!have_header) {
    return MakeError(std::string(source), 0, 0, "no header: only comments",
                     "the first line must be a header such as host,ip,nic,port,gid,rack,leaf");
  }
  return {};
}

Result<Inventory> ParseInventoryCsv(std::string_view text, std::string_view source, Diagnostics& diag) {
  Inventory inv;
  LineReader lines = TextLineReader(text, std::string(source));
  const auto keep = [&](InventoryRow&& r) { inv.rows.push_back(std::move(r)); };
  if (Status st = ReadInventoryCsv(lines, source, keep, diag, inv.counts); !st.ok()) return st.error();
  return inv;
}

std::string WriteInventoryCsv(const Inventory& inventory) {
  const bool placed = std::any_of(inventory.rows.begin(), inventory.rows.end(),
                                  [](const InventoryRow& r) { return !r.rack.empty() || !r.leaf.empty(); });
  std::string out = placed ? "host,ip,nic,port,gid,rack,leaf\n" : "host,ip,nic,port,gid\n";
  for (const InventoryRow& r : inventory.rows) {
    out += Cat({CsvCell(r.host), ",", r.ip.empty() ? r.addr.ToString() : r.ip, ",", CsvCell(r.nic), ",",
                r.port >= 0 ? std::to_string(r.port) : std::string(), ",", CsvCell(r.gid)});
    out += placed ? Cat({",", CsvCell(r.rack), ",", CsvCell(r.leaf), "\n"}) : std::string("\n");
  }
  return out;
}

bool LooksLikeInventoryCsv(std::string_view head) {
  if (LooksBinary(head)) return false;
  std::vector<std::string> cells;
  bool first = true;
  for (std::string_view l : Split(head, '\n')) {
    std::string_view t = Trim(l);
    if (first && StartsWith(t, "\xEF\xBB\xBF")) t = Trim(t.substr(3));
    first = false;
    if (t.empty() || IsComment(t)) continue;
    if (!SplitCsvLine(t, cells) || cells.size() < 2) return false;
    Header h;
    std::vector<std::string> unknown;
    return !ParseHeader(cells, h, unknown).has_value();
  }
  return false;
}

}  // namespace toposcope::formats
