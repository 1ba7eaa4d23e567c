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

std::vector<std::pair<std::string, std::string>> AnalysisOutputFiles(const analysis::AnalysisResult& r,
                                                                     const model::Dataset& ds) {
  const std::string topology = DumpSchemaFirst(model::TopologyToJson(model::BuildTopology(ds)));
  const nlohmann::json result = ResultToJson(r, &ds.path_probes);
  std::vector<std::pair<std::string, std::string>> files = {{"result.json", DumpSchemaFirst(result)},
                                                            {"topology.json", topology},
                                                            {"report.html", html::HtmlReportText(result)}};
  // Slurm: topology.conf (the tree of the inferred leaves), topology-nvlink.conf (topology/block
  // over the multi-node NVLink domains), and topology.yaml holding every topology that applies.
  std::vector<formats::SlurmTopology> yaml;
  if (r.leaves_inferred && !r.inferred_leaves.leaves.empty()) {
    formats::SlurmTopology tree = ToSlurmTopology(r.inferred_leaves);
    files.emplace_back("topology.conf", formats::WriteSlurmTopologyConf(tree));
    tree.name = "inferred-tree";
    tree.cluster_default = true;
    formats::SlurmTopology block = ToSlurmBlockTopology(r.inferred_leaves);
    block.name = "inferred-block";
    yaml.push_back(std::move(tree));
    yaml.push_back(std::move(block));
  }
  if (const std::vector<NvlinkDomain> domains = NvlinkDomainsOf(ds); !domains.empty()) {
    formats::SlurmTopology nvl = ToSlurmNvlinkBlockTopology(domains);
    files.emplace_back("topology-nvlink.conf", formats::WriteSlurmTopologyConf(nvl));
    nvl.name = "nvlink-block";
    nvl.cluster_default = yaml.empty();
    yaml.push_back(std::move(nvl));
  }
  if (!yaml.empty()) files.emplace_back("topology.yaml", formats::WriteSlurmTopologyYaml(yaml));
  if (!r.link_weights.hop_weights.empty()) {
    files.emplace_back("opensm-hop-weights.txt", WriteOpenSmHopWeights(r.link_weights.hop_weights));
  }
  return files;
}

Status WriteAnalysisOutputs(const analysis::AnalysisResult& r, const model::Dataset& ds, const std::string& dir) {
  const std::filesystem::path out(dir);
  for (const auto& [name, text] : AnalysisOutputFiles(r, ds)) {
    if (Status st = WriteFileText((out / name).string(), text); !st.ok()) return st;
  }
  return {};
}

}  // namespace toposcope::report
