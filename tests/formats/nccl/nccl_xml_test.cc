// Golden tests of the NCCL topology / graph XML reader and writer on the real fixtures, plus
// malformed inputs.
#include "toposcope/formats/nccl/nccl_xml.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace toposcope::formats {
namespace nccl_xml_test {

const std::string kTopoDir = std::string(TOPOSCOPE_FIXTURES) + "/nccl_topo_xml/";
const std::string kIbm = kTopoDir + "ibm_vpc_gx3d_h100_8gpu_8nic_nccl2.22.3.xml";
const std::string kNcv4 = kTopoDir + "azure_azhpc_ncv4-topo.xml";
const std::string kNdv2 = kTopoDir + "azure_azhpc_ndv2-topo.xml";
const std::string kNdv4 = kTopoDir + "azure_azhpc_ndv4-topo.xml";
const std::string kNdv5 = kTopoDir + "azure_azhpc_ndv5-topo.xml";
const std::string kGraph = std::string(TOPOSCOPE_FIXTURES) + "/nccl_graph_xml/azure_azhpc_ncv4-graph.xml";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Equal, allowing only a difference of one trailing newline.
void ExpectSameText(std::string a, std::string b) {
  if (!a.empty() && a.back() != '\n') a += '\n';
  if (!b.empty() && b.back() != '\n') b += '\n';
  EXPECT_EQ(a, b);
}

struct Parsed {
  Diagnostics diag;
  ReadCounts counts;
  Result<NcclTopo> topo = MakeError("unset");
};

void ParseTopo(const std::string& text, Parsed& p, std::string_view source = "t.xml") {
  p.topo = ParseNcclTopoXml(text, source, p.diag, p.counts);
  EXPECT_TRUE(p.counts.Balanced()) << p.counts.read << " " << p.counts.accepted << " " << p.counts.rejected;
}

std::vector<std::string> GpuBusIds(const NcclTopo& t) {
  std::vector<std::string> out;
  for (const auto& g : t.gpus) out.push_back(g.bus_id);
  return out;
}

// ---- generic tree ----

TEST(XmlTree, AttrSetAttrSameAs) {
  XmlElement a;
  a.name = "gpu";
  a.SetAttr("dev", "0");
  a.SetAttr("sm", "90");
  a.SetAttr("dev", "1");
  ASSERT_EQ(a.attrs.size(), 2u);
  EXPECT_EQ(a.attrs[0].first, "dev");
  EXPECT_EQ(a.Attr("dev"), "1");
  EXPECT_EQ(a.Attr("rank"), std::nullopt);
  XmlElement b = a;
  b.line = 42;
  EXPECT_TRUE(a.SameAs(b));
  b.children.push_back(XmlElement{"nvlink", {}, {}, 0});
  EXPECT_FALSE(a.SameAs(b));
  XmlElement c = a;
  std::swap(c.attrs[0], c.attrs[1]);
  EXPECT_FALSE(a.SameAs(c));  // order matters
}

TEST(XmlTree, WritesNcclLayoutAndEscapes) {
  XmlElement root{"system", {{"version", "1"}}, {}, 0};
  root.children.push_back(
      XmlElement{"nic", {}, {XmlElement{"net", {{"name", "a&b<c>\"d\"\te\nf"}}, {}, 0}}, 0});
  root.children.push_back(XmlElement{"empty", {}, {}, 0});
  const std::string text = WriteXmlTree(root);
  EXPECT_EQ(text,
            "<system version=\"1\">\n"
            "  <nic>\n"
            "    <net name=\"a&amp;b&lt;c&gt;&quot;d&quot;&#9;e&#10;f\"/>\n"
            "  </nic>\n"
            "  <empty/>\n"
            "</system>\n");
  auto back = ParseXmlTree(text, "w.xml");
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_TRUE(back->SameAs(root));
  EXPECT_EQ(back->children[0].children[0].Attr("name"), "a&b<c>\"d\"\te\nf");
  EXPECT_EQ(back->children[0].children[0].line, 3);
}

TEST(XmlTree, DropsCommentsDeclarationsAndText) {
  auto t = ParseXmlTree("<?xml version=\"1.0\"?>\n<!-- hi -->\n<a x=\"1\">text<b/><!-- c --></a>\n", "s");
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  EXPECT_EQ(t->name, "a");
  EXPECT_EQ(t->line, 3);
  ASSERT_EQ(t->children.size(), 1u);
  EXPECT_EQ(t->children[0].name, "b");
}

TEST(XmlTree, ErrorsCarryLineAndColumn) {
  auto t = ParseXmlTree("<a>\n  <b>\n  </c>\n</a>\n", "bad.xml");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().path, "bad.xml");
  EXPECT_EQ(t.error().line, 3);
  EXPECT_GT(t.error().col, 0);
  EXPECT_NE(t.error().message.find("not well-formed XML: "), std::string::npos) << t.error().message;

