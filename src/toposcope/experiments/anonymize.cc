#include "toposcope/experiments/anonymize.h"

#include <zstd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <system_error>
#include <utility>

#include "toposcope/base/file_io.h"
#include "toposcope/base/names.h"
#include "toposcope/base/text.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/model/dataset.h"
#include "toposcope/sim/telemetry.h"

namespace toposcope::experiments {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kTruthFile = "truth.json";
constexpr const char* kMapFile = "rename_map.json";
constexpr uint64_t kHostLabel = 0x4a05750001ULL;
constexpr uint64_t kSwitchLabel = 0x4a05750002ULL;
constexpr uint64_t kCaptureLabel = 0x4a05750003ULL;

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// New names for `olds`, assigned in random order (sim/naming.h).
NameMap NewNames(const std::vector<std::string>& olds, NameStyle style, sim::NameKind kind, uint64_t seed,
                 uint64_t label, std::set<std::string>& taken) {
  const std::vector<std::string> fresh = sim::DrawNames(static_cast<int>(olds.size()), style, kind, seed, label, taken);
  NameMap out;
  for (size_t i = 0; i < olds.size(); ++i) out[olds[i]] = fresh[i];
  return out;
}

// Splits "a.pcap" into ("a", ".pcap"); the extension is everything from the first '.'.
std::pair<std::string, std::string> StemAndExtension(const std::string& name) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos || dot == 0) return {name, ""};
  return {name.substr(0, dot), name.substr(dot)};
}

// ---- names a dataset holds ----

void AddArrayField(const json& arr, const char* key, std::set<std::string>& out) {
  if (!arr.is_array()) return;
  for (const auto& e : arr) {
    if (e.is_object() && e.contains(key) && e[key].is_string()) out.insert(e[key].get<std::string>());
    if (e.is_string() && key[0] == '\0') out.insert(e.get<std::string>());
  }
}

Status NamesFromTruth(const std::string& path, std::set<std::string>& hosts, std::set<std::string>& switches,
                      std::set<std::string>& captures) {
  Result<std::string> text = ReadFileText(path);
  if (!text.ok()) return text.error();
  json t = json::parse(*text, nullptr, false);
  if (t.is_discarded() || !t.is_object()) {
    return MakeKindError(ErrorKind::kInput, path + ": not a JSON object", "a truth.json written by `simulate`");
  }
  AddArrayField(t.value("hosts", json::array()), "name", hosts);
  const json fabric = t.value("fabric", json::object());
  AddArrayField(fabric.value("switches", json::array()), "name", switches);
  AddArrayField(fabric.value("leaves", json::array()), "switch", switches);
  AddArrayField(fabric.value("spines", json::array()), "", switches);
  AddArrayField(fabric.value("groups", json::array()), "group", switches);
  AddArrayField(fabric.value("rings", json::array()), "ring", switches);
  for (const auto& g : fabric.value("groups", json::array())) AddArrayField(g.value("routers", json::array()), "", switches);
  const json rdma = t.value("rdma", json::object());
  std::set<std::string> files;
  AddArrayField(rdma.value("captures", json::array()), "file", files);
  for (const auto& f : files) captures.insert(fs::path(f).filename().string());
  return {};
}

