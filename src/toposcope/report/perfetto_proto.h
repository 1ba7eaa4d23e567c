// report/perfetto_proto: the merged global timeline as a native Perfetto trace (protobuf: a stream
// of TracePacket, the format `perfetto` itself records), beside the JSON of report/perfetto. The
// same tracks: a process track per host, a thread track per device / rank / stream (named as
// TimelineTrackName names them, with SliceLanes' extra lanes), a counter track per device and counter, their uuids numbered in
// order of first use; flow ids scoped by host.
//
// Encoding (the field numbers of Perfetto's protos/perfetto/trace; docs/perfetto/toposcope_trace.proto
// lists the subset used, and `protoc --decode=perfetto.protos.Trace` reads the file with it):
//  - one packet sequence per thread track: a ClockSnapshot ties its sequence-scoped incremental
//    clock (id 64, ns) to REALTIME at the event's time, TracePacketDefaults set that clock and the
//    track, so an event packet holds a time delta, the event type and an interned name id;
//  - slices: X becomes SLICE_BEGIN and SLICE_END (the end is held until the sequence's time passes
//    it), B/E as they are, instants (i, I, and the async b/e/n, which have no nesting here) as
//    INSTANT; flow events s/t as an INSTANT with flow_ids, f with terminating_flow_ids;
//  - counters: TYPE_COUNTER on the counter's track, integral values as int64 varints, others as
//    doubles; counters of one sequence at one instant share a packet (extra counter values, packed).
// Metadata events (M) are not written (the descriptors name the tracks).
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <queue>
#include <string>
#include <vector>

#include "toposcope/analysis/time/timeline.h"
#include "toposcope/report/perfetto.h"

namespace toposcope::report {

class PerfettoProtoWriter {
 public:
  // Writes to `out`, which must outlive the writer.
  explicit PerfettoProtoWriter(std::ostream& out);
  // One merged event; events come in global time order (as MergeTimeline gives them). Never fails:
  // a stream error shows in Finish.
  void Write(const analysis::MergedEvent& m);
  // Writes what is held (slice ends, counters) and flushes. False when the stream failed.
  bool Finish();
  [[nodiscard]] int64_t events_written() const { return events_; }
  [[nodiscard]] int64_t packets_written() const { return packets_; }

 private:
  struct Sequence {
    uint32_t id = 0;
    uint64_t track_uuid = 0;
    int64_t last_ns = 0;   // the incremental clock's value
    std::map<std::string, uint64_t> names;  // interned event names
    // Slice ends not yet written: (end ns, order).
    std::priority_queue<std::pair<int64_t, uint64_t>, std::vector<std::pair<int64_t, uint64_t>>,
                        std::greater<>> ends;
    // Counters held for one packet: at pending_ns, (track uuid, value).
    int64_t pending_ns = 0;
    std::vector<std::pair<uint64_t, double>> pending;
  };
  // The sequence of a track, created (descriptor and start packet, clock at `ns`) on first use.
  Sequence& SequenceOf(const std::string& track, const std::string& host, int64_t ns);
  uint64_t CounterTrack(const std::string& host, const std::string& device, const std::string& name);
  uint64_t ProcessTrack(const std::string& host);
  void FlushBefore(Sequence& s, int64_t ns);
  void FlushCounters(Sequence& s);
  void EventPacket(Sequence& s, int64_t ns, uint32_t type, const std::string& name, const std::string& extra);
  void Emit(const std::string& packet);

  std::ostream& out_;
  std::map<std::string, uint64_t> processes_;
  std::map<std::string, int64_t> pids_;
  SliceLanes lanes_;
  std::map<std::string, Sequence> sequences_;      // by host + '\0' + track name
  std::map<std::string, uint64_t> counters_;       // by host + '\0' + device + '\0' + name
  uint32_t next_sequence_ = 1;
  uint64_t next_uuid_ = 1;  // track uuids in order of first use (small: short varints)
  int64_t events_ = 0, packets_ = 0;
};

}  // namespace toposcope::report
