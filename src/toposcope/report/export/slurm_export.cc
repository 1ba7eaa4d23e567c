#include "toposcope/report/export/slurm_export.h"

#include <algorithm>
#include <utility>

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
  if (smallest > 0) {
    t.block_sizes.push_back(static_cast<int>(smallest));
    size_t largest_pod = 0;
    for (const InferredPod& p : inf.pods) largest_pod = std::max(largest_pod, p.hosts.size());
    if (inf.pods.size() > 1 && largest_pod > smallest) t.block_sizes.push_back(static_cast<int>(largest_pod));
  }
  return t;
}

}  // namespace toposcope::report
