// act/training/gradient_codec: the gradient codec of the seed's cross-region barrier (§4.3), a small
// library on its own: top-k sparsification (indices delta-encoded as LEB128 varints), 4-bit
// quantisation (per-bucket scale, stochastic rounding), both with error feedback (what a step did not
// send is carried into the next), their combination, and xxh3 digests of tensors for the barrier.
//
// An encoded tensor is one self-describing byte buffer:
//   "TSGC" | version (1 byte) | kind (1 byte) | n (u64, elements) | k (u64, kept elements; n unless
//   top-k) | bucket (u32, 4-bit only) | payload
// payload: top-k: k index deltas (varint; the first is the index itself, the next ones the distance to
// the previous, so >= 1), then the k values: float32 (top-k) or 4-bit (top-k + 4-bit).
// 4-bit values: per bucket of `bucket` values a float32 scale s = max|x| / 7, then the values two to a
// byte (low nibble first), each q + 8 where q = floor(x / s + u): E[q s] = x and |q s - x| < s. The
// dither u of element i is frac(k + i x golden ratio), a Weyl sequence whose offset k is a hash of
// (seed, step): over steps u is uniform for every element, so the rounding is unbiased, and it costs
// one add per element. Little-endian throughout.
//
// Deterministic: the same tensor, options and step give the same bytes. Encoding fails on an empty
// tensor or a NaN / infinite element (named by index); decoding fails, naming the byte offset, on a
// buffer that is not a codec buffer, is cut short, holds an index out of range, or whose element
// count differs from the tensor it is decoded into.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "toposcope/base/result.h"

namespace toposcope::act::training {

// Named "topk", "q4", "topk_q4".
enum class CodecKind : uint8_t { kTopK = 1, kQuant4 = 2, kTopKQuant4 = 3 };
std::string_view CodecKindName(CodecKind k);

struct CodecOptions {
  CodecKind kind = CodecKind::kQuant4;
  double topk_fraction = 0.01;  // top-k: keep this share of the elements (at least 1)
  uint32_t bucket = 512;        // 4-bit: values per scale (1 .. 2^20)
  uint64_t seed = 1;            // stochastic rounding
};

// Checks the options: fraction in (0, 1], bucket in 1 .. 2^20. Fails (kUsage) naming the option.
Status ValidateCodecOptions(const CodecOptions& o);

// Encodes `x` (step: the training step, which varies the rounding noise). See the file comment.
Result<std::vector<uint8_t>> EncodeGradient(std::span<const float> x, const CodecOptions& o, uint64_t step = 0);
// The same into `out`, whose storage is reused (a buffer kept across steps is not re-allocated or
// cleared). On failure `out` is left empty or unchanged.
Status EncodeGradientInto(std::span<const float> x, const CodecOptions& o, uint64_t step, std::vector<uint8_t>& out);
// Decodes into `out` (its size must be the encoded element count; elements top-k dropped are 0).
Status DecodeGradient(std::span<const uint8_t> bytes, std::span<float> out);
// Decodes into a new tensor.
Result<std::vector<float>> DecodeGradient(std::span<const uint8_t> bytes);
// The element count an encoded buffer holds (its header). Fails as DecodeGradient does.
Result<uint64_t> EncodedElements(std::span<const uint8_t> bytes);

// Error feedback: Encode(g) sends codec(g + r) and keeps r = (g + r) - decode(sent), so the sum of
// what was sent tracks the sum of the gradients: sum(sent) = sum(g) - r at every step.
class ErrorFeedbackEncoder {
 public:
  ErrorFeedbackEncoder(size_t elements, CodecOptions o);
  // Fails on a tensor of another size (kInput) or a non-finite element; the residual is then kept.
  Result<std::vector<uint8_t>> Encode(std::span<const float> grad);
  [[nodiscard]] std::span<const float> residual() const { return residual_; }
  [[nodiscard]] uint64_t steps() const { return step_; }

 private:
  CodecOptions opt_;
  std::vector<float> residual_, corrected_, decoded_;
  uint64_t step_ = 0;
};

// xxh3-64 of the tensor's bytes (libxxhash), the barrier's digest. Never fails.
uint64_t TensorDigest(std::span<const float> x);

}  // namespace toposcope::act::training
