// formats/rdma/inventory_csv: toposcope's host inventory CSV (documented in docs/inventory_csv.md):
// which host owns which IP address, optionally with its NIC, port, GID, rack and leaf switch. It
// maps the IPs seen in packet captures / RoCE GIDs / NCCL logs back to hosts, and gives the rack
// and leaf placement the topology reconstruction is scored against.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/ip_address.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

struct InventoryRow {
  std::string host;   // host name as written (trimmed)
  std::string ip;     // canonical text of the address: "10.0.0.1", "fd02::1"
  std::string nic;    // "mlx5_0", "eth0"; may be empty
  int port = -1;      // NIC port, -1 when absent
  std::string gid;    // RoCE/IB GID as written; may be empty
  std::string rack;   // may be empty
  std::string leaf;   // leaf switch name; may be empty
  int64_t line = 0;   // 1-based line
  // Added: the parsed address (the same as `ip`).
  IpAddress addr;

  friend bool operator==(const InventoryRow&, const InventoryRow&) = default;
};

struct Inventory {
  std::vector<InventoryRow> rows;
  ReadCounts counts;
};

using InventoryRowSink = std::function<void(InventoryRow&&)>;

// Parses an inventory CSV. The header (first non-comment, non-blank line) names the columns:
// `host` and `ip` required, `nic`, `port`, `gid`, `rack`, `leaf` optional, any order, names
// case-insensitive; unknown columns are ignored with one warning. `#` comment lines and blank lines
// are skipped; cells may be double-quoted (RFC 4180, no embedded newlines); spaces around cells
// are trimmed. Each data line is a record. Rejected with the line and reason: a wrong cell count,
// an empty host, an IP that is not IPv4/IPv6, a bad port (not 0..65535), an IP already given to
// another host ("IP 10.0.0.1 already belongs to host a (line 3)"), a second row for the same
// (host, ip). IPv6 and IPv4 are both accepted and normalised (`ip` holds the canonical text, so
// "FD02:0::1" and "fd02::1" are the same address). Fails when the input is empty, binary, or the
// header lacks `host` or `ip`.
Result<Inventory> ParseInventoryCsv(std::string_view text, std::string_view source, Diagnostics& diag);

// Streaming form (memory: the IP -> host map only). Fails as ParseInventoryCsv.
Status ReadInventoryCsv(LineReader& lines, std::string_view source, const InventoryRowSink& sink,
                        Diagnostics& diag, ReadCounts& counts);

// Writes `host,ip,nic,port,gid,rack,leaf` (without rack and leaf when no row has either) and one
// row per entry (port empty when -1; cells quoted
// when they hold a comma, quote, or leading/trailing space). Round-trips through ParseInventoryCsv
// (except `line`).
std::string WriteInventoryCsv(const Inventory& inventory);

// True when the first non-comment line of `head` is a CSV header with `host` and `ip` columns.
bool LooksLikeInventoryCsv(std::string_view head);

}  // namespace toposcope::formats
