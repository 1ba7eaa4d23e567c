#include "toposcope/report/score/grouping.h"

#include <algorithm>
#include <map>

namespace toposcope::report {

double GroupingAccuracy(const std::vector<std::vector<std::string>>& inferred,
                        const std::vector<std::vector<std::string>>& truth,
                        const std::vector<std::string>& hosts) {
  if (hosts.empty()) return 0.0;
  auto mates = [](const std::vector<std::vector<std::string>>& groups) {
    std::map<std::string, std::vector<std::string>> m;
    for (const auto& g : groups) {
      std::vector<std::string> s = g;
      std::sort(s.begin(), s.end());
      s.erase(std::unique(s.begin(), s.end()), s.end());
      for (const std::string& h : s) m[h] = s;
    }
    return m;
  };
  const auto mi = mates(inferred), mt = mates(truth);
  int ok = 0;
  for (const std::string& h : hosts) {
    auto a = mi.find(h), b = mt.find(h);
    const std::vector<std::string> alone{h};
    const std::vector<std::string>& sa = a == mi.end() ? alone : a->second;
    const std::vector<std::string>& sb = b == mt.end() ? alone : b->second;
    const bool in_both = a != mi.end() && b != mt.end();
    if ((in_both || (sa.size() == 1 && sb.size() == 1)) && sa == sb) ++ok;
  }
  return static_cast<double>(ok) / static_cast<double>(hosts.size());
}

}  // namespace toposcope::report
