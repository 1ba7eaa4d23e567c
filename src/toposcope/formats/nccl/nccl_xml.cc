#include "toposcope/formats/nccl/nccl_xml.h"

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <pugixml.hpp>

#include "toposcope/base/text.h"

namespace toposcope::formats {
namespace {

std::string LowerTrimmed(std::string_view s) { return ToLowerAscii(Trim(s)); }

// Deepest element nesting we accept (NCCL's own trees are at most ~8 levels deep).
constexpr int kMaxDepth = 64;

// Maps byte offsets to 1-based lines and columns.
class LineTable {
 public:
  explicit LineTable(std::string_view text) {
    starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') starts_.push_back(i + 1);
    }
  }
  // 1-based line of a byte offset (clamped to the text).
  [[nodiscard]] int64_t Line(size_t offset) const {
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
    return static_cast<int64_t>(it - starts_.begin());
  }
  // 1-based column (in bytes) of a byte offset.
  [[nodiscard]] int64_t Col(size_t offset) const {
    const int64_t line = Line(offset);
    return static_cast<int64_t>(offset - starts_[static_cast<size_t>(line - 1)]) + 1;
  }

 private:
  std::vector<size_t> starts_;
};

struct TreeBuilder {
  const LineTable& lines;
  std::string_view source;
  std::optional<Error> error;
  // Byte offset (of its name) of an element whose start tag the text cuts off: not copied.
  ptrdiff_t skip_offset = -1;

  // Copies a pugixml element (and its element children) into `out`; fails past kMaxDepth.
  bool Copy(const pugi::xml_node& node, int depth, XmlElement& out) {
    const ptrdiff_t off = node.offset_debug();
    out.line = off >= 0 ? lines.Line(static_cast<size_t>(off)) : 0;
    if (depth >= kMaxDepth) {
      const size_t pos = off >= 0 ? static_cast<size_t>(off) : 0;
      error = MakeError(std::string(source), lines.Line(pos), lines.Col(pos),
                        "elements nested deeper than " + std::to_string(kMaxDepth) + " levels",
                        "NCCL topology and graph files are only a few levels deep");
      return false;
    }
    out.name = node.name();
    for (const pugi::xml_attribute& a : node.attributes()) {
      out.attrs.emplace_back(a.name(), a.value());
    }
    for (const pugi::xml_node& child : node.children()) {
      if (child.type() != pugi::node_element) continue;  // text, comments, PIs dropped
      if (skip_offset >= 0 && child.offset_debug() == skip_offset) continue;
      out.children.emplace_back();
      if (!Copy(child, depth + 1, out.children.back())) return false;
    }
    return true;
  }
};

void AppendEscaped(std::string& out, std::string_view v) {
  for (const char c : v) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          // Control bytes (tab, newline...) as character references so they survive a re-read.
          out += "&#" + std::to_string(static_cast<int>(c)) + ';';
        } else {
          out += c;
        }
    }
  }
}

void AppendStartTag(std::string& out, const XmlElement& e) {
  out += '<';
  out += e.name;
  for (const auto& [k, v] : e.attrs) {
    out += ' ';
    out += k;
    out += "=\"";
    AppendEscaped(out, v);
    out += '"';
  }
}

void WriteElement(std::string& out, const XmlElement& e, size_t depth) {
  out.append(2 * depth, ' ');
  AppendStartTag(out, e);
  if (e.children.empty()) {
    out += "/>\n";
    return;
  }
  out += ">\n";
  for (const XmlElement& c : e.children) WriteElement(out, c, depth + 1);
  out.append(2 * depth, ' ');
  out += "</";
  out += e.name;
  out += ">\n";
}

// The start tag of an element, for diagnostics.
std::string RawTag(const XmlElement& e) {
  std::string out;
  AppendStartTag(out, e);
  out += e.children.empty() ? "/>" : ">";
  return out;
}

bool HasElement(const XmlElement& e, std::string_view name) {
  if (e.name == name) return true;
  return std::any_of(e.children.begin(), e.children.end(),
                     [&](const XmlElement& c) { return HasElement(c, name); });
}

enum class Parsed { kMissing, kBad, kOk };

// Reads an int attribute into `out` (left unchanged unless kOk).
Parsed IntAttr(const XmlElement& e, std::string_view key, int& out) {
  const auto v = e.Attr(key);
  if (!v) return Parsed::kMissing;
  const auto n = ParseInt(*v);
  if (!n || *n < INT_MIN || *n > INT_MAX) return Parsed::kBad;
  out = static_cast<int>(*n);
  return Parsed::kOk;
}

