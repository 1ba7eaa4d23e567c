// probe/dynamic_library: dlopen/dlsym behind a move-only handle.
#include "toposcope/probe/dynamic_library.h"

#include <dlfcn.h>

#include <utility>

namespace toposcope::probe {

DynamicLibrary::~DynamicLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

Result<DynamicLibrary> DynamicLibrary::Open(const std::vector<std::string>& candidates, const std::string& what) {
  std::string tried;
  for (const std::string& c : candidates) {
    if (c.empty()) continue;
    void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h != nullptr) {
      DynamicLibrary lib;
      lib.handle_ = h;
      lib.path_ = c;
      return lib;
    }
    const char* why = dlerror();
    if (!tried.empty()) tried += "; ";
    tried += why != nullptr ? std::string(why) : c + ": not loadable";
  }
  return MakeError("cannot load " + what + (tried.empty() ? std::string(": no candidate given") : ": " + tried),
                   "install the driver / toolkit, or name the library's path with the command's option");
}

void* DynamicLibrary::Find(const char* symbol) const {
  if (handle_ == nullptr) return nullptr;
  return dlsym(handle_, symbol);
}

Error DynamicLibrary::MissingSymbol(const char* symbol) const {
  return MakeError(path_ + " does not export " + symbol, "the library is too old or not the one expected");
}

}  // namespace toposcope::probe
