// model/load: LoadPaths walks the given files and directories and reads each file through the
// reader table of model/readers; the steps it takes (plan, chunks read in parallel, finish) are
// model/load_plan's.
#include <unistd.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <functional>
#include <mutex>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"
#include "toposcope/formats/dcgm/dcgm_discovery.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/dcgm_read.h"
#include "toposcope/model/load_plan.h"
#include "toposcope/model/load_progress.h"
#include "toposcope/model/readers.h"

namespace toposcope::model {
namespace fs = std::filesystem;

namespace {

// An input that is not read, with why.
void Skip(Dataset& ds, InputFile in, std::string reason) {
  in.skipped = true;
  in.skip_reason = std::move(reason);
  ds.inputs.push_back(std::move(in));
}

// Format detection reads the first kSniffHeadBytes of the (decompressed) input. When they show no
// known format and the input is longer, it reads on, streamed, to at most kSniffDeepBytes (1 MiB,
// whatever the file's size or compression): a console capture whose NCCL lines, P2P matrix or dmon
// header come after a long preamble (shell banner, pip output, Python logging) is still recognised.
constexpr size_t kSniffHeadBytes = 8192;
constexpr size_t kSniffDeepBytes = size_t{1} << 20;

// The format of the input at `path` (its head read through OpenInput, so .gz/.zst alike); fails
// when the input cannot be opened or its first bytes cannot be read.
Result<formats::SniffResult> SniffInput(const std::string& path) {
  auto head = ReadHead(path, kSniffHeadBytes);
  if (!head.ok()) return head.error();
  formats::SniffResult sniff = formats::SniffFormat(*head);
  if (sniff.format != formats::FileFormat::kUnknown || head->size() < kSniffHeadBytes || LooksBinary(*head)) {
    return sniff;
  }
  auto deep = ReadHead(path, kSniffDeepBytes);
  if (!deep.ok()) return sniff;  // the first bytes were read: keep what they said
  formats::SniffResult further = formats::SniffFormat(*deep);
  if (further.format == formats::FileFormat::kUnknown) {
    sniff.reason += " (nor in the first " + std::to_string(deep->size()) + " bytes)";
    return sniff;
  }
  further.reason += ", found after the first " + std::to_string(kSniffHeadBytes) + " bytes";
  return further;
}

// A streamed file whose reader failed after it had accepted records (a truncated or corrupt tail):
// the file counts as read, the failure as one more rejected record with its position and reason.
void ReadEndsInError(Dataset& ds, const std::string& path, const Error& e, ReadCounts& counts) {
  ds.diag.Reject(path, e.line, "", "input ends in a read error after " + std::to_string(counts.read) +
                                       " records: " + e.message);
  ++counts.read;
  ++counts.rejected;
}

// True for what the loader skips by its head alone: no known format, or a file of ours that is
// not telemetry (the simulator's ground truth, an earlier result).
bool NotAnInput(formats::FileFormat f) {
  using formats::FileFormat;
  return f == FileFormat::kUnknown || f == FileFormat::kTruthJson || f == FileFormat::kResultJson;
}

// Sniffs one file and folds it into the dataset through its format's reader; every file becomes
// one input of ds.inputs (skipped, with the reason, when it is unreadable, of no known format, or
// refused by its reader).
void LoadFile(Dataset& ds, const fs::path& file, const std::string& default_host, const LoadOptions& opt,
              std::vector<UntimedDcgmInput>& untimed, std::vector<DmonMigRows>& dmon_mig) {
  InputFile in;
  in.path = file.string();
  auto sniffed = SniffInput(in.path);
  if (!sniffed.ok()) return Skip(ds, std::move(in), sniffed.error().ToString());
  const formats::SniffResult& sniff = *sniffed;
  in.format = std::string(formats::FormatName(sniff.format));
  if (NotAnInput(sniff.format)) return Skip(ds, std::move(in), sniff.reason);
  const FormatReader* reader = FindReader(sniff.format);
  // Line-oriented and streamed inputs are read by their own readers; the node-level formats are
  // small and read whole.
  const bool whole = reader != nullptr && reader->mode == ReadMode::kWhole;
  auto text = whole ? ReadFileText(in.path, kMaxWholeInputBytes) : Result<std::string>(std::string());
  if (!text.ok()) return Skip(ds, std::move(in), text.error().ToString());
  std::string host = opt.host_override.empty() ? default_host : opt.host_override;
  ReadCounts counts;
  std::string error;
  if (reader == nullptr) {
    in.skipped = true;
    in.skip_reason = "recognised as " + in.format + ", which `analyze` does not use yet";
  } else {
    FileRead f{ds, file, in.path, sniff.format, *text, opt, host, counts, &untimed, &dmon_mig};
    const int64_t rejected_before = ds.diag.RejectedFor(in.path);
    const Status st = reader->read(f);
    if (!st.ok() && reader->mode == ReadMode::kStreamed && counts.accepted > 0) {
      ReadEndsInError(ds, in.path, st.error(), counts);  // its records are used: read, not skipped
    } else if (!st.ok()) {
      error = st.error().ToString();
      // A reader that refuses the file may return no counts; the lines it rejected first are in the
      // diagnostics and stay this file's.
      const int64_t rejected = ds.diag.RejectedFor(in.path) - rejected_before;
      if (counts.rejected < rejected) {
        counts.rejected = rejected;
        counts.read = counts.accepted + counts.rejected;
      }
    }
  }
  in.records = counts.read;
  in.accepted = counts.accepted;
  in.rejected = counts.rejected;
  if (!error.empty()) {
    in.skipped = true;
    in.skip_reason = error;
  } else {
    in.host = host;
  }
  ds.inputs.push_back(std::move(in));
}

// Times before 2000-01-01T00:00:00Z are on a monotonic axis (linuxptp's `[sec.ms]` stamps, uptime),
// not on the wall clock that DCGM samples are on: they give no origin.
constexpr int64_t kWallClockFloorNs = int64_t{946684800} * 1000000000;

// The earliest wall-clock time the data set holds on `host`'s clock (its timed DCGM samples, its
// clock sync points), or on any host's when `host` is empty; kNoTime when there is none.
int64_t EarliestTimeNs(const Dataset& ds, const std::string& host) {
  int64_t best = kNoTime;
  const auto take = [&](int64_t t) {
    if (t != kNoTime && t >= kWallClockFloorNs && (best == kNoTime || t < best)) best = t;
  };
  for (const auto& [key, s] : ds.dcgm.series) {
    if (s.count > 0 && (host.empty() || key.host == host)) take(s.first_ns);
  }
  for (const auto& [name, h] : ds.hosts) {
    if (!host.empty() && name != host) continue;
    for (const auto& p : h.sync_points) take(p.local_ns);
  }
  return best;
}

// Places the samples without a time of the DCGM inputs read without --at (`untimed`): from the
// earliest time of the same host in the data set, else of the whole data set, else the file's
// modification time; each file's warning says which, and its timeline input gets the same origin.
// Every origin is chosen before any file is placed: the order of the files does not matter.
void PlaceUntimedDcgm(Dataset& ds, const std::vector<UntimedDcgmInput>& untimed) {
  std::vector<UntimedPlacement> places(untimed.size());
  for (size_t i = 0; i < untimed.size(); ++i) {
    UntimedPlacement& p = places[i];
    p.emit = UntimedSamples::kOnly;
    p.note_to = &ds.diag;
    if (const int64_t host_ns = EarliestTimeNs(ds, untimed[i].host); host_ns != kNoTime) {
      p.origin_ns = host_ns;
      p.origin_note = "no --at: the earliest time of host " + untimed[i].host + " in the data set";
    } else if (const int64_t any_ns = EarliestTimeNs(ds, ""); any_ns != kNoTime) {
      p.origin_ns = any_ns;
      p.origin_note = "no --at: the earliest time in the data set (none for host " + untimed[i].host + ")";
    } else {
      p.origin_note = "no --at and no time in the data set: the file's modification time; set --at";
    }
  }
  for (size_t i = 0; i < untimed.size(); ++i) {
    const UntimedDcgmInput& u = untimed[i];
    Diagnostics again;  // the first read reported this file's diagnostics
    ReadCounts counts;
    DcgmAdder add(ds.dcgm);
    (void)ReadDcgmFile(u.path, u.host, u.format, [&add](const DcgmPoint& p) { add.Add(p); }, again, counts, places[i]);
    if (places[i].origin_ns != kNoTime && u.event_input < ds.event_inputs.size()) {
      ds.event_inputs[u.event_input].untimed_at_ns = places[i].origin_ns;
    }
  }
}

// Links the MIG instances of the dmon files `dmon_mig` to their GPUs through their host's `dcgmi
// discovery -c` (DCGM entity id -> GPU; LinkMigSeries), once every input is read (the order of the
// files does not matter). A file whose instances are not all in it gets one warning naming the
// others: no hierarchy for the host, or not in the host's.
void LinkMigInstances(Dataset& ds, const std::vector<DmonMigRows>& dmon_mig) {
  std::set<std::string> linked_hosts;
  for (const DmonMigRows& f : dmon_mig) {
    const auto h = ds.hosts.find(f.host);
    const bool has = h != ds.hosts.end() && !h->second.mig_instances.empty();
    std::vector<formats::DmonEntity> unlinked;
    for (const formats::DmonEntity& e : f.entities) {
      const auto kind = e.kind == formats::DmonEntityKind::kGpuCi ? formats::DcgmMigKind::kComputeInstance
                                                                   : formats::DcgmMigKind::kGpuInstance;
      if (!has || formats::FindMigInstance(h->second.mig_instances, kind, e.id) == nullptr) unlinked.push_back(e);
    }
    if (has && linked_hosts.insert(f.host).second) LinkMigSeries(ds.dcgm, f.host, h->second.mig_instances);
    for (EventInput& in : ds.event_inputs) {
      if (has && in.path == f.path) in.mig_instances = h->second.mig_instances;
    }
    if (unlinked.empty()) continue;
    WarnUnlinkedMigInstances(
        f.path, f.line, unlinked,
        has ? "not in the `dcgmi discovery -c` of host " + f.host
            : "dmon does not say which GPU holds them (a `dcgmi discovery -c` of host " + f.host + " links them)",
        ds.diag);
  }
}

// One entry of a directory walk: a file to read, or an entry listed as skipped with why.
struct WalkEntry {
  fs::path path;
  std::optional<std::string> skip;
};

// Why a directory entry that is not a regular file is not read; nullopt for a regular file (or a
// symlink to one, which is followed) and for a readable directory (walked into).
std::optional<std::string> NotReadReason(const fs::directory_entry& e) {
  std::error_code ec;
  const bool link = e.is_symlink(ec);
  const fs::file_status st = e.status(ec);  // follows symlinks
  if (ec || st.type() == fs::file_type::not_found) {
    std::error_code ec2;
    const fs::path target = fs::read_symlink(e.path(), ec2);
    return link ? "dangling symlink (to " + target.string() + ")" : "cannot stat: " + ec.message();
  }
  const std::string what = link ? "symlink to " : "";
  switch (st.type()) {
    case fs::file_type::regular: return std::nullopt;
    case fs::file_type::directory:
      if (link) return "symlink to a directory: not followed (a link can make the walk loop); give it as a path";
      if (::access(e.path().c_str(), R_OK | X_OK) != 0) return "directory cannot be read: permission denied";
      return std::nullopt;
    case fs::file_type::fifo:
      return what + "a FIFO: not read inside a directory (it could wait for a writer); give it as a path";
    case fs::file_type::socket: return what + "a socket, not a file";
    case fs::file_type::block:
    case fs::file_type::character: return what + "a device, not a file";
    default: return what + "not a regular file";
  }
}

// Every entry under `root`, sorted by path: the regular files, and the entries not read (with why).
std::vector<WalkEntry> WalkDirectory(const fs::path& root) {
  std::vector<WalkEntry> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::optional<std::string> skip = NotReadReason(*it);
    std::error_code ec2;
    if (!skip && it->is_directory(ec2)) continue;
    out.push_back({it->path(), std::move(skip)});
  }
  if (ec) out.push_back({root, "directory walk stopped: " + ec.message()});
  std::sort(out.begin(), out.end(), [](const WalkEntry& a, const WalkEntry& b) { return a.path < b.path; });
  return out;
}

// Every input under `paths`, in reading order, with the host a file defaults to; fails when a path
// does not exist.
Result<std::vector<PlannedInput>> PlanInputs(const std::vector<std::string>& paths) {
  std::vector<PlannedInput> out;
  for (const auto& p : paths) {
    std::error_code ec;
    const fs::path root(p);
    if (!fs::exists(root, ec)) return MakeError(p, 0, 0, "no such file or directory");
    if (!fs::is_directory(root, ec)) {
      out.push_back({root, StemOf(root), std::nullopt});
      continue;
    }
    for (WalkEntry& e : WalkDirectory(root)) {
      std::string host;
      if (!e.skip) {
        // The walk yields root/...: the path below root is read off the names, without resolving
        // each component on disk (a linked file stays in the directory it is listed in).
        ec.clear();
        fs::path rel = e.path.lexically_relative(root);
        if (rel.empty() || *rel.begin() == "..") rel = fs::relative(e.path, root, ec);
        host = (!ec && std::distance(rel.begin(), rel.end()) > 1) ? rel.begin()->string() : StemOf(e.path);
      }
      out.push_back({std::move(e.path), std::move(host), std::move(e.skip)});
    }
  }
  return out;
}

// The chunk of an input: a new one whenever the default host changes.
std::vector<size_t> CutChunks(const std::vector<PlannedInput>& inputs) {
  std::vector<size_t> begin;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i == 0 || inputs[i].host != inputs[i - 1].host || inputs[i].host.empty()) begin.push_back(i);
  }
  return begin;
}