// Reads a finite double attribute into `out` (left unchanged unless kOk).
Parsed DoubleAttr(const XmlElement& e, std::string_view key, double& out) {
  const auto v = e.Attr(key);
  if (!v) return Parsed::kMissing;
  const auto d = ParseDouble(*v);
  if (!d) return Parsed::kBad;
  out = *d;
  return Parsed::kOk;
}

// ---- topology ----

class TopoWalker {
 public:
  TopoWalker(std::string_view source, Diagnostics& diag, ReadCounts& counts, NcclTopo& topo)
      : source_(source), diag_(diag), counts_(counts), topo_(topo) {}

  void Run() {
    skeleton_gpus_ = !HasElement(topo_.root, "gpu");
    skeleton_nics_ = !HasElement(topo_.root, "net");
    for (const XmlElement& c : topo_.root.children) Walk(c);
  }

 private:
  void Reject(const XmlElement& e, std::string_view reason) {
    ++counts_.rejected;
    diag_.Reject(source_, e.line, RawTag(e), reason);
  }
  void Warn(const XmlElement& e, std::string_view reason) { diag_.Warn(source_, e.line, RawTag(e), reason); }
  // Reads an optional int attribute, warning when it is malformed.
  void OptionalInt(const XmlElement& e, std::string_view key, int& out) {
    if (IntAttr(e, key, out) == Parsed::kBad) {
      Warn(e, std::string(key) + " is not an integer; ignored");
    }
  }

  void WalkChildren(const XmlElement& e) {
    for (const XmlElement& c : e.children) Walk(c);
  }

  void Walk(const XmlElement& e) {
    if (e.name == "cpu") {
      Cpu(e);
    } else if (e.name == "pci") {
      Pci(e);
    } else if (e.name == "gpu") {
      Gpu(e);
    } else if (e.name == "nvlink") {
      Nvlink(e);
    } else if (e.name == "net") {
      Net(e);
    } else {
      WalkChildren(e);  // nic, c2c and elements of newer NCCL releases
    }
  }

  void Cpu(const XmlElement& e) {
    ++counts_.read;
    NcclTopoCpu cpu;
    OptionalInt(e, "numaid", cpu.numa_id);
    cpu.affinity = e.Attr("affinity").value_or("");
    cpu.arch = e.Attr("arch").value_or("");
    cpu.vendor = e.Attr("vendor").value_or("");
    cpu.host_hash = e.Attr("host_hash").value_or("");
    OptionalInt(e, "familyid", cpu.familyid);
    OptionalInt(e, "modelid", cpu.modelid);
    ++counts_.accepted;
    const int saved_numa = numa_;
    numa_ = cpu.numa_id;
    topo_.cpus.push_back(std::move(cpu));
    WalkChildren(e);
    numa_ = saved_numa;
  }

  void Pci(const XmlElement& e) {
    ++counts_.read;
    const std::string bus_id = LowerTrimmed(e.Attr("busid").value_or(""));
    if (bus_id.empty()) {
      Reject(e, "pci element without busid");
      WalkChildren(e);
      return;
    }
    NcclTopoPci pci;
    pci.bus_id = bus_id;
    pci.pci_class = LowerTrimmed(e.Attr("class").value_or(""));
    pci.parent = pci_stack_.empty() ? "" : pci_stack_.back();
    pci.numa_id = numa_;
    pci.link_speed = e.Attr("link_speed").value_or("");
    OptionalInt(e, "link_width", pci.link_width);
    ++counts_.accepted;
    pci_stack_.push_back(bus_id);
    pci_info_.push_back({pci.link_speed, pci.link_width});

    // Hand-written skeletons list GPUs and IB NICs as bare pci elements.
    const auto cls = ParseInt(pci.pci_class);
    if (cls && skeleton_gpus_ && (*cls >> 16) == 0x03) {
      NcclTopoGpu gpu;
      gpu.bus_id = bus_id;
      gpu.dev = next_gpu_dev_++;
      gpu.numa_id = numa_;
      gpu.pci_path = pci_stack_;
      gpu.link_speed = pci.link_speed;
      gpu.link_width = pci.link_width;
      gpu.line = e.line;
      topo_.gpus.push_back(std::move(gpu));
    } else if (cls && skeleton_nics_ && (*cls >> 8) == 0x0207) {
      NcclTopoNic nic;
      nic.dev = next_nic_dev_++;
      nic.bus_id = bus_id;
      nic.numa_id = numa_;
      nic.pci_path = pci_stack_;
      nic.line = e.line;
      topo_.nics.push_back(std::move(nic));
    }
    topo_.pcis.push_back(std::move(pci));
    WalkChildren(e);
    pci_stack_.pop_back();
    pci_info_.pop_back();
  }

