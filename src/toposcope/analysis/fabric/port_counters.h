// analysis/fabric/port_counters: InfiniBand port counters (perfquery reads, formats/fabric/perfquery;
// ibqueryerrors reads, formats/fabric/ibqueryerrors) turned into cable findings. A perfquery read
// names a LID and a port; the LID is mapped to its node by the fabric dumps of the same data set (a
// switch's LID in ibnetdiscover's header, an adapter port's in its port line, iblinkinfo's port
// lines). An ibqueryerrors read names a switch by its node GUID and an adapter by its port GUID
// (found in the ibnetdiscover dump), else by its description (an adapter's host word); a counter
// it does not print counts 0. The port is mapped to the cable on it by the fabric report. A node no
// dump has stays `lid <n>` (or its description), with no cable.
//
// The rule (docs/port_counters.md), per port, on the counters of the error class:
//  - two or more reads of a port (ordered by their `timestamp`, else by file order): what each
//    counter rose by from the first read to the last (a counter that fell was cleared between
//    reads: its last value counts as the rise);
//      link_downed  LinkDownedCounter rose at all: the link went down and retrained between the
//                   reads (a healthy cable never does; every outage counts one at each end).
//      link_errors  SymbolErrorCounter + PortRcvErrors rose by more than the fabric's other ports
//                   allow: above max(25, median + 10 x 1.4826 x max(MAD, 1)) over every port's
//                   rise (healthy ports rise by 0, now and then 1).
//      xmit_wait    PortXmitWait rose above median + 10 x 1.4826 x max(MAD, 1) and 4 x the median
//                   rise: a port waiting to send far longer than the others (congestion).
//  - one read of a port: the same tests on the values themselves against the other single-read
//    ports (link_downed: LinkDownedCounter >= max(5, median + 10 x 1.4826 x max(MAD, 1)); a
//    counter since the last clear, so "far above the fabric's other ports", never "any").
// Ports read as `all ports` (perfquery's sum over a switch) name no cable and are left out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/analysis/fabric/fabric.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

// One port's reads, summarised.
struct PortCounterPort {
  int lid = -1, port = -1;
  std::string node;         // the node id ("S-..." / "H-..."); "" when no fabric dump has the LID
  std::string node_name;    // switch description, adapter's host, or "lid <n>"
  std::string peer_name;    // the node on the other end of the port's cable; "" when unknown
  int peer_port = -1;
  std::string cable;        // "A--B" (sorted names) when the peer is known; else ""
  int reads = 0;
  double span_s = 0;        // first to last read, when both have a timestamp; else 0
  // The last read's values (-1 when no read printed the counter) and the rise from the first read
  // to the last (-1 with one read).
  int64_t link_downed = -1, link_downed_rise = -1;
  int64_t link_recovery = -1, link_recovery_rise = -1;
  int64_t symbol_errors = -1, symbol_errors_rise = -1;
  int64_t rcv_errors = -1, rcv_errors_rise = -1;
  int64_t xmit_discards = -1, xmit_discards_rise = -1;
  int64_t xmit_wait = -1, xmit_wait_rise = -1;
  std::string source;       // the last read's file and header line
  int64_t line = 0;
};

// What a port counter finding is. Named "link_downed", "link_errors", "xmit_wait".
enum class PortCounterFindingKind { kLinkDowned, kLinkErrors, kXmitWait };
// Its name (one of those above).
std::string_view PortCounterFindingKindName(PortCounterFindingKind k);

struct PortCounterFinding {
  PortCounterFindingKind kind = PortCounterFindingKind::kLinkDowned;
  std::string node_name;  // the port's node
  int port = -1;
  std::string cable;      // "" when the peer is unknown
  bool rise = false;      // judged on the rise between reads (else on one read's values)
  int64_t value = 0;      // the rise or value judged
  double threshold = 0;   // what it had to exceed (link_downed on a rise: 0)
  std::string source;
  int64_t line = 0;
  std::string evidence;   // one line with the counter names and numbers
};

struct PortCounterReport {
  bool present = false;     // some perfquery output was read
  int64_t blocks = 0;       // reads in the data set
  int unmapped_lids = 0;    // ports whose LID (ibqueryerrors: GUID) no fabric dump has
  std::vector<PortCounterPort> ports;          // sorted by node name, port
  std::vector<PortCounterFinding> findings;    // sorted by kind, cable, node, port
};

// The ports and findings of the data set's perfquery reads; never fails (present = false without
// any read).
PortCounterReport AnalyzePortCounters(const model::Dataset& ds, const FabricReport& fabric);

}  // namespace toposcope::analysis
