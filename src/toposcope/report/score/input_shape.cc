#include "toposcope/report/score/input_shape.h"

#include <optional>
#include <string_view>

namespace toposcope::report {

using nlohmann::json;

namespace {

// What a key must hold. Numbers are what nlohmann converts to a number (numbers and booleans).
enum class Want { kObject, kArray, kNumber, kBool, kStrings, kNumbers };

// A key path, segments separated by '.'; "name[]" is an array whose every element the rest of the
// path applies to, "name[]?" the same when it is an array (the scorer skips it otherwise). Without
// a rest, `want` applies to the key (or to each element).
struct ShapeRule {
  const char* path;
  Want want;
};

// The keys the scorer reads from a truth with value() or by iterating them.
constexpr ShapeRule kTruthRules[] = {
    {"gpus", Want::kArray},
    {"links[]", Want::kObject},
    {"links[].degraded", Want::kBool},
    {"links[].lanes", Want::kNumber},
    {"clock_checks[]?", Want::kObject},
    {"clock_checks[]?.local_ns", Want::kNumber},
    {"clock_checks[]?.global_ns", Want::kNumber},
    {"rdma.flows[]", Want::kObject},
    {"rdma.flows[].dest_qp", Want::kNumber},
    {"rdma.flows[].src_qp", Want::kNumber},
    {"rdma.rings[]", Want::kObject},
    {"rdma.rings[].channel", Want::kNumber},
    {"rdma.rings[].ranks", Want::kNumbers},
    {"rdma.rings[].hosts", Want::kStrings},
    {"rdma.links[]", Want::kObject},
    {"rdma.links[].backbone", Want::kBool},
    {"fabric.cas", Want::kArray},
    {"fabric.bottlenecks", Want::kArray},
    {"fabric.redundant_hops", Want::kArray},
    {"fabric.leaves[]", Want::kObject},
    {"fabric.leaves[].hosts", Want::kStrings},
    {"fabric.pods[]?", Want::kObject},
    {"fabric.pods[]?.leaves", Want::kStrings},
    {"fabric.links", Want::kArray},
    {"traffic_matrix.hosts", Want::kArray},
    {"traffic_matrix.hosts[].pairs[]", Want::kObject},
    {"traffic_matrix.hosts[].pairs[].src", Want::kNumber},
    {"traffic_matrix.hosts[].pairs[].dst", Want::kNumber},
    {"traffic_matrix.hosts[].pairs[].bytes_per_s", Want::kNumber},
};

// The keys the scorer reads from a result with value() or by iterating them.
constexpr ShapeRule kResultRules[] = {
    {"gpus", Want::kArray},
    {"links[]", Want::kObject},
    {"links[].lanes", Want::kNumber},
    {"links[].degraded", Want::kBool},
    {"clocks[]?.segments[]", Want::kObject},
    {"clocks[]?.segments[].start_local_ns", Want::kNumber},
    {"clocks[]?.segments[].t0_local_ns", Want::kNumber},
    {"clocks[]?.best", Want::kBool},
    {"telemetry_findings", Want::kArray},
    {"flows[]", Want::kObject},
    {"flows[].dest_qp", Want::kNumber},
    {"flows[].candidates[]?", Want::kObject},
    {"flows[].candidates[]?.src_qp", Want::kNumber},
    {"rings[]", Want::kObject},
    {"rings[].channel", Want::kNumber},
    {"rings[].ranks", Want::kNumbers},
    {"rings[].hosts", Want::kStrings},
    {"link_entropy_summary[]", Want::kObject},
    {"link_entropy_summary[].deterministic", Want::kBool},
    {"link_entropy_summary[].regular", Want::kBool},
    {"entropy_modes", Want::kArray},
    {"patterns", Want::kArray},
    {"paths.bottlenecks", Want::kArray},
    {"paths.redundant_hops", Want::kArray},
    {"fabric.inferred", Want::kObject},
    {"fabric.inferred.leaves[]", Want::kObject},
    {"fabric.inferred.leaves[].hosts", Want::kStrings},
    {"fabric.inferred.pods[]", Want::kObject},
    {"fabric.inferred.pods[].hosts", Want::kStrings},
    {"fabric.leaves[]", Want::kObject},
    {"fabric.leaves[].hosts", Want::kStrings},
    {"link_weights[]", Want::kObject},
    {"link_weights[].identifiable", Want::kBool},
    {"traffic_matrix.hosts[]", Want::kObject},
    {"traffic_matrix.hosts[].estimable", Want::kBool},
    {"traffic_matrix.hosts[].pairs[]", Want::kObject},
    {"traffic_matrix.hosts[].pairs[].src", Want::kNumber},
    {"traffic_matrix.hosts[].pairs[].dst", Want::kNumber},
    {"traffic_matrix.hosts[].pairs[].bytes_per_s", Want::kNumber},
    {"traffic_matrix.hosts[].pairs[].err_bytes_per_s", Want::kNumber},
};

// "a string", "an object", "null": the type of `v` as a message says it.
std::string TypeOf(const json& v) {
  const std::string t = v.type_name();
  if (v.is_null()) return t;
  return (v.is_object() || v.is_array() ? "an " : "a ") + t;
}

bool IsNumber(const json& v) { return v.is_number() || v.is_boolean(); }

// Why `v` at `at` is not what `want` asks for; nothing when it is.
std::optional<std::string> Mismatch(const json& v, Want want, const std::string& at) {
  auto wrong = [&](const std::string& where, const json& x, const char* expected) {
    return "key '" + where + "' is " + TypeOf(x) + ", not " + expected;
  };
  switch (want) {
    case Want::kObject:
      if (!v.is_object()) return wrong(at, v, "an object");
      break;
    case Want::kArray:
      if (!v.is_array()) return wrong(at, v, "an array");
      break;
    case Want::kNumber:
      if (!IsNumber(v)) return wrong(at, v, "a number");
      break;
    case Want::kBool:
      if (!v.is_boolean()) return wrong(at, v, "a boolean");
      break;
    case Want::kStrings:
    case Want::kNumbers: {
      const bool strings = want == Want::kStrings;
      if (!v.is_array()) return wrong(at, v, strings ? "an array of strings" : "an array of numbers");
      for (size_t i = 0; i < v.size(); ++i) {
        if (strings ? !v[i].is_string() : !IsNumber(v[i])) {
          return wrong(at + "[" + std::to_string(i) + "]", v[i], strings ? "a string" : "a number");
        }
      }
      break;
    }
  }
  return std::nullopt;
}

// Applies the rest of a rule's path (`rest`) below `node` (found at `where`).
std::optional<std::string> CheckPath(const json& node, std::string_view rest, const std::string& where, Want want) {
  const size_t dot = rest.find('.');
  std::string_view seg = rest.substr(0, dot);
  const std::string_view tail = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
  const bool if_array = seg.size() > 3 && seg.substr(seg.size() - 3) == "[]?";
  const bool each = if_array || (seg.size() > 2 && seg.substr(seg.size() - 2) == "[]");
  if (each) seg.remove_suffix(if_array ? 3 : 2);
  const std::string name(seg);
  if (!node.is_object() || !node.contains(name)) return std::nullopt;  // absent: not scored
  const json& v = node[name];
  const std::string at = where.empty() ? name : where + "." + name;
  if (!each) return tail.empty() ? Mismatch(v, want, at) : CheckPath(v, tail, at, want);
  if (!v.is_array()) {
    if (if_array) return std::nullopt;
    return "key '" + at + "' is " + TypeOf(v) + ", not an array";
  }
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string elem_at = at + "[" + std::to_string(i) + "]";
    auto bad = tail.empty() ? Mismatch(v[i], want, elem_at) : CheckPath(v[i], tail, elem_at, want);
    if (bad) return bad;
  }
  return std::nullopt;
}

// Checks every rule in order; the first mismatch is the error.
template <size_t N>
Status CheckRules(const json& doc, const ShapeRule (&rules)[N], const std::string& name) {
  for (const ShapeRule& r : rules) {
    if (auto bad = CheckPath(doc, r.path, "", r.want)) return MakeError(name, 0, 0, *bad);
  }
  return {};
}

}  // namespace

Status CheckTruthShape(const json& truth, const std::string& name) { return CheckRules(truth, kTruthRules, name); }

Status CheckResultShape(const json& result, const std::string& name) { return CheckRules(result, kResultRules, name); }

}  // namespace toposcope::report
