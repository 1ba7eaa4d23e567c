// formats/fabric/mini_yaml: a small, strict YAML reader for the subset that Slurm topology.yaml files and
// NVIDIA topograph simulation models use: block mappings, block sequences (also "- key: v" compact
// maps and sequences at their parent key's indent), flow sequences `[a, "b"]`, flow mappings
// `{k: v}`, single/double-quoted and plain scalars, comments, `---` / `...` document markers.
// Anchors, aliases, tags, block scalars (`|`, `>`), multi-line plain scalars, several documents
// and complex keys are refused with the line they are on. Every node keeps its 1-based line.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toposcope/base/result.h"

namespace toposcope::formats {

struct YamlKeyValue;

struct YamlNode {
  enum class Kind { kNull, kScalar, kMap, kSeq };
  Kind kind = Kind::kNull;
  std::string scalar;                                   // kScalar: the text (unquoted, unescaped)
  bool quoted = false;                                  // kScalar: was written in quotes
  std::vector<YamlKeyValue> map;                        // kMap: keys in file order
  std::vector<int64_t> key_lines;                       // kMap: 1-based line of each key
  std::vector<YamlNode> seq;                            // kSeq
  int64_t line = 0;                                     // 1-based line where the node starts

  [[nodiscard]] bool IsNull() const { return kind == Kind::kNull; }
  [[nodiscard]] bool IsScalar() const { return kind == Kind::kScalar; }
  [[nodiscard]] bool IsMap() const { return kind == Kind::kMap; }
  [[nodiscard]] bool IsSeq() const { return kind == Kind::kSeq; }
  // The value of `key` in a map (first occurrence); nullptr when absent or not a map.
  [[nodiscard]] const YamlNode* Find(std::string_view key) const;
  // Plain scalars "true"/"True"/"TRUE" and "false"/... as a bool; nullopt otherwise.
  [[nodiscard]] std::optional<bool> AsBool() const;
  // A scalar as a strict 64-bit integer; nullopt otherwise.
  [[nodiscard]] std::optional<int64_t> AsInt() const;
  // A short name of the kind for diagnostics: "null", "scalar", "mapping", "sequence".
  [[nodiscard]] std::string_view KindName() const;
};

// Parses one YAML document. Fails (with the 1-based line and column) on the first construct
// outside the subset, bad indentation, a duplicate key in one mapping, unterminated quotes or
// flow collections, tabs used for indentation, nesting deeper than 64 levels, or binary input.
// An empty document (only comments) gives a kNull root.
Result<YamlNode> ParseYaml(std::string_view text, std::string_view source);

// Parses a document that must hold something: fails with "empty input" (and `expected` as the hint)
// when the text is blank, else as ParseYaml.
Result<YamlNode> ParseNonEmptyYaml(std::string_view text, std::string_view source, std::string_view expected);

// Checks the keys of a mapping: "" when each is in `allowed` (or `m` is not a mapping), else
// "unknown key '<k>'" for the first one that is not.
std::string CheckYamlKeys(const YamlNode& m, std::initializer_list<std::string_view> allowed);

// Quotes a scalar for output when plain style would not read back as the same string
// (empty, leading/trailing blanks, indicator characters, ": ", " #", booleans/null look-alikes
// are left alone: callers decide). Returns the text unchanged when plain style is safe.
std::string YamlQuote(std::string_view s);

// One `key: value` of a mapping (a struct, not std::pair, so YamlNode may hold a vector of it).
struct YamlKeyValue {
  std::string first;   // the key
  YamlNode second;     // the value
};

}  // namespace toposcope::formats
