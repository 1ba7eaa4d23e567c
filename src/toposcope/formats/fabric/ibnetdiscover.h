// formats/fabric/ibnetdiscover: the InfiniBand fabric as infiniband-diags `ibnetdiscover` prints it
// (topology file: one block per node — `vendid=`/`devid=`/`sysimgguid=`/`switchguid=`|`caguid=`|
// `rtguid=` then a `Switch`/`Ca`/`Rt` header and one `[port]` line per connected port), read
// (streaming, one node at a time) and written (for the simulator; ibsim reads the same syntax).
// Also accepted: `-g` grouping output (`Chassis N`, `# Spine Nodes`, `Non-Chassis Nodes`,
// `[ext N]` port suffixes, `# Chassis N` tails), `-f` full-info tails (` s=4 w=2 v=3 e=1`), Xsigo
// `(scp)` / `slot N` tails, every speed from SDR to XDR (FDR10 included) and width 1x/2x/4x/8x/12x.
// The switches and CAs with their port pairs feed tomography's incidence matrix and the simulator's
// real-fabric clusters (leaf/spine ground truth comes from the switch descriptions).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

enum class IbNodeKind { kSwitch, kCa, kRouter };

// One connected port of a node (one `[p] ...` line).
struct IbPortLink {
  int port = -1;               // local port number (1..254)
  std::string peer_guid;       // the peer's id as printed, without quotes: "S-0008f10500200b50",
                               // "H-...", "R-..." (type letter + 16 hex digits)
  int peer_port = -1;          // the peer's port number
  std::string port_guid;       // local port GUID (CA/router lines print `[p](guid)`), lowercase
                               // hex without 0x as printed; empty on switch lines
  std::string peer_port_guid;  // the peer's port GUID when the peer is not a switch (printed
                               // `"H-..."[p](guid)`); empty otherwise
  std::string peer_desc;       // the peer's node description (between the quotes)
  int peer_lid = -1;           // the peer's LID (switch: its port-0 LID)
  int lid = -1;                // CA/router lines only: this port's base LID (`# lid N lmc N`)
  int lmc = -1;                // CA/router lines only: this port's LMC
  std::string width;           // "1x" "2x" "4x" "8x" "12x" ("??" when ibnetdiscover did not know)
  std::string speed;           // "SDR" "DDR" "QDR" "FDR10" "FDR" "EDR" "HDR" "NDR" "XDR" ("???")
  double rate_gbps = 0;        // nominal link rate as ibstat prints it: lanes x per-lane rate
                               // (SDR 2.5, DDR 5, QDR 10, FDR10 10, FDR 14, EDR 25, HDR 50,
                               // NDR 100, XDR 200); 4xQDR = 40, 4xNDR = 400; 0 when unknown
  int ext_port = 0;            // `-g`: `[p][ext N]` external port number; 0 when absent
  int peer_ext_port = 0;       // `-g`: `"S-.."[p][ext N]`; 0 when absent
  std::string extra;           // anything after the speed, trimmed (` s=4 w=2 v=3`, `(scp)`,
                               // `slot 3`); written back verbatim
  int64_t line = 0;            // 1-based line

  [[nodiscard]] bool PeerIsSwitch() const { return !peer_guid.empty() && peer_guid[0] == 'S'; }
  friend bool operator==(const IbPortLink&, const IbPortLink&) = default;
};

struct IbNode {
  IbNodeKind kind = IbNodeKind::kCa;
  std::string id;              // "S-0002c90200420000" / "H-..." / "R-..." as printed
  std::string guid;            // node GUID as printed on `switchguid=0x..`/`caguid=0x..` (hex,
                               // no 0x, no padding); from the id when that line is missing
  std::string port0_guid;      // switches: the `(…)` after switchguid= (port GUID); else empty
  int nports = 0;              // the number after Switch/Ca/Rt
  std::string desc;            // node description (NodeDescription, or node-name-map name)
  int lid = -1;                // switches: port-0 LID from the header; -1 for CAs (per port)
  int lmc = -1;                // switches: port-0 LMC; -1 for CAs
  bool enhanced_port0 = false; // switches: "enhanced port 0" (false: "base port 0")
  std::string vendid, devid, sysimgguid;  // as printed after '=' ("0x2c9"); empty when missing
  int chassis = 0;             // `-g`: the `# Chassis N` on the sysimgguid line; 0 when none
  std::string chassis_info;    // `-g`: text after `switchguid=..(..)\t# ` (chassis type/slot)
  std::vector<IbPortLink> ports;  // connected ports in file order
  int64_t line = 0;            // 1-based line of the Switch/Ca/Rt header

  [[nodiscard]] bool IsSwitch() const { return kind == IbNodeKind::kSwitch; }
  friend bool operator==(const IbNode&, const IbNode&) = default;
};