Status NamesFromInputs(const std::string& dir, std::set<std::string>& hosts, std::set<std::string>& switches,
                       std::set<std::string>& captures) {
  Result<model::Dataset> ds = model::LoadPaths({dir}, {});
  if (!ds.ok()) return ds.error();
  std::set<std::string> top_dirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory(ec)) top_dirs.insert(e.path().filename().string());
  }
  for (const auto& [name, h] : ds->hosts) {
    if (top_dirs.count(name) != 0) hosts.insert(name);
  }
  for (const auto& row : ds->inventory.rows) hosts.insert(row.host);
  for (const auto& p : ds->path_probes) {
    if (!p.src.empty()) hosts.insert(p.src);
    hosts.insert(p.dst);
  }
  for (const auto& f : ds->fabrics) {
    for (const auto& n : f.nodes) {
      if (n.IsSwitch()) {
        if (!n.desc.empty()) switches.insert(n.desc);
      } else if (auto [host, dev] = formats::HostOfCaDesc(n.desc); !host.empty()) {
        hosts.insert(host);
      }
    }
  }
  for (const auto& p : ds->path_probes) {
    for (const auto& hop : p.hops) {
      if (hosts.count(hop) == 0 && !hop.empty() && IsWordChar(hop[0]) && hop.find('.') == std::string::npos) {
        switches.insert(hop);
      }
    }
  }
  for (const auto& c : ds->captures) captures.insert(fs::path(c.path).filename().string());
  for (const auto& s : switches) hosts.erase(s);
  return {};
}

// ---- files ----

Result<std::string> ReadRaw(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeKindError(ErrorKind::kInput, path + ": cannot open", "check the path and permissions");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return MakeKindError(ErrorKind::kInput, path + ": read failed");
  return bytes;
}

Status WriteRaw(const std::string& path, std::string_view bytes) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return MakeKindError(ErrorKind::kOutput, path + ": cannot write", "check the directory and free space");
  return {};
}

bool IsCaptureMagic(std::string_view b) {
  if (b.size() < 4) return false;
  const auto u = [&](size_t i) { return static_cast<unsigned char>(b[i]); };
  const uint32_t le = u(0) | (u(1) << 8) | (u(2) << 16) | (static_cast<uint32_t>(u(3)) << 24);
  const uint32_t be = (static_cast<uint32_t>(u(0)) << 24) | (u(1) << 16) | (u(2) << 8) | u(3);
  for (uint32_t m : {0xa1b2c3d4u, 0xa1b23c4du, 0x0a0d0d0au}) {
    if (le == m || be == m) return true;
  }
  return false;
}

std::string Zstd(std::string_view data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  if (ZSTD_isError(n) != 0) return {};
  out.resize(n);
  return out;
}

// The index of the job column of a CSV header line, or -1.
int JobColumn(std::string_view header) {
  std::vector<std::string> cells;
  if (header.find(',') == std::string_view::npos || !SplitCsvLine(header, cells)) return -1;
  for (size_t i = 0; i < cells.size(); ++i) {
    const std::string c = ToLowerAscii(cells[i]);
    if (c == "job" || c == "job_id" || c == "jobid" || c == "slurm_job_id") return static_cast<int>(i);
  }
  return -1;
}

// Empties cell `col` of a CSV line (quoting respected); returns whether the cell had text.
bool BlankCsvCell(std::string& line, int col) {
  int k = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    const bool end = i == line.size() || line[i] == '\r';
    if (!end && line[i] == '"') quoted = !quoted;
    if (end || (!quoted && line[i] == ',')) {
      if (k == col) {
        const bool had = i > start;
        line.erase(start, i - start);
        return had;
      }
      ++k;
      start = i + 1;
      if (end) break;
    }
  }
  return false;
}

// Blanks the job column of a CSV text and the "job" key of JSON-lines records; counts cells.
std::string BlankJobs(const std::string& text, int64_t* blanked) {
  std::vector<std::string_view> lines = Split(text, '\n');
  if (lines.empty()) return text;
  const int col = JobColumn(lines[0]);
  const bool jsonl = text.find("\"job\"") != std::string::npos;
  if (col < 0 && !jsonl) return text;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line(lines[i]);
    if (col >= 0 && i > 0 && !line.empty() && line[0] != '#') {
      if (BlankCsvCell(line, col)) ++*blanked;
    } else if (col < 0 && !line.empty() && line[0] == '{' && line.find("\"job\"") != std::string::npos) {
      json j = json::parse(line, nullptr, false);
      if (j.is_object() && j.contains("job") && !(j["job"].is_string() && j["job"].get<std::string>().empty())) {
        j["job"] = "";
        line = j.dump(-1, ' ', false, json::error_handler_t::replace);
        ++*blanked;
      }
    }
    out += line;
    if (i + 1 < lines.size()) out += '\n';
  }
  return out;
}

