#include "toposcope/model/topology.h"

#include <algorithm>
#include <array>
#include <set>

#include "toposcope/base/names.h"

namespace toposcope::model {

namespace {
constexpr std::array<std::string_view, 7> kKindNames = {"host", "cpu", "gpu", "nic", "nvswitch", "pcie_switch",
                                                        "switch"};
}

std::string_view VertexKindName(VertexKind k) { return kKindNames[static_cast<size_t>(k)]; }

Topology BuildTopology(const Dataset& ds) {
  Topology t;
  for (const auto& [host, h] : ds.hosts) {
    t.vertices.push_back({host, VertexKind::kHost, host});
    std::set<int> numa;
    for (const auto& [idx, g] : h.gpus) {
      Vertex v{GpuName(host, idx), VertexKind::kGpu, host, idx, g.bus_id, g.model, g.numa_node};
      t.vertices.push_back(v);
      if (g.numa_node >= 0) numa.insert(g.numa_node);
    }
    for (const auto& [name, n] : h.nics) {
      Vertex v{NicName(host, name), VertexKind::kNic, host, -1, n.bus_id, "", n.numa_node, n.speed_gbps};
      t.vertices.push_back(v);
      if (n.numa_node >= 0) numa.insert(n.numa_node);
    }
    for (int n : numa) t.vertices.push_back({host + "/cpu" + std::to_string(n), VertexKind::kCpu, host, n, "", "", n});
    std::set<GpuPair> pairs;
    for (const auto& [p, _] : h.nvsmi_links) pairs.insert(p);
    for (const auto& [p, _] : h.xml_links) pairs.insert(p);
    for (const auto& [p, _] : h.measured) pairs.insert(p);
    for (const auto& p : pairs) {
      Edge e;
      e.a = GpuName(host, p.first);
      e.b = GpuName(host, p.second);
      if (auto it = h.nvsmi_links.find(p); it != h.nvsmi_links.end()) {
        e.cls = it->second.cls;
        e.source = "nvidia-smi-topo";
      } else if (auto x = h.xml_links.find(p); x != h.xml_links.end()) {
        e.cls = x->second.cls;
        e.source = "nccl-topo-xml";
      }
      if (auto m = h.measured.find(p); m != h.measured.end() && !m->second.samples_gbps.empty()) {
        double s = 0;
        for (double v : m->second.samples_gbps) s += v;
        e.bandwidth_gbps = s / static_cast<double>(m->second.samples_gbps.size());
        if (e.source.empty()) e.source = "p2p";
      }
      t.edges.push_back(e);
    }
    for (const auto& [key, cls] : h.gpu_nic) {
      Edge e;
      e.a = GpuName(host, key.first);
      e.b = NicName(host, key.second);
      e.cls = cls;
      e.source = "nvidia-smi-topo";
      t.edges.push_back(e);
    }
  }
  std::sort(t.vertices.begin(), t.vertices.end(), [](const Vertex& x, const Vertex& y) { return x.id < y.id; });
  std::sort(t.edges.begin(), t.edges.end(),
            [](const Edge& x, const Edge& y) { return std::tie(x.a, x.b) < std::tie(y.a, y.b); });
  return t;
}

nlohmann::json TopologyToJson(const Topology& t) {
  nlohmann::json j;
  j["schema"] = "toposcope.topology/1";
  j["vertices"] = nlohmann::json::array();
  for (const auto& v : t.vertices) {
    j["vertices"].push_back({{"id", v.id}, {"kind", std::string(VertexKindName(v.kind))}, {"host", v.host},
                             {"index", v.index}, {"bus_id", v.bus_id}, {"model", v.model},
                             {"numa_node", v.numa_node}, {"speed_gbps", v.speed_gbps}});
  }
  j["edges"] = nlohmann::json::array();
  for (const auto& e : t.edges) {
    nlohmann::json bw = std::isnan(e.bandwidth_gbps) ? nlohmann::json(nullptr) : nlohmann::json(e.bandwidth_gbps);
    j["edges"].push_back({{"a", e.a}, {"b", e.b}, {"type", std::string(LinkTypeName(e.cls.type))},
                          {"lanes", e.cls.lanes}, {"bandwidth_gbps", bw}, {"source", e.source}});
  }
  return j;
}

Result<Topology> TopologyFromJson(const nlohmann::json& j) {
  if (!j.is_object() || j.value("schema", "") != "toposcope.topology/1") {
    return MakeError("not a toposcope.topology/1 document");
  }
  Topology t;
  try {
    for (const auto& v : j.at("vertices")) {
      Vertex x;
      x.id = v.at("id").get<std::string>();
      const std::string kind = v.at("kind").get<std::string>();
      auto it = std::find(kKindNames.begin(), kKindNames.end(), kind);
      if (it == kKindNames.end()) return MakeError("vertex " + x.id + ": unknown kind " + kind);
      x.kind = static_cast<VertexKind>(it - kKindNames.begin());
      x.host = v.value("host", "");
      x.index = v.value("index", -1);
      x.bus_id = v.value("bus_id", "");
      x.model = v.value("model", "");
      x.numa_node = v.value("numa_node", -1);
      x.speed_gbps = v.value("speed_gbps", 0.0);
      t.vertices.push_back(std::move(x));
    }
    for (const auto& e : j.at("edges")) {
      Edge x;
      x.a = e.at("a").get<std::string>();
      x.b = e.at("b").get<std::string>();
      auto type = ParseLinkTypeName(e.at("type").get<std::string>());
      if (!type) return MakeError("edge " + x.a + "-" + x.b + ": unknown type");
      x.cls = {*type, e.value("lanes", 0)};
      x.bandwidth_gbps = e.at("bandwidth_gbps").is_null() ? NAN : e.at("bandwidth_gbps").get<double>();
      x.source = e.value("source", "");
      t.edges.push_back(std::move(x));
    }
  } catch (const nlohmann::json::exception& ex) {
    return MakeError(std::string("malformed topology JSON: ") + ex.what());
  }
  return t;
}

}  // namespace toposcope::model
