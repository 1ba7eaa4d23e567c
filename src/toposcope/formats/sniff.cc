#include "toposcope/formats/sniff.h"

#include <cctype>
#include <optional>
#include <string>

#include "toposcope/base/text.h"
#include "toposcope/formats/dcgm/dcgm_discovery.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/formats/fabric/iblinkinfo.h"
#include "toposcope/formats/fabric/ibqueryerrors.h"
#include "toposcope/formats/fabric/perfquery.h"
#include "toposcope/formats/fabric/slurm_topology.h"
#include "toposcope/formats/fabric/topograph_model.h"
#include "toposcope/formats/nccl/nccl_log.h"
#include "toposcope/formats/nccl/nccl_tests.h"
#include "toposcope/formats/node/nvsmi_query.h"
#include "toposcope/formats/rdma/inventory_csv.h"
#include "toposcope/formats/rdma/rdma_tools.h"

namespace toposcope::formats {
namespace {

// Finds the first XML element name after optional declarations and comments.
std::string_view FirstElement(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const size_t lt = s.find('<', i);
    if (lt == std::string_view::npos || lt + 1 >= s.size()) return {};
    const char c = s[lt + 1];
    if (c == '?' || c == '!') {
      const size_t gt = s.find('>', lt);
      if (gt == std::string_view::npos) return {};
      i = gt + 1;
      continue;
    }
    size_t e = lt + 1;
    while (e < s.size() && s[e] != ' ' && s[e] != '>' && s[e] != '/' && s[e] != '\n' && s[e] != '\t' &&
           s[e] != '\r') {
      ++e;
    }
    return s.substr(lt + 1, e - lt - 1);
  }
  return {};
}

// True for text that opens a JSON array: '[' then (after blanks) '{', '[', ']' or '"'.
bool OpensJsonArray(std::string_view t) {
  if (t.empty() || t[0] != '[') return false;
  size_t i = 1;
  while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t')) ++i;
  return i >= t.size() || t[i] == '{' || t[i] == '[' || t[i] == ']' || t[i] == '"';
}

// True when some line of the text starts with `prefix`.
bool LineStartsWith(std::string_view text, std::string_view prefix) {
  if (StartsWith(text, prefix)) return true;
  size_t pos = 0;
  while ((pos = text.find(prefix, pos + 1)) != std::string_view::npos) {
    if (text[pos - 1] == '\n') return true;
  }
  return false;
}

// "2020-05-13 14:36:33 1.2.3.4  ..." with at least 8 fields: a chrony log line.
bool IsChronyLogLine(std::string_view line) {
  if (line.size() < 20 || line[4] != '-' || line[7] != '-' || line[10] != ' ' || line[13] != ':' || line[16] != ':') {
    return false;
  }
  return SplitWhitespace(line).size() >= 8;
}

bool HasTopoHeader(std::string_view head) {
  // A line whose first label is GPU0 (after optional ANSI codes and spaces) and that has more labels.
  size_t pos = 0;
  int lines = 0;
  while (pos < head.size() && lines < 40) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) nl = head.size();
    std::string line(head.substr(pos, nl - pos));
    // strip ANSI escape sequences
    std::string clean;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\x1b') {
        while (i < line.size() && line[i] != 'm') ++i;
        continue;
      }
      clean += line[i];
    }
    auto f = SplitWhitespace(clean);
    if (f.size() >= 2 && f[0] == "GPU0" && (f[1] == "GPU1" || f[1] == "CPU" || StartsWith(f[1], "NIC") ||
                                             StartsWith(f[1], "mlx5_"))) {
      return true;
    }
    // One GPU (`topo -p2p` prints no other column): the header `GPU0` alone, then the row `GPU0 X`.
    if (f.size() == 1 && f[0] == "GPU0" && nl < head.size()) {
      const size_t next_end = head.find('\n', nl + 1);
      const auto row = SplitWhitespace(head.substr(nl + 1, next_end == std::string_view::npos ? head.npos : next_end - nl - 1));
      if (row.size() >= 2 && row[0] == "GPU0" && row[1] == "X") return true;
    }
    pos = nl + 1;
    ++lines;
  }
  return false;
}