  void Gpu(const XmlElement& e) {
    ++counts_.read;
    NcclTopoGpu gpu;
    const Parsed dev = IntAttr(e, "dev", gpu.dev);
    if (dev != Parsed::kOk || gpu.dev < 0) {
      Reject(e,
             dev == Parsed::kMissing ? "gpu element without dev" : "gpu dev is not a non-negative integer");
      const int saved = gpu_index_;
      gpu_index_ = kRejectedGpu;
      WalkChildren(e);
      gpu_index_ = saved;
      return;
    }
    OptionalInt(e, "sm", gpu.sm);
    OptionalInt(e, "rank", gpu.rank);
    gpu.numa_id = numa_;
    gpu.pci_path = pci_stack_;
    if (!pci_stack_.empty()) {
      gpu.bus_id = pci_stack_.back();
      gpu.link_speed = pci_info_.back().first;
      gpu.link_width = pci_info_.back().second;
    } else {
      Warn(e, "gpu element outside a pci element; no bus id");
    }
    gpu.line = e.line;
    for (const NcclTopoGpu& g : topo_.gpus) {
      if (g.dev == gpu.dev) {
        Warn(e, "duplicate gpu dev " + std::to_string(gpu.dev));
        break;
      }
    }
    ++counts_.accepted;
    topo_.gpus.push_back(std::move(gpu));
    const int saved = gpu_index_;
    gpu_index_ = static_cast<int>(topo_.gpus.size()) - 1;
    WalkChildren(e);
    gpu_index_ = saved;
  }

  void Nvlink(const XmlElement& e) {
    ++counts_.read;
    if (gpu_index_ == kRejectedGpu) {
      Reject(e, "nvlink of a rejected gpu");
    } else if (gpu_index_ < 0) {
      Reject(e, "nvlink outside a gpu element");
    } else {
      NcclNvlink link;
      link.target = LowerTrimmed(e.Attr("target").value_or(""));
      const Parsed count = IntAttr(e, "count", link.count);
      if (link.target.empty()) {
        Reject(e, "nvlink without target");
      } else if (count == Parsed::kMissing) {
        Reject(e, "nvlink without count");
      } else if (count == Parsed::kBad || link.count <= 0) {
        Reject(e, "nvlink count is not a positive integer");
      } else {
        link.tclass = LowerTrimmed(e.Attr("tclass").value_or(""));
        ++counts_.accepted;
        topo_.gpus[static_cast<size_t>(gpu_index_)].nvlinks.push_back(std::move(link));
      }
    }
    WalkChildren(e);
  }

  void Net(const XmlElement& e) {
    ++counts_.read;
    NcclTopoNic nic;
    nic.name = std::string(Trim(e.Attr("name").value_or("")));
    if (nic.name.empty()) {
      Reject(e, "net element without name");
      WalkChildren(e);
      return;
    }
    OptionalInt(e, "dev", nic.dev);
    if (DoubleAttr(e, "speed", nic.speed_mbps) == Parsed::kBad) {
      Warn(e, "speed is not a finite number; ignored");
    }
    nic.bus_id = pci_stack_.empty() ? "" : pci_stack_.back();
    nic.numa_id = numa_;
    nic.pci_path = pci_stack_;
    nic.guid = e.Attr("guid").value_or("");
    nic.line = e.line;
    ++counts_.accepted;
    topo_.nics.push_back(std::move(nic));
    WalkChildren(e);
  }

  static constexpr int kRejectedGpu = -2;
  std::string_view source_;
  Diagnostics& diag_;
  ReadCounts& counts_;
  NcclTopo& topo_;
  bool skeleton_gpus_ = false;
  bool skeleton_nics_ = false;
  int next_gpu_dev_ = 0;
  int next_nic_dev_ = 0;
  int numa_ = -1;
  int gpu_index_ = -1;  // index of the enclosing accepted gpu, -1 none, kRejectedGpu
  std::vector<std::string> pci_stack_;
  std::vector<std::pair<std::string, int>> pci_info_;  // link speed/width of enclosing pcis
};

