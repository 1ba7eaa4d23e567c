// libFuzzer target for the pcap/pcapng capture reader (through libpcap over fmemopen): the reader
// never crashes, its counts balance (read = roce + not_roce + malformed [+ 1 broken record]), every
// rejection is in Diagnostics and every packet handed to the sink is RoCE with 24-bit fields.
#include <cstddef>
#include <cstdint>
#include <span>

#include "toposcope/formats/rdma/pcap_capture.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  Diagnostics diag;
  int64_t sunk = 0;
  auto r = formats::ReadCaptureBytes(
      std::span<const uint8_t>(data, size), "fuzz",
      [&](const formats::RocePacket& p) {
        ++sunk;
        if (p.dest_qp > 0xffffff || p.psn > 0xffffff || !formats::IsKnownOpcode(p.opcode)) __builtin_trap();
      },
      diag, {.check_icrc = (size % 2) == 0, .capture_index = 1});
  if (!r.ok()) {
    if (sunk != 0 || diag.rejected_total() != 0) __builtin_trap();
    return 0;
  }
  const auto& s = *r;
  if (!s.counts.Balanced() || s.counts.read != s.records) __builtin_trap();
  if (s.counts.accepted != s.roce + s.not_roce) __builtin_trap();
  if (s.counts.rejected != s.malformed + (s.broke_off ? 1 : 0)) __builtin_trap();
  if (diag.rejected_total() != s.counts.rejected) __builtin_trap();
  if (sunk != s.roce) __builtin_trap();
  return 0;
}
