// formats/dcgm/dcgm_discovery: see dcgm_discovery.h.
#include "toposcope/formats/dcgm/dcgm_discovery.h"

#include <climits>
#include <map>
#include <optional>
#include <utility>

#include "toposcope/base/text.h"

namespace toposcope::formats {
namespace {

constexpr std::string_view kEntityTag = "(EntityID: ";

// A whole field as a non-negative int; nullopt otherwise.
std::optional<int> NonNegativeInt(std::string_view s) {
  if (s.empty() || !AllDigits(s)) return std::nullopt;
  const auto v = ParseInt(s);
  if (!v || *v < 0 || *v > INT_MAX) return std::nullopt;
  return static_cast<int>(*v);
}

// `a/b[/c]` as `n` non-negative numbers; empty when it is not.
std::vector<int> SlashNumbers(std::string_view s, size_t n) {
  const std::vector<std::string_view> parts = Split(s, '/');
  if (parts.size() != n) return {};
  std::vector<int> out;
  for (std::string_view p : parts) {
    const auto v = NonNegativeInt(p);
    if (!v) return {};
    out.push_back(*v);
  }
  return out;
}

// The right cell `<what> (EntityID: n)`: sets `what` (trimmed) and `id`; false when it is not one.
bool SplitEntityCell(std::string_view cell, std::string_view* what, int* id) {
  const size_t at = cell.rfind(kEntityTag);
  if (at == std::string_view::npos || !EndsWith(cell, ")")) return false;
  const auto v = NonNegativeInt(cell.substr(at + kEntityTag.size(), cell.size() - at - kEntityTag.size() - 1));
  if (!v) return false;
  *what = Trim(cell.substr(0, at));
  *id = *v;
  return true;
}

// A border: `+---+---+`, `+===+`, or one cut short (only `+`, `-` and `=`).
bool IsBorder(std::string_view t) {
  if (t.empty() || t[0] != '+') return false;
  for (const char c : t) {
    if (c != '+' && c != '-' && c != '=') return false;
  }
  return true;
}

// `8 GPUs found.`, `1 GPU found (Active).`, `0 NvSwitches found.`, `0 ConnectX found.`, `0 CPUs found.`:
// sets `count` and `what` (the word after the number).
bool IsFoundLine(std::string_view t, int64_t* count, std::string_view* what) {
  const std::vector<std::string_view> w = SplitWhitespace(t);
  if (w.size() < 3 || !StartsWith(w[2], "found")) return false;
  const auto n = NonNegativeInt(w[0]);
  if (!n) return false;
  *count = *n;
  *what = w[1];
  return true;
}

// A value as dcgmi prints it for a GPU that is gone (`--all`): without its ` (last known)` suffix.
std::string WithoutLastKnown(std::string_view v) {
  constexpr std::string_view kSuffix = " (last known)";
  if (EndsWith(v, kSuffix)) v.remove_suffix(kSuffix.size());
  return std::string(Trim(v));
}

class Parser {
 public:
  Parser(std::string_view source, Diagnostics& diag) : source_(source), diag_(diag) {}

  void Line(std::string_view raw, int64_t line_no) {
    line_no_ = line_no;
    raw_ = raw;
    const std::string_view t = Trim(raw);
    if (t.empty() || IsBorder(t)) return;
    if (t[0] == '|') return Row(t);
    int64_t n = 0;
    std::string_view what;
    if (IsFoundLine(t, &n, &what)) {
      ++out_.counts.read;
      ++out_.counts.accepted;
      if (StartsWith(what, "GPU")) {
        announced_gpus_ = n;
        announced_line_ = line_no;
      }
      return;
    }
    if (StartsWith(t, "dcgmi") && Contains(t, "version:")) {
      out_.dcgmi_version = std::string(Trim(t.substr(t.find("version:") + 8)));
      return;
    }
    if (Contains(t, "dcgmi ")) return;  // the command line, after a prompt or alone
    ++out_.counts.read;
    Reject("not a dcgmi discovery line (a table row, a border or `N GPUs found.`)");
  }

