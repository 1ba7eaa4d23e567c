// formats/rdma/rdma_tools: the RDMA host tools' text outputs, read (and `rdma res show qp` written, for
// the simulator): iproute2 `rdma res show qp` (text in every field-order era, `-d/-dd/-p` driver
// details, and `-j` JSON), other `rdma res show` resources (cq, pd, mr, ...), infiniband-diags
// `ibstat`, rdma-core `ibv_devinfo` (with and without `-v`, MLNX_OFED extras) and MLNX_OFED
// `show_gids`. They give, per host, the RDMA devices, ports, link layers, GUIDs, GIDs (RoCE
// addresses) and the queue pairs with their remote QP numbers (the only peer hint `rdma` gives).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

// ---------------------------------------------------------------------------------------------
// rdma res show qp
// ---------------------------------------------------------------------------------------------

// One queue pair, one line of `rdma res show qp` (or one object of its `-j` JSON).
struct RdmaQp {
  std::string dev;                     // RDMA device ("mlx5_0")
  int port = -1;                       // 1..255; -1 for "dev/-" (no port yet)
  uint32_t lqpn = 0;                   // local QP number
  std::optional<uint32_t> rqpn;        // remote QP number; connected QPs only (RC/UC/XRC)
  std::string type;                    // SMI GSI RC UC UD RAW_IPV6 RAW_ETHERTYPE UNKNOWN RAW_PACKET
                                       // XRC_INI XRC_TGT XRC DRIVER
  std::string subtype;                 // DRIVER QPs: "REG_UMR", ...; else empty
  std::string state;                   // RESET INIT RTR RTS SQD SQE ERR (UNKNOWN)
  std::optional<uint32_t> rq_psn, sq_psn;
  std::string path_mig_state;          // MIGRATED REARM ARMED (UNKNOWN); empty when absent
  std::optional<int64_t> pdn, pid;     // absent when not printed (modern kernels: no pid for
                                       // kernel QPs)
  std::string comm;                    // owner, without the [] of kernel owners ("ib_core")
  bool kernel_owner = false;           // comm was "[name]" (text), or JSON with no pid / pid 0
  int64_t line = 0;                    // 1-based line; 0 for JSON input (no positions)

  friend bool operator==(const RdmaQp&, const RdmaQp&) = default;
};

struct RdmaQpTable {
  std::vector<RdmaQp> qps;
  ReadCounts counts;
};

using RdmaQpSink = std::function<void(RdmaQp&&)>;

// Parses `rdma res show qp` in text (all field-order eras: 2018-2019 `lqpn pdn rqpn type ...`,
// modern `... sq-psn path-mig-state pdn pid comm`; `-d/-dd` driver key/value pairs after `comm`
// and `-p` indented driver lines are skipped) or `-j` JSON (an array of objects, objects nested in
// arrays/objects, or one JSON value per line). One record per QP line / object. Rejected with the
// line and reason: lines that are not `link dev/port ...` (e.g. `rdma res show cq` lines), a
// missing lqpn/type/state (sq-psn may be absent), a key without a value (truncated line), a key
// repeated, numbers that are not unsigned 32-bit (QPN/PSN) or non-negative 64-bit (pid/pdn), a port
// outside 1..255, unknown type / state / path-mig-state names, JSON names with blanks or control
// bytes, a second QP with the same (dev, port, lqpn) (one snapshot per input), the rest of a JSON
// document after a syntax error (one record). Unknown keys before `comm` are ignored. ANSI colour
// codes are stripped. Fails (Error, with no rejects recorded) when the input is empty or no line /
// object looks like a QP at all (`[]` is a valid, empty JSON table).
Result<RdmaQpTable> ParseRdmaResQp(std::string_view text, std::string_view source, Diagnostics& diag);

// Streaming form: emits QPs to `sink` as they are read (text: memory bounded by the longest
// line plus the duplicate-key set; JSON input is buffered whole, then objects are emitted one by
// one and discarded). Fails like ParseRdmaResQp, or on an I/O error of `lines`.
Status ReadRdmaResQp(LineReader& lines, std::string_view source, const RdmaQpSink& sink,
                     Diagnostics& diag, ReadCounts& counts);

// Writes QPs as current iproute2 (2024+) prints them, one line each, fields in its order:
// `link dev/port lqpn N [rqpn N] type T [subtype S] state S [rq-psn N] sq-psn N
//  [path-mig-state S] [pdn N] [pid N] comm C` (kernel owners `comm [C]`, also when C is empty;
// `comm` left out for a user QP with an empty comm; optional fields, sq-psn included, left out
// when unset). Round-trips through ParseRdmaResQp (all fields but `line`).
std::string WriteRdmaResQp(const std::vector<RdmaQp>& qps);
// The same as `rdma -j res show qp` prints it: one JSON array of objects on one line (keys sorted;
// invalid UTF-8 replaced by U+FFFD). Round-trips through ParseRdmaResQp when names hold no blanks
// or control bytes and kernel_owner agrees with "no pid or pid 0".
std::string WriteRdmaResQpJson(const std::vector<RdmaQp>& qps);

