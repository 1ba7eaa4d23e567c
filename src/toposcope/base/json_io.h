// base/json_io: lossless JSON for plain data, so that what one stage computed can be dumped to a file
// and loaded back by another (the pass dumps of analysis/pipeline, the dataset dump of model/).
// Unlike result.json, which is rendered for people with fixed precision, this keeps every value
// exactly: doubles round-trip bit for bit (NaN and infinities as "nan", "inf", "-inf"), enums as
// their integer value, maps with non-string keys as [key, value] pairs.
//
// A struct becomes dumpable with one line in its namespace, naming its fields:
//   TOPOSCOPE_JSON_FIELDS(LinkReport, a, b, type, lanes)
// (or TOPOSCOPE_JSON_DECLARE(Type) in a header and TOPOSCOPE_JSON_FIELDS in one .cc). Encode(v)
// and Decode(j, v) then handle it and every container of it.
//
// The same field lists give a compact binary form, Pack(packer, v) / Unpack(unpacker, v), for
// handing a value to another process of the same build (model/dataset_wire, the MPI parts):
// fields in list order without names, numbers as their bytes (doubles bit for bit), strings and
// containers after a 64-bit count. Not a file format: nothing in it says which build wrote it.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/ip_address.h"
#include "toposcope/base/result.h"

