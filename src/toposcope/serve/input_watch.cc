// serve/input_watch: input fingerprints and the change detector (see input_watch.h).
#include "toposcope/serve/input_watch.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <system_error>

#include "toposcope/base/hash.h"

namespace toposcope::serve {
namespace {

namespace fs = std::filesystem;

struct FileStamp {
  std::string path;
  uintmax_t size = 0;
  int64_t mtime_ns = 0;
  bool operator<(const FileStamp& o) const { return path < o.path; }
};

uint64_t Fold(uint64_t h, const std::string& bytes) {
  for (const char c : bytes) h = Fnv1aByte(h, static_cast<uint8_t>(c));
  return h;
}

bool Under(const fs::path& p, const fs::path& dir) {
  if (dir.empty()) return false;
  auto d = dir.begin();
  for (auto it = p.begin(); it != p.end() && d != dir.end(); ++it, ++d) {
    if (*it != *d) return false;
  }
  return d == dir.end();
}

void AddFile(const fs::path& p, std::vector<FileStamp>& out) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(p, ec);
  if (ec) return;
  const auto t = fs::last_write_time(p, ec);
  if (ec) return;
  out.push_back({p.string(), size,
                 static_cast<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count())});
}

}  // namespace

InputFingerprint FingerprintInputs(const std::vector<std::string>& paths, const std::string& exclude_dir) {
  std::error_code ec;
  const fs::path exclude = exclude_dir.empty() ? fs::path() : fs::weakly_canonical(exclude_dir, ec);
  std::vector<FileStamp> stamps;
  uint64_t h = kFnv1aOffsetBasis;
  for (const std::string& p : paths) {
    const fs::path root = fs::weakly_canonical(p, ec);
    if (ec || !fs::exists(root, ec)) {
      h = Fold(h, "missing:" + p + "\n");
      continue;
    }
    if (!fs::is_directory(root, ec)) {
      AddFile(root, stamps);
      continue;
    }
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const fs::path q = it->path();
      if (Under(q, exclude)) {
        if (it->is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file(ec)) AddFile(q, stamps);
    }
    ec.clear();
  }
  std::sort(stamps.begin(), stamps.end());
  for (const FileStamp& s : stamps) {
    h = Fold(h, s.path + "\n" + std::to_string(s.size) + " " + std::to_string(s.mtime_ns) + "\n");
  }
  return {h, static_cast<int64_t>(stamps.size())};
}

bool ChangeDetector::Poll(const InputFingerprint& now) {
  const bool settled = now == last_;
  last_ = now;
  return settled && !(now == analysed_);
}

}  // namespace toposcope::serve
