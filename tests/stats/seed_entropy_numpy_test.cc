// Cross-check of stats/entropy's seed-estimator replica against the seed's own numpy/scipy code,
// run by /usr/bin/python3 on the same packets. The packets' (src_qp, psn, dest_qp) tuples go to a
// temp file; Python hashes them with its own FNV-1a (the documented SeedHeaderHash), takes % 1024
// and runs calc_header_entropy exactly as the seed writes it. Skipped when python3, numpy or
// scipy are missing.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "toposcope/base/rng.h"
#include "toposcope/stats/entropy.h"

namespace toposcope::stats {
namespace seed_entropy_numpy_test {

struct Tuple {
  uint32_t src_qp, psn, dest_qp;
};

constexpr const char* kScript = R"PY(
import sys
import numpy as np
from scipy.stats import entropy

def fnv(q, p, d):
    h = 0xcbf29ce484222325
    for v in (q, p, d):
        for b in int(v).to_bytes(4, 'little'):
            h ^= b
            h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h

def calc_header_entropy(packets, hash):
    # the seed's code, with the fixed hash in place of Python's salted hash()
    counts = np.array([hash(q, p, d) % 1024 for q, p, d in packets])
    hist, _ = np.histogram(counts, bins=1024, density=True)
    return entropy(hist + 1e-9, base=2)

for line in open(sys.argv[1]):
    vals = [int(x) for x in line.split()]
    packets = [tuple(vals[i:i + 3]) for i in range(0, len(vals), 3)]
    syms = [fnv(*t) % 1024 for t in packets]
    print(repr(float(calc_header_entropy(packets, fnv))), ' '.join(map(str, syms)))
)PY";

bool PythonHasNumpy() {
  if (access("/usr/bin/python3", X_OK) != 0) return false;
  return std::system("/usr/bin/python3 -c 'import numpy, scipy.stats' >/dev/null 2>&1") == 0;
}

std::vector<std::vector<Tuple>> Cases() {
  std::vector<std::vector<Tuple>> cases;
  Rng rng(2024);
  // One RC flow: constant QPs, consecutive PSNs (the seed's typical input), various lengths.
  for (int n : {1, 2, 3, 8, 50, 300, 1024, 5000}) {
    std::vector<Tuple> c;
    const uint32_t psn0 = static_cast<uint32_t>(rng.Below(1u << 24));
    for (int i = 0; i < n; ++i) c.push_back({0x11, (psn0 + i) & 0xffffff, 0x2a});
    cases.push_back(c);
  }
  // Many flows with random PSNs.
  for (int n : {10, 100, 2000}) {
    std::vector<Tuple> c;
    for (int i = 0; i < n; ++i) {
      c.push_back({static_cast<uint32_t>(rng.Below(1u << 24)), static_cast<uint32_t>(rng.Below(1u << 24)),
                   static_cast<uint32_t>(rng.Below(1u << 24))});
    }
    cases.push_back(c);
  }
  // The same packet repeated (min == max case), and two distinct packets repeated.
  cases.push_back(std::vector<Tuple>(17, Tuple{1, 2, 3}));
  {
    std::vector<Tuple> c;
    for (int i = 0; i < 40; ++i) c.push_back(i % 3 == 0 ? Tuple{1, 2, 3} : Tuple{4, 5, 6});
    cases.push_back(c);
  }
  // Unknown source QP (0), ACK-like PSN repeats.
  {
    std::vector<Tuple> c;
    for (int i = 0; i < 64; ++i) c.push_back({0, static_cast<uint32_t>(1000 + i / 4), 0x77});
    cases.push_back(c);
  }
  return cases;
}

TEST(SeedEntropyNumpy, AgreesWithSeedCodeToNineDigits) {
  if (!PythonHasNumpy()) GTEST_SKIP() << "/usr/bin/python3 with numpy and scipy not available";
  const std::vector<std::vector<Tuple>> cases = Cases();
  const std::string dir = std::filesystem::temp_directory_path().string();
  const std::string base = dir + "/toposcope_seed_entropy_" + std::to_string(getpid());
  const std::string data_path = base + ".txt", script_path = base + ".py";
  {
    std::ofstream data(data_path);
    for (const auto& c : cases) {
      for (const Tuple& t : c) data << t.src_qp << ' ' << t.psn << ' ' << t.dest_qp << ' ';
      data << '\n';
    }
    std::ofstream script(script_path);
    script << kScript;
  }
  const std::string cmd = "/usr/bin/python3 " + script_path + " " + data_path;
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  size_t got = 0;
  while ((got = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, got);
  const int rc = pclose(pipe);
  std::filesystem::remove(data_path);
  std::filesystem::remove(script_path);
  ASSERT_EQ(rc, 0) << out;

  std::istringstream lines(out);
  std::string line;
  size_t i = 0;
  double max_diff = 0;
  for (; std::getline(lines, line) && i < cases.size(); ++i) {
    std::istringstream fields(line);
    double want = NAN;
    fields >> want;
    std::vector<uint32_t> syms;
    for (const Tuple& t : cases[i]) syms.push_back(SeedHeaderSymbol(t.src_qp, t.psn, t.dest_qp));
    for (size_t j = 0; j < syms.size(); ++j) {
      uint32_t py_sym = 0;
      fields >> py_sym;
      ASSERT_EQ(py_sym, syms[j]) << "case " << i << " packet " << j;
    }
    const double mine = SeedHeaderEntropyBits(syms);
    EXPECT_NEAR(mine, want, 1e-9) << "case " << i << " (" << cases[i].size() << " packets)";
    max_diff = std::max(max_diff, std::abs(mine - want));
  }
  EXPECT_EQ(i, cases.size());
  RecordProperty("max_abs_diff", std::to_string(max_diff));
  std::printf("max |ours - numpy/scipy| over %zu cases: %.3g bit\n", cases.size(), max_diff);
}

}  // namespace seed_entropy_numpy_test
}  // namespace toposcope::stats
