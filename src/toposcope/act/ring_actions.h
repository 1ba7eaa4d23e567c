// act/ring_actions: the files a user applies to run a job in a planned rank order (the ring planner,
// act/ring_plan, and later the EADPS scheduler produce the order). Each writer takes an order and
// returns text; none opens a file.
//  - mpirun hostfile (Open MPI): `host slots=N`, one host a line in rank order; with `--map-by slot`
//    (the default) rank r runs on the host whose slots hold r.
//  - torchrun hosts: one host a line; line k is the node given `--node_rank=k` (with
//    `--nnodes=<lines>`), so global ranks follow the lines.
//  - SLURM_HOSTFILE: one line per rank (a host repeated once per slot), read by
//    `srun --distribution=arbitrary`.
//  - NCCL graph XML (NCCL_GRAPH_FILE): ring channels (pattern 4) through one host's GPUs in the given
//    order, entering and leaving by its network device, written by formats::WriteNcclGraphXml with
//    the attributes NCCL's own dumps carry (id, pattern, crossnic, nchannels, speedintra,
//    speedinter, latencyinter, typeintra, typeinter, samechannels).
#pragma once

#include <string>
#include <vector>

#include "toposcope/formats/nccl/nccl_xml.h"

namespace toposcope::act {

// Open MPI hostfile: "<host> slots=<slots[i]>" per host of `order` (slots.size() == order.size()).
std::string MpirunHostfileText(const std::vector<std::string>& order, const std::vector<int>& slots);
// torchrun: one host a line, in node-rank order.
std::string TorchrunHostsText(const std::vector<std::string>& order);
// SLURM_HOSTFILE: each host of `order` on slots[i] lines, in rank order.
std::string SlurmHostfileText(const std::vector<std::string>& order, const std::vector<int>& slots);

struct RingGraphSpec {
  std::vector<int> gpu_order;   // GPU (CUDA device) indices in ring order inside the host
  int net_dev = 0;              // the network device the ring enters and leaves by
  int nchannels = 2;            // rings; each goes through the same GPU order
  double speed_intra_gbs = 0;   // per channel, GB/s, as NCCL writes speedintra
  double speed_inter_gbs = 0;   // per channel, GB/s (NIC rate / channels)
  std::string type_intra = "SYS";  // NVL when every GPU sits in one NVLink island
  std::string type_inter = "SYS";
};

// The graph file's content: one ring graph (id 0, pattern 4) with spec.nchannels channels
// <net/> <gpu/>... <net/>. Never fails.
formats::NcclGraphs RingGraphs(const RingGraphSpec& spec);
// The same as text (formats::WriteNcclGraphXml).
std::string RingGraphXml(const RingGraphSpec& spec);

}  // namespace toposcope::act
