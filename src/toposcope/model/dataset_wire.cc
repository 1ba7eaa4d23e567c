#include "toposcope/model/dataset_wire.h"

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "toposcope/base/varint.h"
#include "toposcope/model/dataset_json.h"

namespace toposcope::formats {
TOPOSCOPE_JSON_FIELDS(DmonEntity, kind, id, link)
}  // namespace toposcope::formats

namespace toposcope::model {

TOPOSCOPE_JSON_FIELDS(UntimedDcgmInput, path, host, format, event_input)
TOPOSCOPE_JSON_FIELDS(DmonMigRows, path, host, line, entities)
TOPOSCOPE_JSON_FIELDS(PartHead, first_chunk, end_chunk, untimed, dmon_mig)

}  // namespace toposcope::model

namespace toposcope::model {
namespace {

constexpr char kMagic[8] = {'T', 'S', 'P', 'A', 'R', 'T', '0', '2'};

class Writer {
 public:
  template <class T>
  void Put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void PutString(std::string_view s) {
    Put<uint64_t>(s.size());
    out_.append(s);
  }
  template <class T>
  void PutVector(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    Put<uint64_t>(v.size());
    out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  // A DCGM trace, packed: each time as the zigzag varint of its step minus the step before (a
  // regular sampling period costs one byte), each value as its bits XOR the previous value's with
  // their zero bytes at either end left out (a repeated value costs one byte, an integer reading
  // about three). A point takes at most 10 + 9 bytes.
  void PutPoints(const std::vector<std::pair<int64_t, double>>& v) {
    Put<uint64_t>(v.size());
    if (scratch_.size() < v.size() * 19) scratch_.resize(v.size() * 19);
    uint8_t* const begin = scratch_.data();
    uint8_t* p = begin;
    uint64_t prev_ts = 0, prev_step = 0, prev_bits = 0;
    for (const auto& [ts, value] : v) {
      const uint64_t step = static_cast<uint64_t>(ts) - prev_ts;
      p = PutVarint(p, ZigZag(static_cast<int64_t>(step - prev_step)));
      prev_ts = static_cast<uint64_t>(ts);
      prev_step = step;
      uint64_t bits = 0;
      std::memcpy(&bits, &value, 8);
      const uint64_t x = bits ^ prev_bits;
      prev_bits = bits;
      if (x == 0) {
        *p++ = 0xFF;
        continue;
      }
      const int lead = __builtin_clzll(x) / 8, trail = __builtin_ctzll(x) / 8;
      *p++ = static_cast<uint8_t>((lead << 4) | trail);
      for (int b = trail; b < 8 - lead; ++b) *p++ = static_cast<uint8_t>(x >> (8 * b));
    }
    out_.append(reinterpret_cast<const char*>(begin), static_cast<size_t>(p - begin));
  }
  std::string& out() { return out_; }

 private:
  std::string out_;
  std::vector<uint8_t> scratch_;  // one trace's packed points
};

class Reader {
 public:
  Reader(std::string_view in, const std::string& source) : in_(in), source_(source) {}
  template <class T>
  bool Get(T& v) {
    if (in_.size() - pos_ < sizeof v) return Fail();
    std::memcpy(&v, in_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return true;
  }
  bool GetString(std::string& s) {
    uint64_t n = 0;
    if (!Get(n) || in_.size() - pos_ < n) return Fail();
    s.assign(in_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  template <class T>
  bool GetVector(std::vector<T>& v) {
    uint64_t n = 0;
    if (!Get(n) || (in_.size() - pos_) / sizeof(T) < n) return Fail();
    v.resize(n);
    // An empty vector's data() may be null, which memcpy must never be given.
    if (n > 0) std::memcpy(static_cast<void*>(v.data()), in_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
    return true;
  }
  // The points of Writer::PutPoints.
  bool GetPoints(std::vector<std::pair<int64_t, double>>& v) {
    uint64_t n = 0;
    // Every point takes at least two bytes.
    if (!Get(n) || (in_.size() - pos_) / 2 < n) return Fail();
    v.resize(n);
    const auto* p = reinterpret_cast<const uint8_t*>(in_.data() + pos_);
    const auto* end = reinterpret_cast<const uint8_t*>(in_.data() + in_.size());
    uint64_t prev_ts = 0, prev_step = 0, prev_bits = 0;
    for (auto& [ts, value] : v) {
      uint64_t z = 0;
      if (!GetVarint(p, end, &z)) return Fail();
      prev_step += static_cast<uint64_t>(UnZigZag(z));
      prev_ts += prev_step;
      ts = static_cast<int64_t>(prev_ts);
      if (p == end) return Fail();
      const uint8_t head = *p++;
      uint64_t x = 0;
      if (head != 0xFF) {
        const int lead = head >> 4, trail = head & 0x0F;
        if (lead + trail > 7 || end - p < 8 - lead - trail) return Fail();
        for (int b = trail; b < 8 - lead; ++b) x |= static_cast<uint64_t>(*p++) << (8 * b);
      }
      prev_bits ^= x;
      std::memcpy(&value, &prev_bits, 8);
    }
    pos_ = static_cast<size_t>(reinterpret_cast<const char*>(p) - in_.data());
    return true;
  }
  [[nodiscard]] Error error() const {
    return MakeError(source_, 0, 0, "shard load cut short at byte " + std::to_string(pos_) + " of " +
                                        std::to_string(in_.size()));
  }

 private:
  bool Fail() { return false; }
  std::string_view in_;
  const std::string& source_;
  size_t pos_ = 0;
};

void PutSeries(Writer& w, const SeriesKey& k, const SeriesSummary& s) {
  w.PutString(k.host);
  w.Put<int32_t>(k.gpu);
  w.Put<int32_t>(k.link);
  w.Put<int32_t>(k.field_id);
  w.PutString(k.field);
  w.Put<uint8_t>(static_cast<uint8_t>(k.entity));
  w.Put<int32_t>(k.instance);
  w.Put<int32_t>(k.compute_instance);
  w.Put(s.count);
  w.Put(s.first_ns);
  w.Put(s.last_ns);
  w.Put(s.out_of_order);
  w.Put(s.stride);
  w.PutVector(s.first_gaps_ns);
  w.PutPoints(s.points);
}

bool GetSeries(Reader& r, SeriesKey& k, SeriesSummary& s) {
  int32_t gpu = 0, link = 0, field_id = 0, instance = 0, compute_instance = 0;
  uint8_t entity = 0;
  if (!r.GetString(k.host) || !r.Get(gpu) || !r.Get(link) || !r.Get(field_id) || !r.GetString(k.field) ||
      !r.Get(entity) || !r.Get(instance) || !r.Get(compute_instance)) {
    return false;
  }
  k.gpu = gpu;
  k.link = link;
  k.field_id = field_id;
  k.entity = static_cast<DcgmEntity>(entity);
  k.instance = instance;
  k.compute_instance = compute_instance;
  return r.Get(s.count) && r.Get(s.first_ns) && r.Get(s.last_ns) && r.Get(s.out_of_order) && r.Get(s.stride) &&
         r.GetVector(s.first_gaps_ns) && r.GetPoints(s.points);
}

}  // namespace

std::string PartToWire(const LoadedPart& part) {
  Writer w;
  w.out().append(kMagic, sizeof kMagic);
  PartHead head{part.first_chunk, part.end_chunk, part.untimed, part.dmon_mig};
  w.PutString(json_io::ToPackedBytes(head));
  // The data set without its DCGM series, packed (copied shallowly: the series stay where they are).
  Dataset rest;
  rest.hosts = part.ds.hosts;
  rest.inputs = part.ds.inputs;
  rest.event_inputs = part.ds.event_inputs;
  rest.captures = part.ds.captures;
  rest.nccl_logs = part.ds.nccl_logs;
  rest.nccl_tests = part.ds.nccl_tests;
  rest.inventory = part.ds.inventory;
  rest.fabrics = part.ds.fabrics;
  rest.link_infos = part.ds.link_infos;
  rest.port_counters = part.ds.port_counters;
  rest.slurm_topologies = part.ds.slurm_topologies;
  rest.topograph_models = part.ds.topograph_models;
  rest.qp_state_inputs = part.ds.qp_state_inputs;
  rest.path_probes = part.ds.path_probes;
  rest.diag = part.ds.diag;
  rest.dcgm.points = part.ds.dcgm.points;
  w.PutString(json_io::ToPackedBytes(rest));
  size_t series_bytes = 0;  // a guess: about 12 bytes a point
  for (const auto& [k, s] : part.ds.dcgm.series) {
    series_bytes += 96 + k.host.size() + k.field.size() + 8 * s.first_gaps_ns.size() + 12 * s.points.size();
  }
  w.out().reserve(w.out().size() + series_bytes);
  w.Put<uint64_t>(part.ds.dcgm.series.size());
  for (const auto& [k, s] : part.ds.dcgm.series) PutSeries(w, k, s);
  return std::move(w.out());
}

Result<LoadedPart> PartFromWire(std::string_view bytes, const std::string& source) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    return MakeError(source, 0, 0, "not a shard load (no TSPART02 header)");
  }
  Reader r(bytes.substr(sizeof kMagic), source);
  std::string text;
  if (!r.GetString(text)) return r.error();
  Result<PartHead> head = json_io::FromPackedBytes<PartHead>(text, source);
  if (!head.ok()) return head.error();
  if (!r.GetString(text)) return r.error();
  Result<Dataset> ds = json_io::FromPackedBytes<Dataset>(text, source);
  if (!ds.ok()) return ds.error();
  LoadedPart part;
  part.first_chunk = head->first_chunk;
  part.end_chunk = head->end_chunk;
  part.untimed = std::move(head->untimed);
  part.dmon_mig = std::move(head->dmon_mig);
  part.ds = std::move(*ds);
  uint64_t n = 0;
  if (!r.Get(n)) return r.error();
  for (uint64_t i = 0; i < n; ++i) {
    SeriesKey k;
    SeriesSummary s;
    if (!GetSeries(r, k, s)) return r.error();
    part.ds.dcgm.series.emplace_hint(part.ds.dcgm.series.end(), std::move(k), std::move(s));
  }
  return part;
}

}  // namespace toposcope::model
