#include "toposcope/model/dcgm_read.h"

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

}  // namespace

Status ReadDcgmFile(const std::string& path, const std::string& host, formats::FileFormat format,
                    const std::function<void(const DcgmPoint&)>& sink, Diagnostics& diag, ReadCounts& counts) {
  auto in = OpenInput(path);
  if (!in.ok()) return in.error();
  LineReader lines(std::move(*in));
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
      std::map<std::string, int> ids;
      auto r = formats::ReadPromText(
          lines, path,
          [&](const formats::PromSample& s) {
            if (!formats::IsDcgmMetric(s.name)) return;
            const formats::DcgmPromSample d = formats::ToDcgmSample(s);
            if (d.ts_ns == kNoTime) return;
            auto it = ids.find(d.field);
            if (it == ids.end()) it = ids.emplace(d.field, FieldId(d.field)).first;
            DcgmPoint p;
            p.host = d.host.empty() ? host : d.host;
            p.gpu = d.gpu;
            p.link = d.link;
            p.field_id = it->second;
            p.field = d.field;
            p.ts_ns = d.ts_ns;
            p.value = d.value;
            sink(p);
          },
          diag, counts);
      if (!r.ok()) return r.error();
      return {};
    }
    case formats::FileFormat::kDcgmCsv: {
      std::map<std::string, int> ids;
      auto r = formats::ReadDcgmCsv(
          lines, path,
          [&](const formats::CsvSample& s) {
            auto it = ids.find(s.field);
            if (it == ids.end()) it = ids.emplace(s.field, FieldId(s.field)).first;
            DcgmPoint p;
            p.host = s.host.empty() ? host : s.host;
            p.gpu = s.gpu;
            p.field_id = it->second;
            p.field = s.field;
            p.ts_ns = s.ts_ns;
            p.value = s.value;
            sink(p);
          },
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
