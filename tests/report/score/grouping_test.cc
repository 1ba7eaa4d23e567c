// Unit tests of report/score/grouping: mate-set accuracy of an inferred host grouping.
#include "toposcope/report/score/grouping.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace toposcope::report {
namespace grouping_test {

TEST(GroupingAccuracy, CountsMateSets) {
  const std::vector<std::string> hosts{"a", "b", "c", "d"};
  EXPECT_DOUBLE_EQ(GroupingAccuracy({{"a", "b"}, {"c", "d"}}, {{"b", "a"}, {"d", "c"}}, hosts), 1.0);
  EXPECT_DOUBLE_EQ(GroupingAccuracy({{"a", "b", "c"}, {"d"}}, {{"a", "b"}, {"c", "d"}}, hosts), 0.0);
  EXPECT_DOUBLE_EQ(GroupingAccuracy({{"a", "b"}, {"c"}, {"d"}}, {{"a", "b"}, {"c"}, {"d"}}, hosts), 1.0);
  // d unplaced (absent from the inference) but alone in truth: right; c absent but not alone: wrong.
  EXPECT_DOUBLE_EQ(GroupingAccuracy({{"a", "b"}}, {{"a", "b"}, {"c", "x"}, {"d"}}, hosts), 0.75);
  EXPECT_DOUBLE_EQ(GroupingAccuracy({}, {}, {}), 0.0);
}

}  // namespace grouping_test
}  // namespace toposcope::report
