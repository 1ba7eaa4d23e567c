#include "toposcope/report/perfetto.h"

#include <algorithm>

#include "toposcope/base/hash.h"
#include "toposcope/base/time.h"

namespace toposcope::report {

std::string TimelineTrackName(const formats::TraceEvent& e) {
  std::string name = e.device.empty() ? "host" : e.device;
  if (e.rank >= 0) name += " rank " + std::to_string(e.rank);
  if (name.starts_with("gpu") && e.tid > 0) name += " stream " + std::to_string(e.tid);
  return name;
}

// Where the value of a context's "id=" key is: [begin, end) (begin = npos when it has none).
static std::pair<size_t, size_t> IdSpan(const std::string& context) {
  const size_t at = context.starts_with("id=") ? 0 : context.find(";id=");
  if (at == std::string::npos) return {std::string::npos, std::string::npos};
  const size_t begin = at == 0 ? 3 : at + 4;
  return {begin, std::min(context.find(';', begin), context.size())};
}

std::string ContextId(const std::string& context) {
  const auto [begin, end] = IdSpan(context);
  return begin == std::string::npos ? "" : context.substr(begin, end - begin);
}

uint64_t HostScopedId(const std::string& host, const std::string& id) {
  return Fnv1a(host + '\0' + id) & ((uint64_t{1} << 53) - 1);
}

std::string HostScopedIds(const std::string& context, const std::string& host) {
  const auto [begin, end] = IdSpan(context);
  if (begin == std::string::npos) return context;
  return context.substr(0, begin) + std::to_string(HostScopedId(host, context.substr(begin, end - begin))) +
         context.substr(end);
}

int SliceLanes::Lane(const std::string& track, int64_t start_ns, int64_t end_ns) {
  auto& lanes = open_[track];
  for (size_t k = 0;; ++k) {
    if (k == lanes.size()) lanes.emplace_back();
    std::vector<int64_t>& ends = lanes[k];
    while (!ends.empty() && ends.back() <= start_ns) ends.pop_back();
    if (ends.empty() || end_ns <= ends.back()) {
      ends.push_back(end_ns);
      return static_cast<int>(k);
    }
  }
}

std::string SliceLanes::LaneName(const std::string& track, int lane) {
  return lane == 0 ? track : track + " (" + std::to_string(lane + 1) + ")";
}

PerfettoTimelineWriter::PerfettoTimelineWriter(std::ostream& out) : out_(out) {}
PerfettoTimelineWriter::~PerfettoTimelineWriter() = default;

void PerfettoTimelineWriter::Start(int64_t first_ns) {
  writer_ = std::make_unique<formats::ChromeTraceWriter>(out_);
  writer_->SetTraceName("toposcope global timeline");
  origin_ns_ = FloorDiv(first_ns, 1'000'000'000) * 1'000'000'000;
  writer_->SetBaseTime(origin_ns_);
}

void PerfettoTimelineWriter::Write(const analysis::MergedEvent& m) {
  if (!writer_) Start(m.global_ns);
  const std::string host = m.event.host.empty() ? "(unknown host)" : m.event.host;
  auto [pit, new_host] = pids_.emplace(host, static_cast<int64_t>(pids_.size()) + 1);
  if (new_host) {
    writer_->WriteProcessName(pit->second, host);
    writer_->WriteProcessSortIndex(pit->second, pit->second);
  }
  formats::TraceEvent e = m.event;
  const std::string device = e.device.empty() ? "host" : e.device;
  // Counters are per process in a trace viewer: the device in the name gives each GPU its own track.
  std::string track = e.phase == 'C' ? device : TimelineTrackName(e);
  if (e.phase == 'X') track = SliceLanes::LaneName(track, lanes_.Lane(host + '\0' + track, m.global_ns, m.global_ns + e.dur_ns));
  auto [tit, new_track] = tids_.emplace(std::make_pair(pit->second, track), static_cast<int64_t>(tids_.size()) + 1);
  if (new_track) {
    writer_->WriteThreadName(pit->second, tit->second, track);
    writer_->WriteThreadSortIndex(pit->second, tit->second, tit->second);
  }
  if (e.phase == 'C' && device != "host") {
    e.type = device + " " + e.type;
    e.context = device + " " + e.context;
  }
  if (std::string_view("stfben").find(e.phase) != std::string_view::npos) e.context = HostScopedIds(e.context, host);
  e.local_ts_ns = m.global_ns;  // the writer's axis is the global one (written relative to the origin)
  e.pid = pit->second;
  e.tid = tit->second;
  e.device = device;
  writer_->Write(e);
  ++events_;
}

bool PerfettoTimelineWriter::Finish() {
  if (!writer_) Start(0);
  return writer_->Finish();
}

}  // namespace toposcope::report
