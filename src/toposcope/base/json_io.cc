#include "toposcope/base/json_io.h"

namespace toposcope {

void EncodeFields(json_io::Json& j, const Diagnostic& d) {
  json_io::Put(j, "severity", d.severity);
  json_io::Put(j, "source", d.source);
  json_io::Put(j, "line", d.line);
  json_io::Put(j, "byte_offset", d.byte_offset);
  json_io::Put(j, "raw", d.raw);
  json_io::Put(j, "reason", d.reason);
}

void DecodeFields(const json_io::Json& j, Diagnostic& d) {
  json_io::Get(j, "severity", d.severity);
  json_io::Get(j, "source", d.source);
  json_io::Get(j, "line", d.line);
  json_io::Get(j, "byte_offset", d.byte_offset);
  json_io::Get(j, "raw", d.raw);
  json_io::Get(j, "reason", d.reason);
}

void EncodeFields(json_io::Json& j, const ReadCounts& c) {
  json_io::Put(j, "read", c.read);
  json_io::Put(j, "accepted", c.accepted);
  json_io::Put(j, "rejected", c.rejected);
}

void DecodeFields(const json_io::Json& j, ReadCounts& c) {
  json_io::Get(j, "read", c.read);
  json_io::Get(j, "accepted", c.accepted);
  json_io::Get(j, "rejected", c.rejected);
}

void EncodeFields(json_io::Json& j, const Diagnostics& d) {
  json_io::Put(j, "items", d.items());
  json_io::Put(j, "rejected_total", d.rejected_total());
  json_io::Put(j, "warnings_total", d.warnings_total());
  json_io::Put(j, "rejected_per_source", d.rejected_per_source());
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
