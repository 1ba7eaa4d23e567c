// app/huge_pages: see huge_pages.h.
#include "toposcope/app/huge_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace toposcope::app {
namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb";

bool KernelHasHugePages() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line)) return false;
  return line.find("[never]") == std::string::npos;
}

}  // namespace

void PreferHugePages(char** argv) {
  if (const char* opt = std::getenv("TOPOSCOPE_HUGE_PAGES"); opt != nullptr && std::string(opt) == "0") return;
  const char* now = std::getenv("GLIBC_TUNABLES");
  std::string tunables = now != nullptr ? now : "";
  if (tunables.find(kTunable) != std::string::npos || !KernelHasHugePages()) return;
  tunables += (tunables.empty() ? "" : ":") + std::string(kTunable) + "=1";
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // The exec failed (no /proc, say): carry on as we are; the tunable left in the environment only
  // reaches child processes, which it does no harm.
}

}  // namespace toposcope::app
