// sim/traffic: a data-parallel training job over every GPU of the cluster, and the physics of what
// DCGM sees while it runs. All times here are TRUE times (ns since the epoch); clocks are applied
// when the telemetry is written (sim/telemetry).
//
// The job (world = all GPUs, rank = host index x GPUs per host + GPU index). Per iteration:
//   1. compute (forward + backward): C = 240 ms x (1 + N(0, 1 %)) per rank; the straggler's takes
//      `straggler_factor` x longer from its first iteration on. Batch sizes are balanced per GPU
//      type, so C does not depend on the node type.
//   2. pipeline SendRecv of 32 MiB to the ring successor (rank + 1): a transfer starts when both
//      ends are ready and takes 15 us + bytes / path bandwidth (the pair's true copy bandwidth on a
//      host, NIC line rate x 0.9 between hosts); a rank's kernel ends when its send and its
//      receive are done.
//   3. ring AllReduce of a gradient bucket (128, 256 or 512 MiB, f32, SIMPLE protocol), then of a
//      small bucket (64 or 256 KiB, LL): every kernel starts when its rank is ready, data moves once
//      the LAST rank has arrived, and all ranks finish together (+ U(0, 2) us each: the implicit
//      anchors of the global timeline). Duration = 20 us + 2(n-1) x 4 us + the slowest rank's
//      time to move its bytes: each rank sends (and receives) 2(n-1)/n x S; 1/G of it crosses the
//      network (a host's NICs x 0.9 carry G such shares), the rest stays in the node: over NVLink
//      on NVSwitch nodes (active lanes x lane bandwidth), half over the bridge and half over PCIe
//      on bridged nodes, over PCIe on PCIe-only nodes; network bytes also cross the GPU's PCIe link.
//      On NVSwitch nodes the split follows the communicator's rings (sim/rdma_traffic.h, the
//      orders the NCCL logs print): the bytes are cut into `nccl_channels` equal channel shares;
//      in channel c a host's GPUs form the chain e, e-1, ..., e+1 (mod G) from the entry GPU e
//      closest to the channel's NIC, every GPU sends its share to its chain successor over NVLink,
//      except the exit GPU e+1, whose share leaves through the NIC (PCIe), and the entry GPU
//      receives its share from the network (PCIe) (a single host closes the chain over NVLink).
//      So a GPU's NVLink tx/rx is the sum of the channel shares it passes on inside the node, and
//      NvlinkSends names every NVLink destination (the GPU-pair traffic matrix in truth.json).
//   4. optimizer step: 12 ms x (1 + N(0, 1 %)); then 0.5-2 ms host gap to the next iteration.
//
// DCGM physics per GPU on a base grid (the fastest sampling period): busy share (a kernel runs),
// SM activity (compute 0.92, optimizer 0.55, NCCL kernel 0.04 waiting / 0.12 moving data, idle 0),
// power = idle + (max - idle) x load (compute 0.85, optimizer 0.55, NCCL 0.18 / 0.35, idle 0),
// first-order thermal model dT/dt = (inlet + R x P - T) / tau (per GPU type, see PhysicsOf: inlet
// 30 C, R chosen for ~67-72 C under this load, tau 15 s; the window starts warm, at the steady state
// of a 0.75 load), byte rates of NVLink and PCIe (plus a 150 MB/s host-to-device / 20 MB/s
// device-to-host input pipeline while computing). Thermal fault: the GPU's cooling degrades
// (R x 1.8, or more so that its steady state under its mean power would be 96 C; from 10 % to
// 70 % of the DCGM window, set by sim/telemetry); while its
// temperature is >= 85 C (until it is back below 83 C) one of its NVLink links trains down and
// carries 0.45 of its share of received bytes (the others carry the rest), and the NVLink CRC-flit
// and replay counters climb (Poisson, 40/s and 4/s).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/rng.h"
#include "toposcope/sim/cluster.h"

