// analysis/fabric/graph_search: breadth-first search over the small undirected graphs the fabric
// analyses build (switch graphs, path adjacencies), shared so that each does not keep its own copy.
#pragma once

#include <set>
#include <vector>

namespace toposcope::analysis {

// Breadth-first distances (in links) from `sources` over the undirected adjacency `adj` (node ids
// index `adj`; every source at distance 0). Returns one distance per node of `adj`, -1 for nodes
// not reached. Never fails; sources outside `adj` are ignored.
std::vector<int> BfsDistances(const std::vector<std::set<int>>& adj, const std::vector<int>& sources);

}  // namespace toposcope::analysis
