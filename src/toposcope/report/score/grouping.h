// report/score/grouping: how well an inferred grouping of hosts (leaves, pods) matches a true one.
#pragma once

#include <string>
#include <vector>

namespace toposcope::report {

// Leaf accuracy against a truth grouping: the fraction of `hosts` whose inferred mate set (hosts
// sharing its inferred group) equals its true mate set. A host missing from either side (unplaced,
// absent) counts as wrong unless it is alone on both. `truth` lists groups of host names.
// Returns a value in [0, 1]; 0 when `hosts` is empty. Never fails.
double GroupingAccuracy(const std::vector<std::vector<std::string>>& inferred,
                        const std::vector<std::vector<std::string>>& truth,
                        const std::vector<std::string>& hosts);

}  // namespace toposcope::report