// ---- graphs ----

class GraphReader {
 public:
  GraphReader(std::string_view source, Diagnostics& diag, ReadCounts& counts, NcclGraphs& out)
      : source_(source), diag_(diag), counts_(counts), out_(out) {}

  void Run(const XmlElement& root) {
    int version = 1;
    switch (IntAttr(root, "version", version)) {
      case Parsed::kOk:
        out_.version = version;
        if (version != 1) Warn(root, "graphs version is not 1; read as version 1");
        break;
      case Parsed::kBad:
        Warn(root, "graphs version is not an integer; assumed 1");
        break;
      case Parsed::kMissing:
        Warn(root, "graphs element without version; assumed 1");
        break;
    }
    for (const XmlElement& c : root.children) {
      if (c.name == "graph") {
        Graph(c);
      } else if (c.name == "channel") {
        ++counts_.read;
        Reject(c, "channel outside a graph element");
      } else {
        Warn(c, "unexpected element <" + c.name + "> in graphs; ignored");
      }
    }
  }

 private:
  void Reject(const XmlElement& e, std::string_view reason) {
    ++counts_.rejected;
    diag_.Reject(source_, e.line, RawTag(e), reason);
  }
  void Warn(const XmlElement& e, std::string_view reason) { diag_.Warn(source_, e.line, RawTag(e), reason); }

  void Graph(const XmlElement& e) {
    ++counts_.read;
    NcclGraph g;
    std::string bad;
    auto need_int = [&](std::string_view key, int& v, bool required) {
      const Parsed p = IntAttr(e, key, v);
      if (p == Parsed::kBad || (required && p == Parsed::kMissing)) {
        if (bad.empty()) bad = std::string(key) + (p == Parsed::kMissing ? " missing" : " is not an integer");
      }
    };
    auto need_double = [&](std::string_view key, double& v) {
      if (DoubleAttr(e, key, v) == Parsed::kBad && bad.empty()) {
        bad = std::string(key) + " is not a finite number";
      }
    };
    need_int("id", g.id, true);
    need_int("pattern", g.pattern, true);
    need_int("crossnic", g.crossnic, false);
    need_int("nchannels", g.nchannels, false);
    need_double("speedintra", g.speedintra);
    need_double("speedinter", g.speedinter);
    need_double("latencyinter", g.latencyinter);
    g.typeintra = e.Attr("typeintra").value_or("");
    g.typeinter = e.Attr("typeinter").value_or("");
    need_int("samechannels", g.samechannels, false);
    if (!bad.empty()) {
      Reject(e, "graph " + bad);
      for (const XmlElement& c : e.children) {
        if (c.name == "channel") {
          ++counts_.read;
          Reject(c, "channel of a rejected graph");
        }
      }
      return;
    }
    ++counts_.accepted;
    for (const XmlElement& c : e.children) {
      if (c.name == "channel") {
        Channel(c, g);
      } else {
        Warn(c, "unexpected element <" + c.name + "> in graph; ignored");
      }
    }
    if (e.Attr("nchannels") && static_cast<size_t>(std::max(g.nchannels, 0)) != g.channels.size()) {
      Warn(e, "nchannels is " + std::to_string(g.nchannels) + " but the graph has " +
                  std::to_string(g.channels.size()) + " channels");
    }
    out_.graphs.push_back(std::move(g));
  }

  void Channel(const XmlElement& e, NcclGraph& g) {
    ++counts_.read;
    NcclGraphChannel ch;
    for (const XmlElement& s : e.children) {
      if (s.name != "gpu" && s.name != "net") {
        Warn(s, "unexpected element <" + s.name + "> in channel; ignored");
        continue;
      }
      const auto v = s.Attr("dev");
      const auto dev = v ? ParseInt(*v) : std::nullopt;
      if (!dev || *dev < 0) {
        Reject(e, v ? "channel step " + RawTag(s) + " has a dev that is not a non-negative integer"
                    : "channel step " + RawTag(s) + " without dev");
        return;
      }
      const std::string_view t = Trim(*v);
      if (t.size() > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) out_.dev_hex = true;
      ch.steps.emplace_back(s.name, *dev);
    }
    ++counts_.accepted;
    g.channels.push_back(std::move(ch));
  }

  std::string_view source_;
  Diagnostics& diag_;
  ReadCounts& counts_;
  NcclGraphs& out_;
};

