// base/varint: LEB128 unsigned varints (7 bits a byte, lowest first, the top bit set on every byte
// but the last) and zigzag for signed values, as protobuf writes them: the one coding behind the
// Perfetto trace writer, the gradient codec's index deltas and the MPI parts' packed DCGM traces.
#pragma once

#include <cstdint>

namespace toposcope {

inline constexpr int kMaxVarintBytes = 10;

// Writes `v` at `p` (at most kMaxVarintBytes) and returns the byte after it.
inline uint8_t* PutVarint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

// Appends `v` to a byte container (std::string, std::vector<uint8_t>).
template <class Bytes>
void AppendVarint(Bytes& out, uint64_t v) {
  uint8_t buf[kMaxVarintBytes];
  const uint8_t* end = PutVarint(buf, v);
  out.insert(out.end(), static_cast<const uint8_t*>(buf), end);
}

// Reads one varint from [p, end) into *v and moves p past it; false (p anywhere) when it is cut
// short or longer than kMaxVarintBytes.
inline bool GetVarint(const uint8_t*& p, const uint8_t* end, uint64_t* v) {
  uint64_t out = 0;
  for (int shift = 0; shift < 7 * kMaxVarintBytes; shift += 7) {
    if (p == end) return false;
    const uint8_t b = *p++;
    out |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (b < 0x80) {
      *v = out;
      return true;
    }
  }
  return false;
}

// Signed values with small magnitudes to small unsigned ones: 0, -1, 1, -2 ... -> 0, 1, 2, 3 ...
inline uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
inline int64_t UnZigZag(uint64_t z) { return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1)); }

}  // namespace toposcope
