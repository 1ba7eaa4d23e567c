// Tests of report/result_json's writing: every JSON text it renders (result.json, score.json and
// passes.json go through DumpSchemaFirst) is valid UTF-8 JSON even when a string holds raw input
// bytes that are not UTF-8, which come out as U+FFFD instead of an exception.
#include "toposcope/report/result_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "toposcope/base/json_io.h"
#include "toposcope/report/result_sections.h"

namespace toposcope::report {
namespace result_json_test {

const std::string kBad = "a\xff\xfe" "b\x80\xc3";  // two invalid bytes, a lone continuation, a cut sequence
const std::string kReplaced = "a\xEF\xBF\xBD\xEF\xBF\xBD" "b\xEF\xBF\xBD\xEF\xBF\xBD";  // each as U+FFFD

TEST(ResultJson, DumpSchemaFirstReplacesInvalidUtf8) {
  nlohmann::json j = {{"schema", "toposcope.test/1"}, {"raw", kBad}, {kBad, 1}};
  std::string text;
  ASSERT_NO_THROW(text = DumpSchemaFirst(j));
  EXPECT_EQ(text.rfind("{\n  \"schema\": \"toposcope.test/1\",\n", 0), 0u) << text;
  const nlohmann::json back = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(back.is_discarded()) << text;
  EXPECT_EQ(back["raw"], kReplaced);
  EXPECT_TRUE(back.contains(kReplaced));
  // Not an object, or no schema: dumped as it is, with the same replacement.
  ASSERT_NO_THROW(text = DumpSchemaFirst(nlohmann::json(kBad)));
  EXPECT_EQ(text, "\"" + kReplaced + "\"\n");
}

TEST(ResultJson, DiagnosticsWithInvalidUtf8) {
  analysis::AnalysisResult r;
  r.diagnostics = {"nccl.log:3: bad line: " + kBad};
  r.rejected_total = 1;
  std::string text;
  ASSERT_NO_THROW(text = ResultJsonText(r));
  const nlohmann::json back = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(back.is_discarded()) << text;
  ASSERT_EQ(back["diagnostics"]["kept"].size(), 1u);
  EXPECT_EQ(back["diagnostics"]["kept"][0], "nccl.log:3: bad line: " + kReplaced);
  ASSERT_NO_THROW(text = ResultSectionsText(r, {"diagnostics"}));
  EXPECT_FALSE(nlohmann::json::parse(text, nullptr, false).is_discarded()) << text;
  ASSERT_NO_THROW(text = ArchitectureJsonText(r));
}

// The lossless dumps (pass dumps, the dataset) replace the same bytes and load back.
TEST(ResultJson, DumpTextOfDiagnostics) {
  Diagnostics d;
  d.Reject("nccl.log", 3, kBad, "reason " + kBad);
  std::string text;
  ASSERT_NO_THROW(text = json_io::ToJsonText(d));
  Result<Diagnostics> back = json_io::FromJsonText<Diagnostics>(text, "dump");
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  ASSERT_EQ(back->items().size(), 1u);
  EXPECT_EQ(back->items()[0].reason, "reason " + kReplaced);
  EXPECT_EQ(back->items()[0].raw.find('\xff'), std::string::npos);
  EXPECT_EQ(back->rejected_total(), 1);
  EXPECT_EQ(json_io::DumpText(nlohmann::json::array({kBad}), 2), "[\n  \"" + kReplaced + "\"\n]");
}

}  // namespace result_json_test
}  // namespace toposcope::report