struct FileJob {
  const NameMap* names;
  bool blank_jobs = false;
  bool is_truth = false;
};

// Renames one file's content; returns the bytes to write and whether the content was text.
Result<std::pair<std::string, bool>> RenameContent(const std::string& path, const FileJob& job, int64_t* blanked) {
  Result<std::string> raw = ReadRaw(path);
  if (!raw.ok()) return raw.error();
  if (IsCaptureMagic(*raw)) return std::make_pair(std::move(*raw), false);
  const Compression comp = DetectCompression(std::string_view(*raw).substr(0, 8));
  std::string text;
  if (comp == Compression::kNone) {
    text = std::move(*raw);
  } else {
    Result<std::string> plain = ReadFileText(path);
    if (!plain.ok()) return plain.error();
    if (IsCaptureMagic(*plain)) return std::make_pair(std::move(*raw), false);
    text = std::move(*plain);
  }
  if (text.find('\0') != std::string::npos) {
    return std::make_pair(comp == Compression::kNone ? std::move(text) : *ReadRaw(path), false);
  }
  std::string renamed = ReplaceNameTokens(text, *job.names);
  if (job.blank_jobs && !job.is_truth) renamed = BlankJobs(renamed, blanked);
  if (comp == Compression::kGzip) renamed = sim::Gzip(renamed);
  if (comp == Compression::kZstd) renamed = Zstd(renamed);
  if (comp != Compression::kNone && renamed.empty()) {
    return MakeKindError(ErrorKind::kInternal, path + ": recompressing the renamed text failed");
  }
  return std::make_pair(std::move(renamed), true);
}

bool Inside(const fs::path& child, const fs::path& parent) {
  auto c = child.begin();
  for (auto p = parent.begin(); p != parent.end(); ++p, ++c) {
    if (p->empty()) continue;
    if (c == child.end() || *c != *p) return false;
  }
  return true;
}

}  // namespace

RenameMap MakeRenameMap(const std::vector<std::string>& hosts, const std::vector<std::string>& switches,
                        const std::vector<std::string>& captures, NameStyle style, uint64_t seed) {
  RenameMap m;
  m.style = style;
  std::set<std::string> taken(hosts.begin(), hosts.end());
  taken.insert(switches.begin(), switches.end());
  std::vector<std::string> stems;
  for (const auto& c : captures) {
    taken.insert(StemAndExtension(c).first);
    stems.push_back(c);
  }
  m.hosts = NewNames(hosts, style, sim::NameKind::kHost, seed, kHostLabel, taken);
  m.switches = NewNames(switches, style, sim::NameKind::kSwitch, seed, kSwitchLabel, taken);
  const NameMap cap_stems = NewNames(stems, style, sim::NameKind::kCapture, seed, kCaptureLabel, taken);
  for (const auto& [old, fresh] : cap_stems) m.captures[old] = fresh + StemAndExtension(old).second;
  return m;
}

std::string ReplaceNameTokens(std::string_view text, const NameMap& names) {
  // Names by their first character, longest first.
  std::vector<std::vector<const std::pair<const std::string, std::string>*>> by_first(256);
  for (const auto& kv : names) {
    if (!kv.first.empty()) by_first[static_cast<unsigned char>(kv.first[0])].push_back(&kv);
  }
  for (auto& v : by_first) {
    std::stable_sort(v.begin(), v.end(), [](const auto* a, const auto* b) { return a->first.size() > b->first.size(); });
  }
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t i = 0;
  while (i < text.size()) {
    const auto& cands = by_first[static_cast<unsigned char>(text[i])];
    bool done = false;
    if (!cands.empty() && (i == 0 || !IsWordChar(text[i - 1]))) {
      for (const auto* kv : cands) {
        const std::string& old = kv->first;
        const size_t end = i + old.size();
        if (end > text.size() || text.compare(i, old.size(), old) != 0) continue;
        if (end < text.size() && IsWordChar(text[end]) && IsWordChar(old.back())) continue;
        out += kv->second;
        i = end;
        done = true;
        break;
      }
    }
    if (!done) out += text[i++];
  }
  return out;
}

