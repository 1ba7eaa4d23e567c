// formats/sniff: tells a file's format from its content (not its name), so `analyze DIR` can read
// every file it understands and say why it skipped the others.
#pragma once

#include <string>
#include <string_view>

namespace toposcope::formats {

enum class FileFormat {
  kUnknown,
  kNvsmiTopo,               // nvidia-smi topo -m / -mp / -p2p
  kNcclTopoXml,             // <system version=...>
  kNcclGraphXml,            // <graphs version=...>
  kP2pBandwidthLatencyTest, // CUDA samples p2pBandwidthLatencyTest
  kNvbandwidth,             // NVIDIA nvbandwidth
  kP2pCsv,                  // our P2P CSV (src,dst,bandwidth_gbps or a wide matrix)
  kDcgmDmon,                // dcgmi dmon text
  kDcgmFieldList,           // dcgmi dmon -l
  kPrometheusText,          // dcgm-exporter scrape / any Prometheus exposition text
  kDcgmCsv,                 // DCGM samples exported from a TSDB (long or wide CSV)
  kDcgmExporterConfig,      // dcgm-exporter counters CSV
  kChronyLog,               // chrony tracking/statistics/measurements log
  kChronycTracking,         // chronyc tracking
  kChronycSources,          // chronyc sources [-v]
  kChronycSourceStats,      // chronyc sourcestats [-v]
  kPtpLog,                  // linuxptp ptp4l / phc2sys output
  kSyncCsv,                 // our sync pairs CSV (host,local_ns,ref_ns)
  kChromeTrace,             // Chrome trace JSON (PyTorch profiler / Kineto, NCCL profiler)
  kNcclInspector,           // NCCL Inspector JSON records
  kEventJsonl,              // our JSONL events
  kPcap,                    // packet capture, classic pcap (any byte order, us or ns)
  kPcapng,                  // packet capture, pcapng
  kNcclLog,                 // NCCL_DEBUG=INFO log
  kRdmaResQp,               // `rdma res show qp` (text or -j JSON)
  kIbstat,                  // ibstat
  kIbvDevinfo,              // ibv_devinfo [-v]
  kShowGids,                // show_gids (MLNX_OFED)
  kInventoryCsv,            // our host inventory CSV (host,ip,...)
  kIbnetdiscover,           // ibnetdiscover fabric dump
  kSlurmTopologyConf,       // Slurm topology.conf
  kSlurmTopologyYaml,       // Slurm topology.yaml
  kTopographModel,          // NVIDIA topograph simulation model (YAML)
  kQpStateLog,              // our QP state-transition log (CSV / JSONL)
  kPathProbe,               // path probes: our CSV / JSONL, traceroute, ibtracert
  kNcclTests,               // nccl-tests output (all_reduce_perf, ...)
  kNvsmiQuery,              // nvidia-smi -q
  kIbLinkInfo,              // iblinkinfo (infiniband-diags)
  kPerfquery,               // perfquery [-x] port counters (infiniband-diags)
  kIbQueryErrors,           // ibqueryerrors: error counters above thresholds, fabric-wide
  kDcgmDiscovery,           // dcgmi discovery -c (MIG hierarchy) / -l (GPU list)
  kTruthJson,               // simulator ground truth: never analysed
  kResultJson,              // a toposcope result: never analysed
};

struct SniffResult {
  FileFormat format = FileFormat::kUnknown;
  std::string reason;  // why it was recognised, or why not
};

// Looks at the first bytes of a (decompressed) file.
SniffResult SniffFormat(std::string_view head);
// Stable short name: "nvidia-smi-topo", "nccl-topo-xml", ...
std::string_view FormatName(FileFormat f);

}  // namespace toposcope::formats