  Result<DcgmDiscovery> Finish() {
    if (!out_.has_hierarchy && !out_.has_gpu_list) {
      return MakeError(std::string(source_), 0, 0,
                       "no dcgmi discovery table (neither `Instance Hierarchy` nor `GPU ID | Device Information`)",
                       "pass the output of `dcgmi discovery -c` or `dcgmi discovery -l`");
    }
    if (announced_gpus_ > static_cast<int64_t>(out_.gpus.size())) {
      diag_.Warn(source_, announced_line_, "",
                 Cat({std::to_string(announced_gpus_), " GPUs announced but ", std::to_string(out_.gpus.size()),
                      " listed: the copy is cut short"}));
    }
    return std::move(out_);
  }

 private:
  enum class Table { kNone, kHierarchy, kGpuList, kOther };

  void Reject(std::string_view why) {
    ++out_.counts.rejected;
    diag_.Reject(source_, line_no_, raw_, why);
  }
  void Accept() { ++out_.counts.accepted; }

  void Row(std::string_view t) {
    ++out_.counts.read;
    if (t.size() < 2 || t.back() != '|') return Reject("row cut short (no closing '|')");
    std::vector<std::string_view> cells = Split(t.substr(1, t.size() - 2), '|');
    for (std::string_view& c : cells) c = Trim(c);
    if (cells.size() == 1) return OneCell(cells[0]);
    if (cells.size() != 2) return Reject("expected two cells between '|'");
    const std::string_view left = cells[0], right = cells[1];
    if (left == "GPU ID" && right == "Device Information") {
      table_ = Table::kGpuList;
      out_.has_gpu_list = true;
      current_gpu_ = -1;
      return Accept();
    }
    if (left == "CPU ID" && right == "Device Information") {
      table_ = Table::kOther;
      return Accept();
    }
    switch (table_) {
      case Table::kHierarchy: return HierarchyRow(left, right);
      case Table::kGpuList: return GpuListRow(left, right);
      case Table::kOther: return Accept();
      case Table::kNone: break;
    }
    Reject("a table row before any table header");
  }

  void OneCell(std::string_view cell) {
    if (cell == "Instance Hierarchy") {
      table_ = Table::kHierarchy;
      out_.has_hierarchy = true;
      gpu_ = Gpu{};
      return Accept();
    }
    if (cell == "Switch ID" || cell == "ConnectX") {
      table_ = Table::kOther;
      return Accept();
    }
    if (table_ == Table::kOther) return Accept();  // a switch or ConnectX id
    Reject("unexpected one-cell row");
  }

  // `GPU n | GPU <uuid> (EntityID: e)`, `-> I g/i | GPU Instance (EntityID: e)`,
  // `-> CI g/i/c | Compute Instance (EntityID: e)`.
  void HierarchyRow(std::string_view left, std::string_view right) {
    std::string_view what;
    int entity = -1;
    if (StartsWith(left, "GPU ")) {
      const auto index = NonNegativeInt(Trim(left.substr(4)));
      if (!index) return Reject("GPU index is not a number");
      if (!SplitEntityCell(right, &what, &entity) || !StartsWith(what, "GPU")) {
        return Reject("expected `GPU <uuid> (EntityID: n)` after a GPU row's index");
      }
      gpu_ = Gpu{*index, entity, std::string(Trim(what.substr(3))), -1};
      return Accept();
    }
    if (!StartsWith(left, "-> ")) return Reject("expected `GPU n`, `-> I g/i` or `-> CI g/i/c`");
    const std::string_view ref = Trim(left.substr(3));
    DcgmMigInstance m;
    std::vector<int> ids;
    std::string_view want;
    if (StartsWith(ref, "I ")) {
      ids = SlashNumbers(Trim(ref.substr(2)), 2);
      want = "GPU Instance";
    } else if (StartsWith(ref, "CI ")) {
      m.kind = DcgmMigKind::kComputeInstance;
      ids = SlashNumbers(Trim(ref.substr(3)), 3);
      want = "Compute Instance";
    } else {
      return Reject("expected `-> I g/i` or `-> CI g/i/c`");
    }
    if (ids.empty()) return Reject("instance reference is not g/i (or g/i/c) numbers");
    if (!SplitEntityCell(right, &what, &entity) || what != want) {
      return Reject(Cat({"expected `", want, " (EntityID: n)`"}));
    }
    if (gpu_.entity_id < 0) return Reject("instance row before any GPU row");
    if (ids[0] != gpu_.index) {
      return Reject(Cat({"instance of GPU ", std::to_string(ids[0]), " under GPU ", std::to_string(gpu_.index)}));
    }
    if (m.kind == DcgmMigKind::kComputeInstance && ids[1] != gpu_.instance) {
      return Reject(Cat({"compute instance of GPU instance ", std::to_string(ids[1]), " under GPU instance ",
                         gpu_.instance < 0 ? std::string("none") : std::to_string(gpu_.instance)}));
    }
    const auto [it, fresh] = seen_.emplace(std::pair{m.kind, entity}, line_no_);
    if (!fresh) {
      return Reject(Cat({"duplicate ", want, " EntityID ", std::to_string(entity), " (first at line ",
                         std::to_string(it->second), ")"}));
    }
    m.entity_id = entity;
    m.gpu_entity_id = gpu_.entity_id;
    m.gpu_index = ids[0];
    m.gpu_instance = ids[1];
    if (m.kind == DcgmMigKind::kComputeInstance) m.compute_instance = ids[2];
    m.gpu_uuid = gpu_.uuid;
    m.line = line_no_;
    if (m.kind == DcgmMigKind::kGpuInstance) gpu_.instance = ids[1];
    out_.instances.push_back(std::move(m));
    Accept();
  }

