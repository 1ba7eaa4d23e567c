// Mutation property test of the readers: every real fixture file is mutated (deterministic seed) by
// bit flips, truncation, NUL bytes, invalid UTF-8, huge lines and fields, extreme numbers (1e400,
// NaN, 2^63, ...) and corrupt / concatenated .gz and .zst, and each mutant goes through the entry the
// loader uses (sniff, then model/readers' table), once as sniffed and once as the original's format.
// Asserts: no crash (ASan/UBSan abort the run), no exception out of a reader, and
// accepted + rejected = read for every call. Built in the fuzz build (clang, sanitizers), run from
// scripts/fuzz_smoke.sh:
//   mutation_property [--mutants N] [--budget-s S] [--seed N] [--work DIR] FIXTURE_DIR...
// Mutants are made in rounds (one of each kind per file per round) until N mutants were read (the same
// mutants on every machine), or until the budget is spent when that comes first. The
// mutant being read is the file DIR/current/<name> (its description in DIR/current.txt), so a crash
// leaves it behind to reproduce with `toposcope analyze`.
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "toposcope/base/file_io.h"
#include "toposcope/formats/sniff.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/readers.h"

namespace {
namespace fs = std::filesystem;
using toposcope::ReadCounts;
using toposcope::formats::FileFormat;

enum class Kind { kBitFlip, kTruncate, kNul, kUtf8, kHuge, kNumber, kCompressed, kCount };
constexpr const char* kKindNames[] = {"bit_flip", "truncate", "nul", "invalid_utf8", "huge", "number",
                                      "compressed"};

std::string ReadRaw(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool WriteRaw(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(s.data(), static_cast<std::streamsize>(s.size()));
  return static_cast<bool>(out);
}

std::string Gzip(const std::string& s) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&z, static_cast<uLong>(s.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  z.avail_in = static_cast<uInt>(s.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Zstd(const std::string& s) {
  std::string out(ZSTD_compressBound(s.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), s.data(), s.size(), 3);
  if (ZSTD_isError(n)) return {};
  out.resize(n);
  return out;
}

// Offsets of the numbers of a text (digit runs with an optional sign, fraction and exponent).
std::vector<std::pair<size_t, size_t>> Numbers(const std::string& s) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < s.size();) {
    if (s[i] < '0' || s[i] > '9') {
      ++i;
      continue;
    }
    size_t b = i;
    if (b > 0 && (s[b - 1] == '-' || s[b - 1] == '+')) --b;
    while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.')) ++i;
    if (i + 1 < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      size_t j = i + 1;
      if (s[j] == '-' || s[j] == '+') ++j;
      if (j < s.size() && s[j] >= '0' && s[j] <= '9') {
        i = j;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
      }
    }
    out.emplace_back(b, i - b);
  }
  return out;
}

// A position at a line start (or 0).
size_t LineStart(const std::string& s, std::mt19937_64& rng) {
  if (s.empty()) return 0;
  size_t p = rng() % s.size();
  while (p > 0 && s[p - 1] != '\n') --p;
  return p;
}

std::string Mutate(const std::string& orig, Kind kind, int round, std::mt19937_64& rng, std::string* what) {
  std::string s = orig;
  const size_t n = s.size();
  switch (kind) {
    case Kind::kBitFlip: {
      const int flips = 1 << (round % 6);  // 1..32 flips
      for (int i = 0; i < flips && n > 0; ++i) {
        const size_t at = rng() % n;
        s[at] = static_cast<char>(s[at] ^ (1 << (rng() % 8)));
      }
      *what = std::to_string(flips) + " bit flips";
      break;
    }
    case Kind::kTruncate: {
      const size_t at = round == 0 ? 0 : (n == 0 ? 0 : rng() % n);
      s.resize(at);
      *what = "truncated at byte " + std::to_string(at);
      break;
    }
    case Kind::kNul: {
      const int k = 1 + round % 4;
      for (int i = 0; i < k; ++i) {
        const size_t at = n == 0 ? 0 : rng() % (s.size() + 1);
        if (round % 2 == 0) s.insert(at, 1, '\0');
        else if (at < s.size()) s[at] = '\0';
      }
      *what = std::to_string(k) + " NUL bytes";
      break;
    }
    case Kind::kUtf8: {
      static const char* kBad[] = {"\xff\xfe", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf8\x88\x80\x80\x80",
                                   "\xe2\x82", "\x80\x80\x80", "\xef\xbb\xbf"};
      const int k = 1 + round % 5;
      for (int i = 0; i < k; ++i) {
        const size_t at = rng() % (s.size() + 1);
        s.insert(at, kBad[rng() % 8]);
      }
      *what = std::to_string(k) + " invalid UTF-8 sequences";
      break;
    }
    case Kind::kHuge: {
      const size_t big = size_t{1} << (17 + round % 4);  // 128 KiB .. 1 MiB
      if (round % 3 == 0) {
        s.insert(LineStart(s, rng), std::string(big, 'A') + "\n");
        *what = "a " + std::to_string(big) + "-byte line";
      } else {
        const auto nums = Numbers(s);
        const size_t at = nums.empty() ? LineStart(s, rng) : nums[rng() % nums.size()].first;
        s.insert(at, std::string(big, round % 3 == 1 ? '9' : 'x'));
        *what = "a " + std::to_string(big) + "-byte field";
      }
      break;
    }
    case Kind::kNumber: {
      static const char* kNums[] = {"1e400", "-1e400", "NaN", "nan", "inf", "-inf", "9223372036854775808",
                                    "-9223372036854775809", "18446744073709551616", "1e-400", "0x7fffffffffffffff",
                                    "99999999999999999999999999999", "-0", "1e308", "4.9e-324"};
      const auto nums = Numbers(s);
      if (nums.empty()) {
        s.insert(LineStart(s, rng), std::string(kNums[rng() % 15]) + "\n");
        *what = "an extreme number line";
        break;
      }
      std::vector<std::pair<size_t, size_t>> pick;
      const int k = 1 << (round % 5);
      for (int i = 0; i < k; ++i) pick.push_back(nums[rng() % nums.size()]);
      std::sort(pick.begin(), pick.end());
      pick.erase(std::unique(pick.begin(), pick.end()), pick.end());
      std::string chosen;
      for (auto it = pick.rbegin(); it != pick.rend(); ++it) {
        const char* v = kNums[rng() % 15];
        if (chosen.empty()) chosen = v;
        s.replace(it->first, it->second, v);
      }
      *what = std::to_string(pick.size()) + " numbers replaced (e.g. " + chosen + ")";
      break;
    }
    case Kind::kCompressed: {
      const bool zst = round % 2 == 1;
      const std::string c = zst ? Zstd(orig) : Gzip(orig);
      const char* name = zst ? "zstd" : "gzip";
      switch ((round / 2) % 4) {
        case 0:
          s = c;
          for (int i = 0; i < 4 && c.size() > 20; ++i) s[10 + rng() % (c.size() - 10)] ^= static_cast<char>(1 + rng() % 255);
          *what = std::string("corrupt ") + name;
          break;
        case 1:
          s = c.substr(0, c.empty() ? 0 : rng() % c.size());
          *what = std::string("truncated ") + name;
          break;
        case 2:
          s = c + (zst ? Gzip(orig) : Zstd(orig));
          *what = std::string(name) + " followed by the other compressor's stream";
          break;
        default:
          s = c + c;
          *what = std::string("two concatenated ") + name + " streams";
          break;
      }
      break;
    }
    case Kind::kCount: break;
  }
  return s;
}

struct Totals {
  int64_t mutants = 0, reads = 0, refused = 0, no_reader = 0, records = 0, rejected = 0;
  std::map<std::string, int64_t> per_kind;
  std::vector<std::string> failures;
};

// Runs one mutant file through one reader of the table, as model/load does.
void ReadOnce(const fs::path& file, FileFormat format, const std::string& label, Totals& t) {
  const toposcope::model::FormatReader* reader = toposcope::model::FindReader(format);
  if (reader == nullptr) {
    ++t.no_reader;
    return;
  }
  try {
    const std::string path = file.string();
    std::string text;
    if (reader->mode == toposcope::model::ReadMode::kWhole) {
      auto r = toposcope::ReadFileText(path);
      if (!r.ok()) {
        ++t.refused;
        return;
      }
      text = std::move(*r);
    }
    toposcope::model::Dataset ds;
    toposcope::model::LoadOptions opt;
    std::string host = "mutant";
    ReadCounts counts;
    toposcope::model::FileRead f{ds, file, path, format, text, opt, host, counts};
    const toposcope::Status st = reader->read(f);
    ++t.reads;
    if (!st.ok()) ++t.refused;
    t.records += counts.read;
    t.rejected += counts.rejected;
    if (!counts.Balanced()) {
      t.failures.push_back(label + " [" + std::string(toposcope::formats::FormatName(format)) +
                           "]: accepted " + std::to_string(counts.accepted) + " + rejected " +
                           std::to_string(counts.rejected) + " != read " + std::to_string(counts.read));
    }
  } catch (const std::exception& e) {
    t.failures.push_back(label + " [" + std::string(toposcope::formats::FormatName(format)) +
                         "]: exception escaped: " + e.what());
  } catch (...) {
    t.failures.push_back(label + " [" + std::string(toposcope::formats::FormatName(format)) +
                         "]: unknown exception escaped");
  }
}

FileFormat SniffFile(const fs::path& p) {
  auto head = toposcope::ReadHead(p.string());
  return head.ok() ? toposcope::formats::SniffFormat(*head).format : FileFormat::kUnknown;
}

uint64_t Fnv(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  double budget_s = 80;
  int64_t max_mutants = 0;  // 0: no cap but the budget
  uint64_t seed = 1;
  fs::path work = fs::temp_directory_path() / "toposcope-mutation";
  std::vector<fs::path> roots;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--budget-s" && i + 1 < argc) budget_s = std::stod(argv[++i]);
    else if (a == "--mutants" && i + 1 < argc) max_mutants = std::stoll(argv[++i]);
    else if (a == "--seed" && i + 1 < argc) seed = std::stoull(argv[++i]);
    else if (a == "--work" && i + 1 < argc) work = argv[++i];
    else roots.emplace_back(a);
  }
  std::vector<fs::path> files;
  for (const auto& r : roots) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(r, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && it->path().extension() != ".md") files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "mutation_property: no fixture files under the given directories\n");
    return 2;
  }
  fs::create_directories(work / "current");
  std::vector<std::string> originals;
  std::vector<FileFormat> formats;
  for (const auto& f : files) {
    originals.push_back(ReadRaw(f));
    formats.push_back(SniffFile(f));
  }
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  Totals t;
  int rounds = 0;
  bool out_of_time = false;
  for (int round = 0; round < 64 && !out_of_time; ++round, ++rounds) {
    for (size_t fi = 0; fi < files.size() && !out_of_time; ++fi) {
      for (int k = 0; k < static_cast<int>(Kind::kCount); ++k) {
        if (elapsed() > budget_s || (max_mutants > 0 && t.mutants >= max_mutants)) {
          out_of_time = true;
          break;
        }
        std::mt19937_64 rng(seed ^ Fnv(files[fi].string()) ^ (static_cast<uint64_t>(round) << 32) ^ static_cast<uint64_t>(k));
        std::string what;
        const std::string mutant = Mutate(originals[fi], static_cast<Kind>(k), round, rng, &what);
        const fs::path target = work / "current" / files[fi].filename();
        const std::string label = files[fi].string() + " (" + kKindNames[k] + ": " + what + ", round " +
                                  std::to_string(round) + ", seed " + std::to_string(seed) + ")";
        WriteRaw(work / "current.txt", label + "\n");
        if (!WriteRaw(target, mutant)) {
          std::fprintf(stderr, "mutation_property: cannot write %s\n", target.c_str());
          return 2;
        }
        ++t.mutants;
        ++t.per_kind[kKindNames[k]];
        const FileFormat sniffed = SniffFile(target);
        ReadOnce(target, sniffed, label, t);
        if (formats[fi] != sniffed && formats[fi] != FileFormat::kUnknown) ReadOnce(target, formats[fi], label, t);
        fs::remove(target);
      }
    }
  }
  std::printf("mutation_property: %zu files, %d rounds, %lld mutants (", files.size(), rounds,
              static_cast<long long>(t.mutants));
  for (const auto& [k, v] : t.per_kind) std::printf(" %s %lld", k.c_str(), static_cast<long long>(v));
  std::printf(" ), %lld reader calls, %lld refused whole, %lld without a reader, %lld records read, %lld rejected,"
              " %.1f s\n",
              static_cast<long long>(t.reads), static_cast<long long>(t.refused), static_cast<long long>(t.no_reader),
              static_cast<long long>(t.records), static_cast<long long>(t.rejected), elapsed());
  for (const auto& f : t.failures) std::printf("FAIL %s\n", f.c_str());
  std::printf("mutation_property: %zu failures\n", t.failures.size());
  return t.failures.empty() ? 0 : 1;
}
