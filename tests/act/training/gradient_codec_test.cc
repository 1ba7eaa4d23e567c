// act/training/gradient_codec: round trips of every kind within their error bounds (4-bit: below one
// bucket scale per element, unbiased over steps; top-k: the k largest kept exactly, the rest 0),
// varint index deltas, deterministic bytes, error feedback (what was sent tracks the true sum; the
// gap is the residual and stays bounded), digests, and bad input named (NaN, empty, sizes, cut or
// forged buffers).
#include "toposcope/act/training/gradient_codec.h"

#include <gtest/gtest.h>

#include <limits>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "toposcope/base/rng.h"

namespace toposcope::act::training {
namespace gradient_codec_test {

std::vector<float> Gaussian(size_t n, uint64_t seed, float scale = 1.0f) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = scale * static_cast<float>(rng.Normal());
  return v;
}

CodecOptions Kind(CodecKind k, double fraction = 0.01, uint32_t bucket = 512) {
  CodecOptions o;
  o.kind = k;
  o.topk_fraction = fraction;
  o.bucket = bucket;
  return o;
}

TEST(GradientCodec, Quant4ErrorBelowOneScalePerBucket) {
  const std::vector<float> x = Gaussian(10'001, 1);  // a partial last bucket
  auto enc = EncodeGradient(x, Kind(CodecKind::kQuant4, 1, 256));
  ASSERT_TRUE(enc.ok()) << enc.error().ToString();
  // 26-byte header, per bucket 4 bytes of scale and two values a byte.
  EXPECT_EQ(enc->size(), 26u + 39 * (4 + 128) + (4 + 9));
  auto dec = DecodeGradient(*enc);
  ASSERT_TRUE(dec.ok());
  ASSERT_EQ(dec->size(), x.size());
  for (size_t b0 = 0; b0 < x.size(); b0 += 256) {
    const size_t end = std::min(x.size(), b0 + 256);
    float m = 0;
    for (size_t i = b0; i < end; ++i) m = std::max(m, std::fabs(x[i]));
    for (size_t i = b0; i < end; ++i) ASSERT_LT(std::fabs((*dec)[i] - x[i]), m / 7 * 1.0001f) << i;
  }
  // 8x smaller than float32.
  EXPECT_LT(static_cast<double>(enc->size()) / (4.0 * static_cast<double>(x.size())), 0.14);
}

TEST(GradientCodec, StochasticRoundingIsUnbiased) {
  // The same value over many steps: the mean of the decoded values converges to it.
  std::vector<float> x(512, 0.0f);
  x[0] = 7.0f;   // the bucket's scale is 1
  x[1] = 0.3f;   // rounds to 0 or 1
  x[2] = -2.6f;  // rounds to -3 or -2
  double s1 = 0, s2 = 0;
  const int steps = 4000;
  for (int t = 0; t < steps; ++t) {
    auto dec = DecodeGradient(*EncodeGradient(x, Kind(CodecKind::kQuant4), static_cast<uint64_t>(t)));
    ASSERT_TRUE(dec.ok());
    EXPECT_FLOAT_EQ((*dec)[0], 7.0f);
    s1 += (*dec)[1], s2 += (*dec)[2];
  }
  EXPECT_NEAR(s1 / steps, 0.3, 0.03);
  EXPECT_NEAR(s2 / steps, -2.6, 0.03);
}

TEST(GradientCodec, TopKKeepsTheLargestExactly) {
  std::vector<float> x = Gaussian(1000, 2, 0.01f);
  const std::vector<size_t> big = {3, 4, 500, 999};
  for (size_t i = 0; i < big.size(); ++i) x[big[i]] = (i % 2 == 0 ? 1.0f : -1.0f) * static_cast<float>(5 + i);
  auto enc = EncodeGradient(x, Kind(CodecKind::kTopK, 0.004));  // k = 4
  ASSERT_TRUE(enc.ok());
  // Header, varint deltas 3, 1, 496 (2 bytes), 499 (2 bytes), 4 floats.
  EXPECT_EQ(enc->size(), 26u + 6 + 16);
  auto dec = DecodeGradient(*enc);
  ASSERT_TRUE(dec.ok());
  for (size_t i = 0; i < x.size(); ++i) {
    const bool kept = std::find(big.begin(), big.end(), i) != big.end();
    EXPECT_EQ((*dec)[i], kept ? x[i] : 0.0f) << i;
  }
}

TEST(GradientCodec, TopKQuant4KeepsTheLargestWithinTheirScale) {
  const std::vector<float> x = Gaussian(20'000, 3);
  auto enc = EncodeGradient(x, Kind(CodecKind::kTopKQuant4, 0.05, 64));
  ASSERT_TRUE(enc.ok());
  auto dec = DecodeGradient(*enc);
  ASSERT_TRUE(dec.ok());
  size_t nonzero_kept = 0;
  float smallest_kept = INFINITY, largest_dropped = 0, m = 0;
  auto sorted = x;
  std::sort(sorted.begin(), sorted.end(), [](float a, float b) { return std::fabs(a) > std::fabs(b); });
  const float cut = std::fabs(sorted[999]);  // k = 1000
  for (const float v : x) m = std::max(m, std::fabs(v));  // every bucket's scale is at most m / 7
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::fabs(x[i]) >= cut) {
      smallest_kept = std::min(smallest_kept, std::fabs(x[i]));
      EXPECT_LT(std::fabs((*dec)[i] - x[i]), m / 7 + 1e-6f);
      nonzero_kept += (*dec)[i] != 0 ? 1 : 0;
    } else {
      largest_dropped = std::max(largest_dropped, std::fabs(x[i]));
      EXPECT_EQ((*dec)[i], 0.0f);
    }
  }
  EXPECT_GE(smallest_kept, largest_dropped);
  EXPECT_GT(nonzero_kept, 900u);
  // Much smaller than the float32 top-k: 4 bits instead of 32 per kept value.
  auto plain = EncodeGradient(x, Kind(CodecKind::kTopK, 0.05));
  EXPECT_LT(enc->size(), plain->size() / 2);
}

TEST(GradientCodec, TopKOfALargeTensorMatchesTheFullSearch) {
  // 2^19 elements: the sampled threshold path; the kept set is the k largest by |x| (ties by index).
  std::vector<float> x = Gaussian(1 << 19, 9);
  for (size_t i = 0; i < 200; ++i) x[1000 + i] = 3.5f;  // a tie block around the cut
  auto dec = DecodeGradient(*EncodeGradient(x, Kind(CodecKind::kTopK, 0.001)));
  ASSERT_TRUE(dec.ok());
  std::vector<uint32_t> order(x.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&x](uint32_t a, uint32_t b) { return std::fabs(x[a]) > std::fabs(x[b]); });
  const size_t k = 525;  // ceil(0.001 x 524288)
  for (size_t r = 0; r < order.size(); ++r) {
    const uint32_t i = order[r];
    ASSERT_EQ((*dec)[i], r < k ? x[i] : 0.0f) << "rank " << r;
  }
}