Status DatasetNames(const std::string& dir, std::vector<std::string>* hosts, std::vector<std::string>* switches,
                    std::vector<std::string>* captures) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return MakeKindError(ErrorKind::kInput, dir + ": not a directory", "give the dataset's directory");
  }
  std::set<std::string> h, s, c;
  const std::string truth = (fs::path(dir) / kTruthFile).string();
  Status st = fs::exists(truth, ec) ? NamesFromTruth(truth, h, s, c) : NamesFromInputs(dir, h, s, c);
  if (!st.ok()) return st;
  // Captures the truth does not list (or a dataset without truth): every capture file.
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    Result<std::string> head = ReadHead(it->path().string(), 8);
    if (head.ok() && IsCaptureMagic(*head)) c.insert(it->path().filename().string());
  }
  *hosts = {h.begin(), h.end()};
  *switches = {s.begin(), s.end()};
  *captures = {c.begin(), c.end()};
  return {};
}

std::string RenameMapJson(const RenameMap& map, const AnonymizeOptions& options) {
  json j;
  j["style"] = std::string(NameStyleName(map.style));
  j["seed"] = options.seed;
  j["blank_jobs"] = options.blank_jobs;
  j["hosts"] = map.hosts;
  j["switches"] = map.switches;
  j["captures"] = map.captures;
  std::string text = j.dump(2, ' ', false, json::error_handler_t::replace);
  text.insert(2, "  \"schema\": \"toposcope.rename_map/1\",\n");
  return text + "\n";
}

Result<AnonymizeSummary> AnonymizeDataset(const std::string& in_dir, const std::string& out_dir,
                                          const AnonymizeOptions& options) {
  std::error_code ec;
  const fs::path in = fs::weakly_canonical(in_dir, ec);
  const fs::path out = fs::weakly_canonical(out_dir, ec);
  if (out_dir.empty() || Inside(out, in)) {
    return MakeKindError(ErrorKind::kUsage, "--out " + out_dir + " is the dataset or lies inside it",
                         "write the renamed copy elsewhere");
  }
  std::vector<std::string> hosts, switches, captures;
  if (Status st = DatasetNames(in_dir, &hosts, &switches, &captures); !st.ok()) return st.error();
  AnonymizeSummary sum;
  sum.map = MakeRenameMap(hosts, switches, captures, NameStyleOfSeed(options.seed), options.seed);
  NameMap all = sum.map.hosts;
  all.insert(sum.map.switches.begin(), sum.map.switches.end());
  all.insert(sum.map.captures.begin(), sum.map.captures.end());
  for (const auto& [old, fresh] : sum.map.captures) all[StemAndExtension(old).first] = StemAndExtension(fresh).first;
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(in, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) return MakeKindError(ErrorKind::kInput, in_dir + ": cannot list: " + ec.message());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    const fs::path rel = fs::relative(f, in, ec);
    fs::path renamed;
    for (const auto& part : rel) renamed /= ReplaceNameTokens(part.string(), all);
    const FileJob job{&all, options.blank_jobs, rel == fs::path(kTruthFile)};
    Result<std::pair<std::string, bool>> content = RenameContent(f.string(), job, &sum.jobs_blanked);
    if (!content.ok()) return content.error();
    if (Status st = WriteRaw((out / renamed).string(), content->first); !st.ok()) return st.error();
    ++sum.files;
    ++(content->second ? sum.files_rewritten : sum.files_copied);
  }
  sum.map_path = (out / kMapFile).string();
  if (Status st = WriteFileText(sum.map_path, RenameMapJson(sum.map, options)); !st.ok()) return st.error();
  return sum;
}

}  // namespace toposcope::experiments
