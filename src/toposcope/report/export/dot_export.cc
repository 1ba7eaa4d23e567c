// report/export/dot_export: Graphviz DOT graphs of the fabric and of each host (see the header).
#include "toposcope/report/export/dot_export.h"

#include <map>
#include <set>

#include "toposcope/base/text.h"
#include "toposcope/report/text/topo_matrix.h"

namespace toposcope::report {
namespace {

// A DOT string literal.
std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string FileNameOf(const std::string& host) {
  std::string out;
  for (char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    out += ok ? c : '_';
  }
  if (out.empty() || out == "." || out == ".." || out == "fabric") out = "host_" + out;
  return out;
}

// "HOST/gpuN" -> "GPUN" when the id belongs to `host`, else "".
std::string GpuLabel(const std::string& id, const std::string& host) {
  const std::string prefix = host + "/gpu";
  if (id.rfind(prefix, 0) != 0 || !AllDigits(std::string_view(id).substr(prefix.size()))) return "";
  return "GPU" + id.substr(prefix.size());
}

// The (node, port) pairs of fabric links that a finding or a width/speed mismatch marks degraded.
std::set<std::pair<std::string, int>> DegradedPorts(const analysis::FabricReport& f) {
  std::set<std::pair<std::string, int>> out;
  for (const analysis::FabricFinding& x : f.findings) {
    if (x.kind == analysis::FabricFindingKind::kLinkBelowUsual) out.insert({x.node, x.port});
  }
  for (const analysis::FabricLinkMismatch& m : f.mismatches) out.insert({m.a.node, m.a.port});
  return out;
}

// The fabric node ids (switch id or description) the probed paths bottleneck on.
std::set<std::string> CongestedNodes(const analysis::AnalysisResult& r) {
  std::set<std::string> out;
  if (!r.paths_present) return out;
  for (const analysis::PathFinding& p : r.paths.bottlenecks) out.insert(p.node);
  return out;
}

}  // namespace

std::string HostDot(const analysis::AnalysisResult& r, const std::string& host) {
  std::set<std::string> gpus;
  for (const analysis::GpuReport& g : r.gpus) {
    if (g.host == host) gpus.insert(g.id);
  }
  for (const analysis::LinkReport& l : r.links) {
    if (!GpuLabel(l.a, host).empty() && !GpuLabel(l.b, host).empty()) {
      gpus.insert(l.a);
      gpus.insert(l.b);
    }
  }
  std::string out = "graph " + Quote(host) + " {\n  label=" + Quote(host + ": GPU links as reconstructed") +
                    ";\n  node [shape=box, style=rounded];\n";
  for (const std::string& g : gpus) out += "  " + Quote(g) + " [label=" + Quote(GpuLabel(g, host)) + "];\n";
  for (const analysis::LinkReport& l : r.links) {
    if (gpus.count(l.a) == 0 || gpus.count(l.b) == 0) continue;
    std::string label = IsNvlinkFamily(l.type) ? (l.lanes > 0 ? "NV" + std::to_string(l.lanes) : "NV?")
                                               : std::string(LinkTypeName(l.type));
    std::string attrs = "label=" + Quote(label + (l.degraded ? " degraded" : ""));
    if (l.degraded) {
      attrs += ", color=red, style=dashed, fontcolor=red";
    } else if (IsNvlinkFamily(l.type)) {
      attrs += ", penwidth=2, color=darkgreen";
    }
    out += "  " + Quote(l.a) + " -- " + Quote(l.b) + " [" + attrs + "];\n";
  }
  return out + "}\n";
}

std::string FabricDot(const analysis::AnalysisResult& r) {
  const analysis::FabricReport& f = r.fabric;
  const std::set<std::pair<std::string, int>> degraded = DegradedPorts(f);
  const std::set<std::string> congested = CongestedNodes(r);
  std::string out = "graph fabric {\n  label=\"fabric as reconstructed\";\n  rankdir=TB;\n";
  // Spines on top, then leaves, then hosts.
  std::map<std::string, std::string> host_of_ca;  // CA id -> host node name
  out += "  subgraph spines {\n    rank=min;\n";
  for (const analysis::FabricSwitch& s : f.switches) {
    if (s.level != analysis::SwitchLevel::kSpine) continue;
    const bool hot = congested.count(s.id) > 0 || congested.count(s.desc) > 0;
    out += "    " + Quote(s.id) + " [shape=box, label=" + Quote("spine " + (s.desc.empty() ? s.id : s.desc)) +
           (hot ? ", style=filled, fillcolor=orange, xlabel=\"congested\"" : "") + "];\n";
  }
  out += "  }\n  subgraph leaves {\n";
  for (const analysis::FabricSwitch& s : f.switches) {
    if (s.level == analysis::SwitchLevel::kSpine) continue;
    const bool hot = congested.count(s.id) > 0 || congested.count(s.desc) > 0;
    out += "    " + Quote(s.id) + " [shape=box, label=" + Quote(std::string(analysis::SwitchLevelName(s.level)) + " " + (s.desc.empty() ? s.id : s.desc)) +
           (hot ? ", style=filled, fillcolor=orange, xlabel=\"congested\"" : "") + "];\n";
  }
  out += "  }\n  subgraph hosts {\n    rank=max;\n";
  std::set<std::string> hosts(f.hosts.begin(), f.hosts.end());
  for (const analysis::FabricCa& ca : f.cas) {
    if (!ca.name.empty()) host_of_ca[ca.id] = "host:" + ca.name;
  }
  if (!f.present) {
    for (const std::string& h : TopoHosts(r)) hosts.insert(h);
  }
  for (const std::string& h : hosts) out += "    " + Quote("host:" + h) + " [shape=ellipse, label=" + Quote(h) + "];\n";
  out += "  }\n";
  for (const analysis::FabricLink& l : f.links) {
    const auto a = host_of_ca.find(l.a);
    const auto b = host_of_ca.find(l.b);
    const std::string na = a != host_of_ca.end() ? a->second : l.a;
    const std::string nb = b != host_of_ca.end() ? b->second : l.b;
    const bool bad = degraded.count({l.a, l.a_port}) > 0 || degraded.count({l.b, l.b_port}) > 0 ||
                     (!l.state.empty() && l.state != "Active");
    std::string label = l.width + (l.width.empty() || l.speed.empty() ? "" : " ") + l.speed;
    std::string attrs = "label=" + Quote(label + (bad ? " degraded" : ""));
    if (bad) attrs += ", color=red, style=dashed, fontcolor=red";
    out += "  " + Quote(na) + " -- " + Quote(nb) + " [" + attrs + "];\n";
  }
  return out + "}\n";
}

std::vector<std::pair<std::string, std::string>> DotFiles(const analysis::AnalysisResult& r) {
  std::vector<std::pair<std::string, std::string>> files = {{"fabric.dot", FabricDot(r)}};
  std::set<std::string> names = {"fabric.dot"};
  for (const std::string& host : TopoHosts(r)) {
    std::string name = FileNameOf(host) + ".dot";
    for (int k = 2; names.count(name) > 0; ++k) name = FileNameOf(host) + "-" + std::to_string(k) + ".dot";
    names.insert(name);
    files.emplace_back(name, HostDot(r, host));
  }
  return files;
}

}  // namespace toposcope::report
