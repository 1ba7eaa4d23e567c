// formats/fabric/slurm_topology: see slurm_topology.h.
#include "toposcope/formats/fabric/slurm_topology.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "toposcope/base/text.h"
#include "toposcope/formats/fabric/mini_yaml.h"

namespace toposcope::formats {
namespace {

std::string TooMany(size_t max_names) { return "hostlist expands to more than " + std::to_string(max_names) + " names"; }

// What the hostlists of the file being parsed may still expand to: the Parse* functions set it for
// their file (FileNameBudget), so that many hostlists together stay within one file's limit.
struct NameBudget {
  size_t max_names = kMaxHostlistNames;
  size_t left = kMaxHostlistNames;
};
thread_local NameBudget t_file_budget;

class FileNameBudget {
 public:
  explicit FileNameBudget(size_t max_names) : saved_(t_file_budget) { t_file_budget = {max_names, max_names}; }
  ~FileNameBudget() { t_file_budget = saved_; }
  FileNameBudget(const FileNameBudget&) = delete;
  FileNameBudget& operator=(const FileNameBudget&) = delete;

 private:
  NameBudget saved_;
};

// Expands a hostlist within what the file has left, and charges the file for it.
std::vector<std::string> ExpandWithinFile(std::string_view expr, std::string* err) {
  NameBudget& b = t_file_budget;
  auto v = ExpandHostlist(expr, err, b.left);
  if (!err->empty()) {
    if (b.left < b.max_names && *err == TooMany(b.left)) {
      *err = "this file's hostlists expand to more than " + std::to_string(b.max_names) + " names";
    }
    return v;
  }
  b.left -= std::min(b.left, v.size());
  return v;
}

// Expands the inside of one bracket group ("01-04,07") into zero-padded number strings.
bool ExpandGroup(std::string_view body, size_t max_names, std::vector<std::string>* out, std::string* err) {
  if (body.empty()) {
    *err = "empty bracket group";
    return false;
  }
  for (std::string_view item : Split(body, ',')) {
    item = Trim(item);
    const size_t dash = item.find('-');
    std::string_view lo = item.substr(0, dash);
    std::string_view hi = dash == std::string_view::npos ? lo : item.substr(dash + 1);
    if (!AllDigits(lo) || !AllDigits(hi) || lo.size() > 18 || hi.size() > 18) {
      *err = "bad range " + QuoteRaw(item) + " in a bracket group";
      return false;
    }
    const auto a = ParseInt(lo);
    const auto b = ParseInt(hi);
    if (!a || !b || *b < *a) {
      *err = "reversed or bad range " + QuoteRaw(item);
      return false;
    }
    if (static_cast<uint64_t>(*b - *a) >= kSlurmMaxRangeHosts) {
      *err = "range " + QuoteRaw(item) + " holds more than " + std::to_string(kSlurmMaxRangeHosts) +
             " hosts (Slurm's own limit for one range)";
      return false;
    }
    if (out->size() + static_cast<size_t>(*b - *a) >= max_names) {
      *err = TooMany(max_names);
      return false;
    }
    const int width = static_cast<int>(lo.size());
    for (int64_t v = *a; v <= *b; ++v) {
      std::string s = std::to_string(v);
      if (static_cast<int>(s.size()) < width) s.insert(0, static_cast<size_t>(width) - s.size(), '0');
      out->push_back(std::move(s));
    }
  }
  return true;
}

// Expands one item (no top-level commas) with any number of bracket groups.
bool ExpandItem(std::string_view item, size_t max_names, std::vector<std::string>* out, std::string* err) {
  std::vector<std::string> acc{""};
  size_t i = 0;
  while (i < item.size()) {
    const size_t open = item.find('[', i);
    const size_t close_stray = item.find(']', i);
    if (close_stray != std::string_view::npos && (open == std::string_view::npos || close_stray < open)) {
      *err = "unbalanced ']' in " + QuoteRaw(item);
      return false;
    }
    const std::string_view lit = item.substr(i, open == std::string_view::npos ? std::string_view::npos : open - i);
    for (std::string& a : acc) a += lit;
    if (open == std::string_view::npos) break;
    const size_t close = item.find(']', open);
    if (close == std::string_view::npos) {
      *err = "unbalanced '[' in " + QuoteRaw(item);
      return false;
    }
    const std::string_view body = item.substr(open + 1, close - open - 1);
    if (body.find('[') != std::string_view::npos) {
      *err = "nested '[' in " + QuoteRaw(item);
      return false;
    }
    std::vector<std::string> nums;
    if (!ExpandGroup(body, max_names, &nums, err)) return false;
    if (acc.size() * nums.size() + out->size() > max_names) {
      *err = TooMany(max_names);
      return false;
    }
    std::vector<std::string> next;
    next.reserve(acc.size() * nums.size());
    for (const std::string& a : acc) {
      for (const std::string& n : nums) next.push_back(a + n);
    }
    acc = std::move(next);
    i = close + 1;
  }
  for (std::string& a : acc) {
    if (a.empty()) {
      *err = "empty host name";
      return false;
    }
    out->push_back(std::move(a));
  }
  return true;
}

// A host split around its last run of digits.
struct HostParts {
  std::string prefix, digits, suffix;
};

HostParts SplitHost(const std::string& h) {
  HostParts p;
  size_t e = h.size();
  while (e > 0 && !std::isdigit(static_cast<unsigned char>(h[e - 1]))) --e;
  if (e == 0) {
    p.prefix = h;
    return p;
  }
  size_t b = e;
  while (b > 0 && std::isdigit(static_cast<unsigned char>(h[b - 1]))) --b;
  p.prefix = h.substr(0, b);
  p.digits = h.substr(b, e - b);
  p.suffix = h.substr(e);
  return p;
}

std::string Pad(int64_t v, size_t width) {
  std::string s = std::to_string(v);
  if (s.size() < width) s.insert(0, width - s.size(), '0');
  return s;
}

// Comment lines of a conf record: "# text" -> "text".
std::string CommentText(std::string_view line) {
  std::string_view t = Trim(line);
  t.remove_prefix(1);
  if (!t.empty() && t[0] == ' ') t.remove_prefix(1);
  return std::string(Trim(t));
}

struct ConfRecord {
  enum Kind { kSwitch, kBlock, kSizes } kind = kSwitch;
  SlurmSwitch sw;
  SlurmBlock block;
  std::vector<int> sizes;
  int64_t line = 0;
  std::string raw;
};

bool ParseSizes(std::string_view v, std::vector<int>* out, std::string* err) {
  int prev = 0;
  for (std::string_view s : Split(v, ',')) {
    auto n = ParseInt(Trim(s));
    if (!n || *n <= 0 || *n > 1000000000) {
      *err = "block size " + QuoteRaw(s) + " is not a positive integer";
      return false;
    }
    if (*n <= prev) {
      *err = "block sizes must increase";
      return false;
    }
    prev = static_cast<int>(*n);
    out->push_back(prev);
  }
  if (out->empty()) {
    *err = "empty BlockSizes";
    return false;
  }
  return true;
}

void TreeWarnings(const SlurmTopology& t, std::string_view source, Diagnostics& diag) {
  std::unordered_map<std::string, std::string> node_owner;
  std::unordered_map<std::string, std::string> parent;
  std::unordered_set<std::string> defined;
  for (const SlurmSwitch& s : t.switches) defined.insert(s.name);
  for (const SlurmSwitch& s : t.switches) {
    if (!s.nodes.empty() && !s.switches.empty()) {
      diag.Warn(source, s.line, s.name, "switch lists both Switches= and Nodes=");
    }
    for (const std::string& n : s.nodes) {
      auto [it, fresh] = node_owner.emplace(n, s.name);
      if (!fresh) diag.Warn(source, s.line, s.name, "node " + n + " is under both " + it->second + " and " + s.name);
    }
    for (const std::string& c : s.switches) {
      if (defined.count(c) == 0) diag.Warn(source, s.line, s.name, "child switch " + c + " is never defined");
      auto [it, fresh] = parent.emplace(c, s.name);
      if (!fresh) diag.Warn(source, s.line, s.name, "switch " + c + " has two parents " + it->second + " and " + s.name);
    }
  }
  const auto roots = t.RootSwitches();
  if (roots.size() > 1) {
    std::string names;
    for (const auto& r : roots) names += (names.empty() ? "" : ",") + r;
    diag.Warn(source, 0, names, "several root switches (no common parent): " + std::to_string(roots.size()));
  }
}

void BlockWarnings(const SlurmTopology& t, std::string_view source, Diagnostics& diag) {
  std::unordered_map<std::string, std::string> owner;
  for (const SlurmBlock& b : t.blocks) {
    for (const std::string& n : b.nodes) {
      auto [it, fresh] = owner.emplace(n, b.name);
      if (!fresh) diag.Warn(source, b.line, b.name, "node " + n + " is in both blocks " + it->second + " and " + b.name);
    }
  }
}

}  // namespace

std::vector<std::string> ExpandHostlist(std::string_view expr, std::string* error, size_t max_names) {
  std::vector<std::string> out;
  std::string err;
  expr = Trim(expr);
  if (expr.empty()) err = "empty hostlist";
  // Split on commas outside brackets.
  size_t depth = 0, start = 0;
  for (size_t i = 0; err.empty() && i <= expr.size(); ++i) {
    const char c = i < expr.size() ? expr[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') {
      if (depth == 0) {
        err = "unbalanced ']' in " + QuoteRaw(expr);
        break;
      }
      --depth;
    }
    if (c == ',' && depth == 0) {
      const std::string_view item = Trim(expr.substr(start, i - start));
      if (item.empty()) {
        err = "empty item in hostlist " + QuoteRaw(expr);
        break;
      }
      if (item.find_first_of(" \t") != std::string_view::npos) {
        err = "blank inside a host name in " + QuoteRaw(expr);
        break;
      }
      if (!ExpandItem(item, max_names, &out, &err)) break;
      start = i + 1;
    }
  }
  if (err.empty() && depth != 0) err = "unbalanced '[' in " + QuoteRaw(expr);
  if (!err.empty()) {
    if (error != nullptr) *error = err;
    return {};
  }
  if (error != nullptr) error->clear();
  return out;
}

std::string CompressHostlist(std::vector<std::string> hosts) {
  std::string out;
  size_t i = 0;
  while (i < hosts.size()) {
    const HostParts p = SplitHost(hosts[i]);
    if (p.digits.empty() || p.digits.size() > 18) {
      if (!out.empty()) out += ",";
      out += hosts[i];
      ++i;
      continue;
    }
    // Width: padded numbers fix it; an unpadded first number gives its own length as minimum.
    const size_t width = p.digits.size();
    std::vector<std::pair<int64_t, int64_t>> ranges;
    int64_t v = *ParseInt(p.digits);
    ranges.emplace_back(v, v);
    size_t j = i + 1;
    for (; j < hosts.size(); ++j) {
      const HostParts q = SplitHost(hosts[j]);
      if (q.digits.empty() || q.prefix != p.prefix || q.suffix != p.suffix || q.digits.size() > 18) break;
      const int64_t w = *ParseInt(q.digits);
      if (Pad(w, width) != q.digits) break;
      if (w <= ranges.back().second) break;  // keep order: only increasing runs merge
      if (w == ranges.back().second + 1) {
        ranges.back().second = w;
      } else {
        ranges.emplace_back(w, w);
      }
    }
    if (!out.empty()) out += ",";
    if (j == i + 1) {
      out += hosts[i];
    } else {
      out += p.prefix + "[";
      for (size_t k = 0; k < ranges.size(); ++k) {
        if (k > 0) out += ",";
        out += Pad(ranges[k].first, width);
        if (ranges[k].second != ranges[k].first) out += "-" + Pad(ranges[k].second, width);
      }
      out += "]" + p.suffix;
    }
    i = j;
  }
  return out;
}

bool operator==(const SlurmTopology& a, const SlurmTopology& b) {
  return a.plugin == b.plugin && a.name == b.name && a.cluster_default == b.cluster_default &&
         a.switches == b.switches && a.blocks == b.blocks && a.block_sizes == b.block_sizes && a.rings == b.rings &&
         a.toruses == b.toruses && a.flat_options == b.flat_options && a.line == b.line;
}

std::vector<std::string> SlurmTopology::RootSwitches() const { return RootSwitchNames(switches); }

std::vector<std::string> SlurmTopology::LeafSwitches() const {
  std::vector<std::string> leaves;
  for (const SlurmSwitch& s : switches) {
    if (!s.nodes.empty()) leaves.push_back(s.name);
  }
  return leaves;
}

std::vector<std::string> SlurmTopology::AllNodes() const {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  auto add = [&](const std::vector<std::string>& v) {
    for (const std::string& n : v) {
      if (seen.insert(n).second) out.push_back(n);
    }
  };
  for (const SlurmSwitch& s : switches) add(s.nodes);
  for (const SlurmBlock& b : blocks) add(b.nodes);
  for (const SlurmRing& r : rings) add(r.nodes);
  for (const SlurmTorus& t : toruses) add(t.nodes);
  return out;
}

namespace {

// Joins topology.conf lines into records: skips blank lines, gathers the comment lines right
// before a record, cuts trailing comments and joins `\` continuation lines.
class ConfRecordLines {
 public:
  explicit ConfRecordLines(std::string_view text) : lines_(text) {}

