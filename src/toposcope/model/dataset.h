// model/dataset: what the inputs say about each host, gathered from every reader into one place:
// the GPUs and NICs, the link classes nvidia-smi and NCCL's topology declare, and the measured P2P
// bandwidths. Analyses read a Dataset and never parse text.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/link_type.h"
#include "toposcope/base/result.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/formats/fabric/iblinkinfo.h"
#include "toposcope/formats/fabric/ibqueryerrors.h"
#include "toposcope/formats/fabric/perfquery.h"
#include "toposcope/formats/rdma/inventory_csv.h"
#include "toposcope/formats/nccl/nccl_log.h"
#include "toposcope/formats/nccl/nccl_tests.h"
#include "toposcope/formats/nccl/nccl_xml.h"
#include "toposcope/formats/node/nvsmi_query.h"
#include "toposcope/formats/node/nvsmi_topo.h"
#include "toposcope/formats/node/p2p_matrix.h"
#include "toposcope/formats/fabric/path_probe.h"
#include "toposcope/formats/rdma/rdma_tools.h"
#include "toposcope/formats/fabric/slurm_topology.h"
#include "toposcope/formats/sniff.h"
#include "toposcope/formats/fabric/topograph_model.h"
#include "toposcope/formats/clock/sync_point.h"
#include "toposcope/formats/dcgm/dcgm_discovery.h"
#include "toposcope/formats/dcgm/dcgm_fields.h"
#include "toposcope/model/dcgm.h"

namespace toposcope::model {

struct GpuInfo {
  int index = -1;
  std::string bus_id;        // lowercase, e.g. "0000:a4:00.0"; empty when unknown
  std::string model;         // "NVIDIA H100 80GB HBM3"; empty when unknown
  int numa_node = -1;
  std::string cpu_affinity;
  std::string pcie_link_speed;  // "32.0 GT/s PCIe" from NCCL's XML
  int pcie_link_width = 0;
};

// One GPU of an `nvidia-smi -q` file: what it says of the GPU and its own temperature limits.
struct GpuQueryInfo {
  int index = -1;             // the GPU index it was matched to (HostEvidence::gpus); -1: none could be
  std::string matched_by;     // "bus_id" (a GPU another source names), "position" (its place in a
                              // file listing every attached GPU), "selected_index" (`-i N`), ""
  std::string bus_id;         // lowercase, 4-digit domain ("0000:18:00.0")
  std::string product_name;   // "NVIDIA H100 80GB HBM3"
  std::string driver_version;
  double max_operating_c = NAN;  // absolute limits (formats::AbsoluteLimitsOf)
  double slowdown_c = NAN;
  double shutdown_c = NAN;
  std::string limits_form;    // "absolute", "tlimit" (derived from T.Limit headroom), "" none
  std::string clique_id;      // Fabric CliqueId / ClusterUUID ("" when absent or N/A): the GPU's
  std::string cluster_uuid;   // multi-node NVLink domain when the UUID is not all zeros
  std::string source;         // file path
  int64_t line = 0;           // line of the GPU's section header
};

struct NicInfo {
  std::string device;        // "mlx5_0"
  std::string bus_id;
  int numa_node = -1;
  double speed_gbps = 0;
};

// An unordered GPU pair, first < second.
using GpuPair = std::pair<int, int>;
// The pair of two GPU indices, smaller first.
inline GpuPair MakePair(int a, int b) { return a < b ? GpuPair{a, b} : GpuPair{b, a}; }

// What one source declares about a pair.
struct DeclaredLink {
  LinkClass cls;
  std::string source;  // file path
};

// Unidirectional copy bandwidth measured between a pair, each direction on its own.
struct MeasuredLink {
  std::vector<double> samples_gbps;  // every unidirectional value seen (both directions, all files)
  std::vector<double> staged_samples_gbps;  // P2P=Disabled copies (staged through host memory), kept
                                            // beside P2P=Enabled ones to compare with them
  std::string source;
};

struct HostEvidence {
  std::string host;
  std::map<int, GpuInfo> gpus;
  std::map<std::string, NicInfo> nics;
  std::map<GpuPair, DeclaredLink> nvsmi_links;  // from nvidia-smi topo -m / -mp
  std::map<GpuPair, DeclaredLink> xml_links;    // derived from NCCL's topology XML
  std::map<GpuPair, MeasuredLink> measured;     // from P2P matrices
  std::map<std::pair<int, std::string>, LinkClass> gpu_nic;  // GPU <-> NIC classes (nvidia-smi)
  std::map<GpuPair, std::string> p2p_status;  // nvidia-smi topo -p2p: OK, NS, CNS, GNS, TNS, DR, U
                                              // (a non-OK status wins over OK)
  std::vector<formats::SyncPoint> sync_points;  // clock sync records (chrony, linuxptp, sync CSV)
  std::vector<formats::RdmaQp> rdma_qps;        // `rdma res show qp`
  std::vector<formats::IbDevice> ib_devices;    // ibstat / ibv_devinfo
  std::vector<formats::GidEntry> gids;          // show_gids
  std::vector<formats::DmonFieldListEntry> dcgm_offered;  // `dcgmi dmon -l`: the fields its DCGM offers
  std::vector<GpuQueryInfo> gpu_queries;        // `nvidia-smi -q`: GPUs and their temperature limits
  std::vector<formats::DcgmMigInstance> mig_instances;    // `dcgmi discovery -c`: MIG instances and their GPUs
  std::vector<formats::DcgmDiscoveredGpu> dcgm_gpus;      // `dcgmi discovery -l`: the GPUs its DCGM sees
};

// A packet capture (pcap/pcapng): streamed by the traffic analyses, never held in memory.
// `index` is its position in Dataset::captures (RocePacket::capture_index); `point` names the
// capture point (the mirrored switch port or host), from the file name.
struct CaptureInput {
  std::string path;
  std::string host;   // the host the file was attributed to (directory), may be empty
  std::string point;  // capture point: the file name without extensions
  int index = 0;
};

// An event that may be a clock anchor (analysis/time/anchors): the end of one collective, as its
// input gave it (model::AnchorCandidateOf).
struct AnchorCandidate {
  std::string key;     // what the collective is, without the ordinal
  std::string family;  // non-empty: the key takes the rank's ordinal in this family
  std::string who;     // the rank identity the ordinal counts for
  std::string host;
  int64_t end_ns = 0;  // local end time
};

// An input whose records are events on a host's clock (traces, inspector records, JSONL events,
// DCGM samples): read again, streaming, when the timeline is merged.
struct EventInput {
  std::string path;
  std::string host;
  formats::FileFormat format = formats::FileFormat::kUnknown;
  int64_t untimed_at_ns = kNoTime;  // DCGM inputs: LoadOptions::untimed_at_ns
  // dmon inputs naming MIG instances: the host's `dcgmi discovery -c` rows, which put each instance
  // on its GPU's timeline track (the loader sets them once every input is read); empty otherwise
  std::vector<formats::DcgmMigInstance> mig_instances;
  // Traces, Inspector records, JSONL events: the events the loader streamed and, in input order,
  // those that may be clock anchors, so the anchors pass does not read the input again (-1: not
  // kept; the anchors pass reads the input).
  int64_t events_streamed = -1;
  std::vector<AnchorCandidate> anchor_candidates;
};

struct InputFile {
  std::string path;
  std::string format;     // formats::FormatName, or "unknown"
  std::string host;       // the host the file was attributed to; empty when skipped
  int64_t records = 0;    // records read: accepted + rejected
  int64_t accepted = 0;
  int64_t rejected = 0;   // as many as the diagnostics count for this path
  bool skipped = false;
  std::string skip_reason;
};

struct Dataset {
  std::map<std::string, HostEvidence> hosts;
  std::vector<InputFile> inputs;
  std::vector<EventInput> event_inputs;
  std::vector<CaptureInput> captures;
  std::vector<formats::NcclLog> nccl_logs;     // NCCL_DEBUG=INFO logs, topology records only
  std::vector<formats::NcclTestsReport> nccl_tests;  // nccl-tests runs (all_reduce_perf, ...)
  formats::Inventory inventory;                // host inventory CSV rows (IP -> host)
  std::vector<formats::IbFabric> fabrics;                 // ibnetdiscover dumps
  std::vector<formats::IbLinkInfo> link_infos;            // iblinkinfo outputs
  std::vector<formats::PortCounters> port_counters;       // perfquery / ibqueryerrors outputs (port counter reads)
  std::vector<formats::SlurmTopology> slurm_topologies;   // topology.conf / topology.yaml
  std::vector<formats::TopographModel> topograph_models;  // topograph simulation models
  std::vector<EventInput> qp_state_inputs;                // QP state logs: streamed by the pattern pass
  std::vector<formats::PathProbe> path_probes;            // host-to-host path probes
  DcgmStore dcgm;
  Diagnostics diag;

