// report/html/json_access: tolerant readers of result.json values for the report's views (a
// missing key or a value of another type gives the fallback, never an exception).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace toposcope::report::html {

inline const nlohmann::json& At(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

inline const nlohmann::json& Arr(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  const nlohmann::json& v = At(j, key);
  return v.is_array() ? v : kEmpty;
}

inline std::string Str(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = At(j, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

inline double Dbl(const nlohmann::json& j, const char* key, double fallback = NAN) {
  const nlohmann::json& v = At(j, key);
  return v.is_number() ? v.get<double>() : fallback;
}

inline int64_t Int(const nlohmann::json& j, const char* key, int64_t fallback = 0) {
  const nlohmann::json& v = At(j, key);
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number()) return static_cast<int64_t>(v.get<double>());
  return fallback;
}

inline bool Bool(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = At(j, key);
  return v.is_boolean() && v.get<bool>();
}

// `s` cut to at most `n` bytes (never inside a UTF-8 sequence), "..." appended when cut.
inline std::string Cut(std::string s, size_t n) {
  if (s.size() <= n) return s;
  size_t k = n;
  while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
  return s.substr(0, k) + "...";
}

}  // namespace toposcope::report::html