  auto two = ParseXmlTree("<a/>\n<b/>\n", "two.xml");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().line, 2);
  EXPECT_NE(two.error().message.find("more than one root"), std::string::npos);
}

// ---- topology golden tests ----

TEST(NcclTopoXml, IbmH100Dump) {
  Parsed p;
  ParseTopo(Slurp(kIbm), p, kIbm);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NcclTopo& t = *p.topo;
  EXPECT_EQ(t.version, 1);
  ASSERT_EQ(t.cpus.size(), 2u);
  EXPECT_EQ(t.pcis.size(), 24u);
  ASSERT_EQ(t.gpus.size(), 8u);
  ASSERT_EQ(t.nics.size(), 8u);
  // 2 cpu + 24 pci + 8 gpu + 8 net + 32 nvlink
  EXPECT_EQ(p.counts.read, 74);
  EXPECT_EQ(p.counts.accepted, 74);
  EXPECT_EQ(p.counts.rejected, 0);
  EXPECT_TRUE(p.diag.items().empty());

  EXPECT_EQ(t.cpus[0].host_hash, "0xa5f31daa95182da8");
  EXPECT_EQ(t.cpus[0].numa_id, 0);
  EXPECT_EQ(t.cpus[1].numa_id, 1);
  EXPECT_EQ(t.cpus[0].vendor, "GenuineIntel");
  EXPECT_EQ(t.cpus[0].familyid, 6);
  EXPECT_EQ(t.cpus[0].modelid, 143);

  const NcclTopoGpu& g0 = t.gpus[0];
  EXPECT_EQ(g0.dev, 0);
  EXPECT_EQ(g0.bus_id, "0000:a4:00.0");
  EXPECT_EQ(g0.numa_id, 0);
  EXPECT_EQ(g0.sm, 90);
  EXPECT_EQ(g0.rank, 0);
  EXPECT_EQ(g0.pci_path, (std::vector<std::string>{"0000:a1:00.0", "0000:a4:00.0"}));
  EXPECT_EQ(g0.link_speed, "32.0 GT/s PCIe");
  EXPECT_EQ(g0.line, 10);
  ASSERT_EQ(g0.nvlinks.size(), 4u);
  std::vector<int> counts;
  for (const auto& l : g0.nvlinks) {
    counts.push_back(l.count);
    EXPECT_EQ(l.tclass, "0x068000");
  }
  EXPECT_EQ(counts, (std::vector<int>{5, 5, 4, 4}));
  EXPECT_EQ(g0.nvlinks[0].target, "0000:f5:00.0");
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(t.gpus[static_cast<size_t>(i)].dev, i);
    EXPECT_EQ(t.gpus[static_cast<size_t>(i)].numa_id, i < 4 ? 0 : 1);
    EXPECT_EQ(t.gpus[static_cast<size_t>(i)].nvlinks.size(), 4u);
  }
  EXPECT_EQ(t.gpus[7].bus_id, "0000:ea:00.0");

  const NcclTopoNic& n0 = t.nics[0];
  EXPECT_EQ(n0.name, "mlx5_7");
  EXPECT_EQ(n0.dev, 7);
  EXPECT_EQ(n0.speed_mbps, 200000);
  EXPECT_EQ(n0.bus_id, "0000:a3:00.0");
  EXPECT_EQ(n0.pci_path, (std::vector<std::string>{"0000:a1:00.0", "0000:a3:00.0"}));
  EXPECT_EQ(n0.guid, "0x34f4e30003e1a258");
  EXPECT_EQ(n0.numa_id, 0);
  EXPECT_EQ(n0.line, 6);
  EXPECT_EQ(t.nics[7].name, "mlx5_0");
  EXPECT_EQ(t.nics[7].numa_id, 1);

  EXPECT_EQ(t.pcis[0].bus_id, "0000:a1:00.0");
  EXPECT_EQ(t.pcis[0].pci_class, "0x060400");
  EXPECT_EQ(t.pcis[0].parent, "");
  EXPECT_EQ(t.pcis[0].link_width, 1);
  EXPECT_EQ(t.pcis[1].parent, "0000:a1:00.0");
  EXPECT_EQ(t.pcis[1].pci_class, "0x020000");
}