// ---------------------------------------------------------------------------------------------
// rdma res show <other resource> (cq, pd, mr, cm_id, ctx, srq), kept as key/value pairs
// ---------------------------------------------------------------------------------------------

struct RdmaResEntry {
  std::string dev;                     // from `dev X` or `link X/P`
  int port = -1;                       // from `link X/P`; -1 otherwise
  std::vector<std::pair<std::string, std::string>> fields;  // every other key/value, in order
                                                             // (comm without its [])
  std::optional<int64_t> pid;
  std::string comm;
  bool kernel_owner = false;
  int64_t line = 0;
};

struct RdmaResTable {
  std::vector<RdmaResEntry> entries;
  ReadCounts counts;
};

// Parses any `rdma res show <resource>` text output whose lines start with `dev X` or `link X/P`
// followed by `key value` pairs (qp lines too). One record per line; indented `-p` driver lines are
// skipped. Rejected: lines not starting with dev/link, an odd dangling key, a bad pid. Fails when
// no line starts with `dev ` or `link `.
Result<RdmaResTable> ParseRdmaRes(std::string_view text, std::string_view source, Diagnostics& diag);

// ---------------------------------------------------------------------------------------------
// ibstat and ibv_devinfo
// ---------------------------------------------------------------------------------------------

struct IbPort {
  int port = -1;
  std::string state;            // as printed: "Active" (ibstat) / "PORT_ACTIVE" (ibv_devinfo)
  int state_code = -1;          // ibv_devinfo's "(4)"; ibstat: -1
  std::string physical_state;   // "LinkUp" (ibstat) / "POLLING" (ibv_devinfo -v phys_state)
  double rate_gbps = 0;         // ibstat `Rate:`; ibv_devinfo -v: width x speed (0 if unknown)
  std::string rate_suffix;      // ibstat "(FDR10)" -> "FDR10"; else empty
  int lid = -1, sm_lid = -1, lmc = -1;
  std::string capability_mask;  // "0xa751e848" (ibstat) / port_cap_flags (ibv_devinfo -v)
  std::string port_guid;        // "0xa088c2030074cfda" (ibstat); empty from ibv_devinfo
  std::string link_layer;       // "InfiniBand" / "Ethernet"
  int active_mtu = -1;          // bytes (4096); ibv_devinfo only
  int max_mtu = -1;             // bytes; ibv_devinfo only
  std::vector<std::pair<int, std::string>> gids;  // (index, GID as printed) from `GID[  i]:`
  std::vector<std::string> gid_types;             // parallel to gids: "RoCE v1", "RoCE v2", or
                                                  // "" (IB ports print no type)
  // Added fields.
  int physical_state_code = -1;  // ibv_devinfo -v "(5)"; else -1
  std::string active_width;      // ibv_devinfo -v "4X"; empty otherwise
  std::string active_speed;      // ibv_devinfo -v "25.0 Gbps"; empty otherwise
  int gid_tbl_len = -1;          // ibv_devinfo -v; else -1

  friend bool operator==(const IbPort&, const IbPort&) = default;
};

struct IbDevice {
  std::string name;              // "mlx5_0"
  std::string ca_type;           // ibstat "MT4129"; empty from ibv_devinfo
  std::string firmware;          // "28.43.2026"
  std::string hardware_version;  // ibstat "0"; ibv_devinfo "0x1"
  std::string node_guid;         // as printed: "0xa088c2030074cfda" / "7cfe:9003:00a5:95c0"
  std::string sys_image_guid;    // as printed
  std::string transport;         // ibv_devinfo "InfiniBand" (code dropped); empty from ibstat
  std::string vendor_id, vendor_part_id, board_id;  // ibv_devinfo only
  int num_ports = -1;            // ibstat `Number of ports`, ibv_devinfo `phys_port_cnt`
  std::vector<IbPort> ports;     // in the order printed
  int64_t line = 0;              // line of the `CA '...'` / `hca_id:` header

  friend bool operator==(const IbDevice&, const IbDevice&) = default;
};

struct IbDeviceList {
  std::vector<IbDevice> devices;
  ReadCounts counts;
  int64_t prompt_lines = 0;  // shell prompt lines running the tool: skipped as preamble, not records
  std::string prompt_host;   // the host of the first `user@host` prompt; empty when none
};

