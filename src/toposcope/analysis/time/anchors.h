// analysis/time/anchors: implicit clock anchors (seed §2.2). Some events must happen at the same
// instant on every rank: the completion of one collective (an AllReduce ends on all ranks within
// a few µs, because no rank can finish before the last contribution arrives). Their local end times
// on each host, mapped through the other hosts' clock models, give extra (local, reference) pairs
// for a host — dense wherever a job runs, and independent of NTP/PTP. They rescue hosts with sparse
// or noisy sync records (NTP-grade, a clock step between two polls, no sync source at all).
//
// What counts as one collective across ranks (the group key):
//   - Chrome/Kineto NCCL kernels (not SendRecv): collective + process group + `seq` from the
//     event's context; without a seq, the ordinal of that collective on that process group on that
//     rank (used only when every rank saw the same number of them);
//   - NCCL Inspector collective records: op + communicator id + collective sequence number;
//   - any event whose context has `anchor=<id>` (documented in docs/event_jsonl.md).
// A host's anchor time is the median end over its ranks in the group.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toposcope/analysis/time/timesync.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

struct AnchorOptions {
  bool enabled = true;
  int min_anchors_per_host = 8;     // fewer: the host keeps its sync-only model
  double simultaneity_us = 1.0;     // assumed spread of one collective's completion across ranks
  double bias_floor_us = 1.0;       // systematic per-host completion bias the anchors cannot remove
  int rounds = 2;                   // consensus refinements
  int64_t max_groups = 1000000;     // memory bound: groups beyond this are counted, not kept
};

// All anchor groups of a dataset: for each group, (host index, local end ns) with one entry per host.
struct AnchorGroups {
  std::vector<std::string> hosts;                              // index -> host name
  std::vector<std::vector<std::pair<int, int64_t>>> groups;    // sorted by host index
  int64_t events_scanned = 0;
  int64_t candidate_events = 0;
  int64_t groups_dropped = 0;  // over max_groups, or seen on one host only
};

// The groups of the anchor candidates the loader kept from the dataset's event inputs (an input
// without them, from a dump of an older build say, is streamed again); none when `opt.enabled` is
// off. Never fails: read problems go to `diag`, and what was read still counts.
AnchorGroups CollectAnchors(const model::Dataset& ds, const AnchorOptions& opt, Diagnostics* diag);

// Per host: what the anchors did.
struct HostAnchorReport {
  std::string host;
  int anchors = 0;                 // anchor samples built for this host
  double weight = 0;               // share of the anchor model in the blend, 0..1
  double scatter_us = 0;           // robust scatter of the anchor samples around their model
  double sync_sigma_us = 0;        // estimated error of the sync-only model
  std::vector<int64_t> new_steps_local_ns;  // clock steps the anchors revealed
};

// What the implicit anchors (collective completions) contributed to the clock models.
struct AnchorReport {
  bool present = false;
  int64_t events_scanned = 0, candidate_events = 0, groups = 0, groups_dropped = 0;
  std::vector<HostAnchorReport> hosts;
};

// Refines each host's robust model in place with the anchors (hosts with no sync model get one
// built from anchors alone). The none/linear/quadratic models are left as they are: they are the
// seed's sync-only baselines. Returns what the anchors did per anchor host (empty when disabled or
// without groups); never fails: a host with too few anchors keeps its sync-only model.
std::vector<HostAnchorReport> RefineClocksWithAnchors(std::vector<HostClockFit>* fits, const AnchorGroups& groups,
                                                      const AnchorOptions& opt, const TimesyncOptions& topt);

}  // namespace toposcope::analysis