TEST(NcclTopoXml, AzureNcv4Dump) {
  Parsed p;
  ParseTopo(Slurp(kNcv4), p);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NcclTopo& t = *p.topo;
  EXPECT_EQ(t.cpus.size(), 4u);
  EXPECT_EQ(t.pcis.size(), 4u);
  ASSERT_EQ(t.gpus.size(), 4u);
  ASSERT_EQ(t.nics.size(), 1u);
  EXPECT_EQ(p.counts.read, 4 + 4 + 4 + 1 + 4);
  EXPECT_EQ(p.counts.rejected, 0);
  for (int i = 0; i < 4; ++i) {
    const auto& g = t.gpus[static_cast<size_t>(i)];
    EXPECT_EQ(g.dev, i);
    EXPECT_EQ(g.numa_id, i);
    EXPECT_EQ(g.sm, 80);
    ASSERT_EQ(g.nvlinks.size(), 1u);
    EXPECT_EQ(g.nvlinks[0].target, g.bus_id);  // Azure: target is the GPU itself
    EXPECT_EQ(g.nvlinks[0].count, 12);
    EXPECT_EQ(g.nvlinks[0].tclass, "0x030200");
  }
  EXPECT_EQ(t.gpus[2].bus_id, "0003:00:00.0");
  EXPECT_EQ(t.gpus[2].pci_path, (std::vector<std::string>{"0003:00:00.0"}));
  const NcclTopoNic& n = t.nics[0];
  EXPECT_EQ(n.name, "eth0");
  EXPECT_EQ(n.dev, 0);
  EXPECT_EQ(n.speed_mbps, 100000);
  EXPECT_EQ(n.bus_id, "");
  EXPECT_TRUE(n.pci_path.empty());
  EXPECT_EQ(n.numa_id, 0);
  EXPECT_EQ(n.guid, "0x0");
}

TEST(NcclTopoXml, AzureNdv2Skeleton) {
  Parsed p;
  ParseTopo(Slurp(kNdv2), p);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NcclTopo& t = *p.topo;
  EXPECT_EQ(t.cpus.size(), 2u);
  EXPECT_EQ(t.pcis.size(), 9u);
  ASSERT_EQ(t.gpus.size(), 8u);
  ASSERT_EQ(t.nics.size(), 1u);
  EXPECT_EQ(p.counts.read, 11);
  EXPECT_EQ(p.counts.accepted, 11);
  EXPECT_EQ(GpuBusIds(t),
            (std::vector<std::string>{"0001:00:00.0", "0002:00:00.0", "0003:00:00.0", "0004:00:00.0",
                                      "0005:00:00.0", "0006:00:00.0", "0007:00:00.0", "0008:00:00.0"}));
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(t.gpus[static_cast<size_t>(i)].dev, i);
    EXPECT_EQ(t.gpus[static_cast<size_t>(i)].numa_id, i < 4 ? 0 : 1);
    EXPECT_TRUE(t.gpus[static_cast<size_t>(i)].nvlinks.empty());
    EXPECT_EQ(t.gpus[static_cast<size_t>(i)].link_speed, "16 GT/s");
    EXPECT_EQ(t.gpus[static_cast<size_t>(i)].link_width, 16);
  }
  EXPECT_EQ(t.nics[0].bus_id, "0101:00:00.0");
  EXPECT_EQ(t.nics[0].dev, 0);
  EXPECT_EQ(t.nics[0].numa_id, 0);
  EXPECT_EQ(t.nics[0].pci_path, (std::vector<std::string>{"0101:00:00.0"}));
}

