// An Ethernet/IPv4/UDP RoCEv2 frame for the capture tests (shared by the tests in
// tests/formats/rdma/): 10.0.0.1 -> 10.0.0.2, UDP source port 0xc000, the given BTH opcode,
// destination QP and PSN, and `payload` bytes of payload.
#pragma once

#include <cstdint>
#include <vector>

#include "toposcope/formats/rdma/roce_packet.h"

namespace toposcope::formats {

inline std::vector<uint8_t> TestRoceFrame(uint8_t opcode, uint32_t qp, uint32_t psn, uint32_t payload = 100) {
  static const uint8_t kSrc[6] = {0x02, 0, 0, 0, 0, 1};
  static const uint8_t kDst[6] = {0x02, 0, 0, 0, 0, 2};
  RocePacket p;
  p.src_ip = IpAddress::V4(0x0a000001u);
  p.dst_ip = IpAddress::V4(0x0a000002u);
  p.udp_src_port = 0xc000;
  p.opcode = opcode;
  p.dest_qp = qp;
  p.psn = psn;
  p.payload_bytes = payload;
  return EncodeRoceFrame(p, kSrc, kDst);
}

}  // namespace toposcope::formats
