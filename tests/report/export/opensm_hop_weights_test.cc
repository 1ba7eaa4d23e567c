// End to end: tomography weights → OpenSM `--hop_weights_file` → opensm routes an ibsim fabric.
// Starts `ibsim -s -n testdata/ibsim/fattree_3x2.net` in a temp dir, solves tomography on
// simulated RTTs over that fabric's cables (ids keyed by switch GUID and port), writes the hop
// weights of every switch port with WriteOpenSmHopWeights, runs `opensm --once` against the
// simulator (LD_PRELOAD=libumad2sim.so, bounded by `timeout`) and checks its log: no hop-weights
// parse error (ERR 3A05) and "SUBNET UP". A garbage file is the negative control (opensm must
// log ERR 3A05 for it, which proves the file is actually read). Skipped when ibsim, opensm or
// umad2sim are not installed (Debian: ibsim-utils, opensm, infiniband-diags). ibsim is always
// killed at the end.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "toposcope/analysis/fabric/tomography.h"
#include "toposcope/base/rng.h"
#include "toposcope/report/export/opensm_export.h"

namespace toposcope::report {
namespace opensm_hop_weights_test {

namespace fs = std::filesystem;
using analysis::HopWeight;
using analysis::HopWeightFromTomography;
using analysis::SolveTomography;
using analysis::TomographyPath;
using analysis::TomographyResult;

constexpr const char* kUmad2Sim = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";

std::string FindTool(const std::vector<std::string>& candidates) {
  for (const auto& c : candidates)
    if (access(c.c_str(), X_OK) == 0) return c;
  return "";
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs ibsim in `dir` for the lifetime of this object.
class IbSim {
 public:
  IbSim(const std::string& ibsim, const fs::path& dir, const std::string& net) {
    pid_ = fork();
    if (pid_ == 0) {
      if (chdir(dir.c_str()) != 0) _exit(127);
      const int out = open("ibsim.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int in = open("/dev/null", O_RDONLY);
      if (out < 0 || in < 0) _exit(127);
      dup2(in, 0);
      dup2(out, 1);
      dup2(out, 2);
      execl(ibsim.c_str(), ibsim.c_str(), "-s", "-n", net.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    log_ = dir / "ibsim.log";
  }
  ~IbSim() { Stop(); }
  bool WaitReady() const {
    for (int i = 0; i < 100 && pid_ > 0; ++i) {
      if (ReadAll(log_).find("Network simulator ready") != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 50; ++i) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  fs::path log_;
};

// Runs opensm once against the simulator; returns its log text.
std::string RunOpenSm(const std::string& opensm, const fs::path& dir, const fs::path& weights,
                      const std::string& tag) {
  const fs::path log = dir / ("opensm-" + tag + ".log");
  const std::string cmd = "cd '" + dir.string() + "' && OSM_TMP_DIR='" + dir.string() +
                          "' OSM_CACHE_DIR='" + dir.string() + "' LD_PRELOAD=" + kUmad2Sim +
                          " timeout -k 5 60 " + opensm + " --once -e -s 0 --hop_weights_file '" +
                          weights.string() + "' -f '" + log.string() + "' > '" +
                          (dir / ("opensm-" + tag + ".out")).string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd;
  return ReadAll(log);
}

struct Cable {
  std::string a_guid;
  int a_port;
  std::string b_guid;  // switch GUID, or "" for an HCA end
  int b_port;
};

TEST(OpenSmHopWeights, OpenSmAcceptsOurFileOnAnIbsimFabric) {
  const std::string ibsim = FindTool({"/usr/bin/ibsim", "/usr/sbin/ibsim"});
  const std::string opensm = FindTool({"/usr/sbin/opensm", "/usr/bin/opensm"});
  if (ibsim.empty() || opensm.empty() || access(kUmad2Sim, R_OK) != 0 ||
      std::system("command -v timeout >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "ibsim / opensm / umad2sim not installed (apt-get install ibsim-utils opensm "
                    "infiniband-diags)";
  const std::string net = std::string(TOPOSCOPE_TESTDATA) + "/ibsim/fattree_3x2.net";
  ASSERT_TRUE(fs::exists(net)) << net;

  // The fabric of fattree_3x2.net: cables by (switch GUID, port) at each end. Cables 0..5: host
  // cables (HCA 2l+k on leaf l, leaf port k+1); cables 6 + 2*leaf + spine: leaf-spine cables
  // (leaf port 3+spine, spine port leaf+1).
  const std::vector<std::string> leaf = {"0x0002c90000001001", "0x0002c90000001002",
                                         "0x0002c90000001003"};
  const std::vector<std::string> spine = {"0x0002c90000002001", "0x0002c90000002002"};
  std::vector<Cable> cables;
  for (int l = 0; l < 3; ++l)
    for (int k = 0; k < 2; ++k) cables.push_back({leaf[l], k + 1, "", 1});
  for (int l = 0; l < 3; ++l)
    for (int s = 0; s < 2; ++s) cables.push_back({leaf[l], 3 + s, spine[s], l + 1});
  auto id = [&](int c) { return cables[c].a_guid + ":" + std::to_string(cables[c].a_port); };
  // Simulated per-crossing latencies (µs); the Leaf2–Spine2 cable (index 9) is a degraded one.
  const std::vector<double> truth = {0.9, 1.0, 0.95, 1.05, 0.92, 0.98,
                                     0.25, 0.3, 0.28, 1.6, 0.27, 0.31};
  std::vector<TomographyPath> paths;
  Rng rng(7);
  for (int rep = 0; rep < 40; ++rep)
    for (int a = 0; a < 6; ++a)
      for (int b = 0; b < 6; ++b) {
        if (a == b) continue;
        const int la = a / 2, lb = b / 2;
        std::vector<int> cs;
        if (la == lb) {
          cs = {a, b, b, a};
        } else {
          const int so = static_cast<int>(rng.Below(2)), sb = static_cast<int>(rng.Below(2));
          cs = {a, 6 + 2 * la + so, 6 + 2 * lb + so, b, b, 6 + 2 * lb + sb, 6 + 2 * la + sb, a};
        }
        TomographyPath p;
        p.src = "Hca" + std::to_string(a + 1);
        p.dst = "Hca" + std::to_string(b + 1);
        for (int c : cs) {
          p.links.push_back(id(c));
          p.rtt_us += truth[c];
        }
        p.rtt_us *= 1.0 + 0.01 * rng.Normal();
        paths.push_back(p);
      }
  const TomographyResult r = SolveTomography(paths);
  ASSERT_EQ(r.rank_deficiency, 0) << r.method;
  std::map<std::string, double> weight;
  for (const auto& l : r.links) {
    ASSERT_TRUE(l.identifiable) << l.link;
    weight[l.link] = l.weight;
  }
  // Hop weights on both switch ends of each cable ("weights affect only the output route from
  // the port, so many useful configurations will require weights to be specified in pairs").
  std::vector<HopWeight> hw;
  for (size_t c = 0; c < cables.size(); ++c) {
    const int w = HopWeightFromTomography(weight.at(id(static_cast<int>(c))));
    hw.push_back({cables[c].a_guid, cables[c].a_port, w});
    if (!cables[c].b_guid.empty()) hw.push_back({cables[c].b_guid, cables[c].b_port, w});
  }
  const std::string text = WriteOpenSmHopWeights(hw);
  EXPECT_NE(text.find("0x0002c90000001002 4 50\n"), std::string::npos) << text;  // slowest
  EXPECT_NE(text.find("0x0002c90000002002 2 50\n"), std::string::npos) << text;

  const fs::path dir = fs::temp_directory_path() / ("toposcope_opensm_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    std::ofstream(dir / "hop_weights.txt") << text;
    std::ofstream(dir / "garbage.txt") << "this is not a hop weights file\n";
  }
  {
    IbSim sim(ibsim, dir, net);
    ASSERT_TRUE(sim.WaitReady()) << ReadAll(dir / "ibsim.log");
    const std::string ok = RunOpenSm(opensm, dir, dir / "hop_weights.txt", "ours");
    EXPECT_EQ(ok.find("ERR 3A05"), std::string::npos) << ok;
    EXPECT_EQ(ok.find("hop_weights_file"), std::string::npos) << ok;
    EXPECT_NE(ok.find("SUBNET UP"), std::string::npos) << ok;
    const std::string bad = RunOpenSm(opensm, dir, dir / "garbage.txt", "garbage");
    EXPECT_NE(bad.find("ERR 3A05"), std::string::npos) << "negative control: " << bad;
    sim.Stop();
  }
  fs::remove_all(dir);
}

}  // namespace opensm_hop_weights_test
}  // namespace toposcope::report
