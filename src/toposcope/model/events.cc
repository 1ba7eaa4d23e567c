#include "toposcope/model/events.h"

#include <algorithm>

#include "toposcope/base/file_io.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/trace/chrome_trace.h"
#include "toposcope/formats/trace/event_jsonl.h"
#include "toposcope/formats/nccl/nccl_inspector.h"
#include "toposcope/model/dcgm_read.h"

namespace toposcope::model {

namespace {

// The timeline track of a DCGM sample: "gpu3", "gpu3-mig1" (a MIG instance of GPU 3), "gpu3-mig1-ci0"
// (a compute instance of it), "gpu_instance1" (one whose GPU the source does not name), "switch2",
// "cpu0", "cpu_core5", "nic0"; "dcgm" without an id.
std::string DcgmDevice(const DcgmPoint& p) {
  if (p.entity == DcgmEntity::kGpu) return p.gpu >= 0 ? "gpu" + std::to_string(p.gpu) : "dcgm";
  if (p.instance >= 0 && p.gpu >= 0) {
    std::string name = "gpu" + std::to_string(p.gpu) + "-mig" + std::to_string(p.instance);
    return p.compute_instance >= 0 ? name + "-ci" + std::to_string(p.compute_instance) : name;
  }
  const int id = p.instance >= 0 ? p.instance : p.gpu;
  const std::string name(DcgmEntityName(p.entity));
  return id >= 0 ? name + std::to_string(id) : "dcgm";
}

// The group key of an event, or "" when it is not an anchor. `ordinal_family` is set when the key
// depends on the per-rank ordinal (no explicit sequence number).
std::string AnchorKey(const formats::TraceEvent& e, std::string* ordinal_family) {
  ordinal_family->clear();
  if (const std::string a = formats::ContextValue(e.context, "anchor"); !a.empty()) return "a|" + a;
  if (e.phase != 'X') return {};
  if (e.category == "coll_perf") {
    const std::string comm = formats::ContextValue(e.context, "comm");
    const std::string seq = formats::ContextValue(e.context, "seq");
    // Without an event trace the record is stamped when it was dumped, not when it ended.
    if (comm.empty() || seq.empty() || formats::ContextValue(e.context, "timing") == "dump") return {};
    return "i|" + e.type + "|" + comm + "|" + seq;
  }
  if (e.category != "kernel") return {};
  const formats::CollectiveInfo ci = formats::ParseNcclKernelName(e.type);
  if (!ci.is_nccl || ci.collective.empty() || ci.collective == "SendRecv" || ci.collective == "Send" ||
      ci.collective == "Recv") {
    return {};
  }
  const std::string pg = formats::ContextValue(e.context, "pg");
  const std::string seq = formats::ContextValue(e.context, "seq");
  if (!seq.empty()) return "k|" + ci.collective + "|" + pg + "|" + seq;
  *ordinal_family = ci.collective + "|" + pg;
  return "o|" + *ordinal_family;
}

}  // namespace

std::optional<AnchorCandidate> AnchorCandidateOf(formats::TraceEvent&& e) {
  if (e.host.empty() || e.local_ts_ns == kNoTime) return std::nullopt;
  std::string family;
  std::string key = AnchorKey(e, &family);
  if (key.empty()) return std::nullopt;
  AnchorCandidate c;
  c.key = std::move(key);
  if (!family.empty()) {
    c.who = e.rank >= 0 ? "r" + std::to_string(e.rank) : e.host + "/" + e.device;
    c.family = std::move(family);
  }
  c.host = std::move(e.host);
  c.end_ns = e.local_ts_ns + std::max<int64_t>(0, e.dur_ns);
  return c;
}

Status StreamEvents(const EventInput& input, const formats::TraceEventSink& sink, Diagnostics& diag,
                    EventInputCounts* counts) {
  auto stamp = [&](formats::TraceEvent&& e) {
    if (e.host.empty()) e.host = input.host;
    ++counts->events;
    if (sink) sink(std::move(e));
  };
  switch (input.format) {
    case formats::FileFormat::kChromeTrace: {
      // Both reader passes, for the loader and for each pass that reads the events again: an
      // event's rank, time and device take the trace's distributedInfo.rank, baseTimeNanoseconds
      // and process_labels, which may come after it (the metadata pass costs one lexing of a
      // long pg_config rank list; the events pass skips those bytes).
      formats::ChromeTraceOptions opt;
      opt.host = input.host;
      auto r = formats::ReadChromeTraceFile(input.path, opt, stamp, diag, counts->counts);
      if (!r.ok()) return r.error();
      return {};
    }
    case formats::FileFormat::kNcclInspector:
      return formats::ReadNcclInspectorFile(input.path, nullptr, stamp, diag, counts->counts);
    case formats::FileFormat::kEventJsonl:
      return formats::ReadEventJsonlFile(input.path, stamp, diag, counts->counts);
    case formats::FileFormat::kDcgmDmon:
    case formats::FileFormat::kPrometheusText:
    case formats::FileFormat::kDcgmCsv: {
      // Each sample becomes a counter event on its GPU's track.
      return ReadDcgmFile(
          input.path, input.host, input.format,
          [&](const DcgmPoint& sample) {
            DcgmPoint p = sample;
            LinkMigPoint(input.mig_instances, &p);  // a dmon MIG instance onto its GPU's track
            formats::TraceEvent e;
            e.local_ts_ns = p.ts_ns;
            e.host = p.host;
            e.device = DcgmDevice(p);
            e.type = p.link >= 0 ? p.field + "/link" + std::to_string(p.link) : p.field;
            e.category = "dcgm";
            e.phase = 'C';
            e.value = p.value;
            e.context = e.type;
            e.source_file = input.path;
            stamp(std::move(e));
          },
          diag, counts->counts, input.untimed_at_ns);
    }
    default:
      break;
  }
  return MakeError(input.path, 0, 0, "not an event input");
}

std::function<Status(const formats::TraceEventSink&)> MakeEventSource(const EventInput& input, Diagnostics* diag,
                                                                        EventInputCounts* counts) {
  (void)diag;  // the loader reported this input's diagnostics once
  return [input, counts](const formats::TraceEventSink& sink) -> Status {
    Diagnostics again;
    (void)StreamEvents(input, sink, again, counts);  // a read error was reported by the loader
    return {};
  };
}

}  // namespace toposcope::model
