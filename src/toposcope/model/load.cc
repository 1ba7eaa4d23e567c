#include <algorithm>
#include <cmath>
#include <optional>
#include <filesystem>

#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/clock/chrony.h"
#include "toposcope/formats/clock/linuxptp.h"
#include "toposcope/formats/clock/sync_csv.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/dcgm_read.h"

namespace toposcope::model {
namespace fs = std::filesystem;

namespace {

// The file name without compression and one format extension: "node1.topo.txt.gz" -> "node1.topo".
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

void LoadFile(Dataset& ds, const fs::path& file, const std::string& default_host, const LoadOptions& opt) {
  InputFile in;
  in.path = file.string();
  auto head = ReadHead(in.path);
  if (!head.ok()) {
    in.skipped = true;
    in.skip_reason = head.error().ToString();
    ds.inputs.push_back(std::move(in));
    return;
  }
  const formats::SniffResult sniff = formats::SniffFormat(*head);
  in.format = std::string(formats::FormatName(sniff.format));
  using formats::FileFormat;
  if (sniff.format == FileFormat::kUnknown || sniff.format == FileFormat::kTruthJson ||
      sniff.format == FileFormat::kResultJson) {
    in.skipped = true;
    in.skip_reason = sniff.reason;
    ds.inputs.push_back(std::move(in));
    return;
  }
  // Line-oriented and streamed inputs are read by their own readers below; the node-level formats are
  // small and read whole.
  const bool whole = sniff.format == FileFormat::kNvsmiTopo || sniff.format == FileFormat::kNcclTopoXml ||
                     sniff.format == FileFormat::kNcclGraphXml || sniff.format == FileFormat::kP2pBandwidthLatencyTest ||
                     sniff.format == FileFormat::kNvbandwidth || sniff.format == FileFormat::kP2pCsv ||
                     sniff.format == FileFormat::kRdmaResQp || sniff.format == FileFormat::kIbstat ||
                     sniff.format == FileFormat::kIbvDevinfo || sniff.format == FileFormat::kShowGids ||
                     sniff.format == FileFormat::kInventoryCsv || sniff.format == FileFormat::kIbnetdiscover ||
                     sniff.format == FileFormat::kSlurmTopologyConf || sniff.format == FileFormat::kSlurmTopologyYaml ||
                     sniff.format == FileFormat::kTopographModel;
  auto text = whole ? ReadFileText(in.path) : Result<std::string>(std::string());
  if (!text.ok()) {
    in.skipped = true;
    in.skip_reason = text.error().ToString();
    ds.inputs.push_back(std::move(in));
    return;
  }
  std::string host = opt.host_override.empty() ? default_host : opt.host_override;
  ReadCounts counts;
  std::string error;
  switch (sniff.format) {
    case FileFormat::kNvsmiTopo: {
      auto r = formats::ParseNvsmiTopo(*text, in.path, ds.diag, counts);
      if (r.ok()) AddNvsmiTopo(ds, host, in.path, *r); else error = r.error().ToString();
      break;
    }
    case FileFormat::kNcclTopoXml: {
      auto r = formats::ParseNcclTopoXml(*text, in.path, ds.diag, counts);
      if (r.ok()) AddNcclTopo(ds, host, in.path, *r); else error = r.error().ToString();
      break;
    }
    case FileFormat::kNcclGraphXml: {
      auto r = formats::ParseNcclGraphXml(*text, in.path, ds.diag, counts);
      if (!r.ok()) error = r.error().ToString();
      break;  // channels are used by the ring analyses; nothing to fold yet
    }
    case FileFormat::kP2pBandwidthLatencyTest:
    case FileFormat::kNvbandwidth:
    case FileFormat::kP2pCsv: {
      auto r = sniff.format == FileFormat::kNvbandwidth ? formats::ParseNvbandwidth(*text, in.path, ds.diag, counts)
               : sniff.format == FileFormat::kP2pCsv    ? formats::ParseP2pCsv(*text, in.path, ds.diag, counts)
                                                        : formats::ParseP2pBandwidthLatencyTest(*text, in.path, ds.diag, counts);
      if (r.ok()) {
        if (opt.host_override.empty() && !r->hostname.empty()) host = r->hostname;
        AddP2pReport(ds, host, in.path, *r);
      } else {
        error = r.error().ToString();
      }
      break;
    }
    case FileFormat::kChronyLog: {
      auto in_stream = OpenInput(in.path);
      if (!in_stream.ok()) {
        error = in_stream.error().ToString();
        break;
      }
      LineReader lines(std::move(*in_stream));
      formats::ChronyLogSinks sinks;
      auto& points = ds.Host(host).sync_points;
      sinks.sync = [&](const formats::SyncPoint& p) { points.push_back(p); };
      auto r = formats::ReadChronyLog(lines, in.path, host, formats::ChronyLogKind::kUnknown, sinks, ds.diag, counts);
      if (!r.ok()) error = r.error().ToString();
      break;
    }
    case FileFormat::kPtpLog:
    case FileFormat::kSyncCsv: {
      auto in_stream = OpenInput(in.path);
      if (!in_stream.ok()) {
        error = in_stream.error().ToString();
        break;
      }
      LineReader lines(std::move(*in_stream));
      const bool csv = sniff.format == FileFormat::kSyncCsv;
      // A sync CSV names its hosts per row; a log belongs to the file's host.
      auto sink = [&](const formats::SyncPoint& p) {
        formats::SyncPoint q = p;
        if (!csv || q.host.empty()) q.host = host;
        ds.Host(q.host).sync_points.push_back(std::move(q));
      };
      Status st;
      if (csv) {
        st = formats::ReadSyncCsv(lines, in.path, sink, ds.diag, counts);
      } else {
        // A journal prefix with an ISO time puts the sample on the host's realtime axis (the one its
        // traces use); otherwise the point stays on the monotonic axis of the `[sec.ms]` stamp.
        formats::PtpSinks sinks;
        sinks.record = [&](const formats::PtpRecord& rec) {
          std::optional<formats::SyncPoint> p = formats::ToSyncPoint(rec, host);
          if (!p) return;
          if (auto wall = ParseIsoTimeNs(rec.syslog_time)) {
            p->local_ns = *wall;
            p->ref_ns = *wall - static_cast<int64_t>(std::llround(p->offset_ns));
          }
          sink(*p);
        };
        st = formats::ReadPtpLog(lines, in.path, host, sinks, ds.diag, counts);
      }
      if (!st.ok()) error = st.error().ToString();
      break;
    }
    case FileFormat::kDcgmDmon:
    case FileFormat::kPrometheusText:
    case FileFormat::kDcgmCsv: {
      const Status st = ReadDcgmFile(in.path, host, sniff.format, [&](const DcgmPoint& p) { ds.dcgm.Add(p); },
                                     ds.diag, counts);
      if (!st.ok()) error = st.error().ToString();
      // DCGM samples are events of the timeline too (counters).
      ds.event_inputs.push_back({in.path, host, sniff.format});
      break;
    }
    case FileFormat::kChromeTrace:
    case FileFormat::kNcclInspector:
    case FileFormat::kEventJsonl:
      // Read later, streaming, by the timeline merge.
      ds.event_inputs.push_back({in.path, host, sniff.format});
      break;
    case FileFormat::kPcap:
    case FileFormat::kPcapng: {
      // Read later, streaming, by the traffic analyses (records are counted then).
      CaptureInput c;
      c.path = in.path;
      c.host = opt.host_override.empty() && host == StemOf(file) ? std::string() : host;
      c.point = StemOf(file);
      c.index = static_cast<int>(ds.captures.size());
      ds.captures.push_back(std::move(c));
      break;
    }
    case FileFormat::kNcclLog: {
      auto stream = OpenInput(in.path);
      if (!stream.ok()) {
        error = stream.error().ToString();
        break;
      }
      LineReader lines(std::move(*stream));
      auto log = formats::ReadNcclLog(lines, in.path, ds.diag);
      if (!log.ok()) {
        error = log.error().ToString();
        break;
      }
      counts = log->counts;
      ds.nccl_logs.push_back(std::move(*log));
      break;
    }
    case FileFormat::kRdmaResQp: {
      auto t = formats::ParseRdmaResQp(*text, in.path, ds.diag);
      if (!t.ok()) {
        error = t.error().ToString();
        break;
      }
      counts = t->counts;
      for (auto& q : t->qps) ds.Host(host).rdma_qps.push_back(std::move(q));
      break;
    }
    case FileFormat::kIbstat:
    case FileFormat::kIbvDevinfo: {
      auto t = sniff.format == FileFormat::kIbstat ? formats::ParseIbstat(*text, in.path, ds.diag)
                                                   : formats::ParseIbvDevinfo(*text, in.path, ds.diag);
      if (!t.ok()) {
        error = t.error().ToString();
        break;
      }
      counts = t->counts;
      for (auto& d : t->devices) ds.Host(host).ib_devices.push_back(std::move(d));
      break;
    }
    case FileFormat::kShowGids: {
      auto t = formats::ParseShowGids(*text, in.path, ds.diag);
      if (!t.ok()) {
        error = t.error().ToString();
        break;
      }
      counts = t->counts;
      for (auto& g : t->gids) ds.Host(host).gids.push_back(std::move(g));
      break;
    }
    case FileFormat::kIbnetdiscover: {
      auto t = formats::ParseIbnetdiscover(*text, in.path, ds.diag);
      if (!t.ok()) {
        error = t.error().ToString();
        break;
      }
      counts = t->counts;
      ds.fabrics.push_back(std::move(*t));
      break;
    }
    case FileFormat::kSlurmTopologyConf:
    case FileFormat::kSlurmTopologyYaml: {
      auto t = sniff.format == FileFormat::kSlurmTopologyConf ? formats::ParseSlurmTopologyConf(*text, in.path, ds.diag)
                                                              : formats::ParseSlurmTopologyYaml(*text, in.path, ds.diag);
      if (!t.ok()) {
        error = t.error().ToString();
        break;
      }
      for (auto& topo : *t) {
        counts.read += topo.counts.read;
        counts.accepted += topo.counts.accepted;
        counts.rejected += topo.counts.rejected;
        ds.slurm_topologies.push_back(std::move(topo));
      }
      break;
    }
    case FileFormat::kTopographModel: {
      auto t = formats::ParseTopographModel(*text, in.path, ds.diag);
      if (!t.ok()) {
        error = t.error().ToString();
        break;
      }
      counts = t->counts;
      ds.topograph_models.push_back(std::move(*t));
      break;
    }
    case FileFormat::kQpStateLog:
      // Read later, streaming, by the QP pattern pass (records are counted then).
      ds.qp_state_inputs.push_back({in.path, host, sniff.format});
      break;
    case FileFormat::kPathProbe: {
      auto stream = OpenInput(in.path);
      if (!stream.ok()) {
        error = stream.error().ToString();
        break;
      }
      LineReader lines(std::move(*stream));
      // traceroute / ibtracert do not print their source: the file's host is it.
      auto t = formats::ReadPathProbes(lines, in.path, ds.diag,
                                       [&](const formats::PathProbe& p) { ds.path_probes.push_back(p); }, host);
      if (!t.ok()) {
        error = t.error().ToString();
        break;
      }
      counts = t->counts;
      break;
    }
    case FileFormat::kInventoryCsv: {
      auto t = formats::ParseInventoryCsv(*text, in.path, ds.diag);
      if (!t.ok()) {
        error = t.error().ToString();
        break;
      }
      counts = t->counts;
      for (auto& r : t->rows) ds.inventory.rows.push_back(std::move(r));
      ds.inventory.counts.read += t->counts.read;
      ds.inventory.counts.accepted += t->counts.accepted;
      ds.inventory.counts.rejected += t->counts.rejected;
      break;
    }
    default:
      in.skipped = true;
      in.skip_reason = "recognised as " + in.format + ", which `analyze` does not use yet";
      break;
  }
  in.records = counts.read;
  in.rejected = counts.rejected;
  if (!error.empty()) {
    in.skipped = true;
    in.skip_reason = error;
  } else {
    in.host = host;
  }
  ds.inputs.push_back(std::move(in));
}

}  // namespace

Result<Dataset> LoadPaths(const std::vector<std::string>& paths, const LoadOptions& opt) {
  Dataset ds;
  for (const auto& p : paths) {
    std::error_code ec;
    const fs::path root(p);
    if (!fs::exists(root, ec)) {
      return MakeError(p, 0, 0, "no such file or directory");
    }
    if (!fs::is_directory(root, ec)) {
      LoadFile(ds, root, StemOf(root), opt);
      continue;
    }
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec)) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      const fs::path rel = fs::relative(f, root, ec);
      std::string host;
      if (!ec && std::distance(rel.begin(), rel.end()) > 1) {
        host = rel.begin()->string();
      } else {
        host = StemOf(f);
      }
      LoadFile(ds, f, host, opt);
    }
  }
  return ds;
}

}  // namespace toposcope::model
