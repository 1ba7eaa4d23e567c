#include "toposcope/report/perfetto_proto.h"

#include <cmath>
#include <cstring>
#include <string_view>

#include "toposcope/base/varint.h"
#include "toposcope/report/perfetto.h"

namespace toposcope::report {
namespace {

// Field numbers of perfetto.protos (protos/perfetto/trace/...), the subset written here.
namespace f {
constexpr uint32_t kTracePacket = 1;           // Trace.packet
constexpr uint32_t kClockSnapshot = 6;         // TracePacket.clock_snapshot
constexpr uint32_t kTimestamp = 8;             // TracePacket.timestamp
constexpr uint32_t kSequenceId = 10;           // TracePacket.trusted_packet_sequence_id
constexpr uint32_t kTrackEvent = 11;           // TracePacket.track_event
constexpr uint32_t kInternedData = 12;         // TracePacket.interned_data
constexpr uint32_t kSequenceFlags = 13;        // TracePacket.sequence_flags
constexpr uint32_t kDefaults = 59;             // TracePacket.trace_packet_defaults
constexpr uint32_t kTrackDescriptor = 60;      // TracePacket.track_descriptor
constexpr uint32_t kClocks = 1;                // ClockSnapshot.clocks
constexpr uint32_t kClockId = 1;               // ClockSnapshot.Clock.clock_id
constexpr uint32_t kClockTimestamp = 2;        // ClockSnapshot.Clock.timestamp
constexpr uint32_t kClockIncremental = 3;      // ClockSnapshot.Clock.is_incremental
constexpr uint32_t kDefaultsClockId = 58;      // TracePacketDefaults.timestamp_clock_id
constexpr uint32_t kDefaultsTrackEvent = 11;   // TracePacketDefaults.track_event_defaults
constexpr uint32_t kDefaultsTrackUuid = 11;    // TrackEventDefaults.track_uuid
constexpr uint32_t kEventNames = 2;            // InternedData.event_names
constexpr uint32_t kIid = 1;                   // EventName.iid
constexpr uint32_t kIidName = 2;               // EventName.name
constexpr uint32_t kType = 9;                  // TrackEvent.type
constexpr uint32_t kNameIid = 10;              // TrackEvent.name_iid
constexpr uint32_t kTrackUuid = 11;            // TrackEvent.track_uuid
constexpr uint32_t kExtraCounterValues = 12;   // TrackEvent.extra_counter_values (int64, packed)
constexpr uint32_t kCounterValue = 30;         // TrackEvent.counter_value (int64)
constexpr uint32_t kExtraCounterUuids = 31;    // TrackEvent.extra_counter_track_uuids (packed)
constexpr uint32_t kDoubleCounterValue = 44;   // TrackEvent.double_counter_value
constexpr uint32_t kExtraDoubleUuids = 45;     // TrackEvent.extra_double_counter_track_uuids (packed)
constexpr uint32_t kExtraDoubleValues = 46;    // TrackEvent.extra_double_counter_values (packed)
constexpr uint32_t kFlowIds = 47;              // TrackEvent.flow_ids (fixed64)
constexpr uint32_t kTerminatingFlowIds = 48;   // TrackEvent.terminating_flow_ids (fixed64)
constexpr uint32_t kUuid = 1;                  // TrackDescriptor.uuid
constexpr uint32_t kName = 2;                  // TrackDescriptor.name
constexpr uint32_t kProcess = 3;               // TrackDescriptor.process
constexpr uint32_t kThread = 4;                // TrackDescriptor.thread
constexpr uint32_t kParentUuid = 5;            // TrackDescriptor.parent_uuid
constexpr uint32_t kCounter = 8;               // TrackDescriptor.counter
constexpr uint32_t kPid = 1;                   // ProcessDescriptor.pid, ThreadDescriptor.pid
constexpr uint32_t kProcessName = 6;           // ProcessDescriptor.process_name
constexpr uint32_t kTid = 2;                   // ThreadDescriptor.tid
constexpr uint32_t kThreadName = 5;            // ThreadDescriptor.thread_name
}  // namespace f

constexpr uint64_t kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounterType = 4;
constexpr uint64_t kIncrementalClock = 64;  // the first sequence-scoped clock id
constexpr uint64_t kRealtime = 1;           // BUILTIN_CLOCK_REALTIME
constexpr uint64_t kStateCleared = 1, kNeedsState = 2;

void Varint(std::string& b, uint64_t v) { AppendVarint(b, v); }
void Key(std::string& b, uint32_t field, uint32_t wire) { Varint(b, (static_cast<uint64_t>(field) << 3) | wire); }
void UInt(std::string& b, uint32_t field, uint64_t v) {
  Key(b, field, 0);
  Varint(b, v);
}
void Bytes(std::string& b, uint32_t field, std::string_view v) {
  Key(b, field, 2);
  Varint(b, v.size());
  b.append(v);
}
void Fixed64(std::string& b, uint32_t field, uint64_t v) {
  Key(b, field, 1);
  char raw[8];
  std::memcpy(raw, &v, 8);
  b.append(raw, 8);
}
void Double(std::string& b, uint32_t field, double v) {
  uint64_t u = 0;
  std::memcpy(&u, &v, 8);
  Fixed64(b, field, u);
}

bool Integral(double v) { return std::floor(v) == v && std::fabs(v) < 4.0e18; }

// The first packet of a sequence: its incremental clock tied to REALTIME at t0, and its defaults.
std::string SequenceStart(uint32_t id, uint64_t track_uuid, int64_t t0) {
  std::string inc, real, snap, defaults, te_defaults, pkt;
  UInt(inc, f::kClockId, kIncrementalClock);
  UInt(inc, f::kClockTimestamp, static_cast<uint64_t>(t0));
  UInt(inc, f::kClockIncremental, 1);
  UInt(real, f::kClockId, kRealtime);
  UInt(real, f::kClockTimestamp, static_cast<uint64_t>(t0));
  Bytes(snap, f::kClocks, inc);
  Bytes(snap, f::kClocks, real);
  UInt(te_defaults, f::kDefaultsTrackUuid, track_uuid);
  UInt(defaults, f::kDefaultsClockId, kIncrementalClock);
  Bytes(defaults, f::kDefaultsTrackEvent, te_defaults);
  UInt(pkt, f::kSequenceId, id);
  UInt(pkt, f::kSequenceFlags, kStateCleared);
  Bytes(pkt, f::kClockSnapshot, snap);
  Bytes(pkt, f::kDefaults, defaults);
  return pkt;
}

}  // namespace

PerfettoProtoWriter::PerfettoProtoWriter(std::ostream& out) : out_(out) {}

void PerfettoProtoWriter::Emit(const std::string& packet) {
  std::string framed;
  Bytes(framed, f::kTracePacket, packet);
  out_.write(framed.data(), static_cast<std::streamsize>(framed.size()));
  ++packets_;
}

uint64_t PerfettoProtoWriter::ProcessTrack(const std::string& host) {
  auto [it, fresh] = processes_.emplace(host, next_uuid_);
  if (fresh) ++next_uuid_;
  if (fresh) {
    pids_[host] = static_cast<int64_t>(processes_.size());
    std::string proc, desc, pkt;
    UInt(proc, f::kPid, processes_.size());
    Bytes(proc, f::kProcessName, host);
    UInt(desc, f::kUuid, it->second);
    Bytes(desc, f::kProcess, proc);
    Bytes(pkt, f::kTrackDescriptor, desc);
    Emit(pkt);
  }
  return it->second;
}

PerfettoProtoWriter::Sequence& PerfettoProtoWriter::SequenceOf(const std::string& track, const std::string& host,
                                                               int64_t ns) {
  auto [it, fresh] = sequences_.try_emplace(host + '\0' + track);
  Sequence& s = it->second;
  if (!fresh) return s;
  const uint64_t process = ProcessTrack(host);
  s.id = next_sequence_++;
  s.track_uuid = next_uuid_++;
  std::string thread, desc, pkt;
  UInt(thread, f::kPid, static_cast<uint64_t>(pids_[host]));
  UInt(thread, f::kTid, s.id);
  Bytes(thread, f::kThreadName, track);
  UInt(desc, f::kUuid, s.track_uuid);
  UInt(desc, f::kParentUuid, process);
  Bytes(desc, f::kThread, thread);
  Bytes(pkt, f::kTrackDescriptor, desc);
  Emit(pkt);
  s.last_ns = ns;
  Emit(SequenceStart(s.id, s.track_uuid, ns));
  return s;
}

uint64_t PerfettoProtoWriter::CounterTrack(const std::string& host, const std::string& device, const std::string& name) {
  const std::string key = host + '\0' + device + '\0' + name;
  auto [it, fresh] = counters_.emplace(key, next_uuid_);
  if (fresh) ++next_uuid_;
  if (fresh) {
    std::string desc, pkt;
    UInt(desc, f::kUuid, it->second);
    UInt(desc, f::kParentUuid, ProcessTrack(host));
    Bytes(desc, f::kName, device == "host" ? name : device + " " + name);
    Bytes(desc, f::kCounter, "");
    Bytes(pkt, f::kTrackDescriptor, desc);
    Emit(pkt);
  }
  return it->second;
}

void PerfettoProtoWriter::EventPacket(Sequence& s, int64_t ns, uint32_t type, const std::string& name,
                                      const std::string& extra) {
  std::string pkt, te;
  if (ns < s.last_ns) ns = s.last_ns;
  UInt(pkt, f::kTimestamp, static_cast<uint64_t>(ns - s.last_ns));
  s.last_ns = ns;
  UInt(pkt, f::kSequenceId, s.id);
  UInt(pkt, f::kSequenceFlags, kNeedsState);
  UInt(te, f::kType, type);
  if (!name.empty()) {
    auto [it, fresh] = s.names.emplace(name, s.names.size() + 1);
    if (fresh) {
      std::string en, interned;
      UInt(en, f::kIid, it->second);
      Bytes(en, f::kIidName, name);
      Bytes(interned, f::kEventNames, en);
      Bytes(pkt, f::kInternedData, interned);
    }
    UInt(te, f::kNameIid, it->second);
  }
  te += extra;
  Bytes(pkt, f::kTrackEvent, te);
  Emit(pkt);
}

void PerfettoProtoWriter::FlushCounters(Sequence& s) {
  if (s.pending.empty()) return;
  std::string extra;
  const auto& [uuid0, v0] = s.pending.front();
  UInt(extra, f::kTrackUuid, uuid0);
  if (Integral(v0)) {
    UInt(extra, f::kCounterValue, static_cast<uint64_t>(static_cast<int64_t>(v0)));
  } else {
    Double(extra, f::kDoubleCounterValue, v0);
  }
  std::string int_uuids, int_values, dbl_uuids, dbl_values;
  for (size_t i = 1; i < s.pending.size(); ++i) {
    const auto& [uuid, v] = s.pending[i];
    if (Integral(v)) {
      Varint(int_uuids, uuid);
      Varint(int_values, static_cast<uint64_t>(static_cast<int64_t>(v)));
    } else {
      Varint(dbl_uuids, uuid);
      uint64_t u = 0;
      std::memcpy(&u, &v, 8);
      char raw[8];
      std::memcpy(raw, &u, 8);
      dbl_values.append(raw, 8);
    }
  }
  if (!int_uuids.empty()) Bytes(extra, f::kExtraCounterUuids, int_uuids), Bytes(extra, f::kExtraCounterValues, int_values);
  if (!dbl_uuids.empty()) Bytes(extra, f::kExtraDoubleUuids, dbl_uuids), Bytes(extra, f::kExtraDoubleValues, dbl_values);
  const int64_t ns = s.pending_ns;
  s.pending.clear();
  EventPacket(s, ns, kCounterType, "", extra);
}

void PerfettoProtoWriter::FlushBefore(Sequence& s, int64_t ns) {
  if (!s.pending.empty() && s.pending_ns != ns) FlushCounters(s);
  while (!s.ends.empty() && s.ends.top().first <= ns) {
    const int64_t end = s.ends.top().first;
    s.ends.pop();
    EventPacket(s, end, kSliceEnd, "", "");
  }
}

void PerfettoProtoWriter::Write(const analysis::MergedEvent& m) {
  const formats::TraceEvent& e = m.event;
  if (e.phase == 'M') return;
  const std::string host = e.host.empty() ? "(unknown host)" : e.host;
  const int64_t ns = std::max<int64_t>(0, m.global_ns);
  std::string track = e.phase == 'C' ? (e.device.empty() ? "host" : e.device) : TimelineTrackName(e);
  if (e.phase == 'X') track = SliceLanes::LaneName(track, lanes_.Lane(host + '\0' + track, ns, ns + std::max<int64_t>(0, e.dur_ns)));
  Sequence& s = SequenceOf(track, host, ns);
  FlushBefore(s, ns);
  ++events_;
  switch (e.phase) {
    case 'C': {
      const uint64_t uuid = CounterTrack(host, e.device.empty() ? "host" : e.device, e.type);
      if (s.pending.empty()) s.pending_ns = ns;
      s.pending.emplace_back(uuid, std::isfinite(e.value) ? e.value : 0.0);
      return;
    }
    case 'X':
      EventPacket(s, ns, kSliceBegin, e.type, "");
      s.ends.emplace(ns + std::max<int64_t>(0, e.dur_ns), static_cast<uint64_t>(events_));
      return;
    case 'B':
      EventPacket(s, ns, kSliceBegin, e.type, "");
      return;
    case 'E':
      EventPacket(s, ns, kSliceEnd, "", "");
      return;
    case 's':
    case 't':
    case 'f': {
      std::string extra;
      const std::string id = ContextId(e.context);
      if (!id.empty()) Fixed64(extra, e.phase == 'f' ? f::kTerminatingFlowIds : f::kFlowIds, HostScopedId(host, id));
      EventPacket(s, ns, kInstant, e.type, extra);
      return;
    }
    default:
      EventPacket(s, ns, kInstant, e.type, "");
      return;
  }
}

bool PerfettoProtoWriter::Finish() {
  for (auto& [key, s] : sequences_) {
    FlushCounters(s);
    FlushBefore(s, INT64_MAX);
  }
  out_.flush();
  return static_cast<bool>(out_);
}

}  // namespace toposcope::report