// Text starting with '{': JSON objects of one of the known schemas (or a toposcope output).
SniffResult SniffJsonObjects(std::string_view head) {
  if (Contains(head, "\"toposcope.truth/")) {
    return {FileFormat::kTruthJson, "simulator ground truth (read only by `toposcope score`)"};
  }
  for (const char* out : {"\"toposcope.result/", "\"toposcope.topology/", "\"toposcope.score/"}) {
    if (Contains(head, out)) return {FileFormat::kResultJson, "a toposcope output, not an input"};
  }
  if (Contains(head, "\"traceEvents\"") || Contains(head, "\"schemaVersion\"") ||
      Contains(head, "\"displayTimeUnit\"") || Contains(head, "\"distributedInfo\"")) {
    return {FileFormat::kChromeTrace, "Chrome trace JSON (traceEvents)"};
  }
  if (Contains(head, "\"coll_perf\"") || Contains(head, "\"p2p_perf\"") || Contains(head, "\"dump_stats\"") ||
      (Contains(head, "\"header\"") && Contains(head, "\"n_ranks\""))) {
    return {FileFormat::kNcclInspector, "NCCL Inspector records"};
  }
  if (Contains(head, "\"ts_ns\"") && Contains(head, "\"host\"")) {
    return {FileFormat::kEventJsonl, "toposcope JSONL events (ts_ns, host)"};
  }
  return {FileFormat::kUnknown, "JSON of no known schema"};
}

// CSV: the first line that is not blank or a comment is a header we know (chrony logs, whose first
// lines may be a banner, are recognised by their data lines).
std::optional<SniffResult> SniffCsvHeader(std::string_view head) {
  TextLines lines(head);
  std::string_view raw;
  while (lines.Next(&raw)) {
    const std::string_view line = Trim(raw);
    if (line.empty() || line[0] == '#') continue;
    if (StartsWith(line, "src,dst,bandwidth_gbps") || StartsWith(line, ",0,") || StartsWith(line, "src\\dst,")) {
      return SniffResult{FileFormat::kP2pCsv, "P2P CSV header"};
    }
    if (StartsWith(line, "host,local_ns,ref_ns")) return SniffResult{FileFormat::kSyncCsv, "sync pairs CSV header"};
    if (StartsWith(line, "DCGM_FI_") && Contains(line, ",")) {
      return SniffResult{FileFormat::kDcgmExporterConfig, "dcgm-exporter counters CSV"};
    }
    {
      std::string lower(line);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const bool has_ts = StartsWith(lower, "ts,") || StartsWith(lower, "timestamp,") || StartsWith(lower, "time,");
      if (has_ts && (Contains(lower, ",field") || Contains(lower, ",metric") || Contains(lower, "dcgm_fi_") ||
                     Contains(lower, ",gpu"))) {
        return SniffResult{FileFormat::kDcgmCsv, "DCGM samples CSV header"};
      }
    }
    if (IsChronyLogLine(line)) return SniffResult{FileFormat::kChronyLog, "chrony log lines (date time IP ...)"};
    if (StartsWith(line, "====") || StartsWith(line, "Date (UTC)")) {
      continue;  // a chrony banner: look at the next lines
    }
    break;
  }
  return std::nullopt;
}

}  // namespace

