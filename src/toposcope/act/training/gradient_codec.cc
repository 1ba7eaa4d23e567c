#include "toposcope/act/training/gradient_codec.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

#include "toposcope/base/varint.h"

namespace toposcope::act::training {
namespace {

static_assert(std::endian::native == std::endian::little, "the codec writes little-endian buffers");

constexpr char kMagic[4] = {'T', 'S', 'G', 'C'};
constexpr uint8_t kVersion = 1;
constexpr size_t kHeaderBytes = 4 + 1 + 1 + 8 + 8 + 4;
constexpr uint32_t kMaxBucket = 1u << 20;

bool IsQuant(CodecKind k) { return k == CodecKind::kQuant4 || k == CodecKind::kTopKQuant4; }
bool IsTopK(CodecKind k) { return k == CodecKind::kTopK || k == CodecKind::kTopKQuant4; }

uint32_t RoundingKey(uint64_t seed, uint64_t step) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL + step + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return static_cast<uint32_t>(z ^ (z >> 31));
}

// The nibble of v = x / s + u + 8: trunc(v) clamped to 1 .. 15, clamped before the conversion so
// that no float outside int's range (or NaN) is ever converted.
inline uint8_t NibbleOf(float v) {
  return static_cast<uint8_t>(v >= 15.0f ? 15 : (v >= 1.0f ? static_cast<int>(v) : 1));
}

size_t Quant4Bytes(size_t n, uint32_t bucket) {
  const size_t full = n / bucket, rest = n % bucket;
  return full * (4 + (bucket + 1) / 2) + (rest > 0 ? 4 + (rest + 1) / 2 : 0);
}

// Writes the 4-bit buckets of v[0..n) at p (Quant4Bytes(n, bucket) bytes); element i's noise comes
// from index_of[i] (or i). Returns false when a bucket holds a NaN or infinite value.
// Built for AVX2 too, chosen at load time where the CPU has it (GCC function multi-versioning).
__attribute__((target_clones("avx2", "default"))) bool Quant4Encode(const float* v, size_t n, uint32_t bucket,
                                                                    uint32_t key, const uint32_t* index_of, uint8_t* p) {
  std::vector<uint8_t> nib(bucket + 1);
  for (size_t b0 = 0; b0 < n; b0 += bucket) {
    const size_t len = std::min<size_t>(bucket, n - b0);
    const float* x = v + b0;
    // max |x| on the bits: for finite floats the order of |x| is the order of their magnitude bits.
    int32_t mbits = 0;
    for (size_t i = 0; i < len; ++i) {
      int32_t b = 0;
      std::memcpy(&b, x + i, 4);
      mbits = std::max(mbits, b & 0x7fffffff);
    }
    if (mbits >= 0x7f800000) return false;
    float m = 0;
    std::memcpy(&m, &mbits, 4);
    const float s = m / 7.0f;
    std::memcpy(p, &s, 4);
    p += 4;
    // 7 / m overflows for a subnormal m: capped, so x * inv stays finite (and 0 * inv is 0, not NaN).
    const float inv = m > 0 ? std::min(7.0f / m, std::numeric_limits<float>::max()) : 0.0f;
    // nibble = trunc(x / s + u + 8) = floor(x / s + u) + 8, in 1 .. 15 (x / s in [-7, 7], u in [0, 1)).
    uint8_t* q = nib.data();
    if (index_of == nullptr) {
      const auto base = static_cast<uint32_t>(b0);
      for (size_t i = 0; i < len; ++i) {
        const uint32_t h = key + (base + static_cast<uint32_t>(i)) * 0x9E3779B9U;
        const float u = static_cast<float>(static_cast<int32_t>(h >> 8)) * 0x1p-24f;
        q[i] = NibbleOf(x[i] * inv + u + 8.0f);
      }
    } else {
      for (size_t i = 0; i < len; ++i) {
        const uint32_t h = key + index_of[b0 + i] * 0x9E3779B9U;
        const float u = static_cast<float>(static_cast<int32_t>(h >> 8)) * 0x1p-24f;
        q[i] = NibbleOf(x[i] * inv + u + 8.0f);
      }
    }
    q[len] = 0;
    const size_t pairs = (len + 1) / 2;
    for (size_t j = 0; j < pairs; ++j) p[j] = static_cast<uint8_t>(q[2 * j] | (q[2 * j + 1] << 4));
    p += pairs;
  }
  return true;
}

// Decodes n 4-bit values from p (Quant4Bytes(n, bucket) bytes) into out[0..n) (or out[index[i]]).
__attribute__((target_clones("avx2", "default"))) void Quant4Decode(const uint8_t* p, size_t n, uint32_t bucket,
                                                                    const uint32_t* index, float* out) {
  std::vector<float> tmp(index != nullptr ? bucket + 1 : 0);
  for (size_t b0 = 0; b0 < n; b0 += bucket) {
    const size_t len = std::min<size_t>(bucket, n - b0);
    float s = 0;
    std::memcpy(&s, p, 4);
    p += 4;
    float* o = index == nullptr ? out + b0 : tmp.data();
    const size_t full = len / 2;
    for (size_t j = 0; j < full; ++j) {
      o[2 * j] = static_cast<float>(static_cast<int>(p[j] & 15) - 8) * s;
      o[2 * j + 1] = static_cast<float>(static_cast<int>(p[j] >> 4) - 8) * s;
    }
    if (len % 2 == 1) o[len - 1] = static_cast<float>(static_cast<int>(p[full] & 15) - 8) * s;
    if (index != nullptr) {
      for (size_t i = 0; i < len; ++i) out[index[b0 + i]] = tmp[i];
    }
    p += (len + 1) / 2;
  }
}

// The k largest |x| (ties: the lower index), as sorted indices. A large tensor is first cut to the
// elements at or above a threshold read off a strided sample (about 2k of them, in one pass); every
// one of the k largest is among them whenever at least k are (else the whole tensor is searched).
std::vector<uint32_t> TopKIndices(std::span<const float> x, size_t k) {
  auto larger = [&x](uint32_t a, uint32_t b) {
    const float fa = std::fabs(x[a]), fb = std::fabs(x[b]);
    return fa > fb || (fa == fb && a < b);
  };
  constexpr size_t kSample = 1 << 16;
  std::vector<uint32_t> idx;
  if (x.size() >= 4 * kSample && 8 * k < x.size()) {
    const size_t stride = x.size() / kSample;
    std::vector<float> sample(kSample);
    for (size_t j = 0; j < kSample; ++j) sample[j] = std::fabs(x[j * stride]);
    const auto above = std::min<size_t>(kSample - 1, static_cast<size_t>(2.0 * static_cast<double>(k) /
                                                                             static_cast<double>(x.size()) * kSample) + 32);
    std::nth_element(sample.begin(), sample.begin() + static_cast<std::ptrdiff_t>(kSample - 1 - above), sample.end());
    const float t = sample[kSample - 1 - above];
    idx.reserve(4 * k);
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::fabs(x[i]) >= t) idx.push_back(static_cast<uint32_t>(i));
    }
    if (idx.size() < k) idx.clear();
  }
  if (idx.empty()) {
    idx.resize(x.size());
    std::iota(idx.begin(), idx.end(), 0u);
  }
  if (k < idx.size()) {
    std::nth_element(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(), larger);
    idx.resize(k);
  }
  std::sort(idx.begin(), idx.end());
  return idx;
}