  HostEvidence& Host(const std::string& name);
};

// Fold one parsed input into the dataset, attributed to `host` (`source` names the file): GPUs, NICs
// and declared links for the topology files, measured bandwidths for the P2P reports. Cannot fail.
void AddNvsmiTopo(Dataset& ds, const std::string& host, const std::string& source,
                  const formats::NvsmiTopo& topo);
void AddNcclTopo(Dataset& ds, const std::string& host, const std::string& source,
                 const formats::NcclTopo& topo);
void AddP2pReport(Dataset& ds, const std::string& host, const std::string& source,
                  const formats::P2pReport& report);
// An `nvidia-smi -q` file: one GpuQueryInfo per GPU section, matched to a GPU index by its bus id
// (a GPU of the host another source named), else by its position when the file lists every
// attached GPU (nvidia-smi prints them in index order), else by `-i N` — by place only when no
// other source gave that index a bus id (it would have matched); unmatched: index -1, kept for the
// report but never a GPU's. The matched GPU's bus id and
// model are filled where no other source gave them (the model of p2pBandwidthLatencyTest /
// nvbandwidth wins whichever file is read first).
void AddNvsmiQuery(Dataset& ds, const std::string& host, const std::string& source,
                   const formats::NvsmiQuery& query);

// Derives the class of every GPU pair from NCCL's topology: direct nvlink -> NVLINK(count), both
// GPUs on NVSwitches -> NVSWITCH(min of their lane totals), else the PCIe tree: same parent -> PIX,
// common bridge -> PXB, same CPU -> PHB, different CPUs -> SYS.
std::map<GpuPair, LinkClass> ClassifyNcclTopoPairs(const formats::NcclTopo& topo);

struct LoadOptions {
  std::string host_override;  // attribute every file to this host
  // Where samples that carry no time start (plain dcgmi dmon output, a scrape without timestamps);
  // kNoTime: the earliest time of the file's host in the data set, else of the whole data set, else
  // the file's modification time (each file's warning says which).
  int64_t untimed_at_ns = kNoTime;
};

// Loads files and directories (recursively, in sorted order). A file's host is, in order: the
// override; a hostname the file itself names (nvbandwidth's hostname line, the `user@host` of a shell
// prompt before ibstat / ibv_devinfo / show_gids output, `localhost` aside); the first directory below the given
// root; for a file given directly or lying in the root, the file name without extensions.
// Unreadable paths are reported as skipped inputs, never fatal. Fails only when a path does not
// exist.
Result<Dataset> LoadPaths(const std::vector<std::string>& paths, const LoadOptions& opt);

}  // namespace toposcope::model
