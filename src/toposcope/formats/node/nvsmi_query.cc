// formats/node/nvsmi_query: see nvsmi_query.h.
#include "toposcope/formats/node/nvsmi_query.h"

#include <cctype>
#include <set>

#include "toposcope/base/text.h"

namespace toposcope::formats {
namespace {

// The temperature lines of a GPU section and where each goes.
struct TempKey {
  std::string_view key;
  double NvsmiQueryGpu::*slot;
};
constexpr TempKey kTempKeys[] = {
    {"GPU Current Temp", &NvsmiQueryGpu::current_c},
    {"GPU T.Limit Temp", &NvsmiQueryGpu::tlimit_c},
    {"GPU Shutdown Temp", &NvsmiQueryGpu::shutdown_c},
    {"GPU Slowdown Temp", &NvsmiQueryGpu::slowdown_c},
    {"GPU Max Operating Temp", &NvsmiQueryGpu::max_operating_c},
    {"GPU Shutdown T.Limit Temp", &NvsmiQueryGpu::shutdown_tlimit_c},
    {"GPU Slowdown T.Limit Temp", &NvsmiQueryGpu::slowdown_tlimit_c},
    {"GPU Max Operating T.Limit Temp", &NvsmiQueryGpu::max_operating_tlimit_c},
    {"Memory Current Temp", &NvsmiQueryGpu::memory_current_c},
    {"Memory Max Operating Temp", &NvsmiQueryGpu::memory_max_operating_c},
};

// `GPU 00000000:18:00.0`: the bus id, else empty.
std::string_view SectionBusId(std::string_view t) {
  if (!StartsWith(t, "GPU ")) return {};
  const std::string_view id = Trim(t.substr(4));
  if (id.size() < 7 || id.find(':') == std::string_view::npos) return {};
  for (const char c : id) {
    if (std::isxdigit(static_cast<unsigned char>(c)) == 0 && c != ':' && c != '.') return {};
  }
  return id;
}

// `<number> C` (the unit may be missing) or `N/A` (NaN); false when it is neither.
bool ParseCelsius(std::string_view v, double* out) {
  if (v == "N/A") {
    *out = NAN;
    return true;
  }
  if (EndsWith(v, " C")) v = Trim(v.substr(0, v.size() - 2));
  const auto d = ParseDouble(v);
  if (!d || !std::isfinite(*d) || *d < -273.15 || *d > 1000) return false;
  *out = *d;
  return true;
}

class Reader {
 public:
  Reader(std::string_view source, Diagnostics& diag) : source_(source), diag_(diag) {}

  // One line (trimmed); `no` its 1-based number.
  void Line(std::string_view t, int64_t no) {
    if (Contains(t, "NVSMI LOG")) banner_ = true;
    if (out_.gpus.empty() && Contains(t, "nvidia-smi") && Contains(t, "-q")) return Prompt(t);
    if (const std::string_view bus = SectionBusId(t); !bus.empty()) return Section(bus, t, no);
    const size_t colon = t.find(" : ");
    if (colon == std::string_view::npos) return;
    const std::string_view key = Trim(t.substr(0, colon));
    const std::string_view value = Trim(t.substr(colon + 3));
    if (key == "Driver Version" || key == "CUDA Version" || key == "Attached GPUs") return Top(key, value, t, no);
    if (key == "Product Name") return Use(t, no, [&](NvsmiQueryGpu& g) { g.product_name = std::string(value); });
    if (key == "CliqueId" || key == "ClusterUUID") return Fabric(key, value, t, no);
    for (const TempKey& k : kTempKeys) {
      if (key != k.key) continue;
      double c = NAN;
      if (!ParseCelsius(value, &c)) return Reject(t, no, Cat({k.key, " ", QuoteRaw(value), " is not `<number> C` or N/A"}));
      return Use(t, no, [&](NvsmiQueryGpu& g) { g.*k.slot = c; });
    }
  }

  // Ends the reading: the report, or why the text is no nvidia-smi -q output.
  Result<NvsmiQuery> Finish() {
    if (out_.gpus.empty() && !banner_) {
      return MakeError(std::string(source_), 0, 0, "not `nvidia-smi -q` output: no `GPU <bus id>` section",
                       "expected the output of nvidia-smi -q");
    }
    if (out_.attached_gpus >= 0 && static_cast<size_t>(out_.attached_gpus) != out_.gpus.size()) {
      diag_.Warn(source_, 0, "",
                 Cat({"Attached GPUs says ", std::to_string(out_.attached_gpus), " but ",
                      std::to_string(static_cast<int64_t>(out_.gpus.size())),
                      " GPU section(s) were read (nvidia-smi -q -i, or a cut copy)"}));
    }
    return std::move(out_);
  }

 private:
  void Accept() {
    ++out_.counts.read;
    ++out_.counts.accepted;
  }

  void Reject(std::string_view t, int64_t no, const std::string& why) {
    ++out_.counts.read;
    ++out_.counts.rejected;
    diag_.Reject(source_, no, t, why);
  }

