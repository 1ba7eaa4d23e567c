// base/result: Result<T> and Error, the library's error type.
// Errors print as `path:line:col: error: message (hint)`. No exceptions cross the public API.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace toposcope {

// What kind of failure an Error is: the CLI maps each kind to one exit code (tools/toposcope).
enum class ErrorKind {
  kInput,     // an input cannot be read or is not what it must be (the default)
  kUsage,     // the request itself is invalid: an option value, a combination of options
  kOutput,    // an output cannot be written
  kInternal,  // anything else: a bug
};

// "input", "usage", "output", "internal".
std::string_view ErrorKindName(ErrorKind k);

struct Error {
  std::string path;      // file the error is about; empty when none
  int64_t line = 0;      // 1-based; 0 = unknown
  int64_t col = 0;       // 1-based; 0 = unknown
  std::string message;   // what went wrong
  std::string hint;      // what to do about it; may be empty
  ErrorKind kind = ErrorKind::kInput;

  // `path:line:col: error: message (hint)`, leaving out the parts that are unknown.
  [[nodiscard]] std::string ToString() const;
};

// Builds an Error with just a message and an optional hint.
Error MakeError(std::string message, std::string hint = {});
// Builds an Error positioned in a file.
Error MakeError(std::string path, int64_t line, int64_t col, std::string message, std::string hint = {});
// Builds an Error of a given kind (kUsage, kOutput, kInternal; MakeError gives kInput).
Error MakeKindError(ErrorKind kind, std::string message, std::string hint = {});
// The same error, of another kind (e.g. a reader's error that is the caller's output problem).
Error WithKind(Error e, ErrorKind kind);

// Either a value or an Error. Modelled on std::expected.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}      // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  [[nodiscard]] const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Result for operations that return nothing.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  [[nodiscard]] const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace toposcope
