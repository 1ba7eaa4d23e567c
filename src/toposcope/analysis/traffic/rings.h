// analysis/traffic/rings: NCCL's rings and trees as the job's hosts and NICs see them (issue 4 §2/§4,
// DOMAIN §4.2), from two independent sources:
//  - the NCCL_DEBUG=INFO logs: rank 0's ring orders ("Channel 00/16 :  0  7  6 ..."), every rank's
//    "Ring" and "Trees" lines and its channel connection lines, merged across files and ranks
//    (ranks map to hosts by the log-line prefix host and the comm lines), and
//  - the packet flows: each rank sends to one ring successor per channel, so the directed host
//    graph of data-carrying flows (RDMA WRITE / SEND bytes) decomposes into host cycles.
// CompareRings checks one against the other.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toposcope/analysis/traffic/flows.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

// Where a ring view comes from.
enum class RingSource {
  kNcclLog,  // "nccl_log": an NCCL log's ring order
  kFlows,    // "flows": a cycle of the captured flows
};
// The names above.
std::string_view RingSourceName(RingSource s);

struct RingView {
  RingSource source = RingSource::kNcclLog;
  int channel = -1;    // -1 when unknown (flows)
  std::vector<int> ranks;          // ring order (logs); empty for flows
  std::vector<std::string> hosts;  // host sequence, consecutive duplicates collapsed (cyclically:
                                   // the last host is never the first again)
  std::vector<std::string> gpus;   // "host/gpuN" per rank when known ("host/?" when the GPU is not)
  // Per cross-node hop, in ring order: "hostA:mlx5_0->hostB:mlx5_3" ("?" for a NIC not known).
  // From flows: the hop's IP pairs by bytes, "hostA:mlx5_0->hostB:mlx5_3" when the host map knows
  // the NICs, else "hostA:10.0.0.1->hostB:10.0.0.2"; several rails are joined by ",".
  std::vector<std::string> cross_node_nics;
  // Added:
  std::string comm;     // the communicator: "0xb2f7..." commId, "nranks=16" when no commId,
                        // "?" when no comm line says
  double bytes = 0;     // flows: the cycle's bottleneck data bytes (the weight it carried)
  int channels = 0;     // logs: how many channels of the comm share this ring's host cycle
  // Logs: false when the ring holds fewer ranks than the comm has (rank 0's order cut short by NCCL
  // and not rebuilt from Ring or connection lines, or a cycle of only some ranks): `ranks` is then
  // the start of the ring, not a cycle (no hop from the last rank back to the first). Always true for
  // flows.
  bool complete = true;
};

struct TreeView {
  int channel = -1;
  std::vector<std::pair<int, int>> edges;  // child -> parent ranks, sorted
  // Added:
  std::string comm;
  int root = -1;  // the rank with no parent (-1 when none or several)
};

struct RingReport {
  std::vector<RingView> rings;  // logs: one per (comm, channel), sorted; flows appended by callers
  std::vector<TreeView> trees;  // one per (comm, channel)
  std::vector<std::string> notes;  // agreements/disagreements between log rings and flow rings,
                                   // and between a log's ring orders, Ring lines and connections
  int log_flow_agree = 0, log_flow_disagree = 0;
};

// Merges the ring orders / Ring lines / Trees / connections of all ranks' logs (one or many files;
// ranks map to hosts by the log prefix host and comm lines; a comm is identified by its commId, or
// by its size when the log prints no commId) into one cross-node view. A channel without a whole
// ring order is rebuilt from its Ring lines (prev -> me -> next) when they close a cycle, else from
// its connection lines ("Channel 05/0 : 3[3] -> 4[4] via ..." and the "Ring 00 : 3[3] -> 4[4] via ..."
// of NCCL 2.3-2.7): each rank's one successor, or when tree connections give it several, the first
// one its log printed (NCCL connects the rings before the trees). A ring with fewer ranks than the
// comm is kept with complete = false. Never fails; an empty report when there are no logs.
RingReport RingsFromLogs(const model::Dataset& ds);

// From host-level flows: each rank sends to one successor per channel; the directed host graph of
// data-carrying flows (WRITE/SEND payload bytes of paired or unpaired flows between different
// hosts; unknown hosts are named by their IP) is decomposed greedily: every host follows its
// heaviest remaining out-edge, the cycles of that successor graph are taken with their bottleneck
// weight subtracted, and again, until no cycle carrying at least `min_share` of the first cycle's
// weight is left. Returns one ring per distinct host cycle (rotated to start at its smallest host),
// heaviest first; empty when the flows close no cycle. Never fails.
std::vector<RingView> RingsFromFlows(const FlowReport& flows, double min_share = 0.05);

// Compares every distinct cross-node host cycle of the complete log rings with the flow rings (the same
// cyclic sequence in the same direction): counts agreements and disagreements and adds notes (also
// for flow rings no log ring explains) to *report; a note says so when either side has no cycle.
// Does nothing when `report` is null.
void CompareRings(RingReport* report, const std::vector<RingView>& from_flows);

// Helper: the hosts of a rank sequence with consecutive duplicates collapsed cyclically (empty for
// an empty sequence). Never fails.
std::vector<std::string> CollapseHosts(const std::vector<std::string>& per_rank_hosts);
// Helper: a cycle rotated to start at its smallest element (direction kept; empty stays empty).
// Never fails.
std::vector<std::string> CanonicalCycle(const std::vector<std::string>& cycle);

}  // namespace toposcope::analysis
