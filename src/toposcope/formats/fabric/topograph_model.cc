// formats/fabric/topograph_model: see topograph_model.h.
#include "toposcope/formats/fabric/topograph_model.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "toposcope/base/text.h"
#include "toposcope/formats/fabric/mini_yaml.h"
#include "toposcope/formats/fabric/slurm_topology.h"

namespace toposcope::formats {
namespace {

constexpr std::string_view kDomainKey = "accelerator.topology.test/domain";
constexpr std::string_view kSubDomainKey = "accelerator.topology.test/sub-domain";

bool ReadKeyValues(const YamlNode* n, std::string_view what, KeyValues* out, std::string* err) {
  if (n == nullptr || n->IsNull()) return true;
  if (!n->IsMap()) {
    *err = std::string(what) + " must be a mapping";
    return false;
  }
  for (const auto& kv : n->map) {
    if (!kv.second.IsScalar() && !kv.second.IsNull()) {
      *err = std::string(what) + " value of " + QuoteRaw(kv.first) + " must be a scalar";
      return false;
    }
    out->emplace_back(kv.first, kv.second.scalar);
  }
  return true;
}

bool ReadNames(const YamlNode* n, std::string_view what, std::vector<std::string>* out, std::string* err) {
  if (n == nullptr || n->IsNull()) return true;
  if (!n->IsSeq()) {
    *err = std::string(what) + " must be a sequence";
    return false;
  }
  for (const YamlNode& s : n->seq) {
    if (!s.IsScalar() || s.scalar.empty()) {
      *err = std::string(what) + " entries must be non-empty scalars";
      return false;
    }
    out->push_back(s.scalar);
  }
  return true;
}

// Expands the block's node ranges; `names_left` is what the file's node ranges may still expand to.
bool ReadNodes(const YamlNode* n, TopographCapacityBlock* b, size_t* names_left, std::string* err) {
  if (n == nullptr || n->IsNull()) return true;
  std::vector<const YamlNode*> items;
  if (n->IsScalar()) {
    items.push_back(n);
  } else if (n->IsSeq()) {
    for (const YamlNode& s : n->seq) items.push_back(&s);
  } else {
    *err = "nodes must be a sequence of node ranges";
    return false;
  }
  for (const YamlNode* s : items) {
    if (!s->IsScalar()) {
      *err = "node ranges must be scalars";
      return false;
    }
    std::string herr;
    auto v = ExpandHostlist(s->scalar, &herr, *names_left);
    if (!herr.empty()) {
      *err = "bad node range: " + herr;
      return false;
    }
    *names_left -= std::min(*names_left, v.size());
    b->node_exprs.push_back(s->scalar);
    b->nodes.insert(b->nodes.end(), v.begin(), v.end());
  }
  return true;
}

std::string Lookup(const KeyValues& kv, std::string_view key) {
  for (const auto& p : kv) {
    if (p.first == key) return p.second;
  }
  return {};
}

struct Cand {
  bool ok = true;
  std::string reason;
};

}  // namespace

std::string TopographModel::ParentOf(std::string_view switch_name) const {
  for (const TopographSwitch& s : switches) {
    if (std::find(s.switches.begin(), s.switches.end(), switch_name) != s.switches.end()) return s.name;
  }
  return {};
}

std::vector<std::string> TopographModel::RootSwitches() const { return RootSwitchNames(switches); }

std::vector<std::string> TopographModel::AllNodes() const {
  std::vector<std::string> out;
  for (const TopographCapacityBlock& b : capacity_blocks) out.insert(out.end(), b.nodes.begin(), b.nodes.end());
  return out;
}

std::vector<std::string> TopographModel::NetLayers(std::string_view node) const {
  const TopographCapacityBlock* blk = nullptr;
  for (const TopographCapacityBlock& b : capacity_blocks) {
    if (std::find(b.nodes.begin(), b.nodes.end(), node) != b.nodes.end()) {
      blk = &b;
      break;
    }
  }
  if (blk == nullptr || blk->switch_name.empty()) return {};
  std::vector<std::string> layers;
  std::string cur = blk->switch_name;
  while (!cur.empty() && layers.size() <= switches.size() + 1) {
    if (std::find(layers.begin(), layers.end(), cur) != layers.end()) break;  // cycle guard
    layers.push_back(cur);
    cur = ParentOf(cur);
  }
  return layers;
}

namespace {

// The switches and blocks as read, each with its verdict so far, while the cross checks run.
struct ModelDraft {
  TopographModel m;
  std::vector<Cand> sw_cand, blk_cand;                    // one per entry of m.switches / m.capacity_blocks
  bool original = false;                                  // original (2024) schema: `capacity_blocks:`
  std::unordered_map<std::string, std::string> parent;    // child switch -> parent switch
  std::unordered_map<std::string, std::string> cb_owner;  // capacity block -> its switch
};

// One `switches:` entry of the current schema (`switches:` a mapping): name -> {switches, labels,
// annotations}; `v` is the value.
Cand ReadCurrentSwitch(const YamlNode& v, TopographSwitch* s) {
  if (!v.IsMap() && !v.IsNull()) return {false, "switch " + s->name + " must be a mapping"};
  Cand c;
  c.reason = CheckYamlKeys(v, {"switches", "labels", "annotations"});
  if (c.reason.empty()) ReadNames(v.Find("switches"), "switches", &s->switches, &c.reason);
  if (c.reason.empty()) ReadKeyValues(v.Find("labels"), "labels", &s->labels, &c.reason);
  if (c.reason.empty()) ReadKeyValues(v.Find("annotations"), "annotations", &s->annotations, &c.reason);
  c.ok = c.reason.empty();
  return c;
}

// One `switches:` entry of the original schema (`switches:` a sequence): {name, metadata, switches,
// capacity_blocks}.
Cand ReadOriginalSwitch(const YamlNode& v, TopographSwitch* s) {
  if (!v.IsMap()) return {false, "switch entries must be mappings"};
  Cand c;
  c.reason = CheckYamlKeys(v, {"name", "metadata", "switches", "capacity_blocks"});
  const YamlNode* name = v.Find("name");
  if (c.reason.empty() && (name == nullptr || !name->IsScalar() || name->scalar.empty())) {
    c.reason = "switch without name";
  }
  if (c.reason.empty()) s->name = name->scalar;
  if (c.reason.empty()) ReadNames(v.Find("switches"), "switches", &s->switches, &c.reason);
  if (c.reason.empty()) ReadNames(v.Find("capacity_blocks"), "capacity_blocks", &s->capacity_blocks, &c.reason);
  if (c.reason.empty()) ReadKeyValues(v.Find("metadata"), "metadata", &s->labels, &c.reason);
  c.ok = c.reason.empty();
  return c;
}

// One `capacity_blocks:` entry (original schema): {name, type, nvlink, nodes}.
Cand ReadOriginalBlock(const YamlNode& v, TopographCapacityBlock* b, size_t* names_left) {
  Cand c;
  c.reason = CheckYamlKeys(v, {"name", "type", "nvlink", "nodes"});
  const YamlNode* name = v.Find("name");
  if (c.reason.empty() && (name == nullptr || !name->IsScalar() || name->scalar.empty())) {
    c.reason = "capacity block without name";
  }
  if (c.reason.empty()) b->name = name->scalar;
  for (const char* k : {"type", "nvlink"}) {
    const YamlNode* x = v.Find(k);
    if (c.reason.empty() && x != nullptr && !x->IsNull()) {
      if (!x->IsScalar())
        c.reason = std::string(k) + " must be a scalar";
      else
        (std::string_view(k) == "type" ? b->type : b->nvlink) = x->scalar;
    }
  }
  if (c.reason.empty()) ReadNodes(v.Find("nodes"), b, names_left, &c.reason);
  c.ok = c.reason.empty();
  return c;
}

// One `blocks:` entry (current schema): {switch, nodes, labels, annotations}.
Cand ReadCurrentBlock(const YamlNode& v, TopographCapacityBlock* b, size_t* names_left) {
  Cand c;
  c.reason = CheckYamlKeys(v, {"switch", "nodes", "labels", "annotations"});
  const YamlNode* s = v.Find("switch");
  if (c.reason.empty() && s != nullptr && !s->IsNull()) {
    if (!s->IsScalar())
      c.reason = "switch must be a scalar";
    else
      b->switch_name = s->scalar;
  }
  if (c.reason.empty()) ReadNodes(v.Find("nodes"), b, names_left, &c.reason);
  if (c.reason.empty()) ReadKeyValues(v.Find("labels"), "labels", &b->labels, &c.reason);
  if (c.reason.empty()) ReadKeyValues(v.Find("annotations"), "annotations", &b->annotations, &c.reason);
  b->nvlink = Lookup(b->annotations, kDomainKey);
  b->sub_domain = Lookup(b->annotations, kSubDomainKey);
  c.ok = c.reason.empty();
  return c;
}

// Switch cross checks, as topograph's setNodeMap: unique names, one parent per child switch, one
// switch per capacity block; fills the parent and owner maps from the switches that pass.
void CheckSwitchParents(ModelDraft* draft) {
  TopographModel& m = draft->m;
  std::vector<Cand>& sw_cand = draft->sw_cand;
  std::unordered_map<std::string, size_t> sw_index;
  for (size_t i = 0; i < m.switches.size(); ++i) {
    if (!sw_cand[i].ok) continue;
    if (!sw_index.emplace(m.switches[i].name, i).second) {
      sw_cand[i] = {false, "switch " + m.switches[i].name + " defined twice"};
    }
  }
  for (size_t i = 0; i < m.switches.size(); ++i) {
    if (!sw_cand[i].ok) continue;
    const TopographSwitch& s = m.switches[i];
    for (const std::string& c : s.switches) {
      auto it = draft->parent.find(c);
      if (it != draft->parent.end()) {
        sw_cand[i] = {false, "switch " + c + " has two parent switches " + it->second + " and " + s.name};
        break;
      }
      if (c == s.name) {
        sw_cand[i] = {false, "switch " + c + " is its own child"};
        break;
      }
    }
    for (const std::string& cb : s.capacity_blocks) {
      if (!sw_cand[i].ok) break;
      auto it = draft->cb_owner.find(cb);
      if (it != draft->cb_owner.end()) {
        sw_cand[i] = {false, "capacity block " + cb + " has two switches " + it->second + " and " + s.name};
      }
    }
    if (!sw_cand[i].ok) continue;
    for (const std::string& c : s.switches) draft->parent.emplace(c, s.name);
    for (const std::string& cb : s.capacity_blocks) draft->cb_owner.emplace(cb, s.name);
  }
}

// Cycles: walks up from every switch still kept.
void CheckSwitchCycles(ModelDraft* draft) {
  for (size_t i = 0; i < draft->m.switches.size(); ++i) {
    if (!draft->sw_cand[i].ok) continue;
    std::unordered_set<std::string> seen;
    std::string cur = draft->m.switches[i].name;
    bool cycle = false;
    while (true) {
      if (!seen.insert(cur).second) {
        cycle = true;
        break;
      }
      auto it = draft->parent.find(cur);
      if (it == draft->parent.end()) break;
      cur = it->second;
    }
    if (cycle) draft->sw_cand[i] = {false, "circular switch topology through " + draft->m.switches[i].name};
  }
}

// Blocks: names (current schema: from the leaf switch), owners (original schema) and node
// uniqueness.
void CheckBlocks(ModelDraft* draft) {
  std::unordered_map<std::string, int> per_switch;
  std::unordered_set<std::string> block_names;
  std::unordered_map<std::string, std::string> node_block;
  for (size_t i = 0; i < draft->m.capacity_blocks.size(); ++i) {
    TopographCapacityBlock& b = draft->m.capacity_blocks[i];
    Cand& cand = draft->blk_cand[i];
    if (!cand.ok) continue;
    if (!draft->original) {
      const std::string base = b.switch_name.empty() ? "block" : b.switch_name;
      const int k = ++per_switch[base];
      b.name = k == 1 ? base : base + "/" + std::to_string(k);
    } else {
      auto it = draft->cb_owner.find(b.name);
      if (it != draft->cb_owner.end()) b.switch_name = it->second;
    }
    if (!block_names.insert(b.name).second) {
      cand = {false, "capacity block " + b.name + " defined twice"};
      continue;
    }
    std::unordered_set<std::string> local;
    for (const std::string& n : b.nodes) {
      auto it = node_block.find(n);
      if (it != node_block.end() || !local.insert(n).second) {
        cand = {false, "duplicated node name " + n + (it != node_block.end() ? " (also in " + it->second + ")" : "")};
        break;
      }
    }
    if (!cand.ok) continue;
    for (const std::string& n : b.nodes) node_block.emplace(n, b.name);
  }
}

// Moves the accepted records of `all` to `kept` and reports the rejected ones; counts every one.
template <typename Record>
void KeepAccepted(std::vector<Record>& all, const std::vector<Cand>& cand, std::vector<Record>* kept,
                  ReadCounts* counts, std::string_view source, Diagnostics& diag) {
  for (size_t i = 0; i < all.size(); ++i) {
    ++counts->read;
    if (cand[i].ok) {
      ++counts->accepted;
      kept->push_back(std::move(all[i]));
    } else {
      ++counts->rejected;
      diag.Reject(source, all[i].line, all[i].name, cand[i].reason);
    }
  }
}

// Current schema: leaf switches appear only as children or as a block's `switch:`; adds them (not
// counted as records) and lists their blocks.
void AddLeafSwitches(TopographModel* out) {
  std::unordered_map<std::string, size_t> idx;
  for (size_t i = 0; i < out->switches.size(); ++i) idx.emplace(out->switches[i].name, i);
  for (const TopographCapacityBlock& b : out->capacity_blocks) {
    if (b.switch_name.empty()) continue;
    auto it = idx.find(b.switch_name);
    if (it == idx.end()) {
      TopographSwitch s;
      s.name = b.switch_name;
      s.line = b.line;
      out->switches.push_back(std::move(s));
      it = idx.emplace(b.switch_name, out->switches.size() - 1).first;
    }
    out->switches[it->second].capacity_blocks.push_back(b.name);
  }
}

}  // namespace

Result<TopographModel> ParseTopographModel(std::string_view text, std::string_view source, Diagnostics& diag,
                                           size_t max_names) {
  const std::string src(source);
  size_t names_left = max_names;
  auto doc = ParseNonEmptyYaml(text, source, "expected a topograph model");
  if (!doc.ok()) return doc.error();
  const YamlNode& root = *doc;
  if (!root.IsMap()) return MakeError(src, root.line, 1, "a topograph model must be a mapping");
  const YamlNode* sw = root.Find("switches");
  const YamlNode* blocks = root.Find("blocks");
  const YamlNode* cbs = root.Find("capacity_blocks");
  if (sw == nullptr && blocks == nullptr && cbs == nullptr) {
    return MakeError(src, root.line, 1, "no 'switches:', 'blocks:' or 'capacity_blocks:'",
                     "expected a topograph model");
  }
  ModelDraft draft;
  for (const auto& kv : root.map) {
    if (kv.first != "switches" && kv.first != "blocks" && kv.first != "capacity_blocks") {
      diag.Warn(source, kv.second.line, kv.first, "unknown top-level key ignored");
    }
  }
  if (sw != nullptr && !sw->IsNull()) {
    if (sw->IsMap()) {  // current schema
      for (size_t k = 0; k < sw->map.size(); ++k) {
        TopographSwitch s;
        s.name = sw->map[k].first;
        s.line = sw->key_lines[k];
        draft.sw_cand.push_back(ReadCurrentSwitch(sw->map[k].second, &s));
        draft.m.switches.push_back(std::move(s));
      }
    } else if (sw->IsSeq()) {  // original schema
      for (const YamlNode& v : sw->seq) {
        TopographSwitch s;
        s.line = v.line;
        draft.sw_cand.push_back(ReadOriginalSwitch(v, &s));
        draft.m.switches.push_back(std::move(s));
      }
    } else {
      return MakeError(src, sw->line, 1, "'switches:' must be a mapping or a sequence");
    }
  }
  const YamlNode* bl = blocks != nullptr ? blocks : cbs;
  draft.original = blocks == nullptr;
  if (blocks != nullptr && cbs != nullptr) {
    diag.Warn(source, cbs->line, "capacity_blocks", "both blocks: and capacity_blocks:; capacity_blocks ignored");
  }
  if (bl != nullptr && !bl->IsNull()) {
    if (!bl->IsSeq()) return MakeError(src, bl->line, 1, "'blocks:' must be a sequence");
    for (const YamlNode& v : bl->seq) {
      TopographCapacityBlock b;
      b.line = v.line;
      if (!v.IsMap()) {
        draft.blk_cand.push_back({false, "block entries must be mappings"});
      } else {
        draft.blk_cand.push_back(draft.original ? ReadOriginalBlock(v, &b, &names_left) : ReadCurrentBlock(v, &b, &names_left));
      }
      draft.m.capacity_blocks.push_back(std::move(b));
    }
  }
  CheckSwitchParents(&draft);
  CheckSwitchCycles(&draft);
  CheckBlocks(&draft);
  TopographModel out;
  KeepAccepted(draft.m.switches, draft.sw_cand, &out.switches, &out.counts, source, diag);
  KeepAccepted(draft.m.capacity_blocks, draft.blk_cand, &out.capacity_blocks, &out.counts, source, diag);
  if (!draft.original) AddLeafSwitches(&out);
  return out;
}

bool LooksLikeTopographModel(std::string_view head) {
  bool switches = false, blocks = false;
  TextLines lines(head);
  std::string_view l;
  while (lines.Next(&l)) {
    if (StartsWith(l, "switches:")) switches = true;
    if (StartsWith(l, "blocks:") || StartsWith(l, "capacity_blocks:")) blocks = true;
  }
  return switches && blocks;
}

}  // namespace toposcope::formats
