#include "toposcope/formats/sniff.h"

#include "toposcope/base/text.h"

namespace toposcope::formats {
namespace {

// Finds the first XML element name after optional declarations and comments.
std::string_view FirstElement(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const size_t lt = s.find('<', i);
    if (lt == std::string_view::npos || lt + 1 >= s.size()) return {};
    const char c = s[lt + 1];
    if (c == '?' || c == '!') {
      const size_t gt = s.find('>', lt);
      if (gt == std::string_view::npos) return {};
      i = gt + 1;
      continue;
    }
    size_t e = lt + 1;
    while (e < s.size() && s[e] != ' ' && s[e] != '>' && s[e] != '/' && s[e] != '\n' && s[e] != '\t' &&
           s[e] != '\r') {
      ++e;
    }
    return s.substr(lt + 1, e - lt - 1);
  }
  return {};
}

bool HasTopoHeader(std::string_view head) {
  // A line whose first label is GPU0 (after optional ANSI codes and spaces) and that has more labels.
  size_t pos = 0;
  int lines = 0;
  while (pos < head.size() && lines < 40) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) nl = head.size();
    std::string line(head.substr(pos, nl - pos));
    // strip ANSI escape sequences
    std::string clean;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\x1b') {
        while (i < line.size() && line[i] != 'm') ++i;
        continue;
      }
      clean += line[i];
    }
    auto f = SplitWhitespace(clean);
    if (f.size() >= 2 && f[0] == "GPU0" && (f[1] == "GPU1" || f[1] == "CPU" || StartsWith(f[1], "NIC") ||
                                             StartsWith(f[1], "mlx5_"))) {
      return true;
    }
    pos = nl + 1;
    ++lines;
  }
  return false;
}

}  // namespace

SniffResult SniffFormat(std::string_view head) {
  if (head.empty()) return {FileFormat::kUnknown, "empty file"};
  if (LooksBinary(head)) return {FileFormat::kUnknown, "binary content, no known text format"};
  const std::string_view t = Trim(head);
  if (!t.empty() && t[0] == '{') {
    if (Contains(head, "\"toposcope.truth/")) {
      return {FileFormat::kTruthJson, "simulator ground truth (read only by `toposcope score`)"};
    }
    for (const char* out : {"\"toposcope.result/", "\"toposcope.topology/", "\"toposcope.score/"}) {
      if (Contains(head, out)) return {FileFormat::kResultJson, "a toposcope output, not an input"};
    }
    return {FileFormat::kUnknown, "JSON of no known schema"};
  }
  if (!t.empty() && t[0] == '<') {
    const std::string_view root = FirstElement(t);
    if (root == "system") return {FileFormat::kNcclTopoXml, "XML root <system>"};
    if (root == "graphs") return {FileFormat::kNcclGraphXml, "XML root <graphs>"};
    return {FileFormat::kUnknown, "XML with root <" + std::string(root) + ">, not an NCCL topology or graph"};
  }
  if (Contains(head, "P2P (Peer-to-Peer) GPU Bandwidth Latency Test") ||
      (Contains(head, "P2P Connectivity Matrix") || Contains(head, "Bandwidth Matrix (GB/s)"))) {
    return {FileFormat::kP2pBandwidthLatencyTest, "p2pBandwidthLatencyTest headings"};
  }
  if (Contains(head, "nvbandwidth Version") || Contains(head, "memcpy CE ") || Contains(head, "memcpy SM ") ||
      Contains(head, "\nSUM ") || StartsWith(head, "Running ")) {
    return {FileFormat::kNvbandwidth, "nvbandwidth headings"};
  }
  if (HasTopoHeader(head)) return {FileFormat::kNvsmiTopo, "nvidia-smi topo header (GPU0 ...)"};
  {
    // CSV: first non-comment line is a header we know.
    size_t pos = 0;
    while (pos < head.size()) {
      size_t nl = head.find('\n', pos);
      if (nl == std::string_view::npos) nl = head.size();
      const std::string_view line = Trim(head.substr(pos, nl - pos));
      pos = nl + 1;
      if (line.empty() || line[0] == '#') continue;
      if (StartsWith(line, "src,dst,bandwidth_gbps") || StartsWith(line, ",0,") || StartsWith(line, "src\\dst,")) {
        return {FileFormat::kP2pCsv, "P2P CSV header"};
      }
      break;
    }
  }
  return {FileFormat::kUnknown, "no known format recognised in the first bytes"};
}

std::string_view FormatName(FileFormat f) {
  switch (f) {
    case FileFormat::kNvsmiTopo: return "nvidia-smi-topo";
    case FileFormat::kNcclTopoXml: return "nccl-topo-xml";
    case FileFormat::kNcclGraphXml: return "nccl-graph-xml";
    case FileFormat::kP2pBandwidthLatencyTest: return "p2pBandwidthLatencyTest";
    case FileFormat::kNvbandwidth: return "nvbandwidth";
    case FileFormat::kP2pCsv: return "p2p-csv";
    case FileFormat::kTruthJson: return "toposcope-truth";
    case FileFormat::kResultJson: return "toposcope-result";
    case FileFormat::kUnknown: break;
  }
  return "unknown";
}

}  // namespace toposcope::formats