namespace toposcope::sim {

// Electrical and thermal constants of a GPU type.
struct GpuPhysics {
  double idle_w = 60;
  double max_w = 700;
  double inlet_c = 30;      // coolant / inlet air temperature
  double r_c_per_w = 0.06;  // thermal resistance die -> inlet
  double tau_s = 15;        // thermal time constant
  int num_sms = 132;
  int64_t memory_bytes = 0;
  int cc_major = 9;
  int cc_minor = 0;
};
// Returns the physics of a node type's GPUs (by its name; the pcie-only values for an unknown
// type). Never fails.
GpuPhysics PhysicsOf(const NodeType& type);

// The NVLink links of one GPU in DCGM's link numbering: NVSwitch nodes number a GPU's lanes switch
// after switch (H100: links 0-4 to switch 0, 5-9 to switch 1, 10-13 to 2, 14-17 to 3; a switch's
// first `active` lanes are up); bridged nodes number the bridge lanes 0..lanes-1.
struct NvlinkPort {
  int link = 0;
  bool active = true;
};
// Returns the ports of GPU `gpu` of the host (empty without NVLink). Never fails (`gpu` must be one
// of the host's).
std::vector<NvlinkPort> NvlinkPorts(const HostModel& host, int gpu);

enum class OpKind { kCompute, kSendRecv, kAllReduce, kOptimizer };

// One rank's part in one op.
struct RankSpan {
  int64_t start_ns = 0;  // kernel start (NCCL: launched and waiting)
  int64_t xfer_ns = 0;   // data starts to move (NCCL ops; = start for compute)
  int64_t end_ns = 0;
  // Bytes moved during [xfer_ns, end_ns] (tx = sent, rx = received by this GPU).
  double nvl_tx = 0, nvl_rx = 0, pcie_tx = 0, pcie_rx = 0;
};

struct JobOp {
  OpKind kind = OpKind::kCompute;
  int iteration = 0;
  int64_t bytes = 0;            // message size per rank (AllReduce S, SendRecv P); 0 for compute
  int64_t seq = 0;              // collective sequence number (AllReduce and SendRecv share the counter)
  std::string kernel;           // kernel name as CUPTI reports it
  std::string proto;            // "LL" / "SIMPLE" for NCCL ops
  std::vector<RankSpan> ranks;  // indexed by rank
};

struct JobOptions {
  int64_t start_ns = 0;     // first iteration starts here (true time)
  int64_t end_ns = 0;       // no iteration starts after this
  int straggler_rank = -1;  // -1: none
  double straggler_factor = 1.0;
  int64_t straggler_from_ns = 0;  // the first iteration starting at or after this is slow
};

struct JobPlan {
  int world = 0;
  int channels = 1;                         // NCCL ring channels (SimOptions::nccl_channels)
  std::vector<std::vector<int>> channel_entry_gpu;  // per host, per channel: the ring's entry GPU
  std::vector<bool> nvswitch_host;          // per host: AllReduce NVLink bytes follow the rings
  std::vector<std::vector<int>> bridge_peers;  // per rank: NVLink bridge peers (bridged hosts)
  std::vector<bool> sendrecv_nvlink;        // per rank: its SendRecv to rank + 1 crosses NVLink
  int gpus_per_host = 8;                    // of rank r's host: the cluster's hosts all have 8 GPUs
  std::vector<int> rank_host;               // rank -> host index
  std::vector<int> rank_gpu;                // rank -> GPU index on its host
  std::vector<JobOp> ops;                   // in order; each iteration has 5 ops
  std::vector<int64_t> iteration_start_ns;  // earliest compute start per iteration
  int straggler_from_iteration = -1;        // -1: no straggler
  // Rank of a (host, gpu).
  [[nodiscard]] int Rank(int host, int gpu) const { return host * gpus_per_host + gpu; }
};

// The entry GPU of each ring channel on a host of this type: the GPU closest (PCIe) to the
// channel's NIC, as sim/rdma_traffic plans the communicator (0 without NICs). Returns one entry
// per channel; never fails.
std::vector<int> ChannelEntryGpus(const NodeType& type, int channels);

// One NVLink destination of a rank's bytes in one op.
struct NvlinkSend {
  int dst_rank = -1;
  double bytes = 0;
};
// Where a rank's NVLink tx bytes of `op` go (their sum is the op's RankSpan::nvl_tx; the bytes
// move over the rank's [xfer_ns, end_ns] at a constant rate): SendRecv to rank + 1 when that pair
// is NVLink-connected; AllReduce on NVSwitch nodes per channel to the chain successor, on bridged
// nodes split equally over the GPU's bridge peers. Empty for compute and optimizer, a rank out of
// range and a single-rank job. Never fails.
std::vector<NvlinkSend> NvlinkSends(const JobPlan& plan, const JobOp& op, int rank);

// The true NVLink bytes per directed GPU pair of every host moved during [from_ns, to_ns) (true
// time): every op's NvlinkSends, each spread evenly over the sender's [max(start, xfer), end] as
// the DCGM bins count them, clipped to the window. Per host index: ((src GPU, dst GPU) -> bytes),
// only pairs that carried bytes. Never fails.
std::vector<std::map<std::pair<int, int>, double>> NvlinkPairBytes(const JobPlan& plan, int64_t from_ns,
                                                                   int64_t to_ns);

// An upper bound of the memory a job plan of `world` ranks over a window of `window_s` seconds
// holds (its ops' per-rank spans: 5 ops per iteration, an iteration at least 90 % of the compute
// and optimizer time plus the two AllReduces' ring latency). Never fails.
int64_t JobPlanBytesBound(int64_t world, double window_s);

// Plans the job: returns its ranks and every op of every iteration starting in [start_ns, end_ns]
// (no ops for a cluster without GPUs). `rng` is the job's stream. Never fails.
JobPlan PlanJob(const Cluster& cluster, const JobOptions& options, Rng& rng);

// A thermal fault (cooling degraded over [cool_start_ns, cool_end_ns]) on one GPU.
struct ThermalFault {
  int host = -1;
  int gpu = -1;
  int link = -1;  // the link that trains down while hot
  int64_t cool_start_ns = 0;
  int64_t cool_end_ns = 0;
  double r_factor = 1.8;
};

// One base-grid interval (t - step, t] of one GPU.
struct DcgmBin {
  double busy = 0;     // share of the interval with a kernel running, 0..1
  double sm = 0;       // average SM activity, 0..1
  double power_w = 0;  // average power
  double temp_c = 0;   // at the end of the interval
  double nvl_tx = 0, nvl_rx = 0, pcie_tx = 0, pcie_rx = 0;  // B/s averaged over the interval
  bool link_down = false;                                   // the thermal fault's link is trained down
  int64_t crc_flit_total = 0;                               // cumulative counters at the end of the interval
  int64_t replay_total = 0;
};

struct DcgmGrid {
  int64_t start_ns = 0;  // the first bin ends at start + step
  int64_t step_ns = 100000000;
  int bins = 0;
};

// Per GPU (index = rank) bins over the grid. `rng` draws the counters' Poisson events. The thermal
// fault's `r_factor` is raised where needed so that the GPU's steady state under its mean power in
// the cooling window is kThermalTargetC (the value used is written back). Returns grid.bins bins
// per rank; never fails.
std::vector<std::vector<DcgmBin>> ComputeDcgmBins(const Cluster& cluster, const JobPlan& plan,
                                                  const DcgmGrid& grid, ThermalFault& thermal, Rng& rng);
inline constexpr double kThermalTargetC = 96.0;

// A GPU's NVLink CRC-flit and replay counters before the window (ComputeDcgmBins draws them from
// its `rng`, rank after rank, before the rank's bins).
struct DcgmCounterStart {
  int64_t crc_flit = 0;
  int64_t replay = 0;
};
// Draws one rank's counter start (two draws). Never fails.
DcgmCounterStart DrawDcgmCounterStart(Rng& rng);
// The bins of rank `rank` alone, as ComputeDcgmBins computes them: `rng` draws only the thermal
// fault GPU's Poisson counter events (and `thermal.r_factor` is raised on that GPU), so any other
// rank's bins need nothing but its counter start. Never fails.
std::vector<DcgmBin> ComputeRankDcgmBins(const Cluster& cluster, const JobPlan& plan, const DcgmGrid& grid,
                                         ThermalFault& thermal, int rank, DcgmCounterStart start, Rng& rng);

// Where the thermal fault's link is down: returns [first, last] bin end times (true ns), or {0, 0}
// when never. Never fails.
std::pair<int64_t, int64_t> LinkDownWindow(const std::vector<DcgmBin>& bins, const DcgmGrid& grid);

}  // namespace toposcope::sim
