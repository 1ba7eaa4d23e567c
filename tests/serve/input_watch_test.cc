// Unit tests of serve/input_watch: fingerprints change with a file's size or time and not with the
// excluded folder; the detector waits for a change to hold still for one poll.
#include "toposcope/serve/input_watch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace toposcope::serve {
namespace input_watch_test {

namespace fs = std::filesystem;

TEST(InputWatch, Fingerprints) {
  const fs::path dir = fs::temp_directory_path() / ("toposcope_watch_" + std::to_string(::getpid()));
  fs::create_directories(dir / "out");
  std::ofstream(dir / "a.txt") << "one\n";
  const InputFingerprint f0 = FingerprintInputs({dir.string()}, (dir / "out").string());
  EXPECT_EQ(f0.files, 1);
  EXPECT_EQ(FingerprintInputs({dir.string()}, (dir / "out").string()), f0);
  std::ofstream(dir / "out" / "result.json") << "{}\n";  // the output folder does not count
  EXPECT_EQ(FingerprintInputs({dir.string()}, (dir / "out").string()), f0);
  std::ofstream(dir / "a.txt", std::ios::app) << "two\n";
  const InputFingerprint f1 = FingerprintInputs({dir.string()}, (dir / "out").string());
  EXPECT_FALSE(f1 == f0);
  EXPECT_FALSE(FingerprintInputs({(dir / "missing").string()}, "") == FingerprintInputs({}, ""));
  fs::remove_all(dir);
}

TEST(InputWatch, DetectorWaitsForStillness) {
  const InputFingerprint a{1, 1}, b{2, 1}, c{3, 1};
  ChangeDetector d(a);
  EXPECT_FALSE(d.Poll(a));
  EXPECT_FALSE(d.Poll(b));  // changed, not yet still
  EXPECT_FALSE(d.Poll(c));  // changed again
  EXPECT_TRUE(d.Poll(c));   // held still
  d.Analysed(c);
  EXPECT_FALSE(d.Poll(c));
}

}  // namespace input_watch_test
}  // namespace toposcope::serve
