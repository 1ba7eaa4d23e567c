// libFuzzer target for the pcap/pcapng capture reader: the reader never crashes, its counts balance
// (read = roce + not_roce + malformed [+ 1 broken record]), every rejection is in Diagnostics, every
// packet handed to the sink is RoCE with 24-bit fields, and a classic pcap walked in place reads
// exactly as it does through libpcap (same counts, timestamps, packets and diagnostics).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "toposcope/formats/rdma/pcap_capture.h"

namespace {

// Everything one reading yields, folded into a few numbers.
struct Reading {
  bool ok = false;
  std::string error;
  int64_t records = 0, roce = 0, not_roce = 0, malformed = 0, truncated = 0, icrc_bad = 0, bytes = 0;
  bool broke_off = false;
  int64_t first_ts = 0, last_ts = 0;
  uint64_t packets_hash = 0;
  std::string diagnostics;
  bool operator==(const Reading&) const = default;
};

// Reads the bytes (in place, or through libpcap) and checks the reading's own invariants.
Reading Read(const uint8_t* data, size_t size, bool through_libpcap) {
  using namespace toposcope;
  Reading out;
  Diagnostics diag;
  int64_t sunk = 0;
  auto r = formats::ReadCaptureBytes(
      std::span<const uint8_t>(data, size), "fuzz",
      [&](const formats::RocePacket& p) {
        ++sunk;
        if (p.dest_qp > 0xffffff || p.psn > 0xffffff || !formats::IsKnownOpcode(p.opcode)) __builtin_trap();
        for (const uint64_t v : {static_cast<uint64_t>(p.ts_ns), uint64_t{p.dest_qp}, uint64_t{p.psn},
                                 uint64_t{p.opcode}, uint64_t{p.cap_len}, uint64_t{p.wire_len}}) {
          out.packets_hash = (out.packets_hash ^ v) * 0x100000001b3ull;
        }
      },
      diag, {.check_icrc = (size % 2) == 0, .capture_index = 1, .through_libpcap = through_libpcap});
  out.ok = r.ok();
  if (!r.ok()) {
    if (sunk != 0 || diag.rejected_total() != 0) __builtin_trap();
    out.error = r.error().message;
    return out;
  }
  const auto& s = *r;
  if (!s.counts.Balanced() || s.counts.read != s.records) __builtin_trap();
  if (s.counts.accepted != s.roce + s.not_roce) __builtin_trap();
  if (s.counts.rejected != s.malformed + (s.broke_off ? 1 : 0)) __builtin_trap();
  if (diag.rejected_total() != s.counts.rejected) __builtin_trap();
  if (sunk != s.roce) __builtin_trap();
  out.records = s.records;
  out.roce = s.roce;
  out.not_roce = s.not_roce;
  out.malformed = s.malformed;
  out.truncated = s.truncated;
  out.icrc_bad = s.icrc_bad;
  out.bytes = s.bytes_read;
  out.broke_off = s.broke_off;
  out.first_ts = s.first_ts_ns;
  out.last_ts = s.last_ts_ns;
  for (const Diagnostic& d : diag.items()) {
    out.diagnostics += std::to_string(d.byte_offset) + " " + d.raw + " " + d.reason + "\n";
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!(Read(data, size, false) == Read(data, size, true))) __builtin_trap();
  return 0;
}
