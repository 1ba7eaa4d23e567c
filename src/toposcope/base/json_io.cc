#include "toposcope/base/json_io.h"

namespace toposcope::json_io {

std::string DumpText(const Json& j, int indent) { return j.dump(indent, ' ', false, Json::error_handler_t::replace); }

}  // namespace toposcope::json_io

namespace toposcope {

TOPOSCOPE_JSON_FIELDS(Diagnostic, severity, source, line, byte_offset, raw, reason)
TOPOSCOPE_JSON_FIELDS(ReadCounts, read, accepted, rejected)

void EncodeFields(json_io::Json& j, const Diagnostics& d) {
  json_io::Put(j, "items", d.items());
  json_io::Put(j, "rejected_total", d.rejected_total());
  json_io::Put(j, "warnings_total", d.warnings_total());
  json_io::Put(j, "rejected_per_source", d.rejected_per_source());
}

void PackFields(json_io::Packer& p, const Diagnostics& d) {
  json_io::Pack(p, d.items());
  json_io::Pack(p, d.rejected_total());
  json_io::Pack(p, d.warnings_total());
  json_io::Pack(p, d.rejected_per_source());
}

void UnpackFields(json_io::Unpacker& u, Diagnostics& d) {
  std::vector<Diagnostic> items;
  int64_t rejected = 0, warnings = 0;
  std::vector<std::pair<std::string, int64_t>> per_source;
  json_io::Unpack(u, items);
  json_io::Unpack(u, rejected);
  json_io::Unpack(u, warnings);
  json_io::Unpack(u, per_source);
  d = Diagnostics();
  d.Absorb(items, rejected, warnings, per_source);
}

void DecodeFields(const json_io::Json& j, Diagnostics& d) {
  std::vector<Diagnostic> items;
  int64_t rejected = 0, warnings = 0;
  std::vector<std::pair<std::string, int64_t>> per_source;
  json_io::Get(j, "items", items);
  json_io::Get(j, "rejected_total", rejected);
  json_io::Get(j, "warnings_total", warnings);
  json_io::Get(j, "rejected_per_source", per_source);
  d = Diagnostics();
  d.Absorb(items, rejected, warnings, per_source);
}

}  // namespace toposcope
