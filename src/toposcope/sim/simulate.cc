#include "toposcope/sim/simulate.h"

#include <algorithm>
#include <map>
#include <memory>

#include "toposcope/base/file_io.h"
#include "toposcope/base/names.h"
#include "toposcope/sim/fabric_import.h"
#include "toposcope/sim/fabric_sim.h"
#include "toposcope/sim/rdma_traffic.h"
#include "toposcope/sim/telemetry.h"
#include "toposcope/sim/variation.h"
#include "toposcope/sim/writers.h"

namespace toposcope::sim {
namespace {

// A real fabric (sim/fabric_import.h): only the fabric files and truth.json.
Result<SimSummary> SimulateImported(const SimOptions& options, const std::string& out_dir) {
  Result<ImportedFabric> imported = ImportFabricFromOptions(options);
  if (!imported.ok()) return imported.error();
  const std::string base = out_dir.back() == '/' ? out_dir : out_dir + "/";
  SimSummary summary;
  summary.out_dir = out_dir;
  summary.arch = Arch::kImported;
  summary.seed = options.seed;
  for (const RenderedFile& f : RenderImportedFabric(*imported)) {
    if (Status st = WriteFileText(base + f.path, f.text); !st) return st.error();
    ++summary.files_written;
  }
  summary.truth_path = base + kTruthFile;
  // One summary per host directory: its files, and the leaves of its endpoints (comma-joined).
  std::map<std::string, SimHostSummary> dirs;
  for (size_t e = 0; e < imported->endpoints.size(); ++e) {
    const ImportedEndpoint& ep = imported->endpoints[e];
    SimHostSummary& h = dirs[ep.dir];
    if (h.name.empty()) {
      h.name = ep.dir;
      h.files = ImportedEndpointFiles(*imported, static_cast<int>(e));
    }
    const std::string& leaf = imported->cluster.hosts[e].leaf;
    if (("," + h.leaf + ",").find("," + leaf + ",") == std::string::npos) h.leaf += (h.leaf.empty() ? "" : ",") + leaf;
  }
  for (auto& [dir, h] : dirs) summary.hosts.push_back(std::move(h));
  return summary;
}

// Writes each file under the output directory as it comes, compressed when asked, and reports the
// progress after each host.
class DiskSink : public RenderSink {
 public:
  DiskSink(std::string base, const SimWriteOptions& write) : base_(std::move(base)), write_(write) {}
  Status Begin(const std::string& path) override {
    Result<std::unique_ptr<OutputFile>> f = OutputFile::Create(base_ + StoredFileName(path, write_.compression),
                                                               CompressionOf(path), write_.zstd_level);
    if (!f.ok()) return f.error();
    file_ = std::move(*f);
    return {};
  }
  Status Append(std::string_view text) override { return file_->Append(text); }
  Status End() override {
    Status st = file_->Close();
    ++files_;
    bytes_in_ += file_->bytes_in();
    bytes_out_ += file_->bytes_out();
    file_.reset();
    return st;
  }
  void HostDone(int hosts_done, int hosts_total) override {
    if (write_.progress) write_.progress({hosts_done, hosts_total, files_, bytes_out_});
  }
  [[nodiscard]] int64_t files() const { return files_; }
  [[nodiscard]] int64_t bytes_in() const { return bytes_in_; }
  [[nodiscard]] int64_t bytes_out() const { return bytes_out_; }

