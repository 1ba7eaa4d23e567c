// report/export/slurm_export: leaves and pods inferred from probe RTTs (analysis/fabric/
// leaf_inference) as Slurm topologies (formats/fabric/slurm_topology writes them).
#pragma once

#include "toposcope/analysis/fabric/leaf_inference.h"
#include "toposcope/formats/fabric/slurm_topology.h"

namespace toposcope::report {

// Returns the inference as a Slurm topology/tree: `SwitchName=<leaf> Nodes=<hosts>` per leaf,
// `SwitchName=<pod> Switches=<leaves>` per pod, and a top switch "top" with `Switches=<pods>`
// (omitted when there is a single pod: the pod is then the root). Unplaced hosts are not listed
// (Slurm treats unlisted nodes as unreachable by topology-aware scheduling; they remain in
// evidence). Names are the inferred ones (leaf-00, pod-00). Never fails; no leaves give no switches.
formats::SlurmTopology ToSlurmTopology(const analysis::LeafInference& inf);

// Returns the inference as a Slurm topology/block: one block per LEAF ("leaf-00" ...; the leaf is
// the tightest latency domain), with BlockSizes = the smallest leaf size and, when pods exist, the
// largest pod size when larger (BlockSizes= is increasing). Never fails; no leaves give no blocks.
formats::SlurmTopology ToSlurmBlockTopology(const analysis::LeafInference& inf);

}  // namespace toposcope::report
