// Unit tests of base/json_stream (a document written piece by piece prints as nlohmann's dump) and
// base/output_file (plain and zstd output read back through base/file_io).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "toposcope/base/file_io.h"
#include "toposcope/base/json_stream.h"
#include "toposcope/base/output_file.h"
#include "toposcope/base/rng.h"

namespace toposcope {
namespace json_stream_test {

using nlohmann::json;

// Writes `v` through the stream writer: containers opened and closed, scalars (and, at depth >=
// `whole_from`, whole subtrees) as values.
void Stream(JsonStreamWriter& w, const std::string& key, const json& v, int depth, int whole_from) {
  if (!v.is_structured() || depth >= whole_from) {
    w.Value(key, v);
    return;
  }
  if (v.is_object()) {
    w.BeginObject(key);
    for (const auto& [k, x] : v.items()) Stream(w, k, x, depth + 1, whole_from);
  } else {
    w.BeginArray(key);
    for (const auto& x : v) Stream(w, {}, x, depth + 1, whole_from);
  }
  w.End();
}

json RandomJson(Rng& rng, int depth) {
  const uint64_t kind = depth >= 4 ? rng.Below(4) : rng.Below(6);
  switch (kind) {
    case 0: return rng.Uniform(-1e6, 1e6);
    case 1: return static_cast<int64_t>(rng.Below(1000000)) - 500000;
    case 2: return std::string("s\"\\\n\xc3\xa9") + std::to_string(rng.Below(100));
    case 3: return rng.Below(2) == 0 ? json(nullptr) : json(rng.Below(2) == 0);
    case 4: {
      json a = json::array();
      for (uint64_t i = rng.Below(4); i > 0; --i) a.push_back(RandomJson(rng, depth + 1));
      return a;
    }
    default: {
      json o = json::object();
      for (uint64_t i = rng.Below(4); i > 0; --i) o["k" + std::to_string(rng.Below(50))] = RandomJson(rng, depth + 1);
      return o;
    }
  }
}

TEST(JsonStreamWriter, PrintsAsNlohmannDump) {
  Rng rng(7);
  int nested = 0;
  for (int i = 0; i < 300; ++i) {
    json doc = json::object();
    for (uint64_t k = rng.Below(6); k > 0; --k) doc["m" + std::to_string(rng.Below(20))] = RandomJson(rng, 0);
    nested += doc.dump().find("[{") != std::string::npos ? 1 : 0;
    for (int whole_from : {0, 1, 2, 100}) {
      std::string out;
      JsonStreamWriter w([&out](std::string_view s) { out += s; return Status{}; }, 2, 16);
      Stream(w, {}, doc, 0, whole_from);
      ASSERT_TRUE(w.Finish().ok());
      ASSERT_EQ(out, doc.dump(2)) << "document " << i << ", whole from depth " << whole_from;
    }
  }
  EXPECT_GT(nested, 10);  // the documents did nest containers
}

TEST(JsonStreamWriter, HandsALargeValueOverInPieces) {
  json big = json::array();
  for (int i = 0; i < 1000; ++i) big.push_back({{"host", "h" + std::to_string(i)}, {"gbps", i * 0.5}});
  std::string out;
  size_t pieces = 0, largest = 0;
  JsonStreamWriter w(
      [&](std::string_view s) {
        out += s;
        ++pieces;
        largest = std::max(largest, s.size());
        return Status{};
      },
      2, 256);
  w.BeginObject();
  w.Value("links", big);  // one value, tens of kB of text
  w.End();
  ASSERT_TRUE(w.Finish().ok());
  EXPECT_EQ(out, json({{"links", big}}).dump(2));
  EXPECT_GT(pieces, 100u);    // flushed while the value was serialised, not after it
  EXPECT_LT(largest, 300u);   // each piece about the flush size
}

TEST(JsonStreamWriter, KeepsTheSinksFirstFailure) {
  int calls = 0;
  JsonStreamWriter w(
      [&calls](std::string_view) {
        ++calls;
        return Status(MakeKindError(ErrorKind::kOutput, "disk full"));
      },
      2, 1);
  w.BeginArray();
  for (int i = 0; i < 10; ++i) w.Element(i);
  w.End();
  const Status st = w.Finish();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "disk full");
  EXPECT_EQ(calls, 1);
}

TEST(OutputFile, PlainAndZstdReadBack) {
  const std::string dir = (std::filesystem::temp_directory_path() / "toposcope_output_file_test").string();
  std::filesystem::remove_all(dir);
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "line " + std::to_string(i * 7919 % 100003) + "\n";
  for (const auto compression : {OutputCompression::kNone, OutputCompression::kZstd}) {
    const std::string path = dir + "/sub/f" + (compression == OutputCompression::kZstd ? ".txt.zst" : ".txt");
    auto f = OutputFile::Create(path, compression, 3);
    ASSERT_TRUE(f.ok()) << f.error().ToString();
    for (size_t at = 0; at < text.size(); at += 100000) ASSERT_TRUE((*f)->Append(std::string_view(text).substr(at, 100000)).ok());
    ASSERT_TRUE((*f)->Close().ok());
    EXPECT_EQ((*f)->bytes_in(), static_cast<int64_t>(text.size()));
    EXPECT_EQ((*f)->bytes_out(), static_cast<int64_t>(std::filesystem::file_size(path)));
    if (compression == OutputCompression::kZstd) {
      EXPECT_LT((*f)->bytes_out() * 3, (*f)->bytes_in());
    }
    auto back = ReadFileText(path);
    ASSERT_TRUE(back.ok()) << back.error().ToString();
    EXPECT_EQ(*back, text);
    EXPECT_FALSE((*f)->Append("more").ok());
  }
  auto bad = OutputFile::Create(dir + "/sub/f.txt/cannot", OutputCompression::kNone);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kOutput);
  std::filesystem::remove_all(dir);
}

}  // namespace json_stream_test
}  // namespace toposcope
