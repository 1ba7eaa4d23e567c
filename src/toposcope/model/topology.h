// model/topology: the inventory (hosts, CPUs/NUMA nodes, GPUs, NICs) and a typed topology graph
// (vertices joined by classed links), with a JSON round trip so every later stage can be tested
// from a saved topology without hardware.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "toposcope/base/link_type.h"
#include "toposcope/base/result.h"
#include "toposcope/model/dataset.h"

namespace toposcope::model {

enum class VertexKind { kHost, kCpu, kGpu, kNic, kNvswitch, kPcieSwitch, kSwitch };
// "host", "cpu", "gpu", "nic", "nvswitch", "pcie_switch", "switch".
std::string_view VertexKindName(VertexKind k);

struct Vertex {
  std::string id;        // canonical: HOST, HOST/cpuN, HOST/gpuN, HOST/mlx5_K, switch names
  VertexKind kind = VertexKind::kGpu;
  std::string host;      // empty for fabric switches
  int index = -1;        // GPU index, NUMA id of a CPU
  std::string bus_id;
  std::string model;
  int numa_node = -1;
  double speed_gbps = 0;  // NICs
  friend bool operator==(const Vertex&, const Vertex&) = default;
};

struct Edge {
  std::string a, b;
  LinkClass cls;
  double bandwidth_gbps = NAN;  // measured, when known
  std::string source;
  friend bool operator==(const Edge& x, const Edge& y) {
    return x.a == y.a && x.b == y.b && x.cls == y.cls && x.source == y.source &&
           ((std::isnan(x.bandwidth_gbps) && std::isnan(y.bandwidth_gbps)) || x.bandwidth_gbps == y.bandwidth_gbps);
  }
};

struct Topology {
  std::vector<Vertex> vertices;  // sorted by id
  std::vector<Edge> edges;       // sorted by (a, b)
  friend bool operator==(const Topology&, const Topology&) = default;
};

// The inventory and every declared or measured GPU-GPU and GPU-NIC edge of a dataset.
Topology BuildTopology(const Dataset& ds);

// The topology as a toposcope.topology/1 document (vertices, then edges, in their order). Cannot fail.
nlohmann::json TopologyToJson(const Topology& t);
// The topology of a TopologyToJson document. Fails with a message naming the first bad element.
Result<Topology> TopologyFromJson(const nlohmann::json& j);

}  // namespace toposcope::model
