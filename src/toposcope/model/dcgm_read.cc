// model/dcgm_read: see dcgm_read.h.
#include "toposcope/model/dcgm_read.h"

#include <map>

#include "toposcope/base/file_io.h"
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

// Emits the samples of readers that name their fields (scrapes, CSV), looking each name up in the
// field catalog once.
class NamedFieldPoints {
 public:
  NamedFieldPoints(const std::string& host, const std::function<void(const DcgmPoint&)>& sink)
      : host_(host), sink_(sink) {}

  // One sample; a sample without a host takes the file's.
  void Emit(const std::string& host, int gpu, int link, const std::string& field, int64_t ts_ns, double value) {
    auto it = ids_.find(field);
    if (it == ids_.end()) it = ids_.emplace(field, FieldId(field)).first;
    DcgmPoint p;
    p.host = host.empty() ? host_ : host;
    p.gpu = gpu;
    p.link = link;
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

}  // namespace

Status ReadDcgmFile(const std::string& path, const std::string& host, formats::FileFormat format,
                    const std::function<void(const DcgmPoint&)>& sink, Diagnostics& diag, ReadCounts& counts) {
  auto in = OpenInput(path);
  if (!in.ok()) return in.error();
  LineReader lines(std::move(*in));
  struct CountOversized {  // lines past the line limit are rejected records, on every return
    LineReader& lines;
    Diagnostics& diag;
    ReadCounts& counts;
    ~CountOversized() { RejectOversizedLines(lines, diag, counts); }
  } count_oversized{lines, diag, counts};
  switch (format) {
    case formats::FileFormat::kDcgmDmon: {
      formats::DmonOptions opt;
      opt.host = host;
      std::vector<formats::DmonField> fields;
      auto r = formats::ReadDmon(
          lines, path, opt, diag, counts,
          [&](const formats::DmonRow& row) {
            if (row.ts_ns == kNoTime) return;
            for (size_t i = 0; i < row.values.size() && i < fields.size(); ++i) {
              DcgmPoint p;
              p.host = row.host.empty() ? host : row.host;
              p.gpu = row.entity.id;
              p.link = row.entity.link;
              p.field_id = fields[i].field_id;
              p.field = fields[i].short_name;
              p.ts_ns = row.ts_ns;
              p.value = row.values[i];
              sink(p);
            }
          },
          [&](const formats::DmonHeader& h) { fields = h.fields; });
      if (!r.ok()) return r.error();
      return {};
    }
    case formats::FileFormat::kPrometheusText: {
      NamedFieldPoints points(host, sink);
      auto r = formats::ReadPromText(
          lines, path,
          [&](const formats::PromSample& s) {
            if (!formats::IsDcgmMetric(s.name)) return;
            const formats::DcgmPromSample d = formats::ToDcgmSample(s);
            if (d.ts_ns == kNoTime) return;
            points.Emit(d.host, d.gpu, d.link, d.field, d.ts_ns, d.value);
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
