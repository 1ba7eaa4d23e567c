// model/dcgm_read: see dcgm_read.h.
#include "toposcope/model/dcgm_read.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <unordered_map>

#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/dcgm/dcgm_csv.h"
#include "toposcope/formats/dcgm/dcgm_dmon.h"
#include "toposcope/formats/dcgm/dcgm_fields.h"
#include "toposcope/formats/dcgm/prometheus_text.h"

namespace toposcope::model {
namespace {

int FieldId(const std::string& name) {
  const formats::DcgmField* f = formats::FindFieldByName(name);
  return f != nullptr ? f->id : -1;
}

// The entity of a dmon row: a GPU (or one of its links) keeps its index; a MIG instance, a switch, a
// CPU, a core or a NIC keeps its own id under its own kind (dmon does not say which GPU holds an
// instance).
void SetEntity(const formats::DmonEntity& e, DcgmPoint* p) {
  using K = formats::DmonEntityKind;
  p->link = e.link;
  switch (e.kind) {
    case K::kGpu:
    case K::kGpuLink: p->gpu = e.id; return;
    case K::kGpuI: p->entity = DcgmEntity::kGpuInstance; p->instance = e.id; return;
    case K::kGpuCi: p->entity = DcgmEntity::kComputeInstance; p->instance = e.id; return;
    case K::kSwitch:
    case K::kSwitchLink: p->entity = DcgmEntity::kSwitch; break;
    case K::kCpu: p->entity = DcgmEntity::kCpu; break;
    case K::kCpuCore: p->entity = DcgmEntity::kCpuCore; break;
    case K::kCx: p->entity = DcgmEntity::kNic; break;
  }
  p->gpu = e.id;
}


// dmon's words for a file's MIG instances when nothing links them to a GPU.
constexpr std::string_view kNoParent = "dmon does not say which GPU holds them (a `dcgmi discovery -c` of the host links them)";

// Emits the samples of readers that name their fields (scrapes, CSV), looking each name up in the
// field catalog once.
class NamedFieldPoints {
 public:
  NamedFieldPoints(const std::string& host, const std::function<void(const DcgmPoint&)>& sink)
      : host_(host), sink_(sink) {}

  // One sample; a sample without a host takes the file's.
  void Emit(const std::string& host, int gpu, int link, const std::string& field, int64_t ts_ns, double value,
            int mig_instance = -1) {
    auto it = ids_.find(field);
    if (it == ids_.end()) it = ids_.emplace(field, FieldId(field)).first;
    DcgmPoint p;
    p.host = host.empty() ? host_ : host;
    p.gpu = gpu;
    p.link = link;
    if (mig_instance >= 0) {
      p.entity = DcgmEntity::kGpuInstance;
      p.instance = mig_instance;
    }
    p.field_id = it->second;
    p.field = field;
    p.ts_ns = ts_ns;
    p.value = value;
    sink_(p);
  }

 private:
  const std::string& host_;
  const std::function<void(const DcgmPoint&)>& sink_;
  std::map<std::string, int> ids_;
};

// Times for samples that carry none: from the origin (the file's modification time unless given),
// with one warning per file; and which samples the read emits (UntimedSamples).
class UntimedClock {
 public:
  UntimedClock(const std::string& path, const UntimedPlacement& place, Diagnostics& diag)
      : path_(path), place_(place), origin_ns_(place.origin_ns), diag_(place.note_to ? *place.note_to : diag) {}

  // Whether a sample with (`untimed` false) or without a time goes to the sink; counts the latter.
  bool Emits(bool untimed) {
    if (untimed && place_.untimed != nullptr) ++*place_.untimed;
    switch (place_.emit) {
      case UntimedSamples::kPlace: return true;
      case UntimedSamples::kSkip: return !untimed;
      case UntimedSamples::kOnly: return untimed;
    }
    return true;
  }

  // The time of the `index`-th sample at `step_ms` steps; warns on the first call.
  int64_t At(int64_t index, int64_t step_ms, int64_t line) {
    if (!warned_) {
      warned_ = true;
      const bool given = origin_ns_ != kNoTime;
      if (!given) origin_ns_ = FileTimeNs(path_);
      const std::string note = !place_.origin_note.empty() ? place_.origin_note
                               : given                     ? std::string("--at")
                                                           : std::string("the file's modification time; set --at");
      diag_.Warn(path_, line, "",
                 Cat({"samples carry no time: placed ", std::to_string(step_ms), " ms apart from ",
                      FormatIsoTimeNs(origin_ns_), " (", note, ")"}));
    }
    return origin_ns_ + index * step_ms * 1000000;
  }

 private:
  static int64_t FileTimeNs(const std::string& path) {
    std::error_code ec;
    const auto t = std::filesystem::last_write_time(path, ec);
    if (ec) return 0;
    const auto sys = std::chrono::file_clock::to_sys(t);
    return std::chrono::duration_cast<std::chrono::nanoseconds>(sys.time_since_epoch()).count();
  }

