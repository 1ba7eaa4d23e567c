// act/eadps_stream: a stream line in each accepted form, lines of another estimator and blank lines
// skipped, and each bad form (bad JSON, NaN, missing or out-of-range fields) rejected with its reason.
#include "toposcope/act/eadps_stream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace toposcope::act {
namespace eadps_stream_test {

TEST(EadpsStream, AcceptedForms) {
  auto a = ParseEntropySampleLine(R"({"link":"h1~h2","t_s":1.5,"window_s":0.5,"bits":2.75,"shown_bits":9.1})", "message_size");
  ASSERT_TRUE(a.ok()) << a.error().ToString();
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ((*a)->link, "h1~h2");
  EXPECT_EQ((*a)->window_start_ns, 1'500'000'000);
  EXPECT_EQ((*a)->window_ns, 500'000'000);
  EXPECT_DOUBLE_EQ((*a)->bits, 2.75);
  EXPECT_DOUBLE_EQ((*a)->shown_bits, 9.1);
  auto b = ParseEntropySampleLine(R"({"link":"capture:leaf00-p5","window_start_ns":7,"window_ns":3,"bits":0,"estimator":"message_size"})",
                                  "message_size");
  ASSERT_TRUE(b.ok() && b->has_value());
  EXPECT_EQ((*b)->window_start_ns, 7);
  EXPECT_EQ((*b)->window_ns, 3);
  EXPECT_TRUE(std::isnan((*b)->shown_bits));
}

TEST(EadpsStream, CountsAndMarks) {
  auto a = ParseEntropySampleLine(R"({"link":"x","t_s":1,"window_s":0.5,"bits":1.0,"packets":40,"marks":3})", "message_size");
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->packets, 40);
  EXPECT_EQ((*a)->marks, 3);
  EXPECT_TRUE((*a)->has_bits);
  // Counts without an entropy: a window with too few packets.
  auto b = ParseEntropySampleLine(R"({"link":"x","t_s":1.5,"window_s":0.5,"packets":2})", "message_size");
  ASSERT_TRUE(b.ok() && b->has_value());
  EXPECT_FALSE((*b)->has_bits);
  EXPECT_EQ((*b)->marks, -1);
  auto c = ParseEntropySampleLine(R"({"link":"x","t_s":1.5,"window_s":0.5,"bits":1,"marks":-2})", "message_size");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("marks"), std::string::npos);
}

TEST(EadpsStream, SkippedLines) {
  auto blank = ParseEntropySampleLine("   ", "message_size");
  ASSERT_TRUE(blank.ok());
  EXPECT_FALSE(blank->has_value());
  auto other = ParseEntropySampleLine(R"({"link":"a","t_s":0,"window_s":1,"bits":9,"estimator":"seed_header"})", "message_size");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
}

TEST(EadpsStream, RejectedWithReasons) {
  auto why = [](const std::string& line) {
    auto r = ParseEntropySampleLine(line, "message_size");
    EXPECT_FALSE(r.ok()) << line;
    return r.ok() ? std::string() : r.error().message;
  };
  EXPECT_NE(why("nope").find("not a JSON object"), std::string::npos);
  EXPECT_NE(why("[1,2]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(why(R"({"link":"a","t_s":0,"window_s":1,"bits":NaN})").find("NaN"), std::string::npos);
  EXPECT_NE(why(R"({"link":"a","t_s":0,"window_s":1,"bits":null})").find("not a number"), std::string::npos);
  EXPECT_NE(why(R"({"link":"a","t_s":0,"window_s":1,"bits":"nan"})").find("not a number"), std::string::npos);
  EXPECT_NE(why(R"({"t_s":0,"window_s":1,"bits":1})").find("link"), std::string::npos);
  EXPECT_NE(why(R"({"link":"a","window_s":1,"bits":1})").find("t_s"), std::string::npos);
  EXPECT_NE(why(R"({"link":"a","t_s":0,"bits":1})").find("window_s"), std::string::npos);
  EXPECT_NE(why(R"({"link":"a","t_s":-1,"window_s":1,"bits":1})").find("t_s"), std::string::npos);
  EXPECT_NE(why(R"({"link":"a","t_s":0,"window_s":0,"bits":1})").find("window_s"), std::string::npos);
  EXPECT_NE(why(R"({"link":"a","window_start_ns":-5,"window_ns":1,"bits":1})").find("window_start_ns"), std::string::npos);
  EXPECT_NE(why(R"({"link":"a","window_start_ns":5,"window_ns":0,"bits":1})").find("window_ns"), std::string::npos);
  EXPECT_NE(why(R"({"link":"a","window_start_ns":9223372036854775807,"window_ns":1,"bits":1})").find("window_start_ns"),
            std::string::npos);
}

}  // namespace eadps_stream_test
}  // namespace toposcope::act
