// libFuzzer target for the gradient codec's decoder (act/training/gradient_codec): any byte buffer
// either decodes into exactly the element count its header names or is refused with a reason; a
// decoded tensor re-encodes (4-bit) and decodes again to the same size. Never crashes, never reads
// past the buffer.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "toposcope/act/training/gradient_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope::act::training;
  const std::span<const uint8_t> bytes(data, size);
  auto n = EncodedElements(bytes);
  if (!n.ok()) {
    if (n.error().message.empty()) __builtin_trap();
    return 0;
  }
  if (*n > (1u << 22)) return 0;  // the header may name 4G elements; keep the harness's memory small
  std::vector<float> out(*n);
  if (toposcope::Status st = DecodeGradient(bytes, out); !st.ok()) {
    if (st.error().message.empty()) __builtin_trap();
    return 0;
  }
  bool finite = true;
  for (float v : out) finite = finite && std::isfinite(v);
  if (!finite) return 0;  // a forged scale or float value may overflow; encoding refuses those
  auto again = EncodeGradient(out, CodecOptions{});
  if (!again.ok()) __builtin_trap();
  auto back = DecodeGradient(*again);
  if (!back.ok() || back->size() != out.size()) __builtin_trap();
  return 0;
}