namespace toposcope::json_io {

using Json = nlohmann::json;

// Thrown while decoding; never crosses an API: the entry points that load a file catch it
// (FromJsonText) and return an Error.
class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <class T>
Json Encode(const T& v);
template <class T>
void Decode(const Json& j, T& v);

namespace internal {

template <class T>
struct IsPair : std::false_type {};
template <class A, class B>
struct IsPair<std::pair<A, B>> : std::true_type {};
template <class T>
struct IsTuple : std::false_type {};
template <class... A>
struct IsTuple<std::tuple<A...>> : std::true_type {};
template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsStdArray : std::false_type {};
template <class T, size_t N>
struct IsStdArray<std::array<T, N>> : std::true_type {};

template <class T>
concept MapLike = requires { typename T::key_type; typename T::mapped_type; };
template <class T>
concept SetLike = requires { typename T::key_type; } && !MapLike<T>;
template <class T>
concept VectorLike = requires(T t) {
  typename T::value_type;
  t.push_back(std::declval<typename T::value_type>());
} && !std::is_same_v<T, std::string>;

[[noreturn]] inline void Fail(const std::string& what, const Json& j) {
  throw DecodeError(what + ", got " + std::string(j.type_name()));
}

}  // namespace internal

template <class T>
Json Encode(const T& v) {
  using namespace internal;  // NOLINT(google-build-using-namespace)
  if constexpr (std::is_same_v<T, bool>) {
    return Json(v);
  } else if constexpr (std::is_enum_v<T>) {
    return Json(static_cast<int64_t>(v));
  } else if constexpr (std::is_integral_v<T>) {
    return Json(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return Json("nan");
    if (std::isinf(v)) return Json(v > 0 ? "inf" : "-inf");
    return Json(static_cast<double>(v));
  } else if constexpr (std::is_same_v<T, std::string>) {
    return Json(v);
  } else if constexpr (std::is_same_v<T, IpAddress>) {
    return Json(v.ToString());
  } else if constexpr (IsOptional<T>::value) {
    return v ? Encode(*v) : Json(nullptr);
  } else if constexpr (IsPair<T>::value) {
    return Json::array({Encode(v.first), Encode(v.second)});
  } else if constexpr (IsTuple<T>::value) {
    Json out = Json::array();
    std::apply([&out](const auto&... e) { (out.push_back(Encode(e)), ...); }, v);
    return out;
  } else if constexpr (MapLike<T>) {
    if constexpr (std::is_same_v<typename T::key_type, std::string>) {
      Json out = Json::object();
      for (const auto& [k, e] : v) out[k] = Encode(e);
      return out;
    } else {
      Json out = Json::array();
      for (const auto& [k, e] : v) out.push_back(Json::array({Encode(k), Encode(e)}));
      return out;
    }
  } else if constexpr (SetLike<T> || VectorLike<T> || IsStdArray<T>::value) {
    Json out = Json::array();
    for (const auto& e : v) out.push_back(Encode(e));
    return out;
  } else {
    Json out = Json::object();
    EncodeFields(out, v);  // found by argument-dependent lookup: TOPOSCOPE_JSON_FIELDS(T, ...)
    return out;
  }
}

template <class T>
void Decode(const Json& j, T& v) {
  using namespace internal;  // NOLINT(google-build-using-namespace)
  if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) Fail("expected a boolean", j);
    v = j.get<bool>();
  } else if constexpr (std::is_enum_v<T>) {
    if (!j.is_number_integer()) Fail("expected an enum value", j);
    v = static_cast<T>(j.get<int64_t>());
  } else if constexpr (std::is_integral_v<T>) {
    if (!j.is_number_integer()) Fail("expected an integer", j);
    if constexpr (std::is_unsigned_v<T>) {
      if (j.is_number_unsigned()) {
        v = static_cast<T>(j.get<uint64_t>());
      } else {
        if (j.get<int64_t>() < 0) Fail("expected a non-negative integer", j);
        v = static_cast<T>(j.get<int64_t>());
      }
    } else {
      v = static_cast<T>(j.get<int64_t>());
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    if (j.is_number()) {
      v = static_cast<T>(j.get<double>());
    } else if (j.is_string() && j.get<std::string>() == "nan") {
      v = std::numeric_limits<T>::quiet_NaN();
    } else if (j.is_string() && j.get<std::string>() == "inf") {
      v = std::numeric_limits<T>::infinity();
    } else if (j.is_string() && j.get<std::string>() == "-inf") {
      v = -std::numeric_limits<T>::infinity();
    } else {
      Fail("expected a number", j);
    }
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) Fail("expected a string", j);
    v = j.get<std::string>();
  } else if constexpr (std::is_same_v<T, IpAddress>) {
    if (!j.is_string()) Fail("expected an IP address", j);
    const std::optional<IpAddress> ip = IpAddress::Parse(j.get<std::string>());
    if (!ip) Fail("expected an IP address", j);
    v = *ip;
  } else if constexpr (IsOptional<T>::value) {
    if (j.is_null()) {
      v.reset();
    } else {
      typename T::value_type e = typename T::value_type();
      Decode(j, e);
      v = std::move(e);
    }
  } else if constexpr (IsPair<T>::value) {
    if (!j.is_array() || j.size() != 2) Fail("expected a [first, second] pair", j);
    Decode(j[0], v.first);
    Decode(j[1], v.second);
  } else if constexpr (IsTuple<T>::value) {
    if (!j.is_array() || j.size() != std::tuple_size_v<T>) Fail("expected a tuple", j);
    size_t i = 0;
    std::apply([&](auto&... e) { (Decode(j[i++], e), ...); }, v);
  } else if constexpr (MapLike<T>) {
    v.clear();
    if constexpr (std::is_same_v<typename T::key_type, std::string>) {
      if (!j.is_object()) Fail("expected an object", j);
      for (auto it = j.begin(); it != j.end(); ++it) Decode(it.value(), v[it.key()]);
    } else {
      if (!j.is_array()) Fail("expected an array of [key, value] pairs", j);
      for (const Json& e : j) {
        if (!e.is_array() || e.size() != 2) Fail("expected a [key, value] pair", e);
        typename T::key_type k = typename T::key_type();
        Decode(e[0], k);
        Decode(e[1], v[k]);
      }
    }
  } else if constexpr (SetLike<T>) {
    if (!j.is_array()) Fail("expected an array", j);
    v.clear();
    for (const Json& e : j) {
      typename T::key_type k = typename T::key_type();
      Decode(e, k);
      v.insert(std::move(k));
    }
  } else if constexpr (IsStdArray<T>::value) {
    if (!j.is_array() || j.size() != v.size()) Fail("expected an array of " + std::to_string(v.size()), j);
    for (size_t i = 0; i < v.size(); ++i) Decode(j[i], v[i]);
  } else if constexpr (VectorLike<T>) {
    if (!j.is_array()) Fail("expected an array", j);
    v.clear();
    v.reserve(j.size());
    for (const Json& e : j) {
      typename T::value_type x = typename T::value_type();
      Decode(e, x);
      v.push_back(std::move(x));
    }
  } else {
    if (!j.is_object()) Fail("expected an object", j);
    DecodeFields(j, v);  // found by argument-dependent lookup: TOPOSCOPE_JSON_FIELDS(T, ...)
  }
}

