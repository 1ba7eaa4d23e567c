// A fresh directory under the system temp dir for one simulator test, removed at its end (shared
// by the tests in tests/sim/).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace toposcope::sim {

class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    path_ = std::filesystem::temp_directory_path() /
            ("toposcope_sim_test_" + tag + "_" + std::to_string(static_cast<long>(::getpid())));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] std::string str() const { return path_.string(); }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace toposcope::sim