  const std::string& path_;
  const UntimedPlacement& place_;
  int64_t origin_ns_;
  Diagnostics& diag_;
  bool warned_ = false;
};

}  // namespace

std::optional<DcgmPoint> DcgmPointOfPromSample(const formats::PromSample& sample, const std::string& fallback_host) {
  if (!formats::IsDcgmMetric(sample.name) || sample.ts_ms == kNoTime) return std::nullopt;
  const formats::DcgmPromSample d = formats::ToDcgmSample(sample);
  std::optional<DcgmPoint> out;
  const std::function<void(const DcgmPoint&)> keep = [&out](const DcgmPoint& p) { out = p; };
  NamedFieldPoints(fallback_host, keep).Emit(d.host, d.gpu, d.link, d.field, d.ts_ns, d.value, d.mig_instance);
  return out;
}

void WarnUnlinkedMigInstances(const std::string& path, int64_t line, const std::vector<formats::DmonEntity>& entities,
                              std::string_view why, Diagnostics& diag) {
  std::string names;
  for (const formats::DmonEntity& e : entities) names += (names.empty() ? "" : ", ") + formats::DmonEntityLabel(e);
  diag.Warn(path, line, "",
            Cat({std::to_string(static_cast<int64_t>(entities.size())), " MIG instance(s) (", names, "): ", why,
                 "; each kept as an entity of its own, not linked to a GPU"}));
}

Status ReadDcgmFile(const std::string& path, const std::string& host, formats::FileFormat format,
                    const std::function<void(const DcgmPoint&)>& sink, Diagnostics& diag, ReadCounts& counts,
                    int64_t untimed_origin_ns) {
  UntimedPlacement place;
  place.origin_ns = untimed_origin_ns;
  return ReadDcgmFile(path, host, format, sink, diag, counts, place);
}

Status ReadDcgmFile(const std::string& path, const std::string& host, formats::FileFormat format,
                    const std::function<void(const DcgmPoint&)>& sink, Diagnostics& diag, ReadCounts& counts,
                    const UntimedPlacement& place) {
  auto in = OpenInput(path);
  if (!in.ok()) return in.error();
  LineReader lines(std::move(*in));
  struct CountOversized {  // lines past the line limit are rejected records, on every return
    LineReader& lines;
    Diagnostics& diag;
    ReadCounts& counts;
    ~CountOversized() { RejectOversizedLines(lines, diag, counts); }
  } count_oversized{lines, diag, counts};
  UntimedClock untimed(path, place, diag);
  switch (format) {
    case formats::FileFormat::kDcgmDmon: {
      formats::DmonOptions opt;
      opt.host = host;
      std::vector<formats::DmonField> fields;
      std::set<std::string> instances;  // the GPU-I / GPU-CI labels seen
      std::vector<formats::DmonEntity> instance_entities;  // the same, in label order
      int64_t instance_line = 0;
      auto r = formats::ReadDmon(
          lines, path, opt, diag, counts,
          [&](const formats::DmonRow& row) {
            if (row.entity.kind == formats::DmonEntityKind::kGpuI || row.entity.kind == formats::DmonEntityKind::kGpuCi) {
              if (instances.insert(formats::DmonEntityLabel(row.entity)).second) {
                instance_entities.push_back(row.entity);
                if (instance_line == 0) instance_line = row.line;
              }
            }
            if (!untimed.Emits(row.ts_ns == kNoTime)) return;
            const int64_t ts_ns =
                row.ts_ns != kNoTime ? row.ts_ns : untimed.At(row.iteration, kDmonDefaultDelayMs, row.line);
            for (size_t i = 0; i < row.values.size() && i < fields.size(); ++i) {
              DcgmPoint p;
              p.host = row.host.empty() ? host : row.host;
              SetEntity(row.entity, &p);
              p.field_id = fields[i].field_id;
              p.field = fields[i].short_name;
              p.ts_ns = ts_ns;
              p.value = row.values[i];
              sink(p);
            }
          },
          [&](const formats::DmonHeader& h) { fields = h.fields; });
      // In label order, as the warning has always named them.
      std::sort(instance_entities.begin(), instance_entities.end(),
                [](const formats::DmonEntity& a, const formats::DmonEntity& b) {
                  return formats::DmonEntityLabel(a) < formats::DmonEntityLabel(b);
                });
      if (!instances.empty() && place.mig_rows != nullptr) {
        place.mig_rows->push_back({path, host, instance_line, std::move(instance_entities)});
      } else if (!instances.empty()) {
        WarnUnlinkedMigInstances(path, instance_line, instance_entities, kNoParent, diag);
      }
      if (!r.ok()) return r.error();
      return {};
    }
    case formats::FileFormat::kPrometheusText: {
      NamedFieldPoints points(host, sink);
      std::unordered_map<std::string, int64_t> scrape_index;  // samples seen per series
      auto r = formats::ReadPromText(
          lines, path,
          [&](const formats::PromSample& s) {
            if (!formats::IsDcgmMetric(s.name)) return;
            const formats::DcgmPromSample d = formats::ToDcgmSample(s);
            int64_t ts_ns = d.ts_ns;
            if (!untimed.Emits(ts_ns == kNoTime)) return;
            if (ts_ns == kNoTime) {
              const int64_t n = scrape_index[Cat({d.host, "/", std::to_string(d.gpu), "/", std::to_string(d.mig_instance),
                                                  "/", std::to_string(d.link), "/", d.field})]++;
              ts_ns = untimed.At(n, kExporterDefaultIntervalMs, 0);
            }
            points.Emit(d.host, d.gpu, d.link, d.field, ts_ns, d.value, d.mig_instance);
          },
          diag, counts);
      if (!r.ok()) return r.error();
      return {};
    }
    case formats::FileFormat::kDcgmCsv: {
      NamedFieldPoints points(host, sink);
      auto r = formats::ReadDcgmCsv(
          lines, path, [&](const formats::CsvSample& s) { points.Emit(s.host, s.gpu, -1, s.field, s.ts_ns, s.value); },
          diag, counts);
      if (!r.ok()) return r.error();
      return {};
    }
    default:
      break;
  }
  return MakeError(path, 0, 0, "not a DCGM input");
}

}  // namespace toposcope::model
