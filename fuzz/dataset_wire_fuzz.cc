// libFuzzer target for model/dataset_wire (the shard bytes rank 0 reads from the other MPI ranks):
// any bytes decode to a part or to an error, never a crash; a decoded part encodes to bytes that
// decode again and encode to the same bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/model/dataset_wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope::model;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto part = PartFromWire(bytes, "fuzz");
  if (!part.ok()) return 0;
  const std::string again = PartToWire(*part);
  auto back = PartFromWire(again, "fuzz-rewritten");
  if (!back.ok()) __builtin_trap();
  if (PartToWire(*back) != again) __builtin_trap();
  return 0;
}
