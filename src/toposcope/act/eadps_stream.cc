#include "toposcope/act/eadps_stream.h"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "toposcope/base/text.h"

namespace toposcope::act {
namespace {

using nlohmann::json;

constexpr int64_t kMaxStartNs = 4'000'000'000'000'000'000;  // year 2096
constexpr int64_t kMaxWindowNs = 1'000'000'000'000'000;     // 1e6 s
constexpr int64_t kMaxCount = 1'000'000'000'000'000;        // packets or marks in a window

bool LooksLikeNonFinite(std::string_view line) {
  for (const std::string_view w : {"NaN", "nan", "Infinity", "inf"}) {
    if (line.find(w) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

Result<std::optional<EntropyPoint>> ParseEntropySampleLine(std::string_view line, const std::string& watched_estimator) {
  auto bad = [](const std::string& why) { return MakeKindError(ErrorKind::kInput, why); };
  if (Trim(line).empty()) return std::optional<EntropyPoint>{};
  const json j = json::parse(line.begin(), line.end(), nullptr, false);
  if (j.is_discarded() && LooksLikeNonFinite(line)) {
    return bad("\"bits\" is not a number (NaN or infinite entropy; JSON has no NaN)");
  }
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (j.contains("estimator") && (!j["estimator"].is_string() || j["estimator"].get<std::string>() != watched_estimator)) {
    return std::optional<EntropyPoint>{};
  }
  EntropyPoint p;
  if (!j.contains("link") || !j["link"].is_string() || j["link"].get<std::string>().empty()) return bad("no \"link\" string");
  p.link = j["link"].get<std::string>();
  if (j.contains("window_start_ns") && j["window_start_ns"].is_number_integer()) {
    const bool neg = j["window_start_ns"].is_number_unsigned() ? false : j["window_start_ns"].get<int64_t>() < 0;
    if (neg || (j["window_start_ns"].is_number_unsigned() && j["window_start_ns"].get<uint64_t>() > static_cast<uint64_t>(kMaxStartNs))) {
      return bad("\"window_start_ns\" outside 0 .. 4e18");
    }
    p.window_start_ns = j["window_start_ns"].get<int64_t>();
    if (p.window_start_ns > kMaxStartNs) return bad("\"window_start_ns\" outside 0 .. 4e18");
  } else if (j.contains("t_s") && j["t_s"].is_number()) {
    const double t = j["t_s"].get<double>();
    if (!(t >= 0 && t <= 4e9)) return bad("\"t_s\" outside 0 .. 4e9 s");
    p.window_start_ns = static_cast<int64_t>(std::llround(t * 1e9));
  } else {
    return bad("no \"window_start_ns\" integer or \"t_s\" number");
  }
  if (j.contains("window_ns") && j["window_ns"].is_number_integer()) {
    if (j["window_ns"].is_number_unsigned() ? j["window_ns"].get<uint64_t>() > static_cast<uint64_t>(kMaxWindowNs)
                                            : j["window_ns"].get<int64_t>() <= 0) {
      return bad("\"window_ns\" outside 1 .. 1e15");
    }
    p.window_ns = j["window_ns"].get<int64_t>();
    if (p.window_ns <= 0 || p.window_ns > kMaxWindowNs) return bad("\"window_ns\" outside 1 .. 1e15");
  } else if (j.contains("window_s") && j["window_s"].is_number()) {
    const double w = j["window_s"].get<double>();
    if (!(w > 0 && w <= 1e6)) return bad("\"window_s\" outside (0, 1e6] s");
    p.window_ns = static_cast<int64_t>(std::llround(w * 1e9));
    if (p.window_ns <= 0) return bad("\"window_s\" below a nanosecond");
  } else {
    return bad("no \"window_ns\" integer or \"window_s\" number");
  }
  for (const char* name : {"packets", "marks"}) {
    if (!j.contains(name)) continue;
    if (!j[name].is_number_integer() || (!j[name].is_number_unsigned() && j[name].get<int64_t>() < 0) ||
        (j[name].is_number_unsigned() && j[name].get<uint64_t>() > static_cast<uint64_t>(kMaxCount))) {
      return bad(std::string("\"") + name + "\" must be an integer 0 .. 1e15");
    }
    (std::string(name) == "packets" ? p.packets : p.marks) = j[name].get<int64_t>();
  }
  if (!j.contains("bits") && j.contains("packets")) {
    p.has_bits = false;  // counts only: too few packets for an entropy
    return std::optional<EntropyPoint>{std::move(p)};
  }
  if (!j.contains("bits") || !j["bits"].is_number()) return bad("\"bits\" is not a number (NaN or missing entropy)");
  p.bits = j["bits"].get<double>();
  if (!std::isfinite(p.bits)) return bad("\"bits\" is not finite");
  if (j.contains("shown_bits") && j["shown_bits"].is_number()) p.shown_bits = j["shown_bits"].get<double>();
  return std::optional<EntropyPoint>{std::move(p)};
}

}  // namespace toposcope::act
