// Tests of the CLI's malloc settings: free page reporting read from a virtio balloon device's
// features, as sysfs shows them.
#include "toposcope/app/malloc_tunables.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace toposcope::app {
namespace {

std::filesystem::path Driver(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("toposcope_balloon_" + name + "_" + std::to_string(getpid()));
}

void Device(const std::filesystem::path& driver, const std::string& dev, const std::string& features) {
  std::filesystem::create_directories(driver / dev);
  std::ofstream(driver / dev / "features") << features << "\n";
}

TEST(MallocTunables, FreePageReportingIsFeatureBitFive) {
  const auto on = Driver("on");
  Device(on, "virtio0", "0110010100000000000000000000000010000000000000000000000000000000");
  EXPECT_TRUE(FreePagesReportedToHost(on.string()));
  const auto off = Driver("off");
  Device(off, "virtio0", "0110000100000000000000000000000010000000000000000000000000000000");
  EXPECT_FALSE(FreePagesReportedToHost(off.string()));
  // A second device with it is enough; a short or empty features file is not.
  Device(off, "virtio3", "000001");
  EXPECT_TRUE(FreePagesReportedToHost(off.string()));
  const auto odd = Driver("odd");
  Device(odd, "virtio0", "01100");
  Device(odd, "virtio1", "");
  EXPECT_FALSE(FreePagesReportedToHost(odd.string()));
  EXPECT_FALSE(FreePagesReportedToHost((Driver("none") / "missing").string()));
  for (const auto& d : {on, off, odd}) std::filesystem::remove_all(d);
}

}  // namespace
}  // namespace toposcope::app