  // `n | Name: ...` starts a GPU; `  | PCI Bus ID: ...`, `  | Device UUID: ...`, `  | Status: ...`
  // continue it (other continuation text, such as an error, is kept as read).
  void GpuListRow(std::string_view left, std::string_view right) {
    if (!left.empty()) {
      const auto id = NonNegativeInt(left);
      if (!id) return Reject("GPU ID is not a number");
      DcgmDiscoveredGpu g;
      g.entity_id = *id;
      g.line = line_no_;
      out_.gpus.push_back(std::move(g));
      current_gpu_ = static_cast<int64_t>(out_.gpus.size()) - 1;
    } else if (current_gpu_ < 0) {
      return Reject("device information before any GPU ID");
    }
    DcgmDiscoveredGpu& g = out_.gpus[static_cast<size_t>(current_gpu_)];
    const size_t colon = right.find(": ");
    if (colon != std::string_view::npos) {
      const std::string_view key = right.substr(0, colon), value = right.substr(colon + 2);
      if (key == "Name") g.name = WithoutLastKnown(value);
      if (key == "PCI Bus ID") g.bus_id = WithoutLastKnown(value);
      if (key == "Device UUID") g.uuid = std::string(Trim(value));
      if (key == "Status") g.status = std::string(Trim(value));
    }
    Accept();
  }

  // The GPU row the instance rows below it belong to.
  struct Gpu {
    int index = -1;
    int entity_id = -1;
    std::string uuid;
    int instance = -1;  // NVML id of the last GPU instance row under it
  };

  std::string_view source_;
  Diagnostics& diag_;
  DcgmDiscovery out_;
  Table table_ = Table::kNone;
  Gpu gpu_;
  int64_t current_gpu_ = -1;  // index into out_.gpus of the GPU list row being continued
  std::map<std::pair<DcgmMigKind, int>, int64_t> seen_;  // (kind, EntityID) -> first line
  int64_t announced_gpus_ = -1, announced_line_ = 0;
  int64_t line_no_ = 0;
  std::string_view raw_;
};

}  // namespace

Result<DcgmDiscovery> ParseDcgmDiscovery(std::string_view text, std::string_view source, Diagnostics& diag) {
  if (LooksBinary(text.substr(0, 4096))) {
    return MakeError(std::string(source), 0, 0, "binary data, not dcgmi discovery output");
  }
  Parser p(source, diag);
  TextLines lines(text);
  std::string_view line;
  while (lines.Next(&line)) p.Line(line, lines.line_number());
  return p.Finish();
}

bool LooksLikeDcgmDiscovery(std::string_view head) {
  return Contains(head, "| Instance Hierarchy ") ||
         (Contains(head, "| GPU ID | Device Information") && Contains(head, " found"));
}

const DcgmMigInstance* FindMigInstance(const std::vector<DcgmMigInstance>& instances, DcgmMigKind kind,
                                       int entity_id) {
  for (const DcgmMigInstance& m : instances) {
    if (m.kind == kind && m.entity_id == entity_id) return &m;
  }
  return nullptr;
}

}  // namespace toposcope::formats
