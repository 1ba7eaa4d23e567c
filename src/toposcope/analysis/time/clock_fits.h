// analysis/time/clock_fits: the clock models of every host of a dataset, fitted from its sync
// records (chrony, linuxptp, sync CSV) with every model of timesync.h, hosts in parallel.
#pragma once

#include <vector>

#include "toposcope/analysis/time/timesync.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

// Fits the clock models of every host that has synchronised sync records, ordered by host. Points
// on the realtime axis win over monotonic ones when a host has both (events are stamped in
// realtime). Hosts without usable points are left out. The output does not depend on the thread
// count.
std::vector<HostClockFit> FitClocks(const model::Dataset& ds, const TimesyncOptions& opt);

}  // namespace toposcope::analysis
