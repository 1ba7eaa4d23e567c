// Tests of report/html/html_report: every section is in the page with its id, the view is embedded
// as JSON that parses back to ReportViewJson, a host name holding "</script>" cannot end the data
// block, invalid UTF-8 in raw input text becomes U+FFFD, the same result gives the same bytes,
// nothing is fetched, and result files that are not a toposcope result are refused.
#include "toposcope/report/html/html_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "toposcope/base/file_io.h"
#include "toposcope/report/html/report_assets.h"
#include "toposcope/report/html/report_view.h"

namespace toposcope::report::html {
namespace html_report_test {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kEvilHost = "n1</script><script>alert(1)</script><!--";

// A small result: two hosts (one with a hostile name), one GPU link each, a ring, a finding, a symptom.
json SmallResult() {
  json r;
  r["schema"] = "toposcope.result/1";
  r["gpus"] = json::array();
  r["links"] = json::array();
  for (const std::string& h : {kEvilHost, std::string("n2")}) {
    for (int g = 0; g < 2; ++g) {
      r["gpus"].push_back({{"host", h}, {"id", h + "/gpu" + std::to_string(g)}, {"index", g}, {"island", h + "/island0"}});
    }
    r["links"].push_back({{"a", h + "/gpu0"}, {"b", h + "/gpu1"}, {"type", "NVLINK"}, {"lanes", 12}, {"expected_lanes", 12},
                          {"bandwidth_gbps", 250.5}, {"expected_gbps", 260.0}, {"degraded", h == "n2"}, {"evidence", "x"}});
  }
  r["rings"] = {{{"channel", 0}, {"comm", "0x1"}, {"source", "nccl_log"}, {"complete", true}, {"hosts", {kEvilHost, "n2"}}}};
  r["telemetry_findings"] = {{{"kind", "clock_step"}, {"host", "n2"}, {"gpu", -1}, {"link", -1}, {"start_ns", 1000000000},
                              {"end_ns", 1000000000}, {"confidence", 0.9}, {"evidence", "jump <b>"}}};
  r["hypotheses"] = {{"symptoms", {{{"kind", "clock_jump"}, {"entity", "n2"}, {"summary", "s"}, {"next_check", "c"},
                                    {"hypotheses", {{{"kind", "clock_step"}, {"entity", "n2"}, {"probability", 0.9}}}}}}},
                     {"max_fault_probability", 0.9}};
  r["inputs"] = {{{"path", "/d/n2/topo.txt"}, {"format", "nvidia-smi-topo"}, {"host", "n2"}, {"records", 4}, {"rejected", 1},
                  {"skipped", false}}};
  r["diagnostics"] = {{"rejected", 1}, {"warnings", 0}, {"kept", {"/d/n2/topo.txt:3: rejected: bad cell: \"??\""}}};
  return r;
}

// The text of the <script type="application/json" id="report-data"> block.
std::string DataBlock(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"report-data\">";
  const size_t a = html.find(open);
  if (a == std::string::npos) return "";
  const size_t b = html.find("</script>", a);
  return html.substr(a + open.size(), b - a - open.size());
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(HtmlReport, EverySectionHasItsId) {
  const std::string html = HtmlReportText(SmallResult());
  ASSERT_EQ(ReportSections().size(), 12U);
  for (const char* id : {"summary", "fabric", "nodes", "rings", "traffic", "nics", "patterns", "clocks", "findings", "entropy",
                         "hypotheses", "inputs"}) {
    EXPECT_EQ(Count(html, std::string("<section id=\"") + id + "\">"), 1U) << id;
  }
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0U);
  EXPECT_NE(html.find("<pre id=\"errors\"></pre>"), std::string::npos);
  EXPECT_NE(html.find("id=\"search\""), std::string::npos);
}

TEST(HtmlReport, EmbedsTheViewAsJson) {
  const json r = SmallResult();
  const std::string html = HtmlReportText(r);
  const json back = json::parse(DataBlock(html));
  EXPECT_EQ(back, ReportViewJson(r));
  EXPECT_EQ(back["hosts"], json({kEvilHost, "n2"}));
  EXPECT_EQ(back["nodes"].size(), 2U);
  EXPECT_EQ(back["counts"]["degraded_links"], 1);
  EXPECT_EQ(back["findings"]["findings"][0]["evidence"], "jump <b>");
  EXPECT_EQ(back["inputs"]["files"][0]["diagnostics"][0], "/d/n2/topo.txt:3: rejected: bad cell: \"??\"");
}

TEST(HtmlReport, HostileNamesCannotEndTheDataBlock) {
  const std::string html = HtmlReportText(SmallResult(), "</title><script>x</script>");
  // Three scripts (the error hook, the data, the drawing code), each closed once.
  EXPECT_EQ(Count(html, "</script>"), 3U);
  EXPECT_EQ(Count(html, "<script"), 3U);
  EXPECT_EQ(Count(html, "<!--"), 0U);
  const std::string data = DataBlock(html);
  EXPECT_EQ(data.find('<'), std::string::npos);
  EXPECT_NE(data.find("n1\\u003c/script\\u003e"), std::string::npos);
  EXPECT_NE(html.find("<title>toposcope report: &lt;/title&gt;&lt;script&gt;x&lt;/script&gt;</title>"), std::string::npos);
}

TEST(HtmlReport, EscapesForScriptAndHtml) {
  EXPECT_EQ(EscapeJsonForScript("{\"a\":\"</script>&\"}"), "{\"a\":\"\\u003c/script\\u003e\\u0026\"}");
  EXPECT_EQ(json::parse(EscapeJsonForScript("{\"a\":\"</script>&\"}"))["a"], "</script>&");
  EXPECT_EQ(EscapeHtml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
}

TEST(HtmlReport, InvalidUtf8BecomesReplacementCharacters) {
  json r = SmallResult();
  r["diagnostics"]["kept"] = {"/d/n2/topo.txt:3: rejected: bad cell: \"NV\xff\xfe\""};
  std::string html;
  ASSERT_NO_THROW(html = HtmlReportText(r));
  const json back = json::parse(DataBlock(html));
  EXPECT_EQ(back["inputs"]["files"][0]["diagnostics"][0], "/d/n2/topo.txt:3: rejected: bad cell: \"NV\xEF\xBF\xBD\xEF\xBF\xBD\"");
}

TEST(HtmlReport, SameResultSameBytes) {
  EXPECT_EQ(HtmlReportText(SmallResult()), HtmlReportText(SmallResult()));
  EXPECT_NE(HtmlReportText(SmallResult()), HtmlReportText(json{{"schema", "toposcope.result/1"}}));
}

TEST(HtmlReport, FetchesNothing) {
  const std::string html = HtmlReportText(SmallResult());
  for (const char* what : {"http://", "https://", "<link", "src=", "@import", "fetch(", "XMLHttpRequest"}) {
    // The SVG namespace URI is an identifier, never fetched.
    std::string h = html;
    for (size_t p; (p = h.find("http://www.w3.org/2000/svg")) != std::string::npos;) h.erase(p, 26);
    EXPECT_EQ(h.find(what), std::string::npos) << what;
  }
  EXPECT_EQ(ReportScript().find("</script"), std::string::npos);
  EXPECT_EQ(ReportStyle().find("</style"), std::string::npos);
}

TEST(HtmlReport, EmptyResultStillDrawsEverySection) {
  const std::string html = HtmlReportText(json{{"schema", "toposcope.result/1"}});
  const json view = json::parse(DataBlock(html));
  EXPECT_TRUE(view["hosts"].empty());
  EXPECT_EQ(Count(html, "<section id="), 12U);
}

class HtmlReportFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("toposcope_html_report_test_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(HtmlReportFileTest, WritesTheReportOfAResultFile) {
  const std::string in = (dir_ / "result.json").string(), out = (dir_ / "report.html").string();
  ASSERT_TRUE(WriteFileText(in, SmallResult().dump(2)).ok());
  const Status st = WriteHtmlReportFile(in, out);
  ASSERT_TRUE(st.ok()) << st.error().ToString();
  Result<std::string> back = ReadFileText(out);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, HtmlReportText(SmallResult(), in));
}

TEST_F(HtmlReportFileTest, RefusesWhatIsNotAResult) {
  const std::string bad = (dir_ / "bad.json").string(), other = (dir_ / "score.json").string();
  ASSERT_TRUE(WriteFileText(bad, "{ not json").ok());
  ASSERT_TRUE(WriteFileText(other, "{\"schema\": \"toposcope.score/1\"}").ok());
  for (const std::string& p : {bad, other, (dir_ / "missing.json").string()}) {
    Result<std::string> r = HtmlReportOfFile(p);
    ASSERT_FALSE(r.ok()) << p;
    EXPECT_EQ(r.error().kind, ErrorKind::kInput) << p;
  }
  const Status st = WriteHtmlReportFile(bad, (dir_ / "r.html").string());
  EXPECT_FALSE(st.ok());
  EXPECT_FALSE(fs::exists(dir_ / "r.html"));
}

}  // namespace html_report_test
}  // namespace toposcope::report::html
