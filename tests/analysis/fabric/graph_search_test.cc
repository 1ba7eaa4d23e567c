// Tests of the breadth-first distances: one source, several sources, unreached nodes and sources
// outside the graph.
#include "toposcope/analysis/fabric/graph_search.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace toposcope::analysis {
namespace graph_search_test {

// An undirected adjacency from an edge list over n nodes.
std::vector<std::set<int>> Graph(int n, const std::vector<std::pair<int, int>>& edges) {
  std::vector<std::set<int>> adj(static_cast<size_t>(n));
  for (const auto& [a, b] : edges) {
    adj[static_cast<size_t>(a)].insert(b);
    adj[static_cast<size_t>(b)].insert(a);
  }
  return adj;
}

TEST(GraphSearch, DistancesFromOneSource) {
  // 0 - 1 - 2 - 3, 1 - 4, and 5 alone.
  const auto adj = Graph(6, {{0, 1}, {1, 2}, {2, 3}, {1, 4}});
  EXPECT_EQ(BfsDistances(adj, {0}), (std::vector<int>{0, 1, 2, 3, 2, -1}));
  EXPECT_EQ(BfsDistances(adj, {3}), (std::vector<int>{3, 2, 1, 0, 3, -1}));
}

TEST(GraphSearch, SeveralSourcesTakeTheNearest) {
  const auto adj = Graph(6, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}});
  EXPECT_EQ(BfsDistances(adj, {0, 5}), (std::vector<int>{0, 1, 2, 2, 1, 0}));
  EXPECT_EQ(BfsDistances(adj, {2, 2}), (std::vector<int>{2, 1, 0, 1, 2, 3}));
}

TEST(GraphSearch, EmptyAndOutOfRange) {
  EXPECT_TRUE(BfsDistances({}, {0}).empty());
  const auto adj = Graph(2, {{0, 1}});
  EXPECT_EQ(BfsDistances(adj, {}), (std::vector<int>{-1, -1}));
  EXPECT_EQ(BfsDistances(adj, {-1, 7, 1}), (std::vector<int>{1, 0}));
}

}  // namespace graph_search_test
}  // namespace toposcope::analysis
