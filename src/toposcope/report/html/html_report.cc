// report/html/html_report: assembles report.html: the page skeleton with one <section> per part,
// the view (report_view) as JSON in <script type="application/json">, then the style and the script
// (report_assets). See html_report.h.
#include "toposcope/report/html/html_report.h"

#include "toposcope/base/file_io.h"
#include "toposcope/base/json_io.h"
#include "toposcope/report/html/report_assets.h"

namespace toposcope::report::html {

using nlohmann::json;

const std::vector<SectionInfo>& ReportSections() {
  static const std::vector<SectionInfo> kSections = {
      {"summary", "Summary", "What the analysis found, in counts."},
      {"fabric", "Fabric",
       "Spines, leaves and hosts from the fabric dump (ibnetdiscover / iblinkinfo) or inferred from probe RTTs. "
       "Colour: the tomography latency of each cable (hosts: their uplink). Marked: cables and switches the "
       "hypothesis tree ranks degraded, flapping or congested above 0.5. Hover for details; find a host with the search box."},
      {"nodes", "GPUs of each host",
       "Hosts grouped by shape, the hosts with a degraded GPU link, and one host's GPU graph (islands as colours, "
       "NVLink lanes as line width, degraded links red) with its P2P bandwidth heatmap. Click a host or search for one."},
      {"rings", "NCCL rings", "The rings NCCL logged (or the flows gave), hop by hop over the hosts and their leaves."},
      {"traffic", "Traffic matrix",
       "RDMA bytes from host to host in the captures (leaf to leaf on large clusters), and the NVLink traffic between "
       "the GPUs of NVSwitch hosts estimated from DCGM's counters and the NCCL rings. Click a host or search for one."},
      {"nics", "NIC ports", "Every RDMA port the tools printed: device, port, state, rate, link layer, GIDs; ports down or slower than their siblings first."},
      {"patterns", "QP patterns",
       "Traffic class of each scope (the whole capture, each job, each host) from its QP state changes: AllReduce-like "
       "batches of re-creations or pipeline-like staggered ones."},
      {"clocks", "Clock models",
       "Held-out sync residuals per clock model and host: 'none' is the raw clock (before alignment), the best model after."},
      {"findings", "DCGM and clock findings", "Thermal link down-speed, stragglers, clock steps and servo findings on one time axis."},
      {"entropy", "Per-link entropy",
       "Entropy of each link's traffic per window, with the scheduler's hot / cool thresholds and its decisions when the result has a schedule."},
      {"hypotheses", "Fault hypotheses",
       "Each symptom with its candidate causes by probability, the evidence for and against, and the next check."},
      {"inputs", "Inputs", "Every file read: records read, accepted and rejected, with its first diagnostics."},
  };
  return kSections;
}

std::string EscapeJsonForScript(std::string_view json_text) {
  std::string out;
  out.reserve(json_text.size() + json_text.size() / 64);
  for (char c : json_text) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

std::string EscapeHtml(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string HtmlReportText(const json& result, const std::string& title, const ViewLimits& limits) {
  const json view = ReportViewJson(result, limits);
  const std::string heading = title.empty() ? "toposcope report" : "toposcope report: " + title;
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<title>" + EscapeHtml(heading) + "</title>\n<style>" + ReportStyle() + "</style>\n</head>\n<body>\n";
  // Errors of the script land in #errors (empty when the page drew cleanly).
  h += "<pre id=\"errors\"></pre>\n<script>\nfunction reportError(m) { document.getElementById(\"errors\").textContent += m + \"\\n\"; }\n"
       "window.onerror = function (msg, src, line) { reportError(\"error: \" + msg + \" (line \" + line + \")\"); };\n"
       "console.error = function () { reportError(\"console.error: \" + Array.prototype.join.call(arguments, \" \")); };\n</script>\n";
  h += "<header>\n<h1>" + EscapeHtml(heading) + "</h1>\n<nav>";
  for (const SectionInfo& s : ReportSections()) h += std::string("<a href=\"#") + s.id + "\">" + s.title + "</a>";
  h += "</nav>\n<input id=\"search\" type=\"search\" placeholder=\"find a host\" list=\"host-names\" aria-label=\"find a host\">"
       "<datalist id=\"host-names\"></datalist><span id=\"search-status\" class=\"note\"></span>\n</header>\n";
  h += "<noscript><p>This report draws its sections with JavaScript; the data is in the report-data block of this file.</p></noscript>\n<main>\n";
  for (const SectionInfo& s : ReportSections()) {
    h += std::string("<section id=\"") + s.id + "\">\n<h2>" + s.title + "</h2>\n<p class=\"blurb\">" + EscapeHtml(s.blurb) +
         "</p>\n<div class=\"body\"></div>\n</section>\n";
  }
  // DumpText: invalid UTF-8 in raw input text (diagnostics) becomes U+FFFD instead of an exception.
  h += "</main>\n<script type=\"application/json\" id=\"report-data\">" + EscapeJsonForScript(json_io::DumpText(view)) + "</script>\n";
  h += "<script>" + ReportScript() + "</script>\n</body>\n</html>\n";
  return h;
}

Result<std::string> HtmlReportOfFile(const std::string& result_path) {
  Result<std::string> text = ReadFileText(result_path);
  if (!text.ok()) return text.error();
  json result = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (result.is_discarded()) return MakeError(result_path, 0, 0, "not JSON", "give the result.json that analyze wrote");
  if (!result.is_object() || !result.contains("schema") || !result["schema"].is_string() ||
      result["schema"].get<std::string>().rfind("toposcope.result/", 0) != 0) {
    return MakeError(result_path, 0, 0, "not a toposcope result (schema toposcope.result/1)",
                     "give the result.json that analyze wrote");
  }
  return HtmlReportText(result, result_path);
}

Status WriteHtmlReportFile(const std::string& result_path, const std::string& out_path) {
  Result<std::string> html = HtmlReportOfFile(result_path);
  if (!html.ok()) return html.error();
  if (Status st = WriteFileText(out_path, *html); !st.ok()) return WithKind(st.error(), ErrorKind::kOutput);
  return {};
}

}  // namespace toposcope::report::html
