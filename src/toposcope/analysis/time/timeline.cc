#include "toposcope/analysis/time/timeline.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <queue>

namespace toposcope::analysis {
namespace {

struct Keyed {
  int64_t global_ns;
  int source;
  int64_t seq;
  formats::TraceEvent event;
};

bool Before(const Keyed& a, const Keyed& b) {
  if (a.global_ns != b.global_ns) return a.global_ns < b.global_ns;
  if (a.source != b.source) return a.source < b.source;
  return a.seq < b.seq;
}

// ---- binary run files ----

void PutI64(std::string& out, int64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof(v)); }
void PutStr(std::string& out, const std::string& s) {
  PutI64(out, static_cast<int64_t>(s.size()));
  out += s;
}

void Encode(const Keyed& k, std::string& out) {
  PutI64(out, k.global_ns);
  PutI64(out, k.source);
  PutI64(out, k.seq);
  const auto& e = k.event;
  PutI64(out, e.local_ts_ns);
  PutI64(out, e.dur_ns);
  PutI64(out, e.rank);
  PutI64(out, e.pid);
  PutI64(out, e.tid);
  PutI64(out, e.line);
  PutI64(out, e.byte_offset);
  PutI64(out, static_cast<int64_t>(e.phase));
  int64_t bits = 0;
  std::memcpy(&bits, &e.value, sizeof(bits));
  PutI64(out, bits);
  for (const std::string* s : {&e.host, &e.device, &e.type, &e.category, &e.context, &e.source_file}) PutStr(out, *s);
}

class RunReader {
 public:
  explicit RunReader(FILE* f) : f_(f) {}
  ~RunReader() {
    if (f_ != nullptr) std::fclose(f_);
  }
  RunReader(const RunReader&) = delete;
  RunReader& operator=(const RunReader&) = delete;

  bool Next(Keyed* k) {
    int64_t v = 0;
    if (!GetI64(&k->global_ns)) return false;
    int64_t src = 0;
    GetI64(&src);
    k->source = static_cast<int>(src);
    GetI64(&k->seq);
    auto& e = k->event;
    GetI64(&e.local_ts_ns);
    GetI64(&e.dur_ns);
    GetI64(&v);
    e.rank = static_cast<int>(v);
    GetI64(&e.pid);
    GetI64(&e.tid);
    GetI64(&e.line);
    GetI64(&e.byte_offset);
    GetI64(&v);
    e.phase = static_cast<char>(v);
    GetI64(&v);
    std::memcpy(&e.value, &v, sizeof(v));
    for (std::string* s : {&e.host, &e.device, &e.type, &e.category, &e.context, &e.source_file}) {
      if (!GetStr(s)) return false;
    }
    return true;
  }

 private:
  bool GetI64(int64_t* v) { return std::fread(v, sizeof(*v), 1, f_) == 1; }
  bool GetStr(std::string* s) {
    int64_t n = 0;
    if (!GetI64(&n) || n < 0 || n > (int64_t{1} << 30)) return false;
    s->resize(static_cast<size_t>(n));
    return n == 0 || std::fread(s->data(), 1, static_cast<size_t>(n), f_) == static_cast<size_t>(n);
  }
  FILE* f_;
};

}  // namespace

Status MergeTimeline(const std::vector<EventSource>& sources, const std::map<std::string, const ClockModel*>& clocks,
                     const std::function<void(const MergedEvent&)>& out, MergeStats* stats, const MergeOptions& opt) {
  MergeStats local_stats;
  MergeStats& st = stats != nullptr ? *stats : local_stats;
  std::vector<Keyed> buffer;
  std::vector<FILE*> runs;
  std::string bytes;
  auto spill = [&]() -> Status {
    if (buffer.empty()) return {};
    std::sort(buffer.begin(), buffer.end(), Before);
    FILE* f = std::tmpfile();
    if (f == nullptr) return MakeError("cannot create a temporary file for the merge", "is /tmp writable?");
    for (const auto& k : buffer) {
      bytes.clear();
      Encode(k, bytes);
      if (std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
        std::fclose(f);
        return MakeError("cannot write a merge run to a temporary file", "disk full?");
      }
    }
    std::rewind(f);
    runs.push_back(f);
    ++st.runs;
    buffer.clear();
    return {};
  };
  Status failed;
  for (size_t i = 0; i < sources.size(); ++i) {
    int64_t seq = 0;
    const Status s = sources[i]([&](formats::TraceEvent&& e) {
      if (!failed.ok()) return;
      ++st.events_in;
      auto it = clocks.find(e.host);
      int64_t global = e.local_ts_ns;
      if (it != clocks.end() && it->second != nullptr) {
        global = it->second->ToGlobalNs(e.local_ts_ns);
      } else {
        ++st.without_clock;
      }
      buffer.push_back(Keyed{global, static_cast<int>(i), seq++, std::move(e)});
      if (buffer.size() >= opt.run_events) failed = spill();
    });
    if (!failed.ok()) break;
    if (!s.ok()) {
      for (FILE* f : runs) std::fclose(f);
      return s;
    }
  }
  if (!failed.ok()) {
    for (FILE* f : runs) std::fclose(f);
    return failed;
  }
  // Everything fitted in memory: no files needed.
  if (runs.empty()) {
    std::sort(buffer.begin(), buffer.end(), Before);
    MergedEvent m;
    for (auto& k : buffer) {
      m.global_ns = k.global_ns;
      m.source = k.source;
      m.event = std::move(k.event);
      out(m);
      ++st.events_out;
    }
    return {};
  }
  if (Status s = spill(); !s.ok()) {
    for (FILE* f : runs) std::fclose(f);
    return s;
  }
  std::vector<std::unique_ptr<RunReader>> readers;
  for (FILE* f : runs) readers.push_back(std::make_unique<RunReader>(f));
  std::vector<Keyed> heads(readers.size());
  auto cmp = [&](size_t a, size_t b) { return Before(heads[b], heads[a]); };
  std::priority_queue<size_t, std::vector<size_t>, decltype(cmp)> heap(cmp);
  for (size_t r = 0; r < readers.size(); ++r) {
    if (readers[r]->Next(&heads[r])) heap.push(r);
  }
  MergedEvent m;
  while (!heap.empty()) {
    const size_t r = heap.top();
    heap.pop();
    m.global_ns = heads[r].global_ns;
    m.source = heads[r].source;
    m.event = heads[r].event;
    out(m);
    ++st.events_out;
    if (readers[r]->Next(&heads[r])) heap.push(r);
  }
  if (st.events_out != st.events_in) {
    return MakeError("merge lost events: " + std::to_string(st.events_in) + " in, " + std::to_string(st.events_out) +
                     " out", "a temporary run file was truncated");
  }
  return {};
}

}  // namespace toposcope::analysis
