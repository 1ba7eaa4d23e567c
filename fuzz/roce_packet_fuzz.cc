// libFuzzer target for the RoCEv2 frame decoder. The first byte picks the link type, the rest is the
// frame. Invariants: a verdict other than kRoce carries a reason; a decoded packet has 24-bit QP/PSN,
// and (when not truncated) encodes and decodes again to the same BTH and extension fields with a valid
// ICRC.
#include <cstddef>
#include <cstdint>
#include <span>

#include "toposcope/formats/rdma/roce_packet.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope::formats;
  if (size < 1) return 0;
  static const int kDlts[] = {kDltEn10Mb, kDltRaw,  kDltLinuxSll, kDltLinuxSll2,
                              kDltNull,   kDltIpv4, kDltIpv6,     999};
  const int dlt = kDlts[data[0] % 8];
  const std::span<const uint8_t> frame(data + 1, size - 1);
  const uint32_t wire = static_cast<uint32_t>(frame.size() + (data[0] >> 3));
  RocePacket p;
  const FrameDecode d = DecodeRoceFrame(frame, wire, dlt, true, &p);
  if ((d.verdict == FrameVerdict::kRoce) != d.reason.empty()) __builtin_trap();
  if (d.verdict != FrameVerdict::kRoce) return 0;
  if (p.dest_qp > 0xffffff || p.psn > 0xffffff || !IsKnownOpcode(p.opcode)) __builtin_trap();
  if (p.cap_len > p.wire_len) __builtin_trap();
  if (p.truncated || p.payload_bytes > 9000) return 0;
  if (p.src_ip.is_v6() != p.dst_ip.is_v6()) __builtin_trap();
  const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
  const auto again = EncodeRoceFrame(p, mac, mac);
  RocePacket q;
  if (DecodeRoceFrame(again, static_cast<uint32_t>(again.size()), kDltEn10Mb, true, &q).verdict !=
      FrameVerdict::kRoce) {
    __builtin_trap();
  }
  if (q.icrc != RocePacket::Icrc::kOk) __builtin_trap();
  if (q.opcode != p.opcode || q.dest_qp != p.dest_qp || q.psn != p.psn || q.pkey != p.pkey ||
      q.payload_bytes != p.payload_bytes || q.pad_count != p.pad_count || q.vlan_ids != p.vlan_ids ||
      q.src_ip != p.src_ip || q.dst_ip != p.dst_ip || q.has_reth != p.has_reth || q.reth_va != p.reth_va ||
      q.has_aeth != p.has_aeth || q.aeth_msn != p.aeth_msn || q.deth_src_qp != p.deth_src_qp ||
      q.imm_data != p.imm_data || q.atomic_compare != p.atomic_compare) {
    __builtin_trap();
  }
  return 0;
}