SniffResult SniffFormat(std::string_view head) {
  if (head.empty()) return {FileFormat::kUnknown, "empty file"};
  if (head.size() >= 4) {
    const auto b = [&](size_t i) { return static_cast<unsigned char>(head[i]); };
    const uint32_t le = b(0) | (b(1) << 8) | (b(2) << 16) | (static_cast<uint32_t>(b(3)) << 24);
    if (le == 0xa1b2c3d4 || le == 0xd4c3b2a1 || le == 0xa1b23c4d || le == 0x4d3cb2a1) {
      return {FileFormat::kPcap, "pcap magic number"};
    }
    if (le == 0x0a0d0d0a) return {FileFormat::kPcapng, "pcapng section header block"};
  }
  if (LooksBinary(head)) return {FileFormat::kUnknown, "binary content, no known text format"};
  const std::string_view t = Trim(head);
  // nccl-tests output run with NCCL_DEBUG=INFO holds NCCL log lines too: its reader reads both.
  if (!t.empty() && t[0] != '{' && t[0] != '<' && LooksLikeNcclTests(head)) {
    return {FileFormat::kNcclTests, "nccl-tests output (nThread/nGpus header or bus bandwidth)"};
  }
  // Console captures may open with "[rank0]:", "[2024-05-01 12:00:00] " or "[1,0]<stdout>:": only a
  // JSON array ("[{", "[[", ...) is kept from the log reader.
  if (!t.empty() && t[0] != '{' && !OpensJsonArray(t) && LooksLikeNcclLog(head)) {
    return {FileFormat::kNcclLog, "NCCL INFO log lines"};
  }
  switch (SniffRdmaTool(head)) {
    case RdmaToolKind::kRdmaResQp: return {FileFormat::kRdmaResQp, "rdma res show qp output"};
    case RdmaToolKind::kIbstat: return {FileFormat::kIbstat, "ibstat output (CA '...')"};
    case RdmaToolKind::kIbvDevinfo: return {FileFormat::kIbvDevinfo, "ibv_devinfo output (hca_id:)"};
    case RdmaToolKind::kShowGids: return {FileFormat::kShowGids, "show_gids table"};
    case RdmaToolKind::kRdmaResOther:
      return {FileFormat::kUnknown, "rdma res output for CQs/PDs/MRs: no topology in it"};
    case RdmaToolKind::kUnknown: break;
  }
  if (Contains(head, "from_state") && Contains(head, "to_state")) {
    return {FileFormat::kQpStateLog, "QP state log (from_state, to_state)"};
  }
  if (LineStartsWith(head, "traceroute to ") || LineStartsWith(head, "From ca ") ||
      LineStartsWith(head, "From switch ") ||
      (Contains(head, "src") && Contains(head, "dst") && Contains(head, "hops") &&
       (Contains(head, "\"hops\"") || LineStartsWith(head, "ts_ns,src,dst,hops") || LineStartsWith(head, "ts,src,dst,hops") ||
        LineStartsWith(head, "src,dst,hops")))) {
    return {FileFormat::kPathProbe, "path probes (src, dst, hops / traceroute / ibtracert)"};
  }
  if (LooksLikeInventoryCsv(head)) return {FileFormat::kInventoryCsv, "host inventory CSV header (host,ip)"};
  if (LooksLikeIbnetdiscover(head)) return {FileFormat::kIbnetdiscover, "ibnetdiscover fabric dump"};
  if (LooksLikeIbLinkInfo(head)) return {FileFormat::kIbLinkInfo, "iblinkinfo (Switch: / CA: headers, ==( ... )==> port lines)"};
  if (LooksLikeIbQueryErrors(head)) return {FileFormat::kIbQueryErrors, "ibqueryerrors (Errors for ... / GUID 0x.. port N: [Counter == n])"};
  if (LooksLikePerfquery(head)) return {FileFormat::kPerfquery, "perfquery port counters (# Port counters: Lid N port N)"};
  if (LooksLikeNvsmiQuery(head)) return {FileFormat::kNvsmiQuery, "nvidia-smi -q (NVSMI LOG banner / GPU sections)"};
  if (LooksLikeSlurmTopologyYaml(head)) return {FileFormat::kSlurmTopologyYaml, "Slurm topology.yaml"};
  if (LooksLikeSlurmTopology(head)) return {FileFormat::kSlurmTopologyConf, "Slurm topology.conf (SwitchName=/BlockName=)"};
  if (LooksLikeTopographModel(head)) return {FileFormat::kTopographModel, "topograph simulation model"};
  if (!t.empty() && t[0] == '{') return SniffJsonObjects(head);
  if (!t.empty() && t[0] == '[' && Contains(head, "\"ph\"")) {
    return {FileFormat::kChromeTrace, "Chrome trace JSON (event array)"};
  }
  if (!t.empty() && t[0] == '<') {
    const std::string_view root = FirstElement(t);
    if (root == "system") return {FileFormat::kNcclTopoXml, "XML root <system>"};
    if (root == "graphs") return {FileFormat::kNcclGraphXml, "XML root <graphs>"};
    return {FileFormat::kUnknown, "XML with root <" + std::string(root) + ">, not an NCCL topology or graph"};
  }
  // A P2P CSV whose `matrix` labels are p2pBandwidthLatencyTest headings is still the CSV.
  if (auto csv = SniffCsvHeader(head); csv && csv->format == FileFormat::kP2pCsv) return *csv;
  if (Contains(head, "P2P (Peer-to-Peer) GPU Bandwidth Latency Test") ||
      (Contains(head, "P2P Connectivity Matrix") || Contains(head, "Bandwidth Matrix (GB/s)"))) {
    return {FileFormat::kP2pBandwidthLatencyTest, "p2pBandwidthLatencyTest headings"};
  }
  if (Contains(head, "nvbandwidth Version") || Contains(head, "memcpy CE ") || Contains(head, "memcpy SM ") ||
      Contains(head, "\nSUM ") || StartsWith(head, "Running ")) {
    return {FileFormat::kNvbandwidth, "nvbandwidth headings"};
  }
  if (LooksLikeDcgmDiscovery(head)) {
    return {FileFormat::kDcgmDiscovery, "dcgmi discovery table (Instance Hierarchy / GPU ID | Device Information)"};
  }
  if (StartsWith(head, "# ") && (Contains(head, "\n## ") || Contains(head, "|---"))) {
    return {FileFormat::kUnknown, "a Markdown document"};
  }
  if (HasTopoHeader(head)) return {FileFormat::kNvsmiTopo, "nvidia-smi topo header (GPU0 ...)"};
  if (LineStartsWith(head, "Long Name") && Contains(head, "Short Name") && Contains(head, "Field ID")) {
    return {FileFormat::kDcgmFieldList, "dcgmi dmon -l field table"};
  }
  // `# Entity  GRACT ...`: the header as DCGM's documentation prints it.
  if (LineStartsWith(head, "#Entity") || Contains(head, " #Entity ") || Contains(head, "# Entity  ")) {
    return {FileFormat::kDcgmDmon, "dcgmi dmon header (#Entity)"};
  }
  if (Contains(head, "Reference ID    :") || Contains(head, "Reference ID :")) {
    return {FileFormat::kChronycTracking, "chronyc tracking fields"};
  }
  if (Contains(head, "Name/IP Address") && Contains(head, "NP  NR")) {
    return {FileFormat::kChronycSourceStats, "chronyc sourcestats header"};
  }
  if (Contains(head, "MS Name/IP address") || Contains(head, "210 Number of sources")) {
    return {FileFormat::kChronycSources, "chronyc sources header"};
  }
  if (Contains(head, "ptp4l[") || Contains(head, "phc2sys[") || Contains(head, " master offset ") ||
      Contains(head, " phc offset ") || Contains(head, " sys offset ")) {
    return {FileFormat::kPtpLog, "linuxptp ptp4l/phc2sys lines"};
  }
  if (Contains(head, "# HELP ") || Contains(head, "# TYPE ") || StartsWith(head, "DCGM_FI_") ||
      Contains(head, "\nDCGM_FI_") || StartsWith(head, "nccl_") || Contains(head, "\nnccl_")) {
    if (Contains(head, "{") || Contains(head, "# TYPE ")) {
      return {FileFormat::kPrometheusText, "Prometheus exposition text"};
    }
  }
  if (auto csv = SniffCsvHeader(head)) return *csv;
  return {FileFormat::kUnknown, "no known format recognised in the first bytes"};
}

