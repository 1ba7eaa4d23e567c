// formats/nccl/nccl_xml: NCCL's topology XML (NCCL_TOPO_DUMP_FILE dumps and hand-written NCCL_TOPO_FILE
// skeletons) and graph XML (NCCL_GRAPH_DUMP_FILE), read and written. A generic element tree keeps
// attribute order, so what we write we read back identically; typed views give the parts we use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attrs;  // in document order
  std::vector<XmlElement> children;
  int64_t line = 0;  // 1-based line in the source, 0 when built in memory

  // The attribute's value, or nullopt.
  [[nodiscard]] std::optional<std::string> Attr(std::string_view key) const;
  // Sets (or appends) an attribute.
  void SetAttr(std::string_view key, std::string value);
  // Equality of name, attributes (in order) and children; lines are ignored.
  [[nodiscard]] bool SameAs(const XmlElement& other) const;
};

// Parses XML text into an element tree (comments and declarations dropped). Fails with the line
// and column of the first syntax error.
Result<XmlElement> ParseXmlTree(std::string_view text, std::string_view source);

// Where a document that ends before it closes stops.
struct XmlCut {
  int64_t offset = -1;    // byte offset of pugixml's error (at the end of the text); -1 when not cut
  int64_t line = 0, col = 0;
  int64_t last_line = 0;  // line of the last element kept
  std::string reason;     // the diagnostic: offset, line, pugixml's description, the last element
};
// As ParseXmlTree, but a document well-formed up to where its text ends early (the error lies at or
// after its last '<') gives the elements read so far, without an element whose start tag is cut,
// and sets *cut. Fails as ParseXmlTree for any other error, or when not even the root's start tag is
// whole.
Result<XmlElement> ParseXmlTreeUpToCut(std::string_view text, std::string_view source, XmlCut* cut);
// Writes an element tree the way NCCL does: 2 spaces of indent per level, attributes in order,
// `<x .../>` for elements without children, values XML-escaped.
std::string WriteXmlTree(const XmlElement& root);

// ---- NCCL topology (system) XML ----

struct NcclNvlink {
  std::string target;  // bus id of the peer GPU, NVSwitch, or CPU
  int count = 0;       // number of links
  std::string tclass;  // "0x068000" NVSwitch, "0x030200" GPU, "0x060400" bridge/CPU
};

struct NcclTopoGpu {
  std::string bus_id;        // normalised lowercase "0000:a4:00.0"
  int dev = -1;              // CUDA device index
  int sm = 0;
  int rank = -1;
  int numa_id = -1;          // of the enclosing cpu element
  std::vector<std::string> pci_path;  // bus ids of the enclosing pci elements, outermost first
  std::string link_speed;    // "32.0 GT/s PCIe"
  int link_width = 0;
  std::vector<NcclNvlink> nvlinks;
  int64_t line = 0;
};

struct NcclTopoNic {
  std::string name;          // net name ("mlx5_0", "eth0")
  int dev = -1;
  double speed_mbps = 0;     // as written by NCCL (Mb/s)
  std::string bus_id;        // of the enclosing pci element, empty if none
  int numa_id = -1;
  std::vector<std::string> pci_path;
  std::string guid;
  int64_t line = 0;
};

struct NcclTopoCpu {
  int numa_id = -1;
  std::string affinity, arch, vendor, host_hash;
  int familyid = -1, modelid = -1;
};

// A pci element: bus id, class, parent bus id (empty at the top of a cpu), width/speed.
struct NcclTopoPci {
  std::string bus_id;
  std::string pci_class;   // "0x030200" GPU (3D controller), "0x020700" IB, "0x020000" Ethernet, "0x060400" bridge
  std::string parent;      // enclosing pci bus id, or empty
  int numa_id = -1;
  std::string link_speed;
  int link_width = 0;
};

struct NcclTopo {
  XmlElement root;                 // the whole tree, for round trips
  int version = 0;
  std::vector<NcclTopoCpu> cpus;
  std::vector<NcclTopoPci> pcis;
  std::vector<NcclTopoGpu> gpus;   // from gpu elements, or from pci class 0x03xxxx when a skeleton
                                   // has no gpu elements (dev then numbered in document order)
  std::vector<NcclTopoNic> nics;
};

// Parses a topology XML. Records are the cpu, pci, gpu, nic/net and nvlink elements; a record with
// missing or malformed required attributes is rejected and counted. A dump cut short keeps what it
// holds plus one rejected record saying where it stops (ParseXmlTreeUpToCut). Fails when the text is
// not XML or the root is not <system>.
Result<NcclTopo> ParseNcclTopoXml(std::string_view text, std::string_view source, Diagnostics& diag,
                                  ReadCounts& counts);

// ---- NCCL graph XML ----

struct NcclGraphChannel {
  // ("gpu"|"net", dev) in order.
  std::vector<std::pair<std::string, int64_t>> steps;
};

struct NcclGraph {
  int id = 0;
  int pattern = 0;  // 1 BALANCED_TREE, 2 SPLIT_TREE, 3 TREE, 4 RING, 5 NVLS, 6 COLLNET_DIRECT
  int crossnic = 0;
  int nchannels = 0;
  double speedintra = 0, speedinter = 0, latencyinter = 0;
  std::string typeintra, typeinter;
  int samechannels = 0;
  std::vector<NcclGraphChannel> channels;
};

struct NcclGraphs {
  int version = 1;
  bool dev_hex = false;  // NCCL >= 2.21 writes dev as %#lx
  std::vector<NcclGraph> graphs;
};

// Parses a graph XML. Records are graph and channel elements; a dump cut short keeps what it holds
// plus one rejected record saying where it stops. Fails when not XML or the root is not <graphs>.
Result<NcclGraphs> ParseNcclGraphXml(std::string_view text, std::string_view source, Diagnostics& diag,
                                     ReadCounts& counts);
// Writes a graph XML as NCCL does (floats as %g, dev decimal or hex per dev_hex).
std::string WriteNcclGraphXml(const NcclGraphs& graphs);

}  // namespace toposcope::formats
