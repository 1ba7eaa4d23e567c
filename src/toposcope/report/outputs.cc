#include "toposcope/report/outputs.h"

#include <filesystem>

#include "toposcope/base/file_io.h"
#include "toposcope/formats/fabric/slurm_topology.h"
#include "toposcope/model/topology.h"
#include "toposcope/report/export/opensm_export.h"
#include "toposcope/report/export/slurm_export.h"
#include "toposcope/report/html/html_report.h"
#include "toposcope/report/result_json.h"

namespace toposcope::report {

Status ForEachAnalysisOutput(const analysis::AnalysisResult& r, const model::Dataset& ds,
                             const std::function<Status(const std::string& name, std::string&& text)>& take) {
  {
    // The topology's text first (its JSON tree gone before the result's is built); the result's
    // tree then serves result.json and report.html; each text is dropped once taken.
    std::string topology = DumpSchemaFirst(model::TopologyToJson(model::BuildTopology(ds)));
    const nlohmann::json result = ResultToJson(r, &ds.path_probes);
    if (Status st = take("result.json", DumpSchemaFirst(result)); !st.ok()) return st;
    if (Status st = take("topology.json", std::move(topology)); !st.ok()) return st;
    if (Status st = take("report.html", html::HtmlReportText(result)); !st.ok()) return st;
  }
  // Slurm: topology.conf (the tree of the inferred leaves), topology-nvlink.conf (topology/block
  // over the multi-node NVLink domains), and topology.yaml holding every topology that applies.
  std::vector<formats::SlurmTopology> yaml;
  if (r.leaves_inferred && !r.inferred_leaves.leaves.empty()) {
    formats::SlurmTopology tree = ToSlurmTopology(r.inferred_leaves);
    if (Status st = take("topology.conf", formats::WriteSlurmTopologyConf(tree)); !st.ok()) return st;
    tree.name = "inferred-tree";
    tree.cluster_default = true;
    formats::SlurmTopology block = ToSlurmBlockTopology(r.inferred_leaves);
    block.name = "inferred-block";
    yaml.push_back(std::move(tree));
    yaml.push_back(std::move(block));
  }
  if (const std::vector<NvlinkDomain> domains = NvlinkDomainsOf(ds); !domains.empty()) {
    formats::SlurmTopology nvl = ToSlurmNvlinkBlockTopology(domains);
    if (Status st = take("topology-nvlink.conf", formats::WriteSlurmTopologyConf(nvl)); !st.ok()) return st;
    nvl.name = "nvlink-block";
    nvl.cluster_default = yaml.empty();
    yaml.push_back(std::move(nvl));
  }
  if (!yaml.empty()) {
    if (Status st = take("topology.yaml", formats::WriteSlurmTopologyYaml(yaml)); !st.ok()) return st;
  }
  if (!r.link_weights.hop_weights.empty()) {
    return take("opensm-hop-weights.txt", WriteOpenSmHopWeights(r.link_weights.hop_weights));
  }
  return {};
}

std::vector<std::pair<std::string, std::string>> AnalysisOutputFiles(const analysis::AnalysisResult& r,
                                                                     const model::Dataset& ds) {
  std::vector<std::pair<std::string, std::string>> files;
  (void)ForEachAnalysisOutput(r, ds, [&files](const std::string& name, std::string&& text) -> Status {
    files.emplace_back(name, std::move(text));
    return {};
  });
  return files;
}

Status WriteAnalysisOutputs(const analysis::AnalysisResult& r, const model::Dataset& ds, const std::string& dir) {
  const std::filesystem::path out(dir);
  return ForEachAnalysisOutput(r, ds, [&out](const std::string& name, std::string&& text) {
    return WriteFileText((out / name).string(), text);
  });
}

}  // namespace toposcope::report