std::string_view FormatName(FileFormat f) {
  switch (f) {
    case FileFormat::kPcap: return "pcap";
    case FileFormat::kPcapng: return "pcapng";
    case FileFormat::kNcclLog: return "nccl-log";
    case FileFormat::kNcclTests: return "nccl-tests";
    case FileFormat::kNvsmiQuery: return "nvidia-smi-q";
    case FileFormat::kIbLinkInfo: return "iblinkinfo";
    case FileFormat::kPerfquery: return "perfquery";
    case FileFormat::kIbQueryErrors: return "ibqueryerrors";
    case FileFormat::kRdmaResQp: return "rdma-res-qp";
    case FileFormat::kIbstat: return "ibstat";
    case FileFormat::kIbvDevinfo: return "ibv-devinfo";
    case FileFormat::kShowGids: return "show-gids";
    case FileFormat::kInventoryCsv: return "inventory-csv";
    case FileFormat::kIbnetdiscover: return "ibnetdiscover";
    case FileFormat::kSlurmTopologyConf: return "slurm-topology-conf";
    case FileFormat::kSlurmTopologyYaml: return "slurm-topology-yaml";
    case FileFormat::kTopographModel: return "topograph-model";
    case FileFormat::kQpStateLog: return "qp-state-log";
    case FileFormat::kPathProbe: return "path-probe";
    case FileFormat::kNvsmiTopo: return "nvidia-smi-topo";
    case FileFormat::kNcclTopoXml: return "nccl-topo-xml";
    case FileFormat::kNcclGraphXml: return "nccl-graph-xml";
    case FileFormat::kP2pBandwidthLatencyTest: return "p2pBandwidthLatencyTest";
    case FileFormat::kNvbandwidth: return "nvbandwidth";
    case FileFormat::kP2pCsv: return "p2p-csv";
    case FileFormat::kDcgmDmon: return "dcgmi-dmon";
    case FileFormat::kDcgmFieldList: return "dcgmi-dmon-fields";
    case FileFormat::kDcgmDiscovery: return "dcgmi-discovery";
    case FileFormat::kPrometheusText: return "prometheus-text";
    case FileFormat::kDcgmCsv: return "dcgm-csv";
    case FileFormat::kDcgmExporterConfig: return "dcgm-exporter-config";
    case FileFormat::kChronyLog: return "chrony-log";
    case FileFormat::kChronycTracking: return "chronyc-tracking";
    case FileFormat::kChronycSources: return "chronyc-sources";
    case FileFormat::kChronycSourceStats: return "chronyc-sourcestats";
    case FileFormat::kPtpLog: return "linuxptp-log";
    case FileFormat::kSyncCsv: return "sync-csv";
    case FileFormat::kChromeTrace: return "chrome-trace";
    case FileFormat::kNcclInspector: return "nccl-inspector";
    case FileFormat::kEventJsonl: return "event-jsonl";
    case FileFormat::kTruthJson: return "toposcope-truth";
    case FileFormat::kResultJson: return "toposcope-result";
    case FileFormat::kUnknown: break;
  }
  return "unknown";
}

}  // namespace toposcope::formats
