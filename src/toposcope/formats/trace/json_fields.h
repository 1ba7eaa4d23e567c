// formats/trace/json_fields: typed members of JSON objects, for the readers of JSON records (JSONL
// events here, NCCL Inspector records above).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace toposcope::formats {

// Reads integer member `key` of object `o` (a JSON integer within int64) into `out`. An absent
// member leaves `out` as it is and is fine unless `required` (then false with "missing <key>").
// Returns false with `err` = "<key> out of range" or "<key> is not an integer" on another value.
bool JsonInt(const nlohmann::json& o, const char* key, int64_t* out, std::string* err, bool required = false);

// The same for a string member; false with "<key> is not a string" on another value.
bool JsonString(const nlohmann::json& o, const char* key, std::string* out, std::string* err, bool required = false);

}  // namespace toposcope::formats