// Reads the inputs of one chunk into `part`.
void LoadChunk(const LoadPlan& plan, size_t k, const LoadOptions& opt, LoadedPart& part,
               const std::function<void(const PlannedInput&)>& done) {
  part.first_chunk = k;
  part.end_chunk = k + 1;
  for (size_t i = plan.chunk_begin[k]; i < plan.ChunkEnd(k); ++i) {
    const PlannedInput& p = plan.inputs[i];
    if (p.skip) {
      InputFile in;
      in.path = p.path.string();
      in.format = "unknown";
      Skip(part.ds, std::move(in), *p.skip);
    } else {
      LoadFile(part.ds, p.path, p.host, opt, part.untimed, part.dmon_mig);
    }
    done(p);
  }
}

}  // namespace

int64_t LoadPlan::ChunkBytes(size_t k) const {
  int64_t n = 0;
  for (size_t i = chunk_begin[k]; i < ChunkEnd(k); ++i) n += inputs[i].size_bytes;
  return n;
}

Result<LoadPlan> PlanLoad(const std::vector<std::string>& paths) {
  Result<std::vector<PlannedInput>> planned = PlanInputs(paths);
  if (!planned.ok()) return planned.error();
  LoadPlan plan;
  plan.inputs = std::move(*planned);
  for (PlannedInput& in : plan.inputs) {
    std::error_code ec;
    const uintmax_t size = in.skip ? 0 : fs::file_size(in.path, ec);
    in.size_bytes = ec ? 0 : static_cast<int64_t>(size);
    plan.bytes_total += in.size_bytes;
  }
  plan.chunk_begin = CutChunks(plan.inputs);
  return plan;
}