// The bytes Pack writes.
class Packer {
 public:
  void Raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  template <class T>
  void Scalar(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    Raw(&v, sizeof v);
  }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

// The bytes Unpack reads; throws DecodeError when they end early or a count cannot be right.
class Unpacker {
 public:
  explicit Unpacker(std::string_view in) : in_(in) {}
  void Raw(void* p, size_t n) {
    if (in_.size() - pos_ < n) throw DecodeError("the bytes end early");
    if (n > 0) std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
  }
  template <class T>
  T Scalar() {
    T v;
    Raw(&v, sizeof v);
    return v;
  }
  // A count of things that take at least one byte each.
  size_t Count() {
    const auto n = Scalar<uint64_t>();
    if (n > in_.size() - pos_) throw DecodeError("a count of " + std::to_string(n) + " past the bytes left");
    return static_cast<size_t>(n);
  }
  [[nodiscard]] bool done() const { return pos_ == in_.size(); }
  // For readers of their own codings: the bytes not read yet, and moving past `n` of them.
  [[nodiscard]] std::string_view rest() const { return in_.substr(pos_); }
  void Skip(size_t n) {
    if (in_.size() - pos_ < n) throw DecodeError("the bytes end early");
    pos_ += n;
  }
  [[nodiscard]] size_t position() const { return pos_; }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

template <class T>
void Pack(Packer& p, const T& v) {
  using namespace internal;  // NOLINT(google-build-using-namespace)
  if constexpr (std::is_same_v<T, bool>) {
    p.Scalar<uint8_t>(v ? 1 : 0);
  } else if constexpr (std::is_enum_v<T>) {
    p.Scalar<int64_t>(static_cast<int64_t>(v));
  } else if constexpr (std::is_arithmetic_v<T>) {
    p.Scalar<T>(v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    p.Scalar<uint64_t>(v.size());
    p.Raw(v.data(), v.size());
  } else if constexpr (std::is_same_v<T, IpAddress>) {
    uint8_t b[17] = {0};
    b[0] = v.is_v6() ? 1 : 0;
    std::memcpy(b + 1, v.bytes().data(), v.bytes().size());
    p.Raw(b, sizeof b);
  } else if constexpr (IsOptional<T>::value) {
    p.Scalar<uint8_t>(v ? 1 : 0);
    if (v) Pack(p, *v);
  } else if constexpr (IsPair<T>::value) {
    Pack(p, v.first);
    Pack(p, v.second);
  } else if constexpr (IsTuple<T>::value) {
    std::apply([&p](const auto&... e) { (Pack(p, e), ...); }, v);
  } else if constexpr (MapLike<T>) {
    p.Scalar<uint64_t>(v.size());
    for (const auto& [k, e] : v) {
      Pack(p, k);
      Pack(p, e);
    }
  } else if constexpr (SetLike<T> || VectorLike<T> || IsStdArray<T>::value) {
    p.Scalar<uint64_t>(v.size());
    for (const auto& e : v) Pack(p, e);
  } else {
    PackFields(p, v);  // found by argument-dependent lookup: TOPOSCOPE_JSON_FIELDS(T, ...)
  }
}

template <class T>
void Unpack(Unpacker& u, T& v) {
  using namespace internal;  // NOLINT(google-build-using-namespace)
  if constexpr (std::is_same_v<T, bool>) {
    v = u.Scalar<uint8_t>() != 0;
  } else if constexpr (std::is_enum_v<T>) {
    v = static_cast<T>(u.Scalar<int64_t>());
  } else if constexpr (std::is_arithmetic_v<T>) {
    v = u.Scalar<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    v.resize(u.Count());
    u.Raw(v.data(), v.size());
  } else if constexpr (std::is_same_v<T, IpAddress>) {
    uint8_t b[17];
    u.Raw(b, sizeof b);
    v = b[0] != 0 ? IpAddress::V6(b + 1) : IpAddress::V4(b + 1);
  } else if constexpr (IsOptional<T>::value) {
    if (u.Scalar<uint8_t>() == 0) {
      v.reset();
    } else {
      typename T::value_type e = typename T::value_type();
      Unpack(u, e);
      v = std::move(e);
    }
  } else if constexpr (IsPair<T>::value) {
    Unpack(u, v.first);
    Unpack(u, v.second);
  } else if constexpr (IsTuple<T>::value) {
    std::apply([&u](auto&... e) { (Unpack(u, e), ...); }, v);
  } else if constexpr (MapLike<T>) {
    v.clear();
    const size_t n = u.Count();
    for (size_t i = 0; i < n; ++i) {
      typename T::key_type k = typename T::key_type();
      Unpack(u, k);
      Unpack(u, v[k]);
    }
  } else if constexpr (SetLike<T>) {
    v.clear();
    const size_t n = u.Count();
    for (size_t i = 0; i < n; ++i) {
      typename T::key_type k = typename T::key_type();
      Unpack(u, k);
      v.insert(std::move(k));
    }
  } else if constexpr (IsStdArray<T>::value) {
    if (u.Count() != v.size()) throw DecodeError("expected an array of " + std::to_string(v.size()));
    for (auto& e : v) Unpack(u, e);
  } else if constexpr (VectorLike<T>) {
    v.clear();
    const size_t n = u.Count();
    v.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      typename T::value_type x = typename T::value_type();
      Unpack(u, x);
      v.push_back(std::move(x));
    }
  } else {
    UnpackFields(u, v);  // found by argument-dependent lookup: TOPOSCOPE_JSON_FIELDS(T, ...)
  }
}

// The value as Pack's bytes.
template <class T>
std::string ToPackedBytes(const T& v) {
  Packer p;
  Pack(p, v);
  return std::move(p.out());
}

// The value of ToPackedBytes' bytes (`source` names them in errors). Fails when the bytes end
// early, hold an impossible count, or go on after the value; never throws.
template <class T>
Result<T> FromPackedBytes(std::string_view bytes, const std::string& source) {
  try {
    Unpacker u(bytes);
    T v = T();
    Unpack(u, v);
    if (!u.done()) return MakeError(source, 0, 0, "bytes left over after the value");
    return v;
  } catch (const std::exception& e) {
    return MakeError(source, 0, 0, std::string("unexpected content: ") + e.what());
  }
}

// Writes one field. Used by TOPOSCOPE_JSON_FIELDS.
template <class T>
void Put(Json& j, const char* name, const T& v) {
  j[name] = Encode(v);
}

// Reads one field; a missing field keeps its default. Used by TOPOSCOPE_JSON_FIELDS.
template <class T>
void Get(const Json& j, const char* name, T& v) {
  auto it = j.find(name);
  if (it == j.end()) return;
  try {
    Decode(*it, v);
  } catch (const DecodeError& e) {
    throw DecodeError(std::string(name) + ": " + e.what());
  }
}

// Parses `text` (named `source` in errors) and decodes it into a T. Fails with an Error naming the
// source on malformed JSON or on a value of the wrong shape; never throws.
template <class T>
Result<T> FromJsonText(std::string_view text, const std::string& source) {
  try {
    const Json j = Json::parse(text);
    T v = T();
    Decode(j, v);
    return v;
  } catch (const Json::parse_error& e) {
    return MakeError(source, 0, 0, std::string("not valid JSON: ") + e.what());
  } catch (const DecodeError& e) {
    return MakeError(source, 0, 0, std::string("unexpected content: ") + e.what());
  } catch (const std::exception& e) {
    return MakeError(source, 0, 0, std::string("unexpected content: ") + e.what());
  }
}

// Returns `j` as JSON text (`indent` as in nlohmann's dump: -1 compact, n spaces a level). Never
// throws: a string that is not valid UTF-8 (raw input text in a diagnostic, a name read from a file)
// has each invalid byte replaced by U+FFFD.
std::string DumpText(const Json& j, int indent = -1);

// The value as compact JSON text (deterministic: object keys sorted). Never throws (see DumpText).
template <class T>
std::string ToJsonText(const T& v) {
  return DumpText(Encode(v));
}

}  // namespace toposcope::json_io

namespace toposcope {

// Dump functions of the base types (found by argument-dependent lookup). Diagnostics keep their
// kept items and their exact totals.
void EncodeFields(json_io::Json& j, const Diagnostic& d);
void DecodeFields(const json_io::Json& j, Diagnostic& d);
void EncodeFields(json_io::Json& j, const ReadCounts& c);
void DecodeFields(const json_io::Json& j, ReadCounts& c);
void EncodeFields(json_io::Json& j, const Diagnostics& d);
void DecodeFields(const json_io::Json& j, Diagnostics& d);
void PackFields(json_io::Packer& p, const Diagnostic& d);
void UnpackFields(json_io::Unpacker& u, Diagnostic& d);
void PackFields(json_io::Packer& p, const ReadCounts& c);
void UnpackFields(json_io::Unpacker& u, ReadCounts& c);
void PackFields(json_io::Packer& p, const Diagnostics& d);
void UnpackFields(json_io::Unpacker& u, Diagnostics& d);

}  // namespace toposcope

#define TOPOSCOPE_JSON_PUT_FIELD(f) ::toposcope::json_io::Put(j, #f, t.f);
#define TOPOSCOPE_JSON_GET_FIELD(f) ::toposcope::json_io::Get(j, #f, t.f);
#define TOPOSCOPE_PACK_FIELD(f) ::toposcope::json_io::Pack(p, t.f);
#define TOPOSCOPE_UNPACK_FIELD(f) ::toposcope::json_io::Unpack(u, t.f);

// Declares the dump functions of a type (in a header, in the type's namespace).
#define TOPOSCOPE_JSON_DECLARE(Type)                                  \
  void EncodeFields(::toposcope::json_io::Json& j, const Type& t);    \
  void DecodeFields(const ::toposcope::json_io::Json& j, Type& t);    \
  void PackFields(::toposcope::json_io::Packer& p, const Type& t);    \
  void UnpackFields(::toposcope::json_io::Unpacker& u, Type& t)

// Defines the dump functions of a type from its field names (in the type's namespace).
#define TOPOSCOPE_JSON_FIELDS(Type, ...)                                                                       \
  void EncodeFields(::toposcope::json_io::Json& j, const Type& t) {                                           \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(TOPOSCOPE_JSON_PUT_FIELD, __VA_ARGS__))                          \
  }                                                                                                            \
  void DecodeFields(const ::toposcope::json_io::Json& j, Type& t) {                                           \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(TOPOSCOPE_JSON_GET_FIELD, __VA_ARGS__))                          \
  }                                                                                                            \
  void PackFields(::toposcope::json_io::Packer& p, const Type& t) {                                           \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(TOPOSCOPE_PACK_FIELD, __VA_ARGS__))                              \
  }                                                                                                            \
  void UnpackFields(::toposcope::json_io::Unpacker& u, Type& t) {                                             \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(TOPOSCOPE_UNPACK_FIELD, __VA_ARGS__))                            \
  }