Error BadBuffer(size_t offset, const std::string& why) {
  return MakeKindError(ErrorKind::kInput, "gradient buffer at byte " + std::to_string(offset) + ": " + why);
}

struct Header {
  CodecKind kind = CodecKind::kQuant4;
  uint64_t n = 0, k = 0;
  uint32_t bucket = 0;
};

Result<Header> ReadHeader(std::span<const uint8_t> b) {
  if (b.size() < kHeaderBytes) return BadBuffer(b.size(), "cut short: a header needs " + std::to_string(kHeaderBytes) + " bytes");
  if (std::memcmp(b.data(), kMagic, 4) != 0) return BadBuffer(0, "not a gradient codec buffer (no TSGC magic)");
  if (b[4] != kVersion) return BadBuffer(4, "version " + std::to_string(b[4]) + " (this reader knows 1)");
  Header h;
  if (b[5] < 1 || b[5] > 3) return BadBuffer(5, "unknown codec kind " + std::to_string(b[5]));
  h.kind = static_cast<CodecKind>(b[5]);
  std::memcpy(&h.n, b.data() + 6, 8);
  std::memcpy(&h.k, b.data() + 14, 8);
  std::memcpy(&h.bucket, b.data() + 22, 4);
  if (h.n == 0 || h.n > UINT32_MAX) return BadBuffer(6, "element count " + std::to_string(h.n) + " outside 1 .. 2^32-1");
  if (h.k == 0 || h.k > h.n || (!IsTopK(h.kind) && h.k != h.n)) {
    return BadBuffer(14, "kept count " + std::to_string(h.k) + " does not fit " + std::to_string(h.n) + " elements");
  }
  if (IsQuant(h.kind) && (h.bucket == 0 || h.bucket > kMaxBucket)) {
    return BadBuffer(22, "bucket " + std::to_string(h.bucket) + " outside 1 .. 2^20");
  }
  // The payload must be able to hold what the header names (before anything is allocated for it).
  const size_t payload = b.size() - kHeaderBytes;
  if (!IsTopK(h.kind) && payload != Quant4Bytes(h.n, h.bucket)) {
    return BadBuffer(b.size(), std::to_string(Quant4Bytes(h.n, h.bucket)) + " payload bytes expected");
  }
  if (IsTopK(h.kind) && h.k > payload) {
    return BadBuffer(14, "kept count " + std::to_string(h.k) + " exceeds the " + std::to_string(payload) + " payload bytes");
  }
  return h;
}

