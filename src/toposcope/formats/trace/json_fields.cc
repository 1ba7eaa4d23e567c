// formats/trace/json_fields: see json_fields.h.
#include "toposcope/formats/trace/json_fields.h"

#include <limits>

namespace toposcope::formats {

using nlohmann::json;

bool JsonInt(const json& o, const char* key, int64_t* out, std::string* err, bool required) {
  auto it = o.find(key);
  if (it == o.end()) {
    if (required) *err = std::string("missing ") + key;
    return !required;
  }
  if (it->is_number_unsigned()) {
    const auto u = it->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      *err = std::string(key) + " out of range";
      return false;
    }
    *out = static_cast<int64_t>(u);
    return true;
  }
  if (it->is_number_integer()) {
    *out = it->get<int64_t>();
    return true;
  }
  *err = std::string(key) + " is not an integer";
  return false;
}

bool JsonString(const json& o, const char* key, std::string* out, std::string* err, bool required) {
  auto it = o.find(key);
  if (it == o.end()) {
    if (required) *err = std::string("missing ") + key;
    return !required;
  }
  if (!it->is_string()) {
    *err = std::string(key) + " is not a string";
    return false;
  }
  *out = it->get<std::string>();
  return true;
}

}  // namespace toposcope::formats
