#include "toposcope/report/perfetto.h"

namespace toposcope::report {

PerfettoTimelineWriter::PerfettoTimelineWriter(std::ostream& out) : writer_(out) {
  writer_.SetTraceName("toposcope global timeline");
}

void PerfettoTimelineWriter::Write(const analysis::MergedEvent& m) {
  const std::string host = m.event.host.empty() ? "(unknown host)" : m.event.host;
  auto [pit, new_host] = pids_.emplace(host, static_cast<int64_t>(pids_.size()) + 1);
  if (new_host) {
    writer_.WriteProcessName(pit->second, host);
    writer_.WriteProcessSortIndex(pit->second, pit->second);
  }
  const std::string device = m.event.device.empty() ? "host" : m.event.device;
  auto [tit, new_dev] = tids_.emplace(std::make_pair(pit->second, device), static_cast<int64_t>(tids_.size()) + 1);
  if (new_dev) {
    writer_.WriteThreadName(pit->second, tit->second, device);
    writer_.WriteThreadSortIndex(pit->second, tit->second, tit->second);
  }
  formats::TraceEvent e = m.event;
  e.local_ts_ns = m.global_ns;  // the writer's axis is the global one
  e.pid = pit->second;
  e.tid = tit->second;
  e.device = device;
  writer_.Write(e);
  ++events_;
}

bool PerfettoTimelineWriter::Finish() { return writer_.Finish(); }

}  // namespace toposcope::report
