// sim/port_counters_sim: the switch port counters of a simulated fabric, as `perfquery -x <lid>
// <port>` prints them (formats/fabric/perfquery.h), read twice: once before the probe window and
// once after it, each block followed by a `timestamp <epoch seconds>` line as collection scripts
// append. One file per read (perfquery-start.txt, perfquery-end.txt), every switch port in use.
//
// The counters (DOMAIN.md §2: the IBTA PortCounters; values since they were last cleared, a day
// before the run):
//  - every port: data and packet counters from its cables' share of the traffic (PortXmitData in
//    4-octet words), PortXmitWait of a few thousand ticks growing by up to ~2,000 over the window,
//    and the small error counts a healthy fabric shows: SymbolErrorCounter 0-3 (rarely +1 over the
//    window), LinkErrorRecoveryCounter and LinkDownedCounter 0-1 (a host link: up to 2, its host
//    rebooted), PortXmitDiscards 0-2; none of LinkDowned / LinkErrorRecovery rises over the window.
//  - flapping cable (both ends): LinkDownedCounter +1 for every outage starting in the window
//    (and 3-12 from earlier flaps), LinkErrorRecoveryCounter +1-3 per outage, SymbolErrorCounter
//    +20-200 per outage (retraining), PortRcvErrors +1-10.
//  - degraded cable (both ends): SymbolErrorCounter +500-5,000, PortRcvErrors +50-500 (the
//    link-level retransmissions), no LinkDowned.
//  - congested switch (every port of it): PortXmitWait +2-8 million ticks, PortXmitDiscards +0-20.
// No fault is named in the files: only counter values.
// Pure function of the cluster and plan: the same options give the same bytes.
#pragma once

#include <string>
#include <vector>

#include "toposcope/sim/cluster.h"
#include "toposcope/sim/fabric_sim.h"
#include "toposcope/sim/writers.h"

namespace toposcope::sim {

inline constexpr const char* kPerfqueryStartFile = "perfquery-start.txt";
inline constexpr const char* kPerfqueryEndFile = "perfquery-end.txt";

// The two reads (start, then end) of every switch port in use. Never fails.
std::vector<RenderedFile> RenderPortCounters(const Cluster& cluster, const FabricPlan& plan);

}  // namespace toposcope::sim
