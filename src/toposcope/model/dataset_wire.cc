#include "toposcope/model/dataset_wire.h"

#include <cstdint>
#include <cstring>
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

// A DCGM trace, packed: each time as the zigzag varint of its step minus the step before (a regular
// sampling period costs one byte), each value as its bits XOR the previous value's with their zero
// bytes at either end left out (a repeated value costs one byte, an integer reading about three).
// A point takes at most 10 + 9 bytes.
void PackPoints(json_io::Packer& w, const std::vector<std::pair<int64_t, double>>& v, std::vector<uint8_t>& scratch) {
  w.Scalar<uint64_t>(v.size());
  if (scratch.size() < v.size() * 19) scratch.resize(v.size() * 19);
  uint8_t* const begin = scratch.data();
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
  w.Raw(begin, static_cast<size_t>(p - begin));
}

// The points of PackPoints; throws json_io::DecodeError on bytes that are not of it.
void UnpackPoints(json_io::Unpacker& r, std::vector<std::pair<int64_t, double>>& v) {
  const auto n = r.Scalar<uint64_t>();
  const std::string_view rest = r.rest();
  if (rest.size() / 2 < n) throw json_io::DecodeError("more points than bytes");  // two bytes a point at least
  v.resize(n);
  const auto* const begin = reinterpret_cast<const uint8_t*>(rest.data());
  const auto* const end = begin + rest.size();
  const uint8_t* p = begin;
  uint64_t prev_ts = 0, prev_step = 0, prev_bits = 0;
  for (auto& [ts, value] : v) {
    uint64_t z = 0;
    if (!GetVarint(p, end, &z) || p == end) throw json_io::DecodeError("a point cut short");
    prev_step += static_cast<uint64_t>(UnZigZag(z));
    prev_ts += prev_step;
    ts = static_cast<int64_t>(prev_ts);
    const uint8_t head = *p++;
    uint64_t x = 0;
    if (head != 0xFF) {
      const int lead = head >> 4, trail = head & 0x0F;
      if (lead + trail > 7 || end - p < 8 - lead - trail) throw json_io::DecodeError("a point cut short");
      for (int b = trail; b < 8 - lead; ++b) x |= static_cast<uint64_t>(*p++) << (8 * b);
    }
    prev_bits ^= x;
    std::memcpy(&value, &prev_bits, 8);
  }
  r.Skip(static_cast<size_t>(p - begin));
}

void PackSeries(json_io::Packer& w, const SeriesKey& k, const SeriesSummary& s, std::vector<uint8_t>& scratch) {
  json_io::Pack(w, k.host);
  w.Scalar<int32_t>(k.gpu);
  w.Scalar<int32_t>(k.link);
  w.Scalar<int32_t>(k.field_id);
  json_io::Pack(w, k.field);
  w.Scalar<uint8_t>(static_cast<uint8_t>(k.entity));
  w.Scalar<int32_t>(k.instance);
  w.Scalar<int32_t>(k.compute_instance);
  w.Scalar(s.count);
  w.Scalar(s.first_ns);
  w.Scalar(s.last_ns);
  w.Scalar(s.out_of_order);
  w.Scalar(s.stride);
  json_io::Pack(w, s.first_gaps_ns);
  PackPoints(w, s.points, scratch);
}

void UnpackSeries(json_io::Unpacker& r, SeriesKey& k, SeriesSummary& s) {
  json_io::Unpack(r, k.host);
  k.gpu = r.Scalar<int32_t>();
  k.link = r.Scalar<int32_t>();
  k.field_id = r.Scalar<int32_t>();
  json_io::Unpack(r, k.field);
  k.entity = static_cast<DcgmEntity>(r.Scalar<uint8_t>());
  k.instance = r.Scalar<int32_t>();
  k.compute_instance = r.Scalar<int32_t>();
  s.count = r.Scalar<int64_t>();
  s.first_ns = r.Scalar<int64_t>();
  s.last_ns = r.Scalar<int64_t>();
  s.out_of_order = r.Scalar<int64_t>();
  s.stride = r.Scalar<int64_t>();
  json_io::Unpack(r, s.first_gaps_ns);
  UnpackPoints(r, s.points);
}

}  // namespace

std::string PartToWire(const LoadedPart& part) {
  json_io::Packer w;
  w.Raw(kMagic, sizeof kMagic);
  PartHead head{part.first_chunk, part.end_chunk, part.untimed, part.dmon_mig};
  json_io::Pack(w, json_io::ToPackedBytes(head));
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
  json_io::Pack(w, json_io::ToPackedBytes(rest));
  // Room for the most the series can take (a point packs to 19 bytes at most), so the text is
  // never moved while it grows: pages of it that stay unused are never touched.
  size_t series_bytes = 8;
  for (const auto& [k, s] : part.ds.dcgm.series) {
    series_bytes += 96 + k.host.size() + k.field.size() + 8 * s.first_gaps_ns.size() + 19 * s.points.size();
  }
  w.out().reserve(w.out().size() + series_bytes);
  w.Scalar<uint64_t>(part.ds.dcgm.series.size());
  std::vector<uint8_t> scratch;  // one trace's packed points
  for (const auto& [k, s] : part.ds.dcgm.series) PackSeries(w, k, s, scratch);
  return std::move(w.out());
}

Result<LoadedPart> PartFromWire(std::string_view bytes, const std::string& source) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    return MakeError(source, 0, 0, "not a shard load (no TSPART02 header)");
  }
  json_io::Unpacker r(bytes.substr(sizeof kMagic));
  try {
    std::string text;
    json_io::Unpack(r, text);
    Result<PartHead> head = json_io::FromPackedBytes<PartHead>(text, source);
    if (!head.ok()) return head.error();
    json_io::Unpack(r, text);
    Result<Dataset> ds = json_io::FromPackedBytes<Dataset>(text, source);
    if (!ds.ok()) return ds.error();
    LoadedPart part;
    part.first_chunk = head->first_chunk;
    part.end_chunk = head->end_chunk;
    part.untimed = std::move(head->untimed);
    part.dmon_mig = std::move(head->dmon_mig);
    part.ds = std::move(*ds);
    const auto n = r.Scalar<uint64_t>();
    for (uint64_t i = 0; i < n; ++i) {
      SeriesKey k;
      SeriesSummary s;
      UnpackSeries(r, k, s);
      part.ds.dcgm.series.emplace_hint(part.ds.dcgm.series.end(), std::move(k), std::move(s));
    }
    return part;
  } catch (const json_io::DecodeError& e) {
    return MakeError(source, 0, 0, "shard load cut short at byte " + std::to_string(sizeof kMagic + r.position()) +
                                       " of " + std::to_string(bytes.size()) + ": " + e.what());
  }
}

}  // namespace toposcope::model
