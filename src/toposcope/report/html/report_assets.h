// report/html/report_assets: the style sheet and the script of the HTML report, kept in the
// binary (report_style.cc, report_script.cc) so the report is one file that fetches nothing.
#pragma once

#include <string>

namespace toposcope::report::html {

// The report's CSS.
const std::string& ReportStyle();
// The report's JavaScript: reads the view JSON (report_view.h) from <script id="report-data"> and
// draws every section into its <section id=...>'s ".body".
const std::string& ReportScript();
// The part of ReportScript() that draws the traffic matrices, NIC ports and QP patterns
// (report_script_net.cc).
const std::string& ReportScriptNetPart();

}  // namespace toposcope::report::html
