// report/export/slurm_export: leaves and pods inferred from probe RTTs (analysis/fabric/
// leaf_inference), and multi-node NVLink domains (the Fabric ClusterUUID/CliqueId of `nvidia-smi
// -q`), as Slurm topologies (formats/fabric/slurm_topology writes them).
#pragma once

#include "toposcope/analysis/fabric/leaf_inference.h"
#include "toposcope/formats/fabric/slurm_topology.h"
#include "toposcope/model/dataset.h"

namespace toposcope::report {

// Returns the inference as a Slurm topology/tree: `SwitchName=<leaf> Nodes=<hosts>` per leaf,
// `SwitchName=<pod> Switches=<leaves>` per pod, and a top switch "top" with `Switches=<pods>`
// (omitted when there is a single pod: the pod is then the root). Unplaced hosts are not listed
// (Slurm treats unlisted nodes as unreachable by topology-aware scheduling; they remain in
// evidence). Names are the inferred ones (leaf-00, pod-00). Never fails; no leaves give no switches.
formats::SlurmTopology ToSlurmTopology(const analysis::LeafInference& inf);

// Slurm BlockSizes for `count` blocks of which the smallest holds `smallest` nodes: the planning
// base block and its power-of-two aggregates that fit, [D, 2D, 4D, ..., 2^k D] with
// k = floor(log2(count)) (the rule NVIDIA topograph applies when no sizes are configured).
// Empty when there are no blocks.
std::vector<int> SlurmBlockSizes(size_t smallest, size_t count);

// Returns the inference as a Slurm topology/block: one block per LEAF ("leaf-00" ...; the leaf is
// the tightest latency domain), with BlockSizes from SlurmBlockSizes. Never fails; no leaves give
// no blocks.
formats::SlurmTopology ToSlurmBlockTopology(const analysis::LeafInference& inf);

// One multi-node NVLink domain: the hosts whose GPUs report the same Fabric ClusterUUID and
// CliqueId. `name` is stable for the domain whatever the other hosts: "nvl-" + the UUID's first 8
// hex digits + "-" + the clique id.
struct NvlinkDomain {
  std::string name;
  std::string cluster_uuid;
  std::string clique_id;
  std::vector<std::string> hosts;  // in name order
};

// The domains of the hosts whose `nvidia-smi -q` names one: a ClusterUUID that is present and not
// all zeros (single-node systems print the zero UUID and clique 0). A host's domain is the one most
// of its GPUs report (ties: the smallest key). In name order. Empty when no host has one.
std::vector<NvlinkDomain> NvlinkDomainsOf(const model::Dataset& ds);

// The domains as a Slurm topology/block: one block per domain, BlockSizes from SlurmBlockSizes.
formats::SlurmTopology ToSlurmNvlinkBlockTopology(const std::vector<NvlinkDomain>& domains);

}  // namespace toposcope::report
