// formats/rdma/roce_packet: RoCEv2 (InfiniBand transport over UDP 4791) packet headers, decoded from one
// captured link-layer frame and encoded back into an Ethernet frame for the simulator's captures.
//
// Decoded stack: [Ethernet [802.1Q / QinQ 0x88a8 ...] | Linux SLL | SLL2 | raw IP | BSD loopback]
// -> IPv4 (any IHL) or IPv6 (hop-by-hop, routing, destination-options, fragment and AH extension
// headers skipped) -> UDP dst 4791 -> BTH -> the opcode's extension headers (RETH, AETH, DETH,
// ImmDt, IETH, AtomicETH, AtomicAckETH; CNP 0x81) -> payload -> pad -> ICRC (4 B).
// Opcodes and header layouts: IBTA vol 1 Table 38 as restated in DOMAIN.md section 5 (Linux
// include/rdma/ib_pack.h). RD transport (0x40-0x5f) and opcodes not in that table (0x15, 0x18-0x1f,
// the IBTA 1.5 FLUSH/ATOMIC WRITE 0x1c/0x1d, 0xc0-0xff vendor range) are reported as malformed.
// RoCEv1 (ethertype 0x8915) is not RoCEv2 and is counted as not-RoCE.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/ip_address.h"

namespace toposcope::formats {

inline constexpr uint16_t kRoceV2UdpPort = 4791;

// pcap link types understood by DecodeRoceFrame (values as libpcap's pcap_datalink() returns them).
inline constexpr int kDltNull = 0;         // BSD loopback: 4-byte host-order address family
inline constexpr int kDltEn10Mb = 1;       // Ethernet
inline constexpr int kDltRaw = 12;         // raw IP (libpcap maps LINKTYPE_RAW 101 to this)
inline constexpr int kDltRawOpenBsd = 14;  // raw IP on OpenBSD
inline constexpr int kLinktypeRaw = 101;   // raw IP as stored in a file
inline constexpr int kDltLinuxSll = 113;   // Linux cooked v1 (16-byte header)
inline constexpr int kDltIpv4 = 228;       // raw IPv4
inline constexpr int kDltIpv6 = 229;       // raw IPv6
inline constexpr int kDltLinuxSll2 = 276;  // Linux cooked v2 (20-byte header)

// BTH opcodes (transport base | operation). Names follow Linux ib_pack.h.
namespace roce_op {
inline constexpr uint8_t kSendFirst = 0x00, kSendMiddle = 0x01, kSendLast = 0x02, kSendLastImm = 0x03,
                         kSendOnly = 0x04, kSendOnlyImm = 0x05, kWriteFirst = 0x06, kWriteMiddle = 0x07,
                         kWriteLast = 0x08, kWriteLastImm = 0x09, kWriteOnly = 0x0a, kWriteOnlyImm = 0x0b,
                         kReadRequest = 0x0c, kReadResponseFirst = 0x0d, kReadResponseMiddle = 0x0e,
                         kReadResponseLast = 0x0f, kReadResponseOnly = 0x10, kAcknowledge = 0x11,
                         kAtomicAcknowledge = 0x12, kCompareSwap = 0x13, kFetchAdd = 0x14,
                         kSendLastInv = 0x16, kSendOnlyInv = 0x17;
inline constexpr uint8_t kRc = 0x00, kUc = 0x20, kRd = 0x40, kUd = 0x60;  // transport bases
inline constexpr uint8_t kCnp = 0x81;  // RoCEv2 congestion notification packet
}  // namespace roce_op

enum class RoceTransport : uint8_t { kRc, kUc, kRd, kUd, kCnp, kUnknown };

struct RocePacket {
  int64_t ts_ns = 0;  // capture timestamp (ns since epoch)
  uint32_t wire_len = 0, cap_len = 0;
  int capture_index = 0;           // which input capture (set by the caller/reader)
  std::vector<uint16_t> vlan_ids;  // 12-bit VLAN ids, outer first (802.1Q 0x8100 / QinQ 0x88a8)
  IpAddress src_ip, dst_ip;
  uint8_t ip_dscp = 0;
  bool ip_ecn_ce = false;      // ECN field == 11 (congestion experienced)
  uint8_t ip_ecn = 0;          // the 2 ECN bits as on the wire (decode); encode writes 3 when
                               // ip_ecn_ce, else this value
  uint8_t ip_ttl = 64;         // IPv4 TTL / IPv6 hop limit
  uint16_t ip_id = 0;          // IPv4 identification (covered by the ICRC); 0 for IPv6
  uint32_t ip_flow_label = 0;  // IPv6 flow label (20 bit); 0 for IPv4
  uint16_t udp_src_port = 0, udp_dst_port = 0;  // encode: dst 0 means 4791
  // BTH
  uint8_t opcode = 0;
  bool solicited = false, mig_req = false;
  uint8_t pad_count = 0, tver = 0;
  uint16_t pkey = 0;
  bool fecn = false, becn = false;
  uint32_t dest_qp = 0;  // 24 bit
  bool ack_req = false;
  uint32_t psn = 0;  // 24 bit, wraps
  // Extension headers; has_X is true only when the header was captured in full.
  bool has_reth = false;
  uint64_t reth_va = 0;
  uint32_t reth_rkey = 0, reth_dma_len = 0;
  bool has_aeth = false;
  uint8_t aeth_syndrome = 0;
  uint32_t aeth_msn = 0;  // 24 bit
  bool has_deth = false;
  uint32_t deth_qkey = 0, deth_src_qp = 0;  // src QP 24 bit
  bool has_imm = false;
  uint32_t imm_data = 0;  // as on the wire, big-endian read
  bool has_ieth = false;
  uint32_t ieth_rkey = 0;
  bool has_atomic_eth = false;
  uint64_t atomic_va = 0;
  uint32_t atomic_rkey = 0;
  uint64_t atomic_swap_add = 0, atomic_compare = 0;
  bool has_atomic_ack_eth = false;
  uint64_t atomic_ack_orig = 0;
  // RDMA payload (excluding headers, pad and ICRC), from the wire lengths (UDP length) even when
  // the frame was truncated by the snaplen.
  uint32_t payload_bytes = 0;
  bool truncated = false;  // cut by snaplen: fields beyond cap_len left default
  enum class Icrc : uint8_t { kNotChecked, kOk, kBad, kMissing } icrc = Icrc::kNotChecked;
  uint32_t icrc_wire = 0;  // the captured ICRC, as ComputeIcrc returns it (0 when not captured)
};

// Transport of an opcode: RC 0x00-0x1f, UC 0x20-0x3f, RD 0x40-0x5f, UD 0x60-0x7f, CNP 0x81;
// kUnknown otherwise (whether or not the operation inside the range is defined).
RoceTransport TransportOf(uint8_t opcode);
// "RC", "UC", "RD", "UD", "CNP", "unknown".
std::string_view TransportName(RoceTransport t);
// A human name: the transport, then the IBTA operation, e.g. "RC RDMA READ Request",
// "UC RDMA WRITE Only with Immediate", "UD SEND Only", "RC Acknowledge", "RC ATOMIC Acknowledge",
// "RC CmpSwap", "RC FetchAdd", "RC SEND Last with Invalidate", "CNP"; "reserved 0xNN" style
// "Unknown" for opcodes this module does not decode.
std::string_view OpcodeName(uint8_t opcode);
// True when DecodeRoceFrame decodes this opcode (RC/UC/UD operations valid for the transport, CNP).
bool IsKnownOpcode(uint8_t opcode);
// Bytes of extension headers after the BTH for a known opcode (RETH 16, AETH 4, DETH 8, ImmDt 4,
// IETH 4, AtomicETH 28, AtomicAckETH 8, CNP 16 reserved); -1 for an unknown opcode.
int ExtensionHeaderBytes(uint8_t opcode);
// RC ACKNOWLEDGE (0x11) only.
bool IsAck(uint8_t opcode);
// Responder-to-requester packets: RC READ RESPONSE First..Only, ACKNOWLEDGE, ATOMIC ACKNOWLEDGE.
bool IsResponse(uint8_t opcode);
// An AETH whose syndrome is a NAK (bits 7:5 == 011; 0x60 = PSN sequence error).
bool IsNak(const RocePacket& p);
// An AETH whose syndrome is an RNR NAK (bits 7:5 == 001).
bool IsRnrNak(const RocePacket& p);
// Requester packets: a known RC/UC/UD opcode that is not a response (SEND, WRITE, READ request,
// atomics). CNP is not a request.
bool IsRequest(uint8_t opcode);

enum class FrameVerdict { kRoce, kNotRoce, kMalformed };
struct FrameDecode {
  FrameVerdict verdict = FrameVerdict::kNotRoce;
  std::string reason;  // why not RoCE / what is malformed; empty for kRoce
};

// Decodes one captured frame of link type `dlt` (kDltEn10Mb, kDltRaw/kLinktypeRaw/kDltRawOpenBsd,
// kDltIpv4, kDltIpv6, kDltLinuxSll, kDltLinuxSll2, kDltNull). `wire_len` is the original frame
// length (>= frame.size()). Fills `out` (ts_ns and capture_index are left as they are; every other
// field is reset) and returns:
//  - kRoce: a RoCEv2 packet (maybe truncated by the snaplen after the BTH: truncated = true);
//  - kNotRoce: anything else (other ethertypes, non-UDP, UDP to another port, later IP fragments,
//    unsupported link type), with a short reason;
//  - kMalformed: UDP to 4791 whose BTH is cut or invalid (unknown/reserved opcode, TVer != 0,
//    UDP/IP lengths too short for BTH + headers + ICRC, first IP fragment), or a frame cut before
//    its UDP header, or a broken IP header; with the reason.
// With check_icrc the ICRC is recomputed (kOk/kBad; kMissing when the frame is truncated).
FrameDecode DecodeRoceFrame(std::span<const uint8_t> frame, uint32_t wire_len, int dlt, bool check_icrc,
                            RocePacket* out);

// Builds an Ethernet [802.1Q tags: 0x88a8 outer + 0x8100 inner when there are two or more] /
// IPv4 (DF, id ip_id, checksum) or IPv6 (by src_ip) / UDP (src udp_src_port, dst udp_dst_port or 4791;
// checksum 0 for IPv4, computed for IPv6) / BTH / the extension headers of p.opcode (taken from
// p's fields whatever its has_X flags say) / payload_bytes zero bytes / pad_count zero bytes /
// ICRC. The frame has no FCS. Unknown opcodes are encoded as BTH-only. Deterministic.
std::vector<uint8_t> EncodeRoceFrame(const RocePacket& p, const uint8_t src_mac[6], const uint8_t dst_mac[6]);

// RoCEv2 ICRC over an IP packet from its first IP header byte up to (not including) the ICRC:
// CRC-32 (zlib's crc32) of 8 bytes 0xff (the masked LRH) + the packet with the variant fields
// masked to 1s (IPv4 TOS, TTL, header checksum; IPv6 traffic class, flow label, hop limit; UDP
// checksum; BTH byte 4 = FECN/BECN/reserved). `udp_offset` is where the UDP header starts (0 =
// derive: IHL*4 for IPv4, 40 for IPv6). On the wire the value is stored least-significant byte
// first (so Wireshark's infiniband.invariant.crc shows it byte-swapped). Returns 0 when the span
// is too short to hold IP + UDP + BTH.
uint32_t ComputeIcrc(std::span<const uint8_t> frame_from_ip_header, size_t udp_offset = 0);

}  // namespace toposcope::formats
