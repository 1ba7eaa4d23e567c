// formats/fabric/iblinkinfo: the InfiniBand links as infiniband-diags `iblinkinfo` prints them: a
// `Switch: 0x<guid> <description>:` or `CA: <description>:` header per node, then one line per port:
// `[0x<port guid>] <lid> <port>[  ] ==( <width> <lane rate> Gbps [(FDR10)] <state>/ <phys state>)==>
// <peer lid> <peer port>[  ] "<peer description>" ( <comment> )`, or `==( Down/ Polling)==> [  ] ""`
// for a port with no link. The lane rate names the speed (10.0 QDR, 14.0625 FDR, 25.78125 EDR,
// 53.125 HDR, 106.25 NDR: IBTA signalling rates as iblinkinfo prints them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

// One port line.
struct IbLinkInfoPort {
  bool switch_node = false;  // under a `Switch:` header (else `CA:`)
  std::string node_guid;     // the switch's GUID as printed ("0x0002c902004b2678"); empty for a CA
  std::string node_desc;     // the header's description ("teaker-4 HCA-1")
  std::string port_guid;     // CA lines: the port GUID before the LID; empty otherwise
  int lid = -1;
  int port = -1;
  std::string width;         // "4X"; empty when the port has no link
  double lane_gbps = 0;      // the printed per-lane rate; 0 when the port has no link
  std::string speed;         // "SDR" "DDR" "QDR" "FDR10" "FDR" "EDR" "HDR" "NDR" "XDR"; "" unknown
  double rate_gbps = 0;      // lanes x lane rate name's nominal rate (4X QDR = 40); 0 when unknown
  std::string state;         // "Active", "Down", "Init", "Armed"
  std::string phys_state;    // "LinkUp", "Polling", "Disabled", ...
  int peer_lid = -1;         // -1 when the port has no link
  int peer_port = -1;
  std::string peer_desc;
  int64_t line = 0;
  int64_t node_line = 0;     // line of the node's `Switch:` / `CA:` header
  [[nodiscard]] bool Linked() const { return peer_lid >= 0; }
};

struct IbLinkInfo {
  std::string source;                 // the file it was read from (ParseIbLinkInfo's `source`)
  std::vector<IbLinkInfoPort> ports;  // in file order
  ReadCounts counts;                  // one record per node header and port line
};

// Parses iblinkinfo output. Rejected, with line and reason: a port line before any header, a line
// without `==(`/`)==>`, bad LIDs or port numbers, an unknown width, a rate that is no number, a
// linked port without a quoted peer description, and any other non-blank line (a shell prompt
// running iblinkinfo is skipped with a warning). Fails when the input is binary or holds no header.
Result<IbLinkInfo> ParseIbLinkInfo(std::string_view text, std::string_view source, Diagnostics& diag);

// True when the first bytes look like iblinkinfo output: a `Switch: 0x<guid> ...:` or `CA: ...:`
// header line and a port line with `==(` and `)==>` (a preamble before them is fine).
bool LooksLikeIbLinkInfo(std::string_view head);

}  // namespace toposcope::formats