std::vector<int64_t> ChunkReadBytes(const LoadPlan& plan, int64_t sniff_from_bytes) {
  std::vector<int64_t> bytes(plan.chunks(), 0);
  for (size_t k = 0; k < plan.chunks(); ++k) {
    for (size_t i = plan.chunk_begin[k]; i < plan.ChunkEnd(k); ++i) {
      const PlannedInput& in = plan.inputs[i];
      if (in.size_bytes >= sniff_from_bytes) {
        const Result<formats::SniffResult> sniff = SniffInput(in.path.string());
        if (!sniff.ok() || NotAnInput(sniff->format) || FindReader(sniff->format) == nullptr) {
          continue;  // skipped by LoadFile after its head is read
        }
      }
      bytes[k] += in.size_bytes;
    }
  }
  return bytes;
}

LoadedPart LoadChunks(const LoadPlan& plan, size_t first, size_t end, const LoadOptions& opt,
                      const LoadProgressFn& report, int threads) {
  end = std::min(end, plan.chunks());
  first = std::min(first, end);
  std::vector<LoadedPart> parts(end - first);
  std::mutex mu;
  LoadProgress progress;
  for (size_t k = first; k < end; ++k) {
    progress.files_total += static_cast<int64_t>(plan.ChunkEnd(k) - plan.chunk_begin[k]);
    progress.bytes_total += plan.ChunkBytes(k);
  }
  const auto done = [&](const PlannedInput& p) {
    if (!report) return;
    const std::string path = p.path.string();
    const std::lock_guard<std::mutex> lock(mu);
    ++progress.files_done;
    progress.bytes_done += p.size_bytes;
    progress.path = path;
    report(progress);
  };
  const auto read_all = [&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(first, end, 1), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t k = r.begin(); k != r.end(); ++k) LoadChunk(plan, k, opt, parts[k - first], done);
    });
  };
  if (threads > 0) {
    tbb::task_arena(threads).execute(read_all);
  } else {
    read_all();  // TBB's default, within any tbb::global_control the caller set
  }
  LoadedPart whole;
  whole.first_chunk = whole.end_chunk = first;
  for (LoadedPart& p : parts) (void)MergeParts(whole, std::move(p));  // adjacent by construction
  return whole;
}

Dataset FinishLoad(LoadedPart&& whole) {
  Dataset ds = std::move(whole.ds);
  PlaceUntimedDcgm(ds, whole.untimed);
  LinkMigInstances(ds, whole.dmon_mig);
  return ds;
}

Result<Dataset> LoadPaths(const std::vector<std::string>& paths, const LoadOptions& opt) {
  return LoadPaths(paths, opt, LoadProgressFn());
}

Result<Dataset> LoadPaths(const std::vector<std::string>& paths, const LoadOptions& opt, const LoadProgressFn& report) {
  Result<LoadPlan> plan = PlanLoad(paths);
  if (!plan.ok()) return plan.error();
  return FinishLoad(LoadChunks(*plan, 0, plan->chunks(), opt, report));
}

}  // namespace toposcope::model
