// sim/writers: renders a simulated cluster into the real tools' file formats, through the
// formats/ writers, plus the ground truth `truth.json` (schema toposcope.truth/1,
// docs/truth_schema.md). Per host: nvidia-smi topo -m, the NCCL topology dump and one P2P
// measurement (nvbandwidth or p2pBandwidthLatencyTest, alternating). Pure functions: the same
// cluster gives the same bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/output_file.h"
#include "toposcope/base/result.h"

#include "toposcope/formats/nccl/nccl_xml.h"
#include "toposcope/formats/node/nvsmi_topo.h"
#include "toposcope/formats/node/p2p_matrix.h"
#include "toposcope/sim/cluster.h"

namespace toposcope {
class JsonStreamWriter;  // base/json_stream.h
}  // namespace toposcope

namespace toposcope::sim {

struct Telemetry;  // sim/telemetry.h
struct RdmaPlan;   // sim/rdma_traffic.h
struct FabricPlan;   // sim/fabric_sim.h
struct FabricStats;  // sim/fabric_sim.h

inline constexpr const char* kNvsmiTopoFile = "nvidia-smi-topo.txt";
inline constexpr const char* kNcclTopoFile = "nccl-topo.xml";
inline constexpr const char* kNvbandwidthFile = "nvbandwidth.txt";
inline constexpr const char* kP2pTestFile = "p2pBandwidthLatencyTest.txt";
inline constexpr const char* kTruthFile = "truth.json";

// `nvidia-smi topo -m` of the host's current state: GPU and NIC rows; an NVLink pair shows its
// active lanes (`NV9` with lanes down); CPU/NUMA affinity per socket; GPU NUMA ID N/A. Never
// fails.
formats::NvsmiTopo BuildNvsmiTopo(const HostModel& host);

// The NCCL topology dump (NCCL_TOPO_DUMP_FILE) of the host in NCCL's element and attribute order:
// system > cpu > pci bridge(s) > pci nic > nic > net, and pci gpu > gpu > nvlink (active lanes; to
// NVSwitch bus ids with tclass 0x068000, or to the bridged peer GPU with 0x030200). A downtrained
// GPU shows its trained link_speed / link_width. Returns the root <system> element; never fails.
formats::XmlElement BuildNcclTopoXml(const HostModel& host);

// The host's P2P measurement: every measured cell (each direction separately) is the true value x
// (1 + noise.Sample(rng)), the factor floored at 0.05, with rng = Rng(Rng::Mix(seed, host.index)).
// nvbandwidth v0.8: device_to_device_memcpy_write_ce, N/A diagonal, SUM. p2pBandwidthLatencyTest:
// connectivity, unidirectional and bidirectional (~2x) P2P=Enabled bandwidth, P2P=Enabled latency
// (GPU and CPU tables). Returns the report of the host's tool (HostModel::p2p_tool); never fails.
formats::P2pReport BuildP2pReport(const HostModel& host, const stats::NoiseModel& noise, uint64_t seed);

// The files of one host, relative to the output directory ("node001/nvidia-smi-topo.txt", ...):
// its topology dump, its NCCL topology and its P2P measurement, in that order; the P2P measurement
// alone for a P2P-only node type. Never fails.
std::vector<std::string> HostFiles(const HostModel& host);

// truth.json's top-level members other than "schema", by key: each function writes the member
// `key` (its value built or streamed host by host). TruthJson writes them in key order.
using TruthSections = std::map<std::string, std::function<void(JsonStreamWriter&, const std::string& key)>>;

// truth.json: "schema" first (format detection reads the file's head), then the other keys sorted;
// arrays in host / GPU order, numbers rounded to 3 decimals, 2-space indent, trailing newline.
// Returns the text; neither this nor the overloads below fail.
std::string TruthJson(const Cluster& cluster);
// The same plus the telemetry truth (clocks, clock_checks, telemetry_faults, sampling, telemetry,
// hosts[].telemetry_files) when `telemetry` is not null.
std::string TruthJson(const Cluster& cluster, const Telemetry* telemetry);
// The same plus the RDMA truth ("rdma", hosts[].rdma_files) when `rdma` is not null (its packets
// already simulated by RenderRdma).
std::string TruthJson(const Cluster& cluster, const Telemetry* telemetry, const RdmaPlan* rdma);
// The same plus the fabric truth (more keys in "fabric", hosts[].fabric_files) when `fabric` is
// not null (`fabric_stats` from RenderFabric; may be null).
std::string TruthJson(const Cluster& cluster, const Telemetry* telemetry, const RdmaPlan* rdma,
                      const FabricPlan* fabric, const FabricStats* fabric_stats);
// The same text handed to `sink` piece by piece (about 1 MB at a time) as it is written, section by
// section and host by host: the cluster-wide truth is never in memory whole (only the RDMA and
// fabric parts, limited to small clusters, are built first). Returns the sink's first failure.
Status WriteTruthJson(const Cluster& cluster, const Telemetry* telemetry, const RdmaPlan* rdma,
                      const FabricPlan* fabric, const FabricStats* fabric_stats,
                      const std::function<Status(std::string_view)>& sink);

struct RenderedFile {
  std::string path;  // relative to the output directory
  std::string text;
};
// Where RenderClusterTo puts the files: one file at a time, opened, appended to piece by piece and
// closed (paths relative to the output directory).
class RenderSink : public FileSink {
 public:
  // Called after each host's own files (topology and telemetry) are done.
  virtual void HostDone(int hosts_done, int hosts_total) {
    (void)hosts_done;
    (void)hosts_total;
  }
};

// Renders the dataset into `sink` host by host: a host's topology files, then its telemetry files
// (with `telemetry`: its DCGM bins, traces and logs computed, handed over and freed before the next
// host); then the RDMA and fabric files (with their options, on the small clusters they allow);
// truth.json last, streamed (WriteTruthJson). Memory: what is cluster-wide (the cluster, the
// telemetry's plans, clocks and job plan, the RDMA and fabric plans) plus one host's files. Returns
// the sink's first failure.
Status RenderClusterTo(const Cluster& cluster, const Telemetry* telemetry, RenderSink& sink);

// Every file of the dataset, in RenderClusterTo's order (truth.json last), in memory. With
// options.with_telemetry, also every host's telemetry files (sim/telemetry.h), simulated here;
// with options.with_rdma (and valid RDMA options) the RDMA files (sim/rdma_traffic.h) after them;
// with options.with_fabric (and valid fabric options) the fabric files (sim/fabric_sim.h) last.
// Parts whose options are invalid are left out rather than failing; never fails.
std::vector<RenderedFile> RenderCluster(const Cluster& cluster);
// The same with telemetry already simulated (null: none); RDMA and fabric as above. Never fails.
std::vector<RenderedFile> RenderCluster(const Cluster& cluster, const Telemetry* telemetry);

}  // namespace toposcope::sim
