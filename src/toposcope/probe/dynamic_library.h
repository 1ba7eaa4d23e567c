// probe/dynamic_library: a shared library opened at run time (dlopen) and its symbols. The GPU
// probes load CUDA's runtime and NVML this way, so toposcope builds, and its tests run, on
// machines without a GPU driver or toolkit; tests load small fakes of the same C functions.
#pragma once

#include <string>
#include <vector>

#include "toposcope/base/result.h"

namespace toposcope::probe {

class DynamicLibrary {
 public:
  DynamicLibrary() = default;
  ~DynamicLibrary();
  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  // Opens the first of `candidates` that loads (names go through the loader's search path, paths
  // with a '/' are opened as given). Fails naming every candidate and the loader's reason for each.
  static Result<DynamicLibrary> Open(const std::vector<std::string>& candidates, const std::string& what);

  // The address of `symbol`, or nullptr when the library does not export it.
  [[nodiscard]] void* Find(const char* symbol) const;
  // The same, typed; fails naming the library and the symbol when it is missing.
  template <class Fn>
  Status Bind(const char* symbol, Fn* out) const {
    void* p = Find(symbol);
    if (p == nullptr) return MissingSymbol(symbol);
    *out = reinterpret_cast<Fn>(p);
    return {};
  }
  // The same, leaving *out null when the symbol is missing (optional entry points).
  template <class Fn>
  void BindOptional(const char* symbol, Fn* out) const {
    *out = reinterpret_cast<Fn>(Find(symbol));
  }

  // The file that was opened (the candidate as given).
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] bool loaded() const { return handle_ != nullptr; }

 private:
  [[nodiscard]] Error MissingSymbol(const char* symbol) const;
  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace toposcope::probe