Status CheckFinite(std::span<const float> x) {
  uint32_t bad = 0;  // an exponent of all ones: NaN or infinite
  for (const float v : x) {
    uint32_t b = 0;
    std::memcpy(&b, &v, 4);
    bad |= (b & 0x7f800000U) == 0x7f800000U ? 1U : 0U;
  }
  if (bad == 0) return {};
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) {
      return MakeKindError(ErrorKind::kInput, "gradient element " + std::to_string(i) + " is " +
                                                  (std::isnan(x[i]) ? "NaN" : "infinite") + ": not encoded");
    }
  }
  return {};
}

}  // namespace

std::string_view CodecKindName(CodecKind k) {
  switch (k) {
    case CodecKind::kTopK: return "topk";
    case CodecKind::kQuant4: return "q4";
    case CodecKind::kTopKQuant4: return "topk_q4";
  }
  return "q4";
}

Status ValidateCodecOptions(const CodecOptions& o) {
  if (!(o.topk_fraction > 0 && o.topk_fraction <= 1)) {
    return MakeKindError(ErrorKind::kUsage, "gradient codec: top-k fraction must be in (0, 1]");
  }
  if (o.bucket == 0 || o.bucket > kMaxBucket) return MakeKindError(ErrorKind::kUsage, "gradient codec: bucket must be 1 .. 2^20");
  if (o.kind != CodecKind::kTopK && o.kind != CodecKind::kQuant4 && o.kind != CodecKind::kTopKQuant4) {
    return MakeKindError(ErrorKind::kUsage, "gradient codec: unknown kind");
  }
  return {};
}

Status EncodeGradientInto(std::span<const float> x, const CodecOptions& o, uint64_t step, std::vector<uint8_t>& out) {
  if (Status st = ValidateCodecOptions(o); !st.ok()) return st.error();
  if (x.empty()) return MakeKindError(ErrorKind::kInput, "gradient codec: empty tensor");
  if (x.size() > UINT32_MAX) return MakeKindError(ErrorKind::kInput, "gradient codec: more than 2^32-1 elements");
  // The 4-bit path finds non-finite values in its own max pass; the others look first.
  if (IsTopK(o.kind)) {
    if (Status st = CheckFinite(x); !st.ok()) return st.error();
  }
  const uint64_t n = x.size();
  uint64_t k = n;
  std::vector<uint32_t> idx;
  std::vector<uint8_t> deltas;
  if (IsTopK(o.kind)) {
    k = std::clamp<uint64_t>(static_cast<uint64_t>(std::ceil(o.topk_fraction * static_cast<double>(n))), 1, n);
    idx = TopKIndices(x, static_cast<size_t>(k));
    uint64_t prev = 0;
    for (size_t i = 0; i < idx.size(); ++i) {
      AppendVarint(deltas, i == 0 ? idx[i] : idx[i] - prev);
      prev = idx[i];
    }
  }
  const size_t values = IsQuant(o.kind) ? Quant4Bytes(k, o.bucket) : 4 * k;
  // Sized once; a buffer reused across steps is overwritten without being cleared.
  if (out.size() != kHeaderBytes + deltas.size() + values) out.resize(kHeaderBytes + deltas.size() + values);
  uint8_t* p = out.data();
  std::memcpy(p, kMagic, 4);
  p[4] = kVersion;
  p[5] = static_cast<uint8_t>(o.kind);
  const uint32_t bucket = IsQuant(o.kind) ? o.bucket : 0;
  std::memcpy(p + 6, &n, 8);
  std::memcpy(p + 14, &k, 8);
  std::memcpy(p + 22, &bucket, 4);
  p += kHeaderBytes;
  if (!deltas.empty()) std::memcpy(p, deltas.data(), deltas.size());
  p += deltas.size();
  const uint32_t key = RoundingKey(o.seed, step);
  if (!IsTopK(o.kind)) {
    if (!Quant4Encode(x.data(), x.size(), o.bucket, key, nullptr, p)) {
      out.clear();
      return CheckFinite(x);
    }
    return {};
  }
  std::vector<float> kept(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) kept[i] = x[idx[i]];
  if (o.kind == CodecKind::kTopK) {
    std::memcpy(p, kept.data(), 4 * kept.size());
  } else {
    (void)Quant4Encode(kept.data(), kept.size(), o.bucket, key, idx.data(), p);  // checked finite above
  }
  return {};
}

