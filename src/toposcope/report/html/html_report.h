// report/html/html_report: the self-contained HTML report of a result (report.html): one file with
// its style, script and data inline (nothing fetched), a section per part of the analysis
// (docs/report_html.md). `analyze --out DIR` writes it beside result.json; `toposcope report` makes
// it from a result.json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/report/html/report_view.h"

namespace toposcope::report::html {

// One section of the report: its element id (section#ID), heading and the line under it.
struct SectionInfo {
  const char* id;
  const char* title;
  const char* blurb;
};
// The sections in page order: summary, fabric, nodes, rings, traffic, nics, patterns, clocks,
// findings, entropy, hypotheses, inputs.
const std::vector<SectionInfo>& ReportSections();

// Returns `json_text` safe inside <script type="application/json">: '<', '>' and '&' written as
// JSON \u escapes (the same JSON value), so no "</script>" or "<!--" can end or change the block.
std::string EscapeJsonForScript(std::string_view json_text);
// Returns `s` with &, <, >, " and ' as HTML character references.
std::string EscapeHtml(std::string_view s);

// Returns the report of `result` (a result.json object). `title` names the result in the heading
// (e.g. its path; may be empty). Never fails; the same inputs give the same bytes.
std::string HtmlReportText(const nlohmann::json& result, const std::string& title = "",
                           const ViewLimits& limits = {});

// Reads the result.json at `result_path` (plain or .gz/.zst) and returns its report. Fails (kInput)
// when the file cannot be read or is not a toposcope result.
Result<std::string> HtmlReportOfFile(const std::string& result_path);

// HtmlReportOfFile(result_path) written to `out_path`. Fails (kInput) as it does, or (kOutput) when
// the file cannot be written.
Status WriteHtmlReportFile(const std::string& result_path, const std::string& out_path);

}  // namespace toposcope::report::html
