// serve/snapshot: one analysis rendered for the server (see snapshot.h).
#include "toposcope/serve/snapshot.h"

#include <nlohmann/json.hpp>
#include <set>

#include "toposcope/report/export/metrics.h"
#include "toposcope/report/export/prometheus_export.h"
#include "toposcope/report/result_json.h"

namespace toposcope::serve {
namespace {

using nlohmann::json;

// Adds to `found` the hosts of `hosts` that the id names: itself, "HOST/...", or either end of
// "A--B" or "A~B".
void HostsNamedBy(const std::string& id, const std::set<std::string>& hosts, std::set<std::string>& found) {
  if (hosts.count(id)) {
    found.insert(id);
    return;
  }
  const size_t slash = id.find('/');
  if (slash != std::string::npos && hosts.count(id.substr(0, slash))) found.insert(id.substr(0, slash));
  for (const std::string sep : {"--", "~"}) {
    const size_t cut = id.find(sep);
    if (cut == std::string::npos) continue;
    for (const std::string& end : {id.substr(0, cut), id.substr(cut + sep.size())}) {
      if (hosts.count(end)) found.insert(end);
      const size_t s = end.find('/');
      if (s != std::string::npos && hosts.count(end.substr(0, s))) found.insert(end.substr(0, s));
    }
  }
}

std::set<std::string> HostsOfElement(const json& e, const std::set<std::string>& hosts) {
  std::set<std::string> found;
  if (!e.is_object()) return found;
  for (const char* key : {"host", "a", "b", "id", "link", "entity", "name", "node", "peer"}) {
    const auto it = e.find(key);
    if (it != e.end() && it->is_string()) HostsNamedBy(it->get<std::string>(), hosts, found);
  }
  return found;
}

void AddArray(const std::string& section, const json& arr, const std::set<std::string>& hosts,
              std::map<std::string, json>& parts) {
  for (const json& e : arr) {
    for (const std::string& h : HostsOfElement(e, hosts)) parts[h][section].push_back(e);
  }
}

}  // namespace

std::vector<std::string> ResultHosts(const analysis::AnalysisResult& r) {
  std::set<std::string> hosts(r.fabric.hosts.begin(), r.fabric.hosts.end());
  for (const auto& g : r.gpus) hosts.insert(g.host);
  for (const auto& i : r.islands) hosts.insert(i.host);
  for (const auto& c : r.clocks) hosts.insert(c.host);
  hosts.erase("");
  return {hosts.begin(), hosts.end()};
}

std::map<std::string, std::string> HostParts(const std::string& result_json_text, const std::vector<std::string>& hosts) {
  const std::set<std::string> known(hosts.begin(), hosts.end());
  std::map<std::string, json> parts;
  for (const std::string& h : hosts) parts[h] = json::object();
  const json result = json::parse(result_json_text, nullptr, false);
  if (result.is_object()) {
    for (const auto& [key, value] : result.items()) {
      if (value.is_array()) AddArray(key, value, known, parts);
      if (!value.is_object()) continue;
      for (const auto& [member, inner] : value.items()) {
        if (inner.is_array()) AddArray(key + "." + member, inner, known, parts);
      }
    }
  }
  std::map<std::string, std::string> out;
  for (auto& [h, part] : parts) {
    part["schema"] = "toposcope.host/1";
    part["host"] = h;
    out[h] = report::DumpSchemaFirst(std::move(part));
  }
  return out;
}

Snapshot BuildSnapshot(const AnalysisOutput& out, int64_t generation) {
  Snapshot s;
  s.generation = generation;
  s.metrics_text = report::PrometheusText(report::ResultMetrics(out.result, &out.probes));
  s.result_json = report::ResultJsonText(out.result, &out.probes);
  const std::vector<std::string> hosts = ResultHosts(out.result);
  s.hosts_json = report::DumpSchemaFirst(json{{"hosts", hosts}});
  s.host_json = HostParts(s.result_json, hosts);
  s.report_html = out.report_html;
  return s;
}

}  // namespace toposcope::serve
