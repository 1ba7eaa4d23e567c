// Unit tests of report/export/opensm_export: the OpenSM hop-weights file text (GUIDs normalised,
// invalid entries skipped and listed, three fields a line).
#include "toposcope/report/export/opensm_export.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace toposcope::report {
namespace opensm_export_test {

TEST(OpenSmExport, WriterFormat) {
  const std::string s = WriteOpenSmHopWeights({{"0x0002c90300001234", 3, 2},
                                               {"2c9030000abcd", 1, 5},
                                               {"0xZZ", 1, 1},
                                               {"0x1", 300, 1},
                                               {"0x1", 1, 0}});
  EXPECT_NE(s.find("\n0x0002c90300001234 3 2\n"), std::string::npos) << s;
  EXPECT_NE(s.find("\n0x0002c9030000abcd 1 5\n"), std::string::npos) << s;
  EXPECT_NE(s.find("# skipped 3 invalid entries"), std::string::npos) << s;
  // every non-comment line has exactly three fields
  size_t pos = 0;
  int lines = 0;
  while (pos < s.size()) {
    const size_t e = s.find('\n', pos);
    const std::string line = s.substr(pos, e - pos);
    pos = e + 1;
    if (line.empty() || line[0] == '#') continue;
    ++lines;
    EXPECT_EQ(std::count(line.begin(), line.end(), ' '), 2) << line;
  }
  EXPECT_EQ(lines, 2);
}

}  // namespace opensm_export_test
}  // namespace toposcope::report