TEST(NcclTopoXml, AzureNdv4Skeleton) {
  Parsed p;
  ParseTopo(Slurp(kNdv4), p);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NcclTopo& t = *p.topo;
  EXPECT_EQ(t.cpus.size(), 4u);
  EXPECT_EQ(t.pcis.size(), 20u);
  ASSERT_EQ(t.gpus.size(), 8u);
  ASSERT_EQ(t.nics.size(), 8u);
  EXPECT_EQ(p.counts.read, 24);
  EXPECT_EQ(p.counts.rejected, 0);
  EXPECT_EQ(GpuBusIds(t),
            (std::vector<std::string>{"0003:00:00.0", "0004:00:00.0", "0001:00:00.0", "0002:00:00.0",
                                      "000d:00:00.0", "000e:00:00.0", "000b:00:00.0", "000c:00:00.0"}));
  std::vector<int> gpu_numa, nic_numa, nic_dev;
  std::vector<std::string> nic_bus;
  for (const auto& g : t.gpus) gpu_numa.push_back(g.numa_id);
  for (const auto& n : t.nics) {
    nic_numa.push_back(n.numa_id);
    nic_dev.push_back(n.dev);
    nic_bus.push_back(n.bus_id);
  }
  EXPECT_EQ(gpu_numa, (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(nic_numa, (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(nic_dev, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(nic_bus,
            (std::vector<std::string>{"0103:00:00.0", "0104:00:00.0", "0101:00:00.0", "0102:00:00.0",
                                      "0107:00:00.0", "0108:00:00.0", "0105:00:00.0", "0106:00:00.0"}));
  EXPECT_EQ(t.gpus[0].dev, 0);
  EXPECT_EQ(t.gpus[7].dev, 7);
  EXPECT_EQ(t.gpus[0].pci_path, (std::vector<std::string>{"ffff:ff:01.0", "0003:00:00.0"}));
  EXPECT_EQ(t.nics[0].pci_path, (std::vector<std::string>{"ffff:ff:01.0", "0103:00:00.0"}));
  EXPECT_EQ(t.pcis[1].parent, "ffff:ff:01.0");
  EXPECT_EQ(t.pcis[1].numa_id, 0);
}

TEST(NcclTopoXml, AzureNdv5Skeleton) {
  Parsed p;
  ParseTopo(Slurp(kNdv5), p);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NcclTopo& t = *p.topo;
  EXPECT_EQ(t.cpus.size(), 2u);
  EXPECT_EQ(t.pcis.size(), 24u);
  ASSERT_EQ(t.gpus.size(), 8u);
  ASSERT_EQ(t.nics.size(), 8u);
  EXPECT_EQ(p.counts.read, 26);
  EXPECT_EQ(t.gpus[7].bus_id, "000c:00:00.0");
  EXPECT_EQ(t.gpus[7].numa_id, 1);
  EXPECT_EQ(t.gpus[3].bus_id, "0008:00:00.0");
  EXPECT_EQ(t.gpus[3].pci_path, (std::vector<std::string>{"ffff:ff:04.0", "0008:00:00.0"}));
  EXPECT_EQ(t.gpus[0].link_speed, "32.0 GT/s PCIe");
  EXPECT_EQ(t.nics[7].bus_id, "0108:00:00.0");
  EXPECT_EQ(t.nics[7].numa_id, 1);
}

TEST(NcclTopoXml, AllFixturesRoundTripByteForByte) {
  for (const std::string& path : {kIbm, kNcv4, kNdv2, kNdv4, kNdv5}) {
    SCOPED_TRACE(path);
    const std::string text = Slurp(path);
    Parsed p;
    ParseTopo(text, p, path);
    ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
    ExpectSameText(WriteXmlTree(p.topo->root), text);
    auto tree = ParseXmlTree(text, path);
    ASSERT_TRUE(tree.ok());
    EXPECT_TRUE(tree->SameAs(p.topo->root));
  }
}

TEST(NcclTopoXml, BusIdsAreLowercased) {
  Parsed p;
  ParseTopo(
      "<system version=\"1\">\n"
      "  <cpu numaid=\"3\">\n"
      "    <pci busid=\"0000:A4:00.0\" class=\"0x030200\">\n"
      "      <gpu dev=\"0\">\n"
      "        <nvlink target=\"0000:F5:00.0\" count=\"2\" tclass=\"0x068000\"/>\n"
      "      </gpu>\n"
      "    </pci>\n"
      "  </cpu>\n"
      "</system>\n",
      p);
  ASSERT_TRUE(p.topo.ok());
  ASSERT_EQ(p.topo->gpus.size(), 1u);
  EXPECT_EQ(p.topo->gpus[0].bus_id, "0000:a4:00.0");
  EXPECT_EQ(p.topo->gpus[0].numa_id, 3);
  EXPECT_EQ(p.topo->gpus[0].nvlinks[0].target, "0000:f5:00.0");
  EXPECT_EQ(p.topo->pcis[0].bus_id, "0000:a4:00.0");
}

// ---- bad topology inputs ----

bool HasDiag(const Diagnostics& d, int64_t line, std::string_view reason_part,
             Severity sev = Severity::kRejected) {
  for (const auto& item : d.items()) {
    if (item.line == line && item.severity == sev && item.reason.find(reason_part) != std::string::npos)
      return true;
  }
  return false;
}

TEST(NcclTopoXmlBad, Empty) {
  Parsed p;
  ParseTopo("", p);
  ASSERT_FALSE(p.topo.ok());
  EXPECT_NE(p.topo.error().message.find("not well-formed XML"), std::string::npos);
  EXPECT_EQ(p.topo.error().line, 1);
  EXPECT_EQ(p.counts.read, 0);
}

TEST(NcclTopoXmlBad, BinaryGarbage) {
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk += static_cast<char>((i * 7919 + 13) & 0xff);
  Parsed p;
  ParseTopo(junk, p);
  ASSERT_FALSE(p.topo.ok());
  EXPECT_NE(p.topo.error().message.find("not well-formed XML"), std::string::npos);
  EXPECT_FALSE(p.topo.error().ToString().empty());
}

// A dump cut in half (a full disk, a partial copy) keeps the GPUs, NICs and links read before the
// cut, plus one rejected record that says where the file stops. (It used to be refused whole.)
TEST(NcclTopoXmlBad, TruncatedIbmDump) {
  const std::string text = Slurp(kIbm);
  const std::string half = text.substr(0, text.size() / 2);
  Parsed whole;
  ParseTopo(text, whole, kIbm);
  ASSERT_TRUE(whole.topo.ok());
  Parsed p;
  ParseTopo(half, p, "half.xml");
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  // Every GPU and NIC whose start tag lies before the cut, with the same attributes as in the whole file.
  size_t gpus_before = 0, nics_before = 0;
  for (size_t pos = 0; (pos = half.find("<gpu ", pos)) != std::string::npos; ++pos) gpus_before++;
  for (size_t pos = 0; (pos = half.find("<net ", pos)) != std::string::npos; ++pos) nics_before++;
  ASSERT_GT(gpus_before, 0u);
  EXPECT_EQ(p.topo->gpus.size(), gpus_before);
  EXPECT_EQ(p.topo->nics.size(), nics_before);
  for (size_t i = 0; i < p.topo->gpus.size(); ++i) {
    EXPECT_EQ(p.topo->gpus[i].bus_id, whole.topo->gpus[i].bus_id);
    EXPECT_EQ(p.topo->gpus[i].dev, whole.topo->gpus[i].dev);
  }
  EXPECT_TRUE(p.counts.Balanced());
  EXPECT_EQ(p.counts.rejected, 1);
  ASSERT_EQ(p.diag.items().size(), 1u);
  const auto& d = p.diag.items()[0];
  EXPECT_EQ(d.severity, Severity::kRejected);
  EXPECT_GT(d.line, 1);
  EXPECT_NE(d.reason.find("stops at byte offset"), std::string::npos) << d.reason;
  EXPECT_NE(d.ToString().find("half.xml:"), std::string::npos) << d.ToString();
}

// Cut anywhere after the root's start tag, the dump still reads: counts balance, exactly one record
// says where it stops, and the GPUs only grow as more of the file is kept.
TEST(NcclTopoXmlBad, EveryCutPointKeepsWhatItHolds) {
  const std::string text = Slurp(kIbm);
  const size_t root_end = text.find('>', text.find("<system")) + 1;
  size_t prev_gpus = 0;
  for (size_t n = root_end; n < text.size() - 1; n += 7) {
    Parsed p;
    ParseTopo(text.substr(0, n), p, "cut.xml");
    ASSERT_TRUE(p.topo.ok()) << n << ": " << p.topo.error().ToString();
    ASSERT_TRUE(p.counts.Balanced()) << n;
    size_t cuts = 0;
    for (const auto& item : p.diag.items()) cuts += item.reason.find("stops at byte offset") != std::string::npos;
    ASSERT_EQ(cuts, 1u) << n;
    ASSERT_GE(p.topo->gpus.size(), prev_gpus) << n;
    prev_gpus = p.topo->gpus.size();
  }
  EXPECT_EQ(prev_gpus, 8u);
  // Not a cut: a mismatched end tag in the middle still fails the whole file.
  Parsed bad;
  ParseTopo("<system version=\"1\">\n  <cpu numaid=\"0\">\n  </pci>\n  <cpu numaid=\"1\"/>\n</system>\n", bad);
  EXPECT_FALSE(bad.topo.ok());
  // Nor is a file cut inside the root's own start tag.
  Parsed root_cut;
  ParseTopo("<system vers", root_cut);
  EXPECT_FALSE(root_cut.topo.ok());
}

TEST(NcclTopoXmlBad, WrongRoot) {
  Parsed p;
  ParseTopo(Slurp(kGraph), p);
  ASSERT_FALSE(p.topo.ok());
  EXPECT_EQ(p.topo.error().message, "root element is <graphs>, expected <system>");
  EXPECT_EQ(p.topo.error().line, 1);
}

TEST(NcclTopoXmlBad, GpuDevNotInteger) {
  Parsed p;
  ParseTopo(
      "<system version=\"1\">\n"
      "  <cpu numaid=\"0\">\n"
      "    <pci busid=\"0000:a4:00.0\" class=\"0x030200\">\n"
      "      <gpu dev=\"abc\" sm=\"90\">\n"
      "        <nvlink target=\"0000:f5:00.0\" count=\"5\" tclass=\"0x068000\"/>\n"
      "      </gpu>\n"
      "    </pci>\n"
      "    <pci busid=\"0000:b4:00.0\" class=\"0x030200\">\n"
      "      <gpu dev=\"1\" sm=\"90\"/>\n"
      "    </pci>\n"
      "  </cpu>\n"
      "</system>\n",
      p);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  ASSERT_EQ(p.topo->gpus.size(), 1u);  // not turned into a skeleton gpu either
  EXPECT_EQ(p.topo->gpus[0].dev, 1);
  EXPECT_EQ(p.counts.read, 6);
  EXPECT_EQ(p.counts.rejected, 2);  // the gpu and its nvlink
  EXPECT_TRUE(HasDiag(p.diag, 4, "gpu dev is not a non-negative integer"));
  EXPECT_TRUE(HasDiag(p.diag, 5, "nvlink of a rejected gpu"));
  EXPECT_NE(p.diag.items()[0].ToString().find("t.xml:4: rejected:"), std::string::npos);
}

TEST(NcclTopoXmlBad, NvlinkBadCountAndTarget) {
  Parsed p;
  ParseTopo(
      "<system version=\"1\">\n"
      "  <cpu numaid=\"0\">\n"
      "    <pci busid=\"0000:a4:00.0\" class=\"0x030200\">\n"
      "      <gpu dev=\"0\">\n"
      "        <nvlink target=\"0000:f5:00.0\" count=\"-3\" tclass=\"0x068000\"/>\n"
      "        <nvlink target=\"0000:f4:00.0\" count=\"2.5\"/>\n"
      "        <nvlink count=\"4\"/>\n"
      "        <nvlink target=\"0000:f6:00.0\" count=\"0\"/>\n"
      "        <nvlink target=\"0000:f3:00.0\" count=\"4\" tclass=\"0x068000\"/>\n"
      "      </gpu>\n"
      "    </pci>\n"
      "  </cpu>\n"
      "  <nvlink target=\"0000:f3:00.0\" count=\"4\"/>\n"
      "</system>\n",
      p);
  ASSERT_TRUE(p.topo.ok());
  ASSERT_EQ(p.topo->gpus.size(), 1u);
  ASSERT_EQ(p.topo->gpus[0].nvlinks.size(), 1u);
  EXPECT_EQ(p.topo->gpus[0].nvlinks[0].target, "0000:f3:00.0");
  EXPECT_EQ(p.counts.read, 3 + 6);
  EXPECT_EQ(p.counts.rejected, 5);
  EXPECT_TRUE(HasDiag(p.diag, 5, "nvlink count is not a positive integer"));
  EXPECT_TRUE(HasDiag(p.diag, 6, "nvlink count is not a positive integer"));
  EXPECT_TRUE(HasDiag(p.diag, 7, "nvlink without target"));
  EXPECT_TRUE(HasDiag(p.diag, 8, "nvlink count is not a positive integer"));
  EXPECT_TRUE(HasDiag(p.diag, 13, "nvlink outside a gpu element"));
}

TEST(NcclTopoXmlBad, PciWithoutBusidNetWithoutNameNanSpeed) {
  Parsed p;
  ParseTopo(
      "<system version=\"1\">\n"
      "  <cpu numaid=\"1\">\n"
      "    <pci class=\"0x060400\">\n"
      "      <pci busid=\"0000:A3:00.0\" class=\"0x020000\">\n"
      "        <nic>\n"
      "          <net dev=\"0\" speed=\"100\"/>\n"
      "          <net name=\"mlx5_1\" dev=\"1\" speed=\"nan\"/>\n"
      "        </nic>\n"
      "      </pci>\n"
      "    </pci>\n"
      "  </cpu>\n"
      "</system>\n",
      p);
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(p.topo->pcis.size(), 1u);
  EXPECT_EQ(p.topo->pcis[0].parent, "");  // the busid-less bridge is skipped
  ASSERT_EQ(p.topo->nics.size(), 1u);
  EXPECT_EQ(p.topo->nics[0].name, "mlx5_1");
  EXPECT_EQ(p.topo->nics[0].speed_mbps, 0);
  EXPECT_EQ(p.topo->nics[0].bus_id, "0000:a3:00.0");
  EXPECT_EQ(p.topo->nics[0].pci_path, (std::vector<std::string>{"0000:a3:00.0"}));
  EXPECT_EQ(p.topo->nics[0].numa_id, 1);
  EXPECT_EQ(p.counts.read, 5);
  EXPECT_EQ(p.counts.rejected, 2);
  EXPECT_TRUE(HasDiag(p.diag, 3, "pci element without busid"));
  EXPECT_TRUE(HasDiag(p.diag, 6, "net element without name"));
  EXPECT_TRUE(HasDiag(p.diag, 7, "speed is not a finite number", Severity::kWarning));
}

TEST(NcclTopoXmlBad, DeepNesting) {
  std::string text = "<system version=\"1\">";
  for (int i = 0; i < 100000; ++i) text += "<pci busid=\"0000:00:00.0\">";
  for (int i = 0; i < 100000; ++i) text += "</pci>";
  text += "</system>";
  Parsed p;
  ParseTopo(text, p);
  ASSERT_FALSE(p.topo.ok());
  EXPECT_NE(p.topo.error().message.find("nested deeper than 64"), std::string::npos)
      << p.topo.error().message;
  EXPECT_EQ(p.counts.read, 0);

  // Unclosed deep nesting is a syntax error, not a crash.
  Parsed q;
  ParseTopo(std::string(100000, '<').insert(0, "<system>"), q);
  ASSERT_FALSE(q.topo.ok());
}

TEST(NcclTopoXmlBad, HugeAttributeValue) {
  const std::string big(1 << 20, 'x');
  Parsed p;
  ParseTopo("<system version=\"1\"><cpu numaid=\"" + big + "\" host_hash=\"" + big + "\"/></system>", p);
  ASSERT_TRUE(p.topo.ok());
  ASSERT_EQ(p.topo->cpus.size(), 1u);
  EXPECT_EQ(p.topo->cpus[0].numa_id, -1);
  EXPECT_EQ(p.topo->cpus[0].host_hash.size(), big.size());
  ASSERT_FALSE(p.diag.items().empty());
  EXPECT_LT(p.diag.items()[0].raw.size(), 200u);  // diagnostics stay bounded
}

// ---- graph XML ----

TEST(NcclGraphXml, AzureNcv4Graph) {
  const std::string text = Slurp(kGraph);
  Diagnostics diag;
  ReadCounts counts;
  auto g = ParseNcclGraphXml(text, kGraph, diag, counts);
  ASSERT_TRUE(g.ok()) << g.error().ToString();
  EXPECT_TRUE(counts.Balanced());
  EXPECT_EQ(counts.read, 3 + 2 + 4 + 4);
  EXPECT_EQ(counts.rejected, 0);
  EXPECT_TRUE(diag.items().empty());
  EXPECT_EQ(g->version, 1);
  EXPECT_FALSE(g->dev_hex);
  ASSERT_EQ(g->graphs.size(), 3u);
  const std::vector<int> patterns{4, 1, 3};
  const std::vector<int> nch{2, 4, 4};
  for (size_t i = 0; i < 3; ++i) {
    const NcclGraph& gr = g->graphs[i];
    EXPECT_EQ(gr.id, static_cast<int>(i));
    EXPECT_EQ(gr.pattern, patterns[i]);
    EXPECT_EQ(gr.nchannels, nch[i]);
    EXPECT_EQ(gr.channels.size(), static_cast<size_t>(nch[i]));
    EXPECT_EQ(gr.crossnic, 0);
    EXPECT_EQ(gr.speedintra, 12);
    EXPECT_EQ(gr.speedinter, 12);
    EXPECT_EQ(gr.latencyinter, 0);
    EXPECT_EQ(gr.typeintra, "SYS");
    EXPECT_EQ(gr.typeinter, "PIX");
    EXPECT_EQ(gr.samechannels, 0);
  }
  auto order = [&](size_t gi, size_t ci) {
    std::vector<int64_t> out;
    for (const auto& [kind, dev] : g->graphs[gi].channels[ci].steps) {
      EXPECT_EQ(kind, "gpu");
      out.push_back(dev);
    }
    return out;
  };
  EXPECT_EQ(order(0, 0), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(order(0, 1), (std::vector<int64_t>{0, 3, 2, 1}));
  EXPECT_EQ(order(1, 1), (std::vector<int64_t>{1, 0, 3, 2}));
  EXPECT_EQ(order(2, 2), (std::vector<int64_t>{3, 2, 1, 0}));
  EXPECT_EQ(order(2, 3), (std::vector<int64_t>{2, 3, 0, 1}));

  ExpectSameText(WriteNcclGraphXml(*g), text);
}

TEST(NcclGraphXml, NetStepsHexDevsAndFloats) {
  const std::string text =
      "<graphs version=\"1\">\n"
      "  <graph id=\"0\" pattern=\"4\" crossnic=\"1\" nchannels=\"1\" speedintra=\"44.5\" "
      "speedinter=\"22.25\" "
      "latencyinter=\"1e-06\" typeintra=\"NVL\" typeinter=\"PXN\" samechannels=\"1\">\n"
      "    <channel>\n"
      "      <net dev=\"0x10000\"/>\n"
      "      <gpu dev=\"0\"/>\n"
      "      <gpu dev=\"0x7\"/>\n"
      "      <net dev=\"0x1\"/>\n"
      "    </channel>\n"
      "  </graph>\n"
      "</graphs>\n";
  Diagnostics diag;
  ReadCounts counts;
  auto g = ParseNcclGraphXml(text, "hex.xml", diag, counts);
  ASSERT_TRUE(g.ok()) << g.error().ToString();
  EXPECT_TRUE(g->dev_hex);
  ASSERT_EQ(g->graphs.size(), 1u);
  const auto& steps = g->graphs[0].channels.at(0).steps;
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0], (std::pair<std::string, int64_t>{"net", 0x10000}));
  EXPECT_EQ(steps[2].second, 7);
  EXPECT_EQ(g->graphs[0].speedinter, 22.25);
  EXPECT_EQ(g->graphs[0].latencyinter, 1e-6);
  EXPECT_EQ(WriteNcclGraphXml(*g), text);

  NcclGraphs dec = *g;
  dec.dev_hex = false;
  const std::string d = WriteNcclGraphXml(dec);
  EXPECT_NE(d.find("<net dev=\"65536\"/>"), std::string::npos) << d;
}

TEST(NcclGraphXmlBad, RejectsBadGraphsAndChannels) {
  const std::string text =
      "<graphs version=\"1\">\n"
      "  <graph id=\"0\" pattern=\"x\" nchannels=\"1\">\n"
      "    <channel><gpu dev=\"0\"/></channel>\n"
      "  </graph>\n"
      "  <graph id=\"1\" pattern=\"4\" nchannels=\"3\" speedintra=\"nan\">\n"
      "  </graph>\n"
      "  <graph id=\"2\" pattern=\"3\" nchannels=\"3\">\n"
      "    <channel><gpu dev=\"abc\"/></channel>\n"
      "    <channel><gpu dev=\"-1\"/></channel>\n"
      "    <channel><gpu dev=\"1\"/><nvls/></channel>\n"
      "  </graph>\n"
      "  <channel/>\n"
      "</graphs>\n";
  Diagnostics diag;
  ReadCounts counts;
  auto g = ParseNcclGraphXml(text, "bad.xml", diag, counts);
  ASSERT_TRUE(g.ok()) << g.error().ToString();
  EXPECT_TRUE(counts.Balanced());
  EXPECT_EQ(counts.read, 3 + 5);
  EXPECT_EQ(counts.accepted, 2);
  ASSERT_EQ(g->graphs.size(), 1u);
  EXPECT_EQ(g->graphs[0].id, 2);
  ASSERT_EQ(g->graphs[0].channels.size(), 1u);
  EXPECT_TRUE(HasDiag(diag, 2, "graph pattern is not an integer"));
  EXPECT_TRUE(HasDiag(diag, 3, "channel of a rejected graph"));
  EXPECT_TRUE(HasDiag(diag, 5, "graph speedintra is not a finite number"));
  EXPECT_TRUE(HasDiag(diag, 8, "not a non-negative integer"));
  EXPECT_TRUE(HasDiag(diag, 9, "not a non-negative integer"));
  EXPECT_TRUE(HasDiag(diag, 10, "unexpected element <nvls>", Severity::kWarning));
  EXPECT_TRUE(HasDiag(diag, 7, "nchannels is 3 but the graph has 1", Severity::kWarning));
  EXPECT_TRUE(HasDiag(diag, 12, "channel outside a graph"));
}

TEST(NcclGraphXmlBad, NotXmlOrWrongRoot) {
  Diagnostics diag;
  ReadCounts counts;
  auto e = ParseNcclGraphXml("", "e.xml", diag, counts);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("not well-formed XML"), std::string::npos);
  // Cut inside the first graph's start tag: no graph, one record saying where the file stops (this
  // used to refuse the file).
  auto t = ParseNcclGraphXml("<graphs version=\"1\"><graph id=\"0\"", "t.xml", diag, counts);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->graphs.empty());
  EXPECT_EQ(counts.read, 1);
  EXPECT_EQ(counts.rejected, 1);
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_NE(diag.items()[0].reason.find("inside the start tag of <graph>"), std::string::npos) << diag.items()[0].reason;
  ReadCounts counts2;
  auto r = ParseNcclGraphXml(Slurp(kNcv4), "r.xml", diag, counts2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "root element is <system>, expected <graphs>");
  EXPECT_TRUE(counts2.Balanced());
  EXPECT_EQ(counts2.read, 0);
}

// A graph dump cut in the middle keeps its whole graphs and the channels read before the cut.
TEST(NcclGraphXmlBad, TruncatedGraphDump) {
  const std::string text = Slurp(kGraph);
  Diagnostics d0;
  ReadCounts c0;
  auto whole = ParseNcclGraphXml(text, kGraph, d0, c0);
  ASSERT_TRUE(whole.ok());
  const std::string part = text.substr(0, text.rfind("<graph "));  // cut before the last graph
  Diagnostics diag;
  ReadCounts counts;
  auto g = ParseNcclGraphXml(part, "part.xml", diag, counts);
  ASSERT_TRUE(g.ok()) << g.error().ToString();
  ASSERT_EQ(g->graphs.size(), whole->graphs.size() - 1);
  for (size_t i = 0; i < g->graphs.size(); ++i) {
    EXPECT_EQ(g->graphs[i].channels.size(), whole->graphs[i].channels.size());
    EXPECT_EQ(g->graphs[i].pattern, whole->graphs[i].pattern);
  }
  EXPECT_TRUE(counts.Balanced());
  EXPECT_EQ(counts.rejected, 1);
  EXPECT_EQ(counts.read, c0.read - 1 - static_cast<int64_t>(whole->graphs.back().channels.size()) + 1);
}

}  // namespace nccl_xml_test
}  // namespace toposcope::formats
