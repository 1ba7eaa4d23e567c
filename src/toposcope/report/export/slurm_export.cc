#include "toposcope/report/export/slurm_export.h"

#include <algorithm>
#include <map>
#include <utility>

#include "toposcope/base/text.h"

namespace toposcope::report {

using analysis::InferredLeaf;
using analysis::InferredPod;
using analysis::LeafInference;

formats::SlurmTopology ToSlurmTopology(const LeafInference& inf) {
  formats::SlurmTopology t;
  t.plugin = "tree";
  if (inf.pods.size() > 1) {
    formats::SlurmSwitch top;
    top.name = "top";
    for (const InferredPod& p : inf.pods) top.switches.push_back(p.name);
    t.switches.push_back(std::move(top));
  }
  for (const InferredPod& p : inf.pods) {
    formats::SlurmSwitch s;
    s.name = p.name;
    s.switches = p.leaves;
    t.switches.push_back(std::move(s));
  }
  for (const InferredLeaf& l : inf.leaves) {
    formats::SlurmSwitch s;
    s.name = l.name;
    s.nodes = l.hosts;
    t.switches.push_back(std::move(s));
  }
  return t;
}

std::vector<int> SlurmBlockSizes(size_t smallest, size_t count) {
  std::vector<int> sizes;
  if (smallest == 0 || count == 0) return sizes;
  for (size_t blocks = 1; blocks <= count && smallest * blocks <= (1u << 30); blocks *= 2) {
    sizes.push_back(static_cast<int>(smallest * blocks));
  }
  return sizes;
}

formats::SlurmTopology ToSlurmBlockTopology(const LeafInference& inf) {
  formats::SlurmTopology t;
  t.plugin = "block";
  size_t smallest = 0;
  for (const InferredLeaf& l : inf.leaves) {
    formats::SlurmBlock b;
    b.name = l.name;
    b.nodes = l.hosts;
    smallest = smallest == 0 ? l.hosts.size() : std::min(smallest, l.hosts.size());
    t.blocks.push_back(std::move(b));
  }
  t.block_sizes = SlurmBlockSizes(smallest, t.blocks.size());
  return t;
}

std::vector<NvlinkDomain> NvlinkDomainsOf(const model::Dataset& ds) {
  std::map<std::pair<std::string, std::string>, NvlinkDomain> by_key;
  for (const auto& [host, h] : ds.hosts) {
    std::map<std::pair<std::string, std::string>, int> votes;
    for (const model::GpuQueryInfo& q : h.gpu_queries) {
      const bool zero = q.cluster_uuid.find_first_not_of("0-") == std::string::npos;
      if (!zero) ++votes[{ToLowerAscii(q.cluster_uuid), q.clique_id}];
    }
    const auto best = std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) {
      return a.second < b.second;  // the first of equal counts: the smallest key
    });
    if (best == votes.end()) continue;
    NvlinkDomain& d = by_key[best->first];
    d.cluster_uuid = best->first.first;
    d.clique_id = best->first.second;
    d.hosts.push_back(host);
  }
  std::vector<NvlinkDomain> out;
  for (auto& [key, d] : by_key) {
    std::string hex;
    for (const char c : d.cluster_uuid) {
      if (c != '-' && hex.size() < 8) hex += c;
    }
    d.name = "nvl-" + hex + "-" + (d.clique_id.empty() ? std::string("na") : d.clique_id);
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(), [](const NvlinkDomain& a, const NvlinkDomain& b) { return a.name < b.name; });
  return out;
}

formats::SlurmTopology ToSlurmNvlinkBlockTopology(const std::vector<NvlinkDomain>& domains) {
  formats::SlurmTopology t;
  t.plugin = "block";
  size_t smallest = 0;
  for (const NvlinkDomain& d : domains) {
    formats::SlurmBlock b;
    b.name = d.name;
    b.nodes = d.hosts;
    b.comment = "NVLink domain ClusterUUID=" + d.cluster_uuid + " CliqueId=" + d.clique_id;
    smallest = smallest == 0 ? d.hosts.size() : std::min(smallest, d.hosts.size());
    t.blocks.push_back(std::move(b));
  }
  t.block_sizes = SlurmBlockSizes(smallest, t.blocks.size());
  return t;
}

}  // namespace toposcope::report