TEST(GradientCodec, SameInputSameBytes) {
  const std::vector<float> x = Gaussian(5000, 4);
  for (CodecKind k : {CodecKind::kTopK, CodecKind::kQuant4, CodecKind::kTopKQuant4}) {
    EXPECT_EQ(*EncodeGradient(x, Kind(k, 0.1), 7), *EncodeGradient(x, Kind(k, 0.1), 7)) << CodecKindName(k);
  }
  // Another step draws other rounding noise.
  EXPECT_NE(*EncodeGradient(x, Kind(CodecKind::kQuant4), 7), *EncodeGradient(x, Kind(CodecKind::kQuant4), 8));
}

TEST(GradientCodec, ErrorFeedbackTracksTheTrueSum) {
  const size_t n = 4096;
  for (CodecKind k : {CodecKind::kTopK, CodecKind::kQuant4, CodecKind::kTopKQuant4}) {
    ErrorFeedbackEncoder ef(n, Kind(k, 0.02, 128));
    std::vector<double> truth(n, 0.0), sent(n, 0.0);
    double max_residual = 0;
    for (int t = 0; t < 200; ++t) {
      const std::vector<float> g = Gaussian(n, 100 + static_cast<uint64_t>(t));
      auto enc = ef.Encode(g);
      ASSERT_TRUE(enc.ok()) << enc.error().ToString();
      auto dec = DecodeGradient(*enc);
      ASSERT_TRUE(dec.ok());
      for (size_t i = 0; i < n; ++i) truth[i] += g[i], sent[i] += (*dec)[i];
      // sum(sent) = sum(g) - residual at every step.
      for (size_t i = 0; i < n; i += 97) {
        ASSERT_NEAR(sent[i], truth[i] - ef.residual()[i], 1e-3 * (1 + std::fabs(truth[i]))) << CodecKindName(k) << " " << t;
      }
      for (float r : ef.residual()) max_residual = std::max(max_residual, static_cast<double>(std::fabs(r)));
    }
    // The residual stays bounded while the sums random-walk (about sqrt(200) = 14 per element).
    EXPECT_LT(max_residual, k == CodecKind::kQuant4 ? 2.0 : 60.0) << CodecKindName(k);
    double err_ef = 0, err_plain = 0;
    for (size_t i = 0; i < n; ++i) err_ef += std::fabs(sent[i] - truth[i]);
    // Without error feedback top-k loses what it drops for good.
    if (k == CodecKind::kTopK) {
      std::vector<double> plain(n, 0.0);
      for (int t = 0; t < 200; ++t) {
        auto dec = DecodeGradient(*EncodeGradient(Gaussian(n, 100 + static_cast<uint64_t>(t)), Kind(k, 0.02, 128)));
        for (size_t i = 0; i < n; ++i) plain[i] += (*dec)[i];
      }
      for (size_t i = 0; i < n; ++i) err_plain += std::fabs(plain[i] - truth[i]);
      EXPECT_LT(err_ef, 0.5 * err_plain);
    }
    EXPECT_EQ(ef.steps(), 200u);
  }
}

