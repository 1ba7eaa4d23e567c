// analysis/fabric/graph_search: breadth-first search (see graph_search.h).
#include "toposcope/analysis/fabric/graph_search.h"

#include <cstddef>
#include <deque>

namespace toposcope::analysis {

std::vector<int> BfsDistances(const std::vector<std::set<int>>& adj, const std::vector<int>& sources) {
  std::vector<int> dist(adj.size(), -1);
  std::deque<int> q;
  for (const int s : sources) {
    if (s < 0 || static_cast<size_t>(s) >= adj.size() || dist[static_cast<size_t>(s)] == 0) continue;
    dist[static_cast<size_t>(s)] = 0;
    q.push_back(s);
  }
  while (!q.empty()) {
    const int u = q.front();
    q.pop_front();
    for (const int v : adj[static_cast<size_t>(u)]) {
      if (dist[static_cast<size_t>(v)] < 0) {
        dist[static_cast<size_t>(v)] = dist[static_cast<size_t>(u)] + 1;
        q.push_back(v);
      }
    }
  }
  return dist;
}

}  // namespace toposcope::analysis
