// app/malloc_tunables: see malloc_tunables.h.
#include "toposcope/app/malloc_tunables.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace toposcope::app {
namespace {

bool KernelHasHugePages() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line)) return false;
  return line.find("[never]") == std::string::npos;
}

bool EnvIs(const char* env, const char* value) {
  const char* v = std::getenv(env);
  return v != nullptr && std::string(v) == value;
}

bool TurnedOff(const char* env) { return EnvIs(env, "0"); }

}  // namespace

bool FreePagesReportedToHost(const std::string& balloon_driver_dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(balloon_driver_dir, ec)) {
    std::ifstream f(entry.path() / "features");
    std::string bits;
    if (std::getline(f, bits) && bits.size() > 5 && bits[5] == '1') return true;
  }
  return false;
}

void TuneMalloc(char** argv) {
  struct Tunable {
    const char* name;
    const char* value;
    bool wanted;
  };
  const bool huge = !TurnedOff("TOPOSCOPE_HUGE_PAGES") && KernelHasHugePages() &&
                    (EnvIs("TOPOSCOPE_HUGE_PAGES", "1") || !FreePagesReportedToHost());
  const bool cache = !TurnedOff("TOPOSCOPE_MALLOC_CACHE");
  const Tunable wanted[] = {
      {"glibc.malloc.hugetlb", "1", huge},
      {"glibc.malloc.tcache_count", "256", cache},
      {"glibc.malloc.mxfast", "0", cache},
  };
  const char* now = std::getenv("GLIBC_TUNABLES");
  std::string tunables = now != nullptr ? now : "";
  bool added = false;
  for (const Tunable& t : wanted) {
    if (!t.wanted || tunables.find(t.name) != std::string::npos) continue;
    tunables += (tunables.empty() ? "" : ":") + std::string(t.name) + "=" + t.value;
    added = true;
  }
  if (!added || setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // The exec failed (no /proc, say): carry on as we are; the tunables left in the environment only
  // reach child processes, which they do no harm.
}

}  // namespace toposcope::app