struct IbFabric {
  std::vector<IbNode> nodes;   // in file order (ibnetdiscover: switches, then CAs, then routers)
  ReadCounts counts;           // one record per non-blank, non-comment line
  std::string generated_on;    // "Wed May 13 14:36:33 2020" (ctime text, no newline); may be empty
  std::string initiated_from;  // "node 0002c90300080e84 port 0002c90300080e85"; may be empty
  int64_t max_hops = -1;       // `-R`: "# Reported max hops discovered: N"; -1 when absent
  int64_t total_mads = -1;     // `-R`: "# Total MADs used: N"; -1 when absent

  [[nodiscard]] int64_t SwitchCount() const;
  [[nodiscard]] int64_t CaCount() const;
  [[nodiscard]] int64_t RouterCount() const;
  // Node index by id ("S-..."); build once, look up many times.
  [[nodiscard]] std::unordered_map<std::string, size_t> IndexById() const;
  // The node with this id, or nullptr (linear scan; use IndexById for many look-ups).
  [[nodiscard]] const IbNode* FindNode(std::string_view id) const;
  // Equal nodes and header fields; the counts are not compared.
  friend bool operator==(const IbFabric& a, const IbFabric& b);
};

// One physical link, each counted once (from the side that sorts first by (id, port)).
struct IbLink {
  std::string a_id;
  int a_port = -1;
  std::string b_id;
  int b_port = -1;
  std::string width, speed;
  double rate_gbps = 0;
  friend bool operator==(const IbLink&, const IbLink&) = default;
};

// The fabric's links, each once: a link printed on both ends (the normal case) is kept once; a
// link printed on one end only (the peer was not dumped) is kept too. Sorted by (a_id, a_port).
std::vector<IbLink> IbLinks(const IbFabric& fabric);

// Nominal rate in Gb/s of a width ("4x") and speed ("NDR") as ibstat prints it; 0 when unknown.
double IbRateGbps(std::string_view width, std::string_view speed);

// Header lines of a topology file, filled as they are read.
struct IbnetdiscoverHeader {
  std::string generated_on;
  std::string initiated_from;
  int64_t max_hops = -1;
  int64_t total_mads = -1;
};

using IbNodeSink = std::function<void(IbNode&&)>;

// Streams a topology file: emits each node (with its ports) when its block ends. Memory stays
// bounded by one node plus the set of ids seen (for duplicate detection). Rejected, with line and
// reason (and counted): a `[port]` line outside a node, malformed port lines (bad port numbers,
// bad or missing peer id, peer port, GUIDs in parentheses, missing `#` tail, bad lid/lmc,
// unknown width/speed tokens), a port beyond the node's port count or printed twice, a link to
// itself (same node and port), a malformed node header (count not 1..255, id not `X-<16 hex>`
// of the header's type), a node id seen before (the whole block is rejected), malformed
// `key=value` attribute lines, and any other line. Warned (kept): a `???` speed / `??` width,
// a GUID line that disagrees with the id. Fails (Error, nothing recorded) when the input is
// binary or no line looks like ibnetdiscover output; or on an I/O error of `lines`.
Status ReadIbnetdiscover(LineReader& lines, std::string_view source, const IbNodeSink& sink,
                         Diagnostics& diag, ReadCounts& counts, IbnetdiscoverHeader* header);

// Parses a whole topology file (see ReadIbnetdiscover) into an IbFabric. After reading, links whose
// two ends disagree (A[p] -> B[q] but B[q] -> not A[p]) are warned about, never dropped. Fails as
// ReadIbnetdiscover.
Result<IbFabric> ParseIbnetdiscover(std::string_view text, std::string_view source, Diagnostics& diag);

// Writes the fabric exactly as ibnetdiscover (non-grouped) prints it: header comment (its
// generated_on / initiated_from when set), then per node the id lines and the header, then one
// line per port in the order given, TABs where ibnetdiscover puts them. Parse(Write(x)) == x
// (all fields but `line`, and the counts; GUID/lid fields left empty/-1 are filled on re-read).
// It reproduces the three real fixtures byte for byte. ibsim (ibsim-utils 0.10, `ibsim -s -n
// FILE`) accepts this output (checked: both real fabrics, routers, CA-to-CA links, `[ext N]`,
// full-info tails) when the fabric is closed — every peer id has its own node block, else
// "can't find remote node" — and widths are 1x/4x/8x/12x (2x: "mismatched enabled width").
// NDR/XDR links load with one "cannot parse speed" warning each (0.10 knows SDR..HDR). Fabrics
// above 256 switches / 2048 nodes need ibsim's -S / -N options.
std::string WriteIbnetdiscover(const IbFabric& fabric);

// True when the first bytes look like ibnetdiscover output ("# Topology file:", or
// `Switch\t<n> "S-` / `Ca\t<n> "H-` lines).
bool LooksLikeIbnetdiscover(std::string_view head);

// The host named by an adapter description: "a08-p1-dgx-04-c17 mlx5_5" -> ("a08-p1-dgx-04-c17",
// "mlx5_5"); empty host for descriptions that are not "<host> <device>" (vendor strings, SHARP
// aggregation nodes).
std::pair<std::string, std::string> HostOfCaDesc(const std::string& desc);

}  // namespace toposcope::formats