TEST(GradientCodec, Digest) {
  const std::vector<float> x = Gaussian(1000, 5);
  std::vector<float> y = x;
  EXPECT_EQ(TensorDigest(x), TensorDigest(y));
  y[500] = std::nextafter(y[500], 10.0f);
  EXPECT_NE(TensorDigest(x), TensorDigest(y));
}

// A bucket whose largest value is subnormal: 7 / max overflows a float. Found by the fuzz target
// (UBSan: inf converted to int); the nibbles are now computed in range and decode near zero.
TEST(GradientCodec, SubnormalBucketEncodesInRange) {
  const float tiny = std::numeric_limits<float>::denorm_min();
  const std::vector<float> x = {tiny, 0.0f, -tiny, 0.0f, 3 * tiny, -2 * tiny, 0.0f, tiny};
  auto enc = EncodeGradient(x, Kind(CodecKind::kQuant4, 1, 8));
  ASSERT_TRUE(enc.ok());
  auto dec = DecodeGradient(*enc);
  ASSERT_TRUE(dec.ok());
  ASSERT_EQ(dec->size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_TRUE(std::isfinite((*dec)[i]));
    EXPECT_LE(std::abs((*dec)[i] - x[i]), 1e-40f) << i;
  }
}

TEST(GradientCodec, BadInputIsNamed) {
  std::vector<float> x = Gaussian(100, 6);
  EXPECT_EQ(EncodeGradient({}, CodecOptions{}).error().kind, ErrorKind::kInput);
  x[42] = NAN;
  auto nan = EncodeGradient(x, CodecOptions{});
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.error().message.find("element 42 is NaN"), std::string::npos);
  x[42] = INFINITY;
  EXPECT_NE(EncodeGradient(x, CodecOptions{}).error().message.find("infinite"), std::string::npos);
  x[42] = 1;
  CodecOptions bad;
  bad.bucket = 0;
  EXPECT_EQ(EncodeGradient(x, bad).error().kind, ErrorKind::kUsage);
  bad = Kind(CodecKind::kTopK, 0);
  EXPECT_EQ(EncodeGradient(x, bad).error().kind, ErrorKind::kUsage);
  // Shapes.
  auto enc = EncodeGradient(x, Kind(CodecKind::kTopK, 0.1));
  ASSERT_TRUE(enc.ok());
  std::vector<float> wrong(99);
  EXPECT_NE(DecodeGradient(*enc, wrong).error().message.find("holds 100 elements, the tensor has 99"), std::string::npos);
  ErrorFeedbackEncoder ef(100, CodecOptions{});
  EXPECT_EQ(ef.Encode(wrong).error().kind, ErrorKind::kInput);
  // Cut, forged and foreign buffers.
  std::vector<uint8_t> cut(enc->begin(), enc->end() - 3);
  EXPECT_NE(DecodeGradient(cut).error().message.find("value bytes expected"), std::string::npos);
  std::vector<uint8_t> head(enc->begin(), enc->begin() + 10);
  EXPECT_NE(DecodeGradient(head).error().message.find("cut short"), std::string::npos);
  std::vector<uint8_t> magic = *enc;
  magic[0] = 'X';
  EXPECT_NE(DecodeGradient(magic).error().message.find("at byte 0"), std::string::npos);
  std::vector<uint8_t> kind = *enc;
  kind[5] = 9;
  EXPECT_NE(DecodeGradient(kind).error().message.find("unknown codec kind"), std::string::npos);
  std::vector<uint8_t> zero_delta = *enc;
  zero_delta[26 + 1] = 0;  // the second index delta
  EXPECT_FALSE(DecodeGradient(zero_delta).ok());
  std::vector<uint8_t> big_k = *enc;
  const uint64_t k = 1000;
  std::memcpy(big_k.data() + 14, &k, 8);
  EXPECT_NE(DecodeGradient(big_k).error().message.find("kept count"), std::string::npos);
}

}  // namespace gradient_codec_test
}  // namespace toposcope::act::training
