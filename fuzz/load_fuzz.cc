// Fuzz target: format detection plus the whole loading path (every reader, folding into the model).
// LoadPaths reads files, so each input is written to one file first: in /dev/shm when there is one
// (memory, not disk: a write to disk per execution made this target I/O-bound), rewritten in place
// through one descriptor kept open.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "toposcope/model/dataset.h"

namespace {

// The directory for the input file: a new one under /dev/shm, else under /tmp (removed at exit).
std::string InputDir() {
  struct stat st{};
  const bool shm = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0;
  std::string tmpl = shm ? "/dev/shm/toposcope-load-fuzz-XXXXXX" : "/tmp/toposcope-load-fuzz-XXXXXX";
  const char* d = mkdtemp(tmpl.data());
  if (d == nullptr) return "/tmp";
  static std::string made;
  made = d;
  std::atexit([] {
    (void)unlink((made + "/input.txt").c_str());
    (void)rmdir(made.c_str());
  });
  return made;
}

// Replaces the file's contents with data[0, size); false when the write fails.
bool Rewrite(int fd, const uint8_t* data, size_t size) {
  if (ftruncate(fd, 0) != 0) return false;
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = InputDir() + "/input.txt";
  static const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0 || !Rewrite(fd, data, size)) return 0;
  auto ds = toposcope::model::LoadPaths({path}, {});
  if (!ds.ok()) return 0;
  for (const auto& in : ds->inputs) {
    if (in.rejected > in.records) __builtin_trap();
  }
  return 0;
}