std::string FormatG(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

std::string FormatDev(int64_t dev, bool hex) {
  if (!hex) return std::to_string(dev);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%#" PRIx64, static_cast<uint64_t>(dev));
  return buf;
}

}  // namespace

std::optional<std::string> XmlElement::Attr(std::string_view key) const {
  for (const auto& [k, v] : attrs) {
    if (k == key) return v;
  }
  return std::nullopt;
}

void XmlElement::SetAttr(std::string_view key, std::string value) {
  for (auto& [k, v] : attrs) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  attrs.emplace_back(std::string(key), std::move(value));
}

bool XmlElement::SameAs(const XmlElement& other) const {
  if (name != other.name || attrs != other.attrs || children.size() != other.children.size()) {
    return false;
  }
  for (size_t i = 0; i < children.size(); ++i) {
    if (!children[i].SameAs(other.children[i])) return false;
  }
  return true;
}

namespace {

// The last element of the document in document order (the deepest last child), or null.
pugi::xml_node LastElement(const pugi::xml_node& root) {
  pugi::xml_node last;
  for (pugi::xml_node n = root; n;) {
    last = n;
    pugi::xml_node child = n.last_child();
    while (child && child.type() != pugi::node_element) child = child.previous_sibling();
    n = child;
  }
  return last;
}

// An element's tag as read ("<gpu dev=\"3\" ...>"), for the diagnostic of a cut document.
std::string OpenTag(const pugi::xml_node& n) {
  std::string t = std::string("<") + n.name();
  int shown = 0;
  for (const pugi::xml_attribute& a : n.attributes()) {
    if (++shown > 3) {
      t += " ...";
      break;
    }
    t += std::string(" ") + a.name() + "=\"" + a.value() + "\"";
  }
  return t + ">";
}

// Parses `text`; when `cut` is non-null and the text is well-formed up to an early end (a dump cut
// off by a full disk, a copy or a paste: pugixml's error lies at or after the last '<'), returns the
// elements read so far, without one whose start tag is cut, and fills *cut with where the text stops.
Result<XmlElement> ParseTree(std::string_view text, std::string_view source, XmlCut* cut) {
  const LineTable lines(text);
  pugi::xml_document doc;
  // UTF-8 only, so offsets stay byte offsets into `text`.
  const pugi::xml_parse_result res =
      doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  TreeBuilder builder{lines, source, std::nullopt};
  if (!res) {
    const size_t off = std::min(static_cast<size_t>(std::max<ptrdiff_t>(res.offset, 0)), text.size());
    const size_t last_lt = text.rfind('<');
    pugi::xml_node root = doc.first_child();
    while (root && root.type() != pugi::node_element) root = root.next_sibling();
    const bool root_whole = root && root.offset_debug() >= 0 &&
                            text.find('>', static_cast<size_t>(root.offset_debug())) != std::string_view::npos;
    const bool at_end = last_lt != std::string_view::npos && off >= last_lt && root_whole;
    if (cut == nullptr || !at_end) {
      return MakeError(std::string(source), lines.Line(off), lines.Col(off),
                       std::string("not well-formed XML: ") + res.description());
    }
    const pugi::xml_node last = LastElement(root);
    const ptrdiff_t last_off = last.offset_debug();
    const bool last_cut = last != root && last_off >= 0 &&
                          text.find('>', static_cast<size_t>(last_off)) == std::string_view::npos;
    if (last_cut) builder.skip_offset = last_off;
    const pugi::xml_node shown = last_cut ? last.parent() : last;
    cut->offset = static_cast<int64_t>(off);
    cut->line = lines.Line(off);
    cut->col = lines.Col(off);
    cut->last_line = shown.offset_debug() >= 0 ? lines.Line(static_cast<size_t>(shown.offset_debug())) : 0;
    cut->reason = "the document stops at byte offset " + std::to_string(off) + " (line " + std::to_string(cut->line) +
                  ", column " + std::to_string(cut->col) + ") before it closes (" + res.description() + ")" +
                  (last_cut ? ", inside the start tag of <" + std::string(last.name()) + ">" : std::string()) +
                  "; the last element read is " + OpenTag(shown) + " at line " + std::to_string(cut->last_line) +
                  ": the elements read so far are kept, the rest of the file is missing";
    XmlElement out;
    if (!builder.Copy(root, 0, out)) return *builder.error;
    return out;
  }
  pugi::xml_node root;
  for (const pugi::xml_node& n : doc.children()) {
    if (n.type() != pugi::node_element) continue;
    if (root) {
      const ptrdiff_t off = n.offset_debug();
      const size_t pos = off >= 0 ? static_cast<size_t>(off) : 0;
      return MakeError(std::string(source), lines.Line(pos), lines.Col(pos),
                       "not well-formed XML: more than one root element");
    }
    root = n;
  }
  if (!root) {
    return MakeError(std::string(source), 1, 1, "not well-formed XML: no document element");
  }
  XmlElement out;
  if (!builder.Copy(root, 0, out)) return *builder.error;
  return out;
}

}  // namespace