  void Section(std::string_view bus, std::string_view t, int64_t no) {
    keys_.clear();
    if (!buses_.insert(std::string(bus)).second) {
      current_ = nullptr;
      return Reject(t, no, Cat({"GPU section ", bus, " repeated"}));
    }
    out_.gpus.emplace_back();
    current_ = &out_.gpus.back();
    current_->bus_id = std::string(bus);
    current_->line = no;
    Accept();
  }

  // The Fabric section's `CliqueId : 32766` / `ClusterUUID : <uuid>` (N/A kept as "").
  void Fabric(std::string_view key, std::string_view value, std::string_view t, int64_t no) {
    const std::string v = value == "N/A" ? std::string() : std::string(value);
    if (key == "CliqueId" && !v.empty() && !ParseInt(v)) {
      return Reject(t, no, Cat({"CliqueId ", QuoteRaw(value), " is not a number or N/A"}));
    }
    if (key == "ClusterUUID" && !v.empty() && (v.size() != 36 || v.find_first_not_of("0123456789abcdefABCDEF-") != std::string::npos)) {
      return Reject(t, no, Cat({"ClusterUUID ", QuoteRaw(value), " is not a UUID or N/A"}));
    }
    return Use(t, no, [&](NvsmiQueryGpu& g) { (key == "CliqueId" ? g.clique_id : g.cluster_uuid) = v; });
  }

  // A shell prompt running nvidia-smi -q: the GPU index it selects with `-i N` / `--id=N`, if any.
  void Prompt(std::string_view t) {
    const std::vector<std::string_view> w = SplitWhitespace(t);
    for (size_t i = 0; i < w.size(); ++i) {
      std::string_view v;
      if ((w[i] == "-i" || w[i] == "--id") && i + 1 < w.size()) v = w[i + 1];
      if (StartsWith(w[i], "--id=")) v = w[i].substr(5);
      if (v.empty()) continue;
      const auto n = ParseInt(v);
      out_.selected_index = n && *n >= 0 && *n < 4096 ? static_cast<int>(*n) : -1;
    }
  }

  void Top(std::string_view key, std::string_view value, std::string_view t, int64_t no) {
    if (key == "Driver Version") {
      out_.driver_version = std::string(value);
    } else if (key == "CUDA Version") {
      out_.cuda_version = std::string(value);
    } else {
      const auto n = ParseInt(value);
      if (!n || *n < 0 || *n > 4096) return Reject(t, no, Cat({"Attached GPUs ", QuoteRaw(value), " is not a count"}));
      out_.attached_gpus = static_cast<int>(*n);
    }
    Accept();
  }

  // A line of the current GPU section, set by `set`; rejected outside a section or when repeated.
  template <class SetFn>
  void Use(std::string_view t, int64_t no, SetFn&& set) {
    if (current_ == nullptr) return Reject(t, no, "GPU line before any `GPU <bus id>` section");
    const std::string key(Trim(t.substr(0, t.find(" : "))));
    if (!keys_.insert(key).second) return Reject(t, no, Cat({key, " repeated in GPU ", current_->bus_id}));
    set(*current_);
    Accept();
  }

  std::string_view source_;
  Diagnostics& diag_;
  NvsmiQuery out_;
  NvsmiQueryGpu* current_ = nullptr;
  std::set<std::string> buses_;
  std::set<std::string> keys_;  // the keys of the current section
  bool banner_ = false;
};

}  // namespace

Result<NvsmiQuery> ParseNvsmiQuery(std::string_view text, std::string_view source, Diagnostics& diag) {
  if (LooksBinary(text.substr(0, 4096))) {
    diag.RejectAtByte(source, 0, text.substr(0, 64), "input looks binary, not nvidia-smi -q output");
    return MakeError(std::string(source), 0, 0, "binary input, not nvidia-smi -q output");
  }
  Reader r(source, diag);
  int64_t no = 0;
  for (std::string_view line : SplitLines(text)) {
    ++no;
    r.Line(Trim(line), no);
  }
  return r.Finish();
}

NvsmiAbsoluteLimits AbsoluteLimitsOf(const NvsmiQueryGpu& g) {
  NvsmiAbsoluteLimits l;
  if (!std::isnan(g.max_operating_c) || !std::isnan(g.slowdown_c) || !std::isnan(g.shutdown_c)) {
    l.max_operating_c = g.max_operating_c;
    l.slowdown_c = g.slowdown_c;
    l.shutdown_c = g.shutdown_c;
    l.form = "absolute";
    return l;
  }
  const double tlimit_c = g.current_c + g.tlimit_c;  // the current reading plus its headroom
  if (std::isnan(tlimit_c)) return l;
  l.max_operating_c = tlimit_c - g.max_operating_tlimit_c;
  l.slowdown_c = tlimit_c - g.slowdown_tlimit_c;
  l.shutdown_c = tlimit_c - g.shutdown_tlimit_c;
  if (!std::isnan(l.max_operating_c) || !std::isnan(l.slowdown_c) || !std::isnan(l.shutdown_c)) l.form = "tlimit";
  return l;
}

bool LooksLikeNvsmiQuery(std::string_view head) {
  if (Contains(head, "==NVSMI LOG==")) return true;
  if (!Contains(head, "Attached GPUs")) return false;
  for (std::string_view line : SplitLines(head)) {
    if (!SectionBusId(Trim(line)).empty()) return true;
  }
  return false;
}

}  // namespace toposcope::formats
