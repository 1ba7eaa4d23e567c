// model/readers: see readers.h.
#include "toposcope/model/readers.h"

#include <cmath>
#include <optional>

#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/clock/chrony.h"
#include "toposcope/formats/clock/linuxptp.h"
#include "toposcope/formats/clock/sync_csv.h"
#include "toposcope/formats/dcgm/dcgm_discovery.h"
#include "toposcope/formats/rdma/pcap_capture.h"
#include "toposcope/model/dcgm_read.h"
#include "toposcope/model/events.h"

namespace toposcope::model {
namespace fs = std::filesystem;
using formats::FileFormat;

namespace {

// Opens the file as a stream of lines; fails when it cannot be opened.
Result<LineReader> OpenLines(const std::string& path) {
  auto stream = OpenInput(path);
  if (!stream.ok()) return stream.error();
  return LineReader(std::move(*stream));
}

Status ReadNvsmiTopo(FileRead& f) {
  auto r = formats::ParseNvsmiTopo(f.text, f.path, f.ds.diag, f.counts);
  if (!r.ok()) return r.error();
  AddNvsmiTopo(f.ds, f.host, f.path, *r);
  return {};
}

Status ReadNcclTopo(FileRead& f) {
  auto r = formats::ParseNcclTopoXml(f.text, f.path, f.ds.diag, f.counts);
  if (!r.ok()) return r.error();
  AddNcclTopo(f.ds, f.host, f.path, *r);
  return {};
}

// The channels are used by the ring analyses; nothing to fold yet.
Status ReadNcclGraph(FileRead& f) {
  auto r = formats::ParseNcclGraphXml(f.text, f.path, f.ds.diag, f.counts);
  if (!r.ok()) return r.error();
  return {};
}

// p2pBandwidthLatencyTest, nvbandwidth (whose hostname line names the host unless overridden), CSV.
Status ReadP2p(FileRead& f) {
  auto r = f.format == FileFormat::kNvbandwidth ? formats::ParseNvbandwidth(f.text, f.path, f.ds.diag, f.counts)
           : f.format == FileFormat::kP2pCsv
               ? formats::ParseP2pCsv(f.text, f.path, f.ds.diag, f.counts)
               : formats::ParseP2pBandwidthLatencyTest(f.text, f.path, f.ds.diag, f.counts);
  if (!r.ok()) return r.error();
  if (f.opt.host_override.empty() && !r->hostname.empty()) f.host = r->hostname;
  AddP2pReport(f.ds, f.host, f.path, *r);
  return {};
}

Status ReadChrony(FileRead& f) {
  auto lines = OpenLines(f.path);
  if (!lines.ok()) return lines.error();
  formats::ChronyLogSinks sinks;
  auto& points = f.ds.Host(f.host).sync_points;
  sinks.sync = [&](const formats::SyncPoint& p) { points.push_back(p); };
  auto r = formats::ReadChronyLog(*lines, f.path, f.host, formats::ChronyLogKind::kUnknown, sinks, f.ds.diag, f.counts);
  RejectOversizedLines(*lines, f.ds.diag, f.counts);
  if (!r.ok()) return r.error();
  return {};
}

// `chronyc tracking` reports: one sync point per reference update (a report polled again before
// chronyd's next update repeats the last one and adds nothing).
Status ReadChronycTrackingOutput(FileRead& f) {
  auto reports = formats::ParseChronycTrackingReports(f.text, f.path, f.ds.diag, f.counts);
  if (!reports.ok()) return reports.error();
  auto& points = f.ds.Host(f.host).sync_points;
  int64_t last_ref_ns = kNoTime;
  for (const auto& r : *reports) {
    std::optional<formats::SyncPoint> p = formats::ToSyncPoint(r, f.host);
    if (!p || p->ref_ns == last_ref_ns) continue;
    last_ref_ns = p->ref_ns;
    points.push_back(std::move(*p));
  }
  return {};
}

// linuxptp logs and sync CSVs: sync points of the file's host (a sync CSV names its hosts per row).
Status ReadClockSamples(FileRead& f) {
  auto lines = OpenLines(f.path);
  if (!lines.ok()) return lines.error();
  const bool csv = f.format == FileFormat::kSyncCsv;
  auto sink = [&](const formats::SyncPoint& p) {
    formats::SyncPoint q = p;
    if (!csv || q.host.empty()) q.host = f.host;
    f.ds.Host(q.host).sync_points.push_back(std::move(q));
  };
  if (csv) {
    const Status st = formats::ReadSyncCsv(*lines, f.path, sink, f.ds.diag, f.counts);
    RejectOversizedLines(*lines, f.ds.diag, f.counts);
    return st;
  }
  // A journal prefix with an ISO time puts the sample on the host's realtime axis (the one its
  // traces use); otherwise the point stays on the monotonic axis of the `[sec.ms]` stamp.
  formats::PtpSinks sinks;
  sinks.record = [&](const formats::PtpRecord& rec) {
    std::optional<formats::SyncPoint> p = formats::ToSyncPoint(rec, f.host);
    if (!p) return;
    if (auto wall = ParseIsoTimeNs(rec.syslog_time)) {
      p->local_ns = *wall;
      if (p->ref_ns != kNoTime) p->ref_ns = *wall - static_cast<int64_t>(std::llround(p->offset_ns));
    }
    sink(*p);
  };
  const Status st = formats::ReadPtpLog(*lines, f.path, f.host, sinks, f.ds.diag, f.counts);
  RejectOversizedLines(*lines, f.ds.diag, f.counts);
  return st;
}

// DCGM samples: into the store, and an event input of the timeline too (counters) unless the file was
// refused before any record was accepted (then it gives the timeline nothing). Without --at (and a
// list to put it on), samples that carry no time wait: the file is listed in f.untimed_dcgm and its
// untimed samples are placed once every input is read.
Status ReadDcgm(FileRead& f) {
  UntimedPlacement place;
  place.origin_ns = f.opt.untimed_at_ns;
  int64_t untimed = 0;
  const bool defer = f.opt.untimed_at_ns == kNoTime && f.untimed_dcgm != nullptr;
  if (defer) {
    place.emit = UntimedSamples::kSkip;
    place.untimed = &untimed;
  }
  place.mig_rows = f.dmon_mig;
  DcgmAdder add(f.ds.dcgm);
  const Status st = ReadDcgmFile(
      f.path, f.host, f.format, [&add](const DcgmPoint& p) { add.Add(p); }, f.ds.diag, f.counts, place);
  if (st.ok() || f.counts.accepted > 0) {
    f.ds.event_inputs.push_back({f.path, f.host, f.format, f.opt.untimed_at_ns});
    if (defer && untimed > 0) f.untimed_dcgm->push_back({f.path, f.host, f.format, f.ds.event_inputs.size() - 1});
  }
  return st;
}

// Traces, NCCL Inspector records and JSONL events: read once here to count their records, report
// their diagnostics and keep the events that may be clock anchors; streamed again by the timeline
// merge (unless refused before any record was accepted).
Status NoteEvents(FileRead& f) {
  EventInput input{f.path, f.host, f.format};
  EventInputCounts counts;
  const Status st = StreamEvents(
      input,
      [&input](formats::TraceEvent&& e) {
        if (auto c = AnchorCandidateOf(std::move(e))) input.anchor_candidates.push_back(std::move(*c));
      },
      f.ds.diag, &counts);
  f.counts = counts.counts;
  input.events_streamed = counts.events;
  if (st.ok() || f.counts.accepted > 0) f.ds.event_inputs.push_back(std::move(input));
  return st;
}

// Captures: read later, streaming, by the traffic analyses (records are counted then). One whose
// file header libpcap refuses (or that cannot be opened) is refused here: a skipped input with
// libpcap's reason and no records, rather than a whole-file rejection in the traffic pass.
Status NoteCapture(FileRead& f) {
  if (Status st = formats::ProbeCapture(f.path); !st.ok()) return st;
  CaptureInput c;
  c.path = f.path;
  c.host = f.opt.host_override.empty() && f.host == StemOf(f.file) ? std::string() : f.host;
  c.point = StemOf(f.file);
  c.index = static_cast<int>(f.ds.captures.size());
  f.ds.captures.push_back(std::move(c));
  return {};
}

// A result kept whole (`t`): its counts are the file's and it goes to the dataset's `list`.
template <class T>
Status AppendToDataset(FileRead& f, Result<T> t, std::vector<T> Dataset::*list) {
  if (!t.ok()) return t.error();
  f.counts = t->counts;
  (f.ds.*list).push_back(std::move(*t));
  return {};
}

Status ReadNcclLog(FileRead& f) {
  auto lines = OpenLines(f.path);
  if (!lines.ok()) return lines.error();
  const Status st = AppendToDataset(f, formats::ReadNcclLog(*lines, f.path, f.ds.diag), &Dataset::nccl_logs);
  if (st.ok() && RejectOversizedLines(*lines, f.ds.diag, f.counts) > 0) f.ds.nccl_logs.back().counts = f.counts;
  return st;
}

// nccl-tests output: its runs, and the NCCL log lines among them when the tests ran with
// NCCL_DEBUG=INFO (rings, connections, QPs: as from a log), both from one pass over the file. A
// line is one reader's or the other's (NCCL log lines are never read as table rows), so they reject
// disjoint lines and the file's rejects are their sum.
Status ReadNcclTestsOutput(FileRead& f) {
  auto lines = OpenLines(f.path);
  if (!lines.ok()) return lines.error();
  Diagnostics log_diag;
  formats::NcclLogLineParser log_lines(f.path, log_diag);
  auto report = formats::ReadNcclTests(*lines, f.path, f.ds.diag,
                                       [&](std::string_view line, int64_t no) { return log_lines.Feed(line, no); });
  if (!report.ok()) return report.error();
  f.counts = report->counts;
  RejectOversizedLines(*lines, f.ds.diag, f.counts);
  f.ds.nccl_tests.push_back(std::move(*report));
  auto log = log_lines.Finish();
  if (!log.ok() || log->nccl_lines == 0) return {};
  f.ds.diag.Absorb(log_diag.items(), log_diag.rejected_total(), log_diag.warnings_total(),
                   log_diag.rejected_per_source());
  f.counts.accepted -= log->counts.rejected;
  f.counts.rejected += log->counts.rejected;
  f.ds.nccl_logs.push_back(std::move(*log));
  return {};
}

// A table read whole (`t`): its counts are the file's and its records (`items`) go to the host's
// `list`.
template <class Table, class Item>
Status AppendToHost(FileRead& f, Result<Table> t, std::vector<Item> Table::*items,
                    std::vector<Item> HostEvidence::*list) {
  if (!t.ok()) return t.error();
  f.counts = t->counts;
  std::vector<Item>& to = f.ds.Host(f.host).*list;
  for (auto& x : (*t).*items) to.push_back(std::move(x));
  return {};
}

Status ReadRdmaQps(FileRead& f) {
  return AppendToHost(f, formats::ParseRdmaResQp(f.text, f.path, f.ds.diag), &formats::RdmaQpTable::qps,
                      &HostEvidence::rdma_qps);
}

// The host a shell prompt in the file names (`root@node7:~# show_gids`) attributes the file unless
// the host is overridden, as nvbandwidth's hostname line does; `localhost` names no host.
void TakePromptHost(FileRead& f, const std::string& prompt_host) {
  if (f.opt.host_override.empty() && !prompt_host.empty() && prompt_host != "localhost") f.host = prompt_host;
}

// ibstat or ibv_devinfo.
Status ReadIbDevices(FileRead& f) {
  auto t = f.format == FileFormat::kIbstat ? formats::ParseIbstat(f.text, f.path, f.ds.diag)
                                           : formats::ParseIbvDevinfo(f.text, f.path, f.ds.diag);
  if (t.ok()) TakePromptHost(f, t->prompt_host);
  return AppendToHost(f, std::move(t), &formats::IbDeviceList::devices, &HostEvidence::ib_devices);
}

// `dcgmi dmon -l`: which fields this host's DCGM offers.
Status ReadDcgmFieldList(FileRead& f) {
  auto t = formats::ParseDmonFieldList(f.text, f.path, f.ds.diag, f.counts);
  if (!t.ok()) return t.error();
  auto& to = f.ds.Host(f.host).dcgm_offered;
  for (auto& e : *t) to.push_back(std::move(e));
  return {};
}

// `dcgmi discovery -c` / `-l`: the host's MIG instances with their GPUs (the loader links its dmon
// rows of MIG instances through them) and the GPUs its DCGM sees.
Status ReadDcgmDiscovery(FileRead& f) {
  auto t = formats::ParseDcgmDiscovery(f.text, f.path, f.ds.diag);
  if (!t.ok()) return t.error();
  f.counts = t->counts;
  HostEvidence& h = f.ds.Host(f.host);
  for (auto& m : t->instances) h.mig_instances.push_back(std::move(m));
  for (auto& g : t->gpus) h.dcgm_gpus.push_back(std::move(g));
  return {};
}

Status ReadGids(FileRead& f) {
  auto t = formats::ParseShowGids(f.text, f.path, f.ds.diag);
  if (t.ok()) TakePromptHost(f, t->prompt_host);
  return AppendToHost(f, std::move(t), &formats::GidTable::gids, &HostEvidence::gids);
}

// `nvidia-smi -q`: the host's GPUs, their models and temperature limits.
Status ReadNvsmiQuery(FileRead& f) {
  auto q = formats::ParseNvsmiQuery(f.text, f.path, f.ds.diag);
  if (!q.ok()) return q.error();
  f.counts = q->counts;
  AddNvsmiQuery(f.ds, f.host, f.path, *q);
  return {};
}

// iblinkinfo: a second source of the fabric's graph (port states, widths and speeds too).
Status ReadIbLinkInfo(FileRead& f) {
  return AppendToDataset(f, formats::ParseIbLinkInfo(f.text, f.path, f.ds.diag), &Dataset::link_infos);
}

// perfquery: port counter snapshots (mapped to nodes by the fabric dump's LIDs in the analysis).
Status ReadPerfquery(FileRead& f) {
  return AppendToDataset(f, formats::ParsePerfquery(f.text, f.path, f.ds.diag), &Dataset::port_counters);
}

// ibqueryerrors: error counters above thresholds, into the same records as perfquery's.
Status ReadIbQueryErrors(FileRead& f) {
  return AppendToDataset(f, formats::ParseIbQueryErrors(f.text, f.path, f.ds.diag), &Dataset::port_counters);
}

Status ReadFabric(FileRead& f) {
  return AppendToDataset(f, formats::ParseIbnetdiscover(f.text, f.path, f.ds.diag), &Dataset::fabrics);
}

// topology.conf or topology.yaml: the counts of the whole file (a yaml's rejected topology items too).
Status ReadSlurm(FileRead& f) {
  ReadCounts yaml;
  const bool conf = f.format == FileFormat::kSlurmTopologyConf;
  auto t = conf ? formats::ParseSlurmTopologyConf(f.text, f.path, f.ds.diag)
                : formats::ParseSlurmTopologyYaml(f.text, f.path, f.ds.diag, &yaml);
  if (!t.ok()) return t.error();
  if (!conf) f.counts = yaml;
  for (auto& topo : *t) {
    if (conf) {
      f.counts.read += topo.counts.read;
      f.counts.accepted += topo.counts.accepted;
      f.counts.rejected += topo.counts.rejected;
    }
    f.ds.slurm_topologies.push_back(std::move(topo));
  }
  return {};
}

Status ReadTopograph(FileRead& f) {
  return AppendToDataset(f, formats::ParseTopographModel(f.text, f.path, f.ds.diag), &Dataset::topograph_models);
}

// QP state logs: read later, streaming, by the QP pattern pass (records are counted then).
Status NoteQpStates(FileRead& f) {
  f.ds.qp_state_inputs.push_back({f.path, f.host, f.format});
  return {};
}

// traceroute / ibtracert do not print their source: the file's host is it.
Status ReadProbes(FileRead& f) {
  auto lines = OpenLines(f.path);
  if (!lines.ok()) return lines.error();
  auto t = formats::ReadPathProbes(
      *lines, f.path, f.ds.diag, [&](const formats::PathProbe& p) { f.ds.path_probes.push_back(p); }, f.host);
  if (!t.ok()) return t.error();
  f.counts = t->counts;
  RejectOversizedLines(*lines, f.ds.diag, f.counts);
  return {};
}

Status ReadInventory(FileRead& f) {
  auto t = formats::ParseInventoryCsv(f.text, f.path, f.ds.diag);
  if (!t.ok()) return t.error();
  f.counts = t->counts;
  for (auto& r : t->rows) f.ds.inventory.rows.push_back(std::move(r));
  f.ds.inventory.counts.read += t->counts.read;
  f.ds.inventory.counts.accepted += t->counts.accepted;
  f.ds.inventory.counts.rejected += t->counts.rejected;
  return {};
}

constexpr ReadMode kWhole = ReadMode::kWhole;
constexpr ReadMode kStreamed = ReadMode::kStreamed;

// clang-format off
constexpr FormatReader kReaders[] = {
    {FileFormat::kNvsmiTopo,               kWhole,    ReadNvsmiTopo},
    {FileFormat::kNcclTopoXml,             kWhole,    ReadNcclTopo},
    {FileFormat::kNcclGraphXml,            kWhole,    ReadNcclGraph},
    {FileFormat::kP2pBandwidthLatencyTest, kWhole,    ReadP2p},
    {FileFormat::kNvbandwidth,             kWhole,    ReadP2p},
    {FileFormat::kP2pCsv,                  kWhole,    ReadP2p},
    {FileFormat::kChronyLog,               kStreamed, ReadChrony},
    {FileFormat::kChronycTracking,         kWhole,    ReadChronycTrackingOutput},
    {FileFormat::kPtpLog,                  kStreamed, ReadClockSamples},
    {FileFormat::kSyncCsv,                 kStreamed, ReadClockSamples},
    {FileFormat::kDcgmDmon,                kStreamed, ReadDcgm},
    {FileFormat::kPrometheusText,          kStreamed, ReadDcgm},
    {FileFormat::kDcgmCsv,                 kStreamed, ReadDcgm},
    {FileFormat::kDcgmFieldList,           kWhole,    ReadDcgmFieldList},
    {FileFormat::kDcgmDiscovery,           kWhole,    ReadDcgmDiscovery},
    {FileFormat::kChromeTrace,             kStreamed, NoteEvents},
    {FileFormat::kNcclInspector,           kStreamed, NoteEvents},
    {FileFormat::kEventJsonl,              kStreamed, NoteEvents},
    {FileFormat::kPcap,                    kStreamed, NoteCapture},
    {FileFormat::kPcapng,                  kStreamed, NoteCapture},
    {FileFormat::kNcclLog,                 kStreamed, ReadNcclLog},
    {FileFormat::kNcclTests,               kStreamed, ReadNcclTestsOutput},
    {FileFormat::kRdmaResQp,               kWhole,    ReadRdmaQps},
    {FileFormat::kIbstat,                  kWhole,    ReadIbDevices},
    {FileFormat::kIbvDevinfo,              kWhole,    ReadIbDevices},
    {FileFormat::kShowGids,                kWhole,    ReadGids},
    {FileFormat::kIbnetdiscover,           kWhole,    ReadFabric},
    {FileFormat::kSlurmTopologyConf,       kWhole,    ReadSlurm},
    {FileFormat::kSlurmTopologyYaml,       kWhole,    ReadSlurm},
    {FileFormat::kTopographModel,          kWhole,    ReadTopograph},
    {FileFormat::kQpStateLog,              kStreamed, NoteQpStates},
    {FileFormat::kPathProbe,               kStreamed, ReadProbes},
    {FileFormat::kInventoryCsv,            kWhole,    ReadInventory},
    {FileFormat::kNvsmiQuery,              kWhole,    ReadNvsmiQuery},
    {FileFormat::kIbLinkInfo,              kWhole,    ReadIbLinkInfo},
    {FileFormat::kPerfquery,               kWhole,    ReadPerfquery},
    {FileFormat::kIbQueryErrors,           kWhole,    ReadIbQueryErrors},
};
// clang-format on

}  // namespace

const FormatReader* FindReader(FileFormat format) {
  for (const FormatReader& r : kReaders) {
    if (r.format == format) return &r;
  }
  return nullptr;
}

std::string StemOf(const fs::path& p) {
  std::string name = p.filename().string();
  for (const char* ext : {".gz", ".zst"}) {
    if (EndsWith(name, ext)) name.resize(name.size() - std::string_view(ext).size());
  }
  for (const char* ext : {".txt", ".log", ".xml", ".csv", ".json", ".out", ".topofile", ".prom", ".pcap", ".pcapng"}) {
    if (EndsWith(name, ext) && name.size() > std::string_view(ext).size()) {
      name.resize(name.size() - std::string_view(ext).size());
      break;
    }
  }
  return name;
}

}  // namespace toposcope::model