  // The next record's text (blank when it held only comments after a continuation), the comment
  // lines before it and its first line; false at the end of the text.
  bool Next(std::string* rec_text, std::string* rec_comment, int64_t* rec_line) {
    std::string_view raw;
    while (lines_.Next(&raw)) {
      const std::string_view t = Trim(raw);
      if (joined_.empty()) {
        if (t.empty()) {
          comment_.clear();
          continue;
        }
        if (t[0] == '#') {
          if (!comment_.empty()) comment_ += "\n";
          comment_ += CommentText(t);
          continue;
        }
        joined_line_ = lines_.line_number();
      }
      std::string_view body = t;
      const size_t hash = body.find('#');
      if (hash != std::string_view::npos) body = Trim(body.substr(0, hash));
      if (!body.empty() && body.back() == '\\') {
        joined_ += std::string(body.substr(0, body.size() - 1)) + " ";
        if (!lines_.at_end()) continue;
        body = {};
      }
      joined_ += std::string(body);
      *rec_text = std::move(joined_);
      joined_.clear();
      *rec_comment = std::move(comment_);
      comment_.clear();
      *rec_line = joined_line_;
      return true;
    }
    return false;
  }

 private:
  TextLines lines_;
  std::string comment_;
  std::string joined_;
  int64_t joined_line_ = 0;
};

// The first key=value of a record, which says what it is: SwitchName=, BlockName= or BlockSizes=.
void StartConfRecord(const std::string& key, std::string_view raw_key, std::string_view value,
                     const std::string& comment, ConfRecord* rec, std::string* err) {
  if (key == "switchname") {
    rec->kind = ConfRecord::kSwitch;
    rec->sw.name = std::string(value);
    rec->sw.comment = comment;
    rec->sw.line = rec->line;
  } else if (key == "blockname") {
    rec->kind = ConfRecord::kBlock;
    rec->block.name = std::string(value);
    rec->block.comment = comment;
    rec->block.line = rec->line;
  } else if (key == "blocksizes") {
    rec->kind = ConfRecord::kSizes;
    ParseSizes(value, &rec->sizes, err);
  } else {
    *err = "a record starts with SwitchName=, BlockName= or BlockSizes=, not " + QuoteRaw(raw_key);
  }
}

// Expands a hostlist value into `nodes` and keeps it as written in `expr`.
void ConfHostlist(std::string_view value, std::vector<std::string>* nodes, std::string* expr, std::string* err) {
  std::string herr;
  auto v = ExpandWithinFile(value, &herr);
  if (!herr.empty()) {
    *err = "bad hostlist: " + herr;
    return;
  }
  *nodes = std::move(v);
  *expr = std::string(value);
}

// A later key=value of a switch (Switches=, Nodes=, LinkSpeed=) or block (Nodes=) record.
void ConfRecordKey(const std::string& key, std::string_view raw_key, std::string_view value, ConfRecord* rec,
                   std::string* err) {
  if (rec->kind == ConfRecord::kSwitch && key == "switches") {
    ConfHostlist(value, &rec->sw.switches, &rec->sw.switches_expr, err);
  } else if (rec->kind == ConfRecord::kSwitch && key == "nodes") {
    ConfHostlist(value, &rec->sw.nodes, &rec->sw.nodes_expr, err);
  } else if (rec->kind == ConfRecord::kSwitch && key == "linkspeed") {
    auto v = ParseInt(value);
    if (!v || *v < 0 || *v > 2147483647) {
      *err = "bad LinkSpeed " + QuoteRaw(value);
    } else {
      rec->sw.link_speed = static_cast<int>(*v);
    }
  } else if (rec->kind == ConfRecord::kBlock && key == "nodes") {
    ConfHostlist(value, &rec->block.nodes, &rec->block.nodes_expr, err);
  } else {
    *err = "unknown key " + QuoteRaw(raw_key) + " for this record";
  }
}

// Reads the key=value tokens of one record into `rec`; "" when it is well formed, else the reason.
std::string ParseConfRecord(const std::vector<std::string_view>& toks, const std::string& comment, ConfRecord* rec) {
  std::string err;
  std::set<std::string> keys;
  for (size_t k = 0; k < toks.size() && err.empty(); ++k) {
    const size_t eq = toks[k].find('=');
    if (eq == std::string_view::npos) return "expected key=value, got " + QuoteRaw(toks[k]);
    const std::string_view raw_key = toks[k].substr(0, eq);
    const std::string key = ToLowerAscii(raw_key);
    const std::string_view value = toks[k].substr(eq + 1);
    if (value.empty()) return "empty value for " + std::string(raw_key);
    if (!keys.insert(key).second) return "key " + std::string(raw_key) + " repeated";
    if (k == 0) {
      StartConfRecord(key, raw_key, value, comment, rec, &err);
    } else {
      ConfRecordKey(key, raw_key, value, rec, &err);
    }
  }
  if (err.empty() && rec->kind == ConfRecord::kBlock && rec->block.nodes.empty()) err = "BlockName without Nodes=";
  return err;
}

// Keeps the records of the plugin most records belong to (tree on a tie), once per name, and
// BlockSizes once; rejects the rest.
void KeepConfRecords(std::vector<ConfRecord>& records, SlurmTopology* topo, std::string_view source,
                     Diagnostics& diag) {
  size_t n_tree = 0, n_block = 0;
  for (const ConfRecord& r : records) (r.kind == ConfRecord::kSwitch ? n_tree : n_block)++;
  topo->plugin = n_tree == 0 && n_block == 0 ? "" : (n_tree >= n_block ? "tree" : "block");
  std::unordered_set<std::string> names;
  bool sizes_seen = false;
  for (ConfRecord& r : records) {
    const bool is_tree = r.kind == ConfRecord::kSwitch;
    if ((topo->plugin == "tree") != is_tree) {
      ++topo->counts.rejected;
      diag.Reject(source, r.line, r.raw,
                  is_tree ? "SwitchName line in a topology/block file" : "block line in a topology/tree file");
      continue;
    }
    if (r.kind == ConfRecord::kSizes) {
      if (sizes_seen) {
        ++topo->counts.rejected;
        diag.Reject(source, r.line, r.raw, "BlockSizes given twice");
        continue;
      }
      sizes_seen = true;
      topo->block_sizes = r.sizes;
      ++topo->counts.accepted;
      continue;
    }
    const std::string& name = is_tree ? r.sw.name : r.block.name;
    if (!names.insert(name).second) {
      ++topo->counts.rejected;
      diag.Reject(source, r.line, r.raw, std::string(is_tree ? "switch " : "block ") + name + " defined twice");
      continue;
    }
    ++topo->counts.accepted;
    if (is_tree) {
      topo->switches.push_back(std::move(r.sw));
    } else {
      topo->blocks.push_back(std::move(r.block));
    }
  }
}

}  // namespace

Result<std::vector<SlurmTopology>> ParseSlurmTopologyConf(std::string_view text, std::string_view source,
                                                          Diagnostics& diag, size_t max_names) {
  const FileNameBudget budget(max_names);
  const std::string src(source);
  if (text.empty()) return MakeError(src, 0, 0, "empty input", "expected a Slurm topology.conf");
  if (LooksBinary(text.substr(0, 4096))) return MakeError(src, 0, 0, "binary input, not a topology.conf");
  SlurmTopology topo;
  std::vector<ConfRecord> records;
  bool any_rejected = false;
  ConfRecordLines record_lines(text);
  std::string rec_text, rec_comment;
  int64_t rec_line = 0;
  while (record_lines.Next(&rec_text, &rec_comment, &rec_line)) {
    if (Trim(rec_text).empty()) continue;
    ++topo.counts.read;
    ConfRecord rec;
    rec.line = rec_line;
    rec.raw = rec_text;
    const auto toks = SplitWhitespace(rec_text);
    const std::string err = ParseConfRecord(toks, rec_comment, &rec);
    if (!err.empty()) {
      // Foreign input: the first record is not a topology record at all.
      if (records.empty() && !any_rejected && toks.size() > 0) {
        const std::string k0 = ToLowerAscii(toks[0].substr(0, toks[0].find('=')));
        if (k0 != "switchname" && k0 != "blockname" && k0 != "blocksizes") {
          return MakeError(src, rec.line, 0, "not a Slurm topology.conf: " + ClipRaw(rec_text, 60),
                           "expected SwitchName=/BlockName= lines");
        }
      }
      ++topo.counts.rejected;
      diag.Reject(source, rec.line, rec_text, err);
      any_rejected = true;
      continue;
    }
    records.push_back(std::move(rec));
  }
  if (records.empty() && !any_rejected) {
    return MakeError(src, 0, 0, "no SwitchName=/BlockName= record", "expected a Slurm topology.conf");
  }
  KeepConfRecords(records, &topo, source, diag);
  if (topo.plugin == "tree") TreeWarnings(topo, source, diag);
  if (topo.plugin == "block") BlockWarnings(topo, source, diag);
  std::vector<SlurmTopology> out;
  out.push_back(std::move(topo));
  return out;
}

namespace {

// Reads a hostlist value (a scalar, or a sequence of scalars joined by ',').
bool YamlHostlist(const YamlNode& v, std::vector<std::string>* out, std::string* expr, std::string* err) {
  if (v.IsScalar()) {
    *expr = v.scalar;
  } else if (v.IsSeq()) {
    expr->clear();
    for (const YamlNode& s : v.seq) {
      if (!s.IsScalar()) {
        *err = "a hostlist sequence holds a " + std::string(s.KindName());
        return false;
      }
      if (!expr->empty()) *expr += ",";
      *expr += s.scalar;
    }
  } else {
    *err = "a hostlist must be a scalar, not a " + std::string(v.KindName());
    return false;
  }
  std::string herr;
  *out = ExpandWithinFile(*expr, &herr);
  if (!herr.empty()) {
    *err = "bad hostlist: " + herr;
    return false;
  }
  return true;
}

bool YamlDims(const YamlNode& v, std::array<int, 3>* dims, std::string* err) {
  if (!v.IsMap()) {
    *err = "dims must be a mapping {x, y, z}";
    return false;
  }
  const char* keys[3] = {"x", "y", "z"};
  for (const auto& kv : v.map) {
    if (kv.first != "x" && kv.first != "y" && kv.first != "z") {
      *err = "unknown dims key " + QuoteRaw(kv.first);
      return false;
    }
  }
  for (int i = 0; i < 3; ++i) {
    const YamlNode* n = v.Find(keys[i]);
    auto x = n != nullptr ? n->AsInt() : std::nullopt;
    if (!x || *x <= 0 || *x > 1000000) {
      *err = std::string("dims.") + keys[i] + " must be a positive integer";
      return false;
    }
    (*dims)[static_cast<size_t>(i)] = static_cast<int>(*x);
  }
  return true;
}

// Reads a sequence of named entries; each entry is checked by `fn` (returns "" when accepted).
template <class Fn>
void YamlEntries(const YamlNode* seq, std::string_view what, SlurmTopology* t, std::string_view source,
                 Diagnostics& diag, Fn fn) {
  if (seq == nullptr || seq->IsNull()) return;
  if (!seq->IsSeq()) {
    ++t->counts.read;
    ++t->counts.rejected;
    diag.Reject(source, seq->line, "", std::string(what) + " must be a sequence");
    return;
  }
  for (const YamlNode& e : seq->seq) {
    ++t->counts.read;
    std::string err = e.IsMap() ? fn(e) : std::string(what) + " entries must be mappings";
    if (err.empty()) {
      ++t->counts.accepted;
    } else {
      ++t->counts.rejected;
      diag.Reject(source, e.line, "", err);
    }
  }
}

std::string NameOf(const YamlNode& m, std::string_view key, std::string* name) {
  const YamlNode* n = m.Find(key);
  if (n == nullptr || !n->IsScalar() || n->scalar.empty()) return "missing '" + std::string(key) + ":' name";
  *name = n->scalar;
  return {};
}

// The item-level checks of one `- topology:` item: known keys, a unique name, cluster_default, and
// exactly one plugin key (t->plugin is set to the last one found). "" when it passes, else why not.
std::string CheckTopologyItem(const YamlNode& item, std::set<std::string>* topo_names, SlurmTopology* t) {
  if (!item.IsMap()) return "a topology item must be a mapping";
  std::string err = CheckYamlKeys(item, {"topology", "cluster_default", "tree", "block", "flat", "ring", "torus3d"});
  const YamlNode* name = item.Find("topology");
  if (err.empty() && (name == nullptr || !name->IsScalar())) err = "missing 'topology:' name";
  if (err.empty()) {
    t->name = name->scalar;
    if (!topo_names->insert(t->name).second) err = "topology " + t->name + " defined twice";
  }
  if (err.empty()) {
    if (const YamlNode* cd = item.Find("cluster_default")) {
      auto b = cd->AsBool();
      if (!b)
        err = "cluster_default must be true or false";
      else
        t->cluster_default = *b;
    }
  }
  int plugins = 0;
  for (const char* k : {"tree", "block", "flat", "ring", "torus3d"}) {
    if (item.Find(k) != nullptr) {
      ++plugins;
      t->plugin = k;
    }
  }
  if (err.empty() && plugins != 1) {
    err = plugins == 0 ? "no tree/block/flat/ring/torus3d key" : "several plugin keys in one topology";
  }
  return err;
}

// `flat: true` or `flat: {option: value}` into t->flat_options; "" when it is one of them.
std::string ReadFlatBody(const YamlNode& body, SlurmTopology* t) {
  if (auto b = body.AsBool()) return *b ? "" : "flat: false is not a topology";
  if (!body.IsMap()) return "flat must be true or a mapping of options";
  for (const auto& kv : body.map) {
    if (!kv.second.IsScalar()) return "flat option " + kv.first + " must be a scalar";
    t->flat_options.emplace_back(kv.first, kv.second.scalar);
  }
  return {};
}

// `block_sizes:` into t->block_sizes; "" when absent or increasing positive integers.
std::string ReadBlockSizes(const YamlNode* bs, SlurmTopology* t) {
  if (bs == nullptr || bs->IsNull()) return {};
  if (!bs->IsSeq()) return "block_sizes must be a sequence";
  int prev = 0;
  for (const YamlNode& s : bs->seq) {
    auto v = s.AsInt();
    if (!v || *v <= prev || *v > 1000000000) return "block_sizes must be increasing positive integers";
    prev = static_cast<int>(*v);
    t->block_sizes.push_back(prev);
  }
  return {};
}

// The plugin's body (`tree:`, `block:`, ...) before its entries are read: its kind and keys, flat
// options, block sizes. "" when it passes, else why not.
std::string CheckPluginBody(const YamlNode& body, SlurmTopology* t) {
  if (t->plugin == "flat") return ReadFlatBody(body, t);
  if (!body.IsMap() && !body.IsNull()) return t->plugin + " must be a mapping";
  if (t->plugin == "tree") return CheckYamlKeys(body, {"switches"});
  if (t->plugin == "block") {
    const std::string err = CheckYamlKeys(body, {"block_sizes", "blocks"});
    return err.empty() ? ReadBlockSizes(body.Find("block_sizes"), t) : err;
  }
  if (t->plugin == "ring") return CheckYamlKeys(body, {"rings"});
  if (t->plugin == "torus3d") return CheckYamlKeys(body, {"toruses"});
  return {};
}

// One `switches:` entry of a tree ({switch, children, nodes}); "" when accepted (and added).
std::string ReadYamlSwitch(const YamlNode& e, std::unordered_set<std::string>& names, SlurmTopology* t) {
  SlurmSwitch s;
  s.line = e.line;
  std::string er = CheckYamlKeys(e, {"switch", "children", "nodes"});
  if (er.empty()) er = NameOf(e, "switch", &s.name);
  if (er.empty() && e.Find("children") != nullptr) {
    YamlHostlist(*e.Find("children"), &s.switches, &s.switches_expr, &er);
  }
  if (er.empty() && e.Find("nodes") != nullptr) YamlHostlist(*e.Find("nodes"), &s.nodes, &s.nodes_expr, &er);
  if (er.empty() && !names.insert(s.name).second) er = "switch " + s.name + " defined twice";
  if (er.empty()) t->switches.push_back(std::move(s));
  return er;
}

// One block or ring entry ({<kind>: name, nodes: hostlist}) of a topology; `names` holds the
// names taken so far in it. `check(group)` may warn about an accepted one before it is added to
// `out`. Returns "" when accepted, else the reason.
template <class Group, class CheckFn>
std::string ReadNodeGroup(const YamlNode& e, const std::string& kind, std::unordered_set<std::string>& names,
                          std::vector<Group>* out, CheckFn&& check) {
  Group g;
  g.line = e.line;
  std::string er = CheckYamlKeys(e, {kind, "nodes"});
  if (er.empty()) er = NameOf(e, kind, &g.name);
  if (er.empty() && e.Find("nodes") == nullptr) er = kind + " without nodes";
  if (er.empty()) YamlHostlist(*e.Find("nodes"), &g.nodes, &g.nodes_expr, &er);
  if (er.empty() && !names.insert(g.name).second) er = kind + " " + g.name + " defined twice";
  if (!er.empty()) return er;
  check(g);
  out->push_back(std::move(g));
  return er;
}

// A torus's `placements:` ([{dims: {x, y, z}}]) into u->placements; "" when well formed.
std::string ReadPlacements(const YamlNode* pl, SlurmTorus* u) {
  std::string er;
  if (pl == nullptr || pl->IsNull()) return er;
  if (!pl->IsSeq()) er = "placements must be a sequence";
  for (size_t k = 0; er.empty() && k < pl->seq.size(); ++k) {
    const YamlNode& p = pl->seq[k];
    const YamlNode* d = p.Find("dims");
    if (!p.IsMap() || d == nullptr || p.map.size() != 1) {
      er = "a placement must be {dims: {x, y, z}}";
      break;
    }
    std::array<int, 3> dims{};
    if (!YamlDims(*d, &dims, &er)) break;
    u->placements.push_back(dims);
  }
  return er;
}

// One `toruses:` entry ({name, dims, nodes, regions, placements}); "" when accepted (and added).
std::string ReadTorus(const YamlNode& e, std::unordered_set<std::string>& names, SlurmTopology* t,
                      std::string_view source, Diagnostics& diag) {
  SlurmTorus u;
  u.line = e.line;
  std::string er = CheckYamlKeys(e, {"name", "dims", "nodes", "regions", "placements"});
  if (er.empty()) er = NameOf(e, "name", &u.name);
  if (er.empty() && e.Find("dims") == nullptr) er = "torus without dims";
  if (er.empty()) YamlDims(*e.Find("dims"), &u.dims, &er);
  if (er.empty() && e.Find("nodes") != nullptr) YamlHostlist(*e.Find("nodes"), &u.nodes, &u.nodes_expr, &er);
  if (er.empty() && e.Find("regions") != nullptr) diag.Warn(source, e.line, u.name, "torus regions are not read");
  if (er.empty()) er = ReadPlacements(e.Find("placements"), &u);
  if (er.empty() && !names.insert(u.name).second) er = "torus " + u.name + " defined twice";
  if (er.empty()) t->toruses.push_back(std::move(u));
  return er;
}

// Reads the entries of an accepted topology's plugin body (switches, blocks, rings or toruses),
// each one record, and warns about the tree or block as a whole.
void ReadPluginEntries(const YamlNode& body, SlurmTopology* t, std::string_view source, Diagnostics& diag) {
  std::unordered_set<std::string> names;
  if (t->plugin == "tree") {
    YamlEntries(body.Find("switches"), "switches", t, source, diag,
                [&](const YamlNode& e) { return ReadYamlSwitch(e, names, t); });
    TreeWarnings(*t, source, diag);
  } else if (t->plugin == "block") {
    YamlEntries(body.Find("blocks"), "blocks", t, source, diag, [&](const YamlNode& e) {
      return ReadNodeGroup(e, "block", names, &t->blocks, [](const SlurmBlock&) {});
    });
    BlockWarnings(*t, source, diag);
  } else if (t->plugin == "ring") {
    const auto check = [&](const SlurmRing& r) {
      if (r.nodes.size() > 16) diag.Warn(source, r.line, r.name, "a ring holds 16 nodes at most");
    };
    YamlEntries(body.Find("rings"), "rings", t, source, diag,
                [&](const YamlNode& e) { return ReadNodeGroup(e, "ring", names, &t->rings, check); });
  } else if (t->plugin == "torus3d") {
    YamlEntries(body.Find("toruses"), "toruses", t, source, diag,
                [&](const YamlNode& e) { return ReadTorus(e, names, t, source, diag); });
  }
}

}  // namespace

Result<std::vector<SlurmTopology>> ParseSlurmTopologyYaml(std::string_view text, std::string_view source,
                                                          Diagnostics& diag, ReadCounts* file_counts,
                                                          size_t max_names) {
  const FileNameBudget budget(max_names);
  ReadCounts whole;
  const std::string src(source);
  auto doc = ParseNonEmptyYaml(text, source, "expected a Slurm topology.yaml");
  if (!doc.ok()) return doc.error();
  const YamlNode& root = *doc;
  if (!root.IsSeq()) return MakeError(src, root.line, 1, "topology.yaml must be a list of topologies");
  bool any = false;
  for (const YamlNode& item : root.seq) any = any || (item.IsMap() && item.Find("topology") != nullptr);
  if (!any) return MakeError(src, root.line, 1, "no '- topology:' item", "expected a Slurm topology.yaml");
  std::vector<SlurmTopology> out;
  std::set<std::string> topo_names;
  for (const YamlNode& item : root.seq) {
    SlurmTopology t;
    t.line = item.line;
    ++t.counts.read;
    std::string err = CheckTopologyItem(item, &topo_names, &t);
    if (err.empty()) err = CheckPluginBody(*item.Find(t.plugin), &t);
    if (!err.empty()) {
      ++t.counts.rejected;
      diag.Reject(source, item.line, "", err);
    } else {
      ++t.counts.accepted;
      ReadPluginEntries(*item.Find(t.plugin), &t, source, diag);
    }
    whole.read += t.counts.read;
    whole.accepted += t.counts.accepted;
    whole.rejected += t.counts.rejected;
    if (err.empty()) out.push_back(std::move(t));
  }
  if (file_counts != nullptr) *file_counts = whole;
  return out;
}

std::string WriteSlurmTopologyConf(const SlurmTopology& topo) {
  std::string out;
  auto comment = [&](const std::string& c) {
    if (c.empty()) return;
    // A control byte kept from the input is written as '?': comments are free text, and a
    // rewritten file must still read as text (see LooksBinary).
    for (std::string_view l : Split(c, '\n')) {
      out += "# ";
      for (const char ch : l) {
        const auto u = static_cast<unsigned char>(ch);
        out += (u < 0x20 && ch != '\t') || u == 0x7f ? '?' : ch;
      }
      out += "\n";
    }
  };
  for (const SlurmSwitch& s : topo.switches) {
    comment(s.comment);
    out += "SwitchName=" + s.name;
    if (!s.switches.empty()) out += " Switches=" + CompressHostlist(s.switches);
    if (!s.nodes.empty()) out += " Nodes=" + CompressHostlist(s.nodes);
    if (s.link_speed >= 0) out += " LinkSpeed=" + std::to_string(s.link_speed);
    out += "\n";
  }
  for (const SlurmBlock& b : topo.blocks) {
    comment(b.comment);
    out += "BlockName=" + b.name + " Nodes=" + CompressHostlist(b.nodes) + "\n";
  }
  if (!topo.block_sizes.empty()) {
    out += "BlockSizes=";
    for (size_t i = 0; i < topo.block_sizes.size(); ++i) {
      if (i > 0) out += ",";
      out += std::to_string(topo.block_sizes[i]);
    }
    out += "\n";
  }
  return out;
}

std::string WriteSlurmTopologyYaml(const std::vector<SlurmTopology>& topos) {
  std::string out = "---\n";
  auto dims = [&](const std::array<int, 3>& d, const std::string& ind) {
    out += ind + "x: " + std::to_string(d[0]) + "\n" + ind + "y: " + std::to_string(d[1]) + "\n" + ind +
           "z: " + std::to_string(d[2]) + "\n";
  };
  for (const SlurmTopology& t : topos) {
    out += "- topology: " + YamlQuote(t.name) + "\n";
    out += std::string("  cluster_default: ") + (t.cluster_default ? "true" : "false") + "\n";
    const std::string plugin = t.plugin.empty() ? "tree" : t.plugin;
    if (plugin == "flat") {
      if (t.flat_options.empty()) {
        out += "  flat: true\n";
      } else {
        out += "  flat:\n";
        for (const auto& kv : t.flat_options) out += "    " + YamlQuote(kv.first) + ": " + YamlQuote(kv.second) + "\n";
      }
      continue;
    }
    out += "  " + plugin + ":\n";
    if (plugin == "tree") {
      out += t.switches.empty() ? "    switches: []\n" : "    switches:\n";
      for (const SlurmSwitch& s : t.switches) {
        out += "      - switch: " + YamlQuote(s.name) + "\n";
        if (!s.switches.empty()) out += "        children: " + YamlQuote(CompressHostlist(s.switches)) + "\n";
        if (!s.nodes.empty()) out += "        nodes: " + YamlQuote(CompressHostlist(s.nodes)) + "\n";
      }
    } else if (plugin == "block") {
      if (!t.block_sizes.empty()) {
        out += "    block_sizes:\n";
        for (int b : t.block_sizes) out += "      - " + std::to_string(b) + "\n";
      }
      out += t.blocks.empty() ? "    blocks: []\n" : "    blocks:\n";
      for (const SlurmBlock& b : t.blocks) {
        out += "      - block: " + YamlQuote(b.name) + "\n";
        out += "        nodes: " + YamlQuote(CompressHostlist(b.nodes)) + "\n";
      }
    } else if (plugin == "ring") {
      out += t.rings.empty() ? "    rings: []\n" : "    rings:\n";
      for (const SlurmRing& r : t.rings) {
        out += "      - ring: " + YamlQuote(r.name) + "\n";
        out += "        nodes: " + YamlQuote(CompressHostlist(r.nodes)) + "\n";
      }
    } else if (plugin == "torus3d") {
      out += t.toruses.empty() ? "    toruses: []\n" : "    toruses:\n";
      for (const SlurmTorus& u : t.toruses) {
        out += "      - name: " + YamlQuote(u.name) + "\n";
        out += "        dims:\n";
        dims(u.dims, "          ");
        if (!u.nodes.empty()) out += "        nodes: " + YamlQuote(CompressHostlist(u.nodes)) + "\n";
        if (!u.placements.empty()) {
          out += "        placements:\n";
          for (const auto& p : u.placements) {
            out += "          - dims:\n";
            dims(p, "              ");
          }
        }
      }
    }
  }
  return out;
}

bool LooksLikeSlurmTopology(std::string_view head) {
  TextLines lines(head);
  std::string_view raw;
  while (lines.Next(&raw)) {
    const std::string_view l = Trim(raw);
    if (l.empty() || l[0] == '#') continue;
    const std::string k = ToLowerAscii(l.substr(0, std::min<size_t>(l.size(), 11)));
    if (StartsWith(k, "switchname=") || StartsWith(k, "blockname=") || StartsWith(k, "blocksizes=")) return true;
    return LooksLikeSlurmTopologyYaml(head);
  }
  return false;
}

bool LooksLikeSlurmTopologyYaml(std::string_view head) {
  TextLines lines(head);
  std::string_view l;
  while (lines.Next(&l)) {
    if (StartsWith(l, "- topology:")) return true;
  }
  return false;
}

}  // namespace toposcope::formats