// Parses `ibstat` (or `ibstat <ca>`): `CA 'name'` blocks, indented with TABs or spaces (issue
// copies), PARTIAL copies (a device with fewer ports than announced gets a warning). One record per
// non-blank line: each is accepted (understood, or an unknown key inside a device, kept quiet) or
// rejected (a key before any CA, a bad number, a port repeated, an unrecognised line). Fails when
// there is no `CA '...'` header at all.
Result<IbDeviceList> ParseIbstat(std::string_view text, std::string_view source, Diagnostics& diag);

// Parses `ibv_devinfo` with and without `-v`: `hca_id:` blocks, device keys at one TAB, ports at
// `port:` (with or without MLNX_OFED's `Device ports:` line), port keys, `-v` capability flag lines
// and `GID[  i]:` lines (`, RoCE v1|v2` kept in gid_types). TABs or spaces. One record per
// non-blank line, as ParseIbstat, except a shell prompt line running ibv_devinfo (`$ ibv_devinfo`,
// `root@host:~# ibv_devinfo -v`): skipped as preamble with a warning, its `user@host` host kept in
// prompt_host. Fails when there is no `hca_id:` line at all.
Result<IbDeviceList> ParseIbvDevinfo(std::string_view text, std::string_view source, Diagnostics& diag);

// Writers (for the simulator and round-trip tests): the tools' layouts, TAB-indented.
std::string WriteIbstat(const std::vector<IbDevice>& devices);
std::string WriteIbvDevinfo(const std::vector<IbDevice>& devices);

// A GUID in either printed form ("0xa088c2030074cfda", "a088:c203:0074:cfda") as a number;
// nullopt on anything else.
std::optional<uint64_t> ParseGuid(std::string_view text);

// ---------------------------------------------------------------------------------------------
// show_gids
// ---------------------------------------------------------------------------------------------

struct GidEntry {
  std::string dev;      // "mlx5_0"
  int port = -1;
  int index = -1;       // GID table index (what NCCL_IB_GID_INDEX selects)
  std::string gid;      // as printed: 8 groups of 4 hex digits
  std::string ipv4;     // "192.168.211.242", empty for non-IPv4-mapped GIDs
  std::string version;  // "v1" / "v2"
  std::string netdev;   // "rdma0"; empty for IB ports
  int64_t line = 0;     // added: 1-based line

  friend bool operator==(const GidEntry&, const GidEntry&) = default;
};

struct GidTable {
  std::vector<GidEntry> gids;
  int n_gids_found = -1;  // the trailing `n_gids_found=N`; -1 when absent (truncated copy)
  ReadCounts counts;
  int64_t prompt_lines = 0;  // shell prompt lines running show_gids: skipped as preamble, not records
  std::string prompt_host;   // the host of the first `user@host` prompt; empty when none
};

// Parses MLNX_OFED `show_gids`: TAB-separated (or space-separated copies) rows
// `DEV PORT INDEX GID [IPv4] VER [NETDEV]` after the `DEV PORT ...` header and its `---`
// underline; ANSI colour codes are stripped. One record per data row; rejected: wrong cell count,
// bad port/index, a GID that is not 8 groups of 4 hex digits (or compressed IPv6 text), a bad IPv4,
// VER not v1/v2, a repeated (dev, port, index). A mismatch between n_gids_found and the row count
// is warned about. A shell prompt line running show_gids (`$ show_gids`, `[root@host ~]# show_gids
// mlx5_0`) is no record: skipped as preamble with a warning, its `user@host` host kept in
// prompt_host. Fails when there is no header and no row that parses.
Result<GidTable> ParseShowGids(std::string_view text, std::string_view source, Diagnostics& diag);

// Writes the table as show_gids prints it (header, underline, rows, `n_gids_found=N` with N the
// row count). Round-trips through ParseShowGids (except `line`).
std::string WriteShowGids(const std::vector<GidEntry>& gids);

// ---------------------------------------------------------------------------------------------
// Detection
// ---------------------------------------------------------------------------------------------

enum class RdmaToolKind { kUnknown, kRdmaResQp, kIbstat, kIbvDevinfo, kShowGids, kRdmaResOther };

// Which of these tools printed `head` (the first few KiB): `link x/y lqpn` lines or JSON with
// "lqpn" -> kRdmaResQp; `CA '` -> kIbstat; `hca_id:` -> kIbvDevinfo; a `DEV PORT INDEX GID` header
// -> kShowGids; `dev x <key>` lines (rdma res show cq/pd/mr) -> kRdmaResOther.
RdmaToolKind SniffRdmaTool(std::string_view head);

}  // namespace toposcope::formats
