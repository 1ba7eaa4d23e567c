// Fuzz target: format detection plus the whole loading path (every reader, folding into the model).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "toposcope/model/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/toposcope-load-fuzz-XXXXXX";
    const char* d = mkdtemp(tmpl);
    return std::string(d != nullptr ? d : "/tmp");
  }();
  const std::string path = dir + "/input.txt";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  auto ds = toposcope::model::LoadPaths({path}, {});
  if (!ds.ok()) return 0;
  for (const auto& in : ds->inputs) {
    if (in.rejected > in.records) __builtin_trap();
  }
  return 0;
}
