// Unit tests of report/export/slurm_export on hand-built inferences shaped like InferLeaves'
// (leaves "leaf-NN" of consecutive hosts, pods "pod-NN" of consecutive leaves): the tree and block
// topologies round-trip through formats' conf and yaml readers, and a single pod is the root.
#include "toposcope/report/export/slurm_export.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/text.h"
#include "slurm_normalised.h"

namespace toposcope::report {
namespace slurm_export_test {

using analysis::InferredLeaf;
using analysis::InferredPod;
using analysis::LeafInference;

// `leaves` leaves of `hosts_per_leaf` hosts (n001, n002, ...), `leaves_per_pod` leaves a pod.
LeafInference Inference(int leaves, int hosts_per_leaf, int leaves_per_pod) {
  LeafInference inf;
  for (int l = 0; l < leaves; ++l) {
    InferredLeaf leaf;
    leaf.name = StringPrintf("leaf-%02d", l);
    for (int h = 0; h < hosts_per_leaf; ++h) leaf.hosts.push_back(StringPrintf("n%03d", l * hosts_per_leaf + h + 1));
    if (l % leaves_per_pod == 0) {
      InferredPod pod;
      pod.name = StringPrintf("pod-%02d", l / leaves_per_pod);
      inf.pods.push_back(pod);
    }
    inf.pods.back().leaves.push_back(leaf.name);
    inf.pods.back().hosts.insert(inf.pods.back().hosts.end(), leaf.hosts.begin(), leaf.hosts.end());
    inf.hosts.insert(inf.hosts.end(), leaf.hosts.begin(), leaf.hosts.end());
    inf.leaves.push_back(std::move(leaf));
  }
  return inf;
}

TEST(SlurmExport, TreeRoundTripsThroughTheReader) {
  const LeafInference inf = Inference(8, 4, 4);
  const formats::SlurmTopology tree = ToSlurmTopology(inf);
  EXPECT_EQ(tree.plugin, "tree");
  ASSERT_EQ(tree.switches.size(), 1U + 2U + 8U);
  EXPECT_EQ(tree.switches[0].name, "top");
  EXPECT_EQ(tree.switches[0].switches, (std::vector<std::string>{"pod-00", "pod-01"}));
  const std::string conf = formats::WriteSlurmTopologyConf(tree);
  EXPECT_NE(conf.find("SwitchName=leaf-00 Nodes=n[001-004]"), std::string::npos) << conf;
  EXPECT_NE(conf.find("SwitchName=pod-00 Switches=leaf-[00-03]"), std::string::npos) << conf;
  Diagnostics diag;
  Result<std::vector<formats::SlurmTopology>> back = formats::ParseSlurmTopologyConf(conf, "topology.conf", diag);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 1U);
  EXPECT_EQ(formats::Normalised((*back)[0]), tree);
  EXPECT_EQ((*back)[0].RootSwitches(), (std::vector<std::string>{"top"}));
  EXPECT_EQ((*back)[0].LeafSwitches().size(), 8U);
  EXPECT_EQ((*back)[0].AllNodes().size(), 32U);
  EXPECT_EQ((*back)[0].counts.rejected, 0);
}

TEST(SlurmExport, BlockAndYamlRoundTrip) {
  const LeafInference inf = Inference(8, 4, 4);
  const formats::SlurmTopology block = ToSlurmBlockTopology(inf);
  EXPECT_EQ(block.plugin, "block");
  EXPECT_EQ(block.blocks.size(), 8U);
  // The base block (a leaf of 4) and its power-of-two aggregates up to all 8 leaves.
  EXPECT_EQ(block.block_sizes, (std::vector<int>{4, 8, 16, 32}));
  Diagnostics diag;
  Result<std::vector<formats::SlurmTopology>> conf =
      formats::ParseSlurmTopologyConf(formats::WriteSlurmTopologyConf(block), "topology.conf", diag);
  ASSERT_TRUE(conf.ok());
  ASSERT_EQ(conf->size(), 1U);
  EXPECT_EQ(formats::Normalised((*conf)[0]), block);

  formats::SlurmTopology tree = ToSlurmTopology(inf);
  tree.name = "inferred-tree";
  tree.cluster_default = true;
  formats::SlurmTopology blk = block;
  blk.name = "inferred-block";
  const std::string yaml = formats::WriteSlurmTopologyYaml({tree, blk});
  Result<std::vector<formats::SlurmTopology>> back = formats::ParseSlurmTopologyYaml(yaml, "topology.yaml", diag);
  ASSERT_TRUE(back.ok()) << yaml;
  ASSERT_EQ(back->size(), 2U);
  EXPECT_EQ(formats::Normalised((*back)[0]), tree);
  EXPECT_EQ(formats::Normalised((*back)[1]), blk);
}

TEST(SlurmExport, SinglePodTreeHasThePodAsRoot) {
  const formats::SlurmTopology tree = ToSlurmTopology(Inference(8, 4, 8));
  ASSERT_FALSE(tree.switches.empty());
  EXPECT_EQ(tree.switches[0].name, "pod-00");
  EXPECT_EQ(tree.RootSwitches(), (std::vector<std::string>{"pod-00"}));
  // Three leaves: the base block and the one aggregate of two that fits.
  EXPECT_EQ(ToSlurmBlockTopology(Inference(3, 4, 8)).block_sizes, (std::vector<int>{4, 8}));
}

TEST(SlurmExport, BlockSizesArePowerOfTwoAggregatesOfTheSmallestBlock) {
  EXPECT_EQ(SlurmBlockSizes(8, 1), (std::vector<int>{8}));
  EXPECT_EQ(SlurmBlockSizes(8, 2), (std::vector<int>{8, 16}));
  EXPECT_EQ(SlurmBlockSizes(8, 3), (std::vector<int>{8, 16}));
  EXPECT_EQ(SlurmBlockSizes(18, 4), (std::vector<int>{18, 36, 72}));
  EXPECT_TRUE(SlurmBlockSizes(0, 4).empty());
  EXPECT_TRUE(SlurmBlockSizes(4, 0).empty());
}

// Hosts whose GPUs report a Fabric ClusterUUID / CliqueId: one block per domain, named from the
// UUID and clique so the name does not depend on the other hosts; the zero UUID of single-node
// systems and N/A are no domain; a host goes with what most of its GPUs say.
TEST(SlurmExport, NvlinkDomainsFromFabricIdentifiers) {
  model::Dataset ds;
  auto gpu = [](const std::string& uuid, const std::string& clique) {
    model::GpuQueryInfo q;
    q.cluster_uuid = uuid;
    q.clique_id = clique;
    return q;
  };
  const std::string a = "5C1A2B3D-0000-4000-8000-00000000000A", b = "7e2f0c11-0000-4000-8000-00000000000b";
  for (const char* h : {"gb-r1-n02", "gb-r1-n01"}) ds.Host(h).gpu_queries = {gpu(a, "32766"), gpu(a, "32766")};
  ds.Host("gb-r2-n01").gpu_queries = {gpu(b, "1"), gpu(b, "1"), gpu(a, "32766")};
  ds.Host("dgx-h100").gpu_queries = {gpu("00000000-0000-0000-0000-000000000000", "0")};
  ds.Host("vm-h200").gpu_queries = {gpu("", "")};
  const std::vector<NvlinkDomain> d = NvlinkDomainsOf(ds);
  ASSERT_EQ(d.size(), 2U);
  EXPECT_EQ(d[0].name, "nvl-5c1a2b3d-32766");
  EXPECT_EQ(d[0].hosts, (std::vector<std::string>{"gb-r1-n01", "gb-r1-n02"}));
  EXPECT_EQ(d[1].name, "nvl-7e2f0c11-1");
  EXPECT_EQ(d[1].hosts, (std::vector<std::string>{"gb-r2-n01"}));
  const formats::SlurmTopology t = ToSlurmNvlinkBlockTopology(d);
  EXPECT_EQ(t.plugin, "block");
  ASSERT_EQ(t.blocks.size(), 2U);
  EXPECT_EQ(t.block_sizes, (std::vector<int>{1, 2}));
  Diagnostics diag;
  const std::string conf = formats::WriteSlurmTopologyConf(t);
  EXPECT_NE(conf.find("BlockName=nvl-5c1a2b3d-32766 Nodes=gb-r1-n[01-02]"), std::string::npos) << conf;
  Result<std::vector<formats::SlurmTopology>> back = formats::ParseSlurmTopologyConf(conf, "topology.conf", diag);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(formats::Normalised((*back)[0]), t);
  const model::Dataset empty;
  EXPECT_TRUE(NvlinkDomainsOf(empty).empty());
}

TEST(SlurmExport, NoLeavesGiveAnEmptyTopology) {
  const LeafInference none;
  EXPECT_TRUE(ToSlurmTopology(none).switches.empty());
  EXPECT_TRUE(ToSlurmBlockTopology(none).blocks.empty());
  EXPECT_TRUE(ToSlurmBlockTopology(none).block_sizes.empty());
}

}  // namespace slurm_export_test
}  // namespace toposcope::report