Result<XmlElement> ParseXmlTree(std::string_view text, std::string_view source) {
  return ParseTree(text, source, nullptr);
}

Result<XmlElement> ParseXmlTreeUpToCut(std::string_view text, std::string_view source, XmlCut* cut) {
  return ParseTree(text, source, cut);
}

std::string WriteXmlTree(const XmlElement& root) {
  std::string out;
  WriteElement(out, root, 0);
  return out;
}

namespace {

// The XML tree of a dump whose root element must be <`root`>; fails (with `hint`) when it is not.
// A dump cut short keeps the elements read before the cut: one rejected record says where it stops.
Result<XmlElement> ParseDump(std::string_view text, std::string_view source, const std::string& root,
                             const char* hint, Diagnostics& diag, ReadCounts& counts) {
  XmlCut cut;
  Result<XmlElement> tree = ParseXmlTreeUpToCut(text, source, &cut);
  if (!tree) return tree.error();
  if (tree->name != root) {
    return MakeError(std::string(source), tree->line, 0,
                     "root element is <" + tree->name + ">, expected <" + root + ">", hint);
  }
  if (cut.offset >= 0) {
    diag.Reject(source, cut.line, "", cut.reason);
    ++counts.read;
    ++counts.rejected;
  }
  return tree;
}

}  // namespace

Result<NcclTopo> ParseNcclTopoXml(std::string_view text, std::string_view source, Diagnostics& diag,
                                  ReadCounts& counts) {
  Result<XmlElement> tree =
      ParseDump(text, source, "system", "is this an NCCL topology dump (NCCL_TOPO_DUMP_FILE)?", diag, counts);
  if (!tree) return tree.error();
  NcclTopo topo;
  topo.root = std::move(tree).value();
  if (IntAttr(topo.root, "version", topo.version) == Parsed::kBad) {
    diag.Warn(source, topo.root.line, RawTag(topo.root), "system version is not an integer");
  }
  TopoWalker(source, diag, counts, topo).Run();
  return topo;
}

Result<NcclGraphs> ParseNcclGraphXml(std::string_view text, std::string_view source, Diagnostics& diag,
                                     ReadCounts& counts) {
  Result<XmlElement> tree =
      ParseDump(text, source, "graphs", "is this an NCCL graph dump (NCCL_GRAPH_DUMP_FILE)?", diag, counts);
  if (!tree) return tree.error();
  NcclGraphs graphs;
  GraphReader(source, diag, counts, graphs).Run(*tree);
  return graphs;
}

std::string WriteNcclGraphXml(const NcclGraphs& graphs) {
  XmlElement root;
  root.name = "graphs";
  root.SetAttr("version", std::to_string(graphs.version));
  for (const NcclGraph& g : graphs.graphs) {
    XmlElement ge;
    ge.name = "graph";
    ge.attrs = {{"id", std::to_string(g.id)},
                {"pattern", std::to_string(g.pattern)},
                {"crossnic", std::to_string(g.crossnic)},
                {"nchannels", std::to_string(g.nchannels)},
                {"speedintra", FormatG(g.speedintra)},
                {"speedinter", FormatG(g.speedinter)},
                {"latencyinter", FormatG(g.latencyinter)},
                {"typeintra", g.typeintra},
                {"typeinter", g.typeinter},
                {"samechannels", std::to_string(g.samechannels)}};
    for (const NcclGraphChannel& ch : g.channels) {
      XmlElement ce;
      ce.name = "channel";
      for (const auto& [kind, dev] : ch.steps) {
        XmlElement s;
        s.name = kind;
        s.SetAttr("dev", FormatDev(dev, graphs.dev_hex));
        ce.children.push_back(std::move(s));
      }
      ge.children.push_back(std::move(ce));
    }
    root.children.push_back(std::move(ge));
  }
  return WriteXmlTree(root);
}

}  // namespace toposcope::formats