 private:
  OutputCompression CompressionOf(const std::string& path) const {
    return StoredFileName(path, write_.compression) == path ? OutputCompression::kNone : write_.compression;
  }
  std::string base_;
  const SimWriteOptions& write_;
  std::unique_ptr<OutputFile> file_;
  int64_t files_ = 0, bytes_in_ = 0, bytes_out_ = 0;
};

}  // namespace

std::string StoredFileName(const std::string& path, OutputCompression compression) {
  if (compression != OutputCompression::kZstd) return path;
  if (path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0) return path;
  return path + ".zst";
}

Result<SimSummary> Simulate(const SimOptions& given, const std::string& out_dir) {
  return Simulate(given, out_dir, SimWriteOptions{});
}

Result<SimSummary> Simulate(const SimOptions& given, const std::string& out_dir, const SimWriteOptions& write) {
  if (out_dir.empty()) {
    return MakeKindError(ErrorKind::kUsage, "no output directory given", "pass a directory to write into");
  }
  if (!given.fabric_ibnet_path.empty() || !given.fabric_topograph_path.empty()) {
    return SimulateImported(given, out_dir);
  }
  if (Status st = ValidateVariation(given); !st) return st.error();
  const SimOptions options = ResolveVariation(given);
  Result<Cluster> cluster = BuildCluster(options);
  if (!cluster.ok()) return cluster.error();
  if (Status st = ValidateTelemetryOptions(options); !st) return st.error();
  if (Status st = ValidateRdmaOptions(options); !st) return st.error();
  if (Status st = ValidateFabricOptions(options); !st) return st.error();
  std::unique_ptr<Telemetry> telemetry;
  if (options.with_telemetry) telemetry = std::make_unique<Telemetry>(SimulateTelemetry(*cluster));

  const std::string base = out_dir.back() == '/' ? out_dir : out_dir + "/";
  SimSummary summary;
  summary.out_dir = out_dir;
  summary.arch = options.arch;
  summary.seed = options.seed;
  summary.faults_requested = options.faults;
  summary.variation = VariationSummary(options);
  summary.drawn_options = options.drawn_options;
  DiskSink sink(base, write);
  if (Status st = RenderClusterTo(*cluster, telemetry.get(), sink); !st) return st.error();
  summary.files_written = static_cast<int>(sink.files());
  summary.bytes_written = sink.bytes_out();
  summary.bytes_rendered = sink.bytes_in();
  summary.truth_path = base + StoredFileName(kTruthFile, write.compression);
  std::unique_ptr<RdmaPlan> rdma;
  if (options.with_rdma) rdma = std::make_unique<RdmaPlan>(PlanRdma(*cluster, telemetry.get()));
  for (const HostModel& h : cluster->hosts) {
    std::vector<std::string> files = HostFiles(h);
    if (telemetry) {
      for (std::string& f : TelemetryFiles(*cluster, *telemetry, h)) files.push_back(std::move(f));
    }
    if (rdma) {
      for (std::string& f : RdmaHostFiles(*rdma, h)) files.push_back(std::move(f));
    }
    if (options.with_fabric) {
      for (std::string& f : FabricHostFiles(h)) files.push_back(std::move(f));
    }
    for (std::string& f : files) f = StoredFileName(f, write.compression);
    summary.hosts.push_back({h.name, h.type->name, h.leaf, std::move(files)});
  }
  for (const FaultTruth& f : cluster->faults) {
    const std::string& host = cluster->hosts[static_cast<size_t>(f.host)].name;
    SimFaultSummary s{f.kind, host, {}, f.detail};
    for (int g : f.gpus) s.gpus.push_back(GpuName(host, g));
    summary.faults.push_back(std::move(s));
  }
  return summary;
}

SimOptions WithScaleLimits(SimOptions options) {
  options.with_rdma = options.with_rdma && options.hosts <= kMaxRdmaHosts;
  options.with_fabric = options.with_fabric && options.hosts <= kMaxFabricHosts;
  return options;
}

std::string SimSummaryText(const SimSummary& s) {
  std::string out = "simulated " + std::to_string(s.hosts.size()) + " hosts (" +
                    std::string(ArchName(s.arch)) + ", seed " + std::to_string(s.seed) + "), " +
                    std::to_string(s.files_written) + " files in " + s.out_dir + "\n";
  std::map<std::string, int> types;
  for (const auto& h : s.hosts) ++types[h.node_type];
  for (const auto& [t, n] : types) out += "  " + std::to_string(n) + " x " + t + "\n";
  out += "injected faults: " + std::to_string(s.faults.size()) + " of " + std::to_string(s.faults_requested) +
         " requested\n";
  for (const auto& f : s.faults) {
    out += "  " + std::string(NodeFaultKindName(f.kind)) + " on " + f.host + ":";
    for (const auto& g : f.gpus) out += " " + g;
    out += " (" + f.detail + ")\n";
  }
  if (!s.variation.empty()) {
    out += "variation (drawn from the seed unless given):\n";
    for (const auto& [name, value] : s.variation) {
      const bool drawn = std::find(s.drawn_options.begin(), s.drawn_options.end(), name) != s.drawn_options.end();
      out += "  " + name + " " + value + (drawn ? " (drawn)" : "") + "\n";
    }
  }
  out += "ground truth: " + s.truth_path + " (read only by `toposcope score`)\n";
  return out;
}

}  // namespace toposcope::sim