Result<std::vector<uint8_t>> EncodeGradient(std::span<const float> x, const CodecOptions& o, uint64_t step) {
  std::vector<uint8_t> out;
  if (Status st = EncodeGradientInto(x, o, step, out); !st.ok()) return st.error();
  return out;
}

Result<uint64_t> EncodedElements(std::span<const uint8_t> bytes) {
  Result<Header> h = ReadHeader(bytes);
  if (!h.ok()) return h.error();
  return h->n;
}

Status DecodeGradient(std::span<const uint8_t> bytes, std::span<float> out) {
  Result<Header> h = ReadHeader(bytes);
  if (!h.ok()) return h.error();
  if (out.size() != h->n) {
    return MakeKindError(ErrorKind::kInput, "gradient buffer holds " + std::to_string(h->n) +
                                                " elements, the tensor has " + std::to_string(out.size()));
  }
  size_t pos = kHeaderBytes;
  if (!IsTopK(h->kind)) {
    const size_t need = Quant4Bytes(h->n, h->bucket);
    if (bytes.size() - pos != need) return BadBuffer(bytes.size(), std::to_string(need) + " payload bytes expected");
    Quant4Decode(bytes.data() + pos, h->n, h->bucket, nullptr, out.data());
    return {};
  }
  std::vector<uint32_t> idx(h->k);
  uint64_t prev = 0;
  for (uint64_t i = 0; i < h->k; ++i) {
    uint64_t v = 0;
    int shift = 0;
    for (;;) {
      if (pos >= bytes.size()) return BadBuffer(pos, "cut short in the index list");
      const uint8_t b = bytes[pos++];
      if (shift > 56) return BadBuffer(pos - 1, "index varint too long");
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      shift += 7;
      if ((b & 0x80) == 0) break;
    }
    if (i > 0 && v == 0) return BadBuffer(pos - 1, "index delta 0: indices must increase");
    const uint64_t at = i == 0 ? v : prev + v;
    if (at >= h->n || at < prev) return BadBuffer(pos - 1, "index " + std::to_string(at) + " outside the tensor");
    idx[i] = static_cast<uint32_t>(at);
    prev = at;
  }
  const size_t need = h->kind == CodecKind::kTopK ? 4 * h->k : Quant4Bytes(h->k, h->bucket);
  if (bytes.size() - pos != need) return BadBuffer(bytes.size(), std::to_string(need) + " value bytes expected after the indices");
  std::fill(out.begin(), out.end(), 0.0f);
  if (h->kind == CodecKind::kTopK) {
    for (uint64_t i = 0; i < h->k; ++i) std::memcpy(&out[idx[i]], bytes.data() + pos + 4 * i, 4);
  } else {
    Quant4Decode(bytes.data() + pos, h->k, h->bucket, idx.data(), out.data());
  }
  return {};
}

Result<std::vector<float>> DecodeGradient(std::span<const uint8_t> bytes) {
  Result<uint64_t> n = EncodedElements(bytes);
  if (!n.ok()) return n.error();
  std::vector<float> out(*n);
  if (Status st = DecodeGradient(bytes, out); !st.ok()) return st.error();
  return out;
}

ErrorFeedbackEncoder::ErrorFeedbackEncoder(size_t elements, CodecOptions o)
    : opt_(o), residual_(elements, 0.0f), corrected_(elements), decoded_(elements) {}

Result<std::vector<uint8_t>> ErrorFeedbackEncoder::Encode(std::span<const float> grad) {
  if (grad.size() != residual_.size()) {
    return MakeKindError(ErrorKind::kInput, "gradient of " + std::to_string(grad.size()) + " elements, the encoder's tensor has " +
                                                std::to_string(residual_.size()));
  }
  if (Status st = CheckFinite(grad); !st.ok()) return st.error();
  for (size_t i = 0; i < grad.size(); ++i) corrected_[i] = grad[i] + residual_[i];
  std::vector<uint8_t> enc;
  if (Status st = EncodeGradientInto(corrected_, opt_, step_, enc); !st.ok()) return st.error();
  if (Status st = DecodeGradient(enc, decoded_); !st.ok()) return st.error();
  for (size_t i = 0; i < grad.size(); ++i) residual_[i] = corrected_[i] - decoded_[i];
  ++step_;
  return enc;
}

uint64_t TensorDigest(std::span<const float> x) { return XXH3_64bits(x.data(), x.size_bytes()); }

}  // namespace toposcope::act::training
