// serve/input_watch: notices when the server's inputs change. A fingerprint is a hash of every
// regular file's path, size and modification time under the watched paths (directories walked
// recursively, one folder left out: the server's own output directory); the server polls it and
// re-analyses when it changed and then held still for one poll (a file still being written is not
// read half-way).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace toposcope::serve {

struct InputFingerprint {
  uint64_t hash = 0;
  int64_t files = 0;
  bool operator==(const InputFingerprint&) const = default;
};

// The fingerprint of `paths` (files or directories; a missing one counts as missing, an unreadable
// directory entry is skipped), leaving out everything under `exclude_dir` (empty: nothing). Never
// fails.
InputFingerprint FingerprintInputs(const std::vector<std::string>& paths, const std::string& exclude_dir);

// Decides, one poll at a time, when to re-analyse: after a change that the next poll sees unchanged.
class ChangeDetector {
 public:
  // `analysed`: the fingerprint taken just before the analysis being served.
  explicit ChangeDetector(InputFingerprint analysed) : analysed_(analysed), last_(analysed) {}
  // Feeds one poll's fingerprint; true when it differs from the analysed one and equals the
  // previous poll's (then the caller re-analyses and calls Analysed).
  bool Poll(const InputFingerprint& now);
  void Analysed(const InputFingerprint& fp) { analysed_ = last_ = fp; }

 private:
  InputFingerprint analysed_, last_;
};

}  // namespace toposcope::serve
