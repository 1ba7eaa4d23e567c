// formats/rdma/roce_packet: see roce_packet.h.
#include "toposcope/formats/rdma/roce_packet.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "toposcope/base/text.h"

namespace toposcope::formats {
namespace {

// Extension-header bits of an opcode.
enum : uint16_t {
  kHdrKnown = 1u << 0,
  kHdrReth = 1u << 1,
  kHdrAeth = 1u << 2,
  kHdrDeth = 1u << 3,
  kHdrImm = 1u << 4,
  kHdrIeth = 1u << 5,
  kHdrAtomic = 1u << 6,
  kHdrAtomicAck = 1u << 7,
  kHdrCnp = 1u << 8,
};

constexpr int kBthBytes = 12, kRethBytes = 16, kAethBytes = 4, kDethBytes = 8, kImmBytes = 4, kIethBytes = 4,
              kAtomicBytes = 28, kAtomicAckBytes = 8, kCnpBytes = 16, kIcrcBytes = 4;

// Headers of the RC operation codes 0x00-0x17 (IBTA vol 1 Table 38; DOMAIN.md 5.1).
constexpr std::array<uint16_t, 0x18> kRcHeaders = {
    kHdrKnown,                             // 0x00 SEND First
    kHdrKnown,                             // 0x01 SEND Middle
    kHdrKnown,                             // 0x02 SEND Last
    kHdrKnown | kHdrImm,                   // 0x03 SEND Last with Immediate
    kHdrKnown,                             // 0x04 SEND Only
    kHdrKnown | kHdrImm,                   // 0x05 SEND Only with Immediate
    kHdrKnown | kHdrReth,                  // 0x06 RDMA WRITE First
    kHdrKnown,                             // 0x07 RDMA WRITE Middle
    kHdrKnown,                             // 0x08 RDMA WRITE Last
    kHdrKnown | kHdrImm,                   // 0x09 RDMA WRITE Last with Immediate
    kHdrKnown | kHdrReth,                  // 0x0a RDMA WRITE Only
    kHdrKnown | kHdrReth | kHdrImm,        // 0x0b RDMA WRITE Only with Immediate
    kHdrKnown | kHdrReth,                  // 0x0c RDMA READ Request
    kHdrKnown | kHdrAeth,                  // 0x0d RDMA READ Response First
    kHdrKnown,                             // 0x0e RDMA READ Response Middle
    kHdrKnown | kHdrAeth,                  // 0x0f RDMA READ Response Last
    kHdrKnown | kHdrAeth,                  // 0x10 RDMA READ Response Only
    kHdrKnown | kHdrAeth,                  // 0x11 Acknowledge
    kHdrKnown | kHdrAeth | kHdrAtomicAck,  // 0x12 ATOMIC Acknowledge
    kHdrKnown | kHdrAtomic,                // 0x13 CmpSwap
    kHdrKnown | kHdrAtomic,                // 0x14 FetchAdd
    0,                                     // 0x15 reserved
    kHdrKnown | kHdrIeth,                  // 0x16 SEND Last with Invalidate
    kHdrKnown | kHdrIeth,                  // 0x17 SEND Only with Invalidate
};

constexpr std::array<const char*, 0x18> kOpNames = {
    "SEND First",
    "SEND Middle",
    "SEND Last",
    "SEND Last with Immediate",
    "SEND Only",
    "SEND Only with Immediate",
    "RDMA WRITE First",
    "RDMA WRITE Middle",
    "RDMA WRITE Last",
    "RDMA WRITE Last with Immediate",
    "RDMA WRITE Only",
    "RDMA WRITE Only with Immediate",
    "RDMA READ Request",
    "RDMA READ Response First",
    "RDMA READ Response Middle",
    "RDMA READ Response Last",
    "RDMA READ Response Only",
    "Acknowledge",
    "ATOMIC Acknowledge",
    "CmpSwap",
    "FetchAdd",
    "reserved",
    "SEND Last with Invalidate",
    "SEND Only with Invalidate",
};

uint16_t HeadersOf(uint8_t opcode) {
  if (opcode == roce_op::kCnp) return kHdrKnown | kHdrCnp;
  const uint8_t op = opcode & 0x1f;
  switch (opcode & 0xe0) {
    case roce_op::kRc:
      return op < kRcHeaders.size() ? kRcHeaders[op] : 0;
    case roce_op::kUc:
      return op <= 0x0b ? kRcHeaders[op] : 0;  // SEND and RDMA WRITE only
    case roce_op::kUd:
      if (op == 0x04) return kHdrKnown | kHdrDeth;
      if (op == 0x05) return kHdrKnown | kHdrDeth | kHdrImm;
      return 0;
    default:
      return 0;  // RD, CNP range other than 0x81, vendor opcodes
  }
}

int BytesOf(uint16_t h) {
  int n = 0;
  if (h & kHdrReth) n += kRethBytes;
  if (h & kHdrAeth) n += kAethBytes;
  if (h & kHdrDeth) n += kDethBytes;
  if (h & kHdrImm) n += kImmBytes;
  if (h & kHdrIeth) n += kIethBytes;
  if (h & kHdrAtomic) n += kAtomicBytes;
  if (h & kHdrAtomicAck) n += kAtomicAckBytes;
  if (h & kHdrCnp) n += kCnpBytes;
  return n;
}

uint16_t Be16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
uint32_t Be24(const uint8_t* p) { return (uint32_t{p[0]} << 16) | (uint32_t{p[1]} << 8) | p[2]; }
uint32_t Be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}
uint64_t Be64(const uint8_t* p) { return (uint64_t{Be32(p)} << 32) | Be32(p + 4); }
uint32_t Le32(const uint8_t* p) {
  return (uint32_t{p[3]} << 24) | (uint32_t{p[2]} << 16) | (uint32_t{p[1]} << 8) | p[0];
}

// Writes big-endian fields into a buffer sized in advance.
struct Cursor {
  uint8_t* at;
  void U8(uint8_t x) { *at++ = x; }
  void U16(uint16_t x) {
    U8(static_cast<uint8_t>(x >> 8));
    U8(static_cast<uint8_t>(x));
  }
  void U24(uint32_t x) {
    U8(static_cast<uint8_t>(x >> 16));
    U16(static_cast<uint16_t>(x));
  }
  void U32(uint32_t x) {
    U16(static_cast<uint16_t>(x >> 16));
    U16(static_cast<uint16_t>(x));
  }
  void U64(uint64_t x) {
    U32(static_cast<uint32_t>(x >> 32));
    U32(static_cast<uint32_t>(x));
  }
  void Bytes(const uint8_t* b, size_t n) {
    std::memcpy(at, b, n);
    at += n;
  }
  void Zeros(size_t n) {
    std::memset(at, 0, n);
    at += n;
  }
};

std::string Hex(uint32_t v, int width) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", width, v);
  return buf;
}

FrameDecode NotRoce(std::string reason) { return {FrameVerdict::kNotRoce, std::move(reason)}; }
FrameDecode Malformed(std::string reason) { return {FrameVerdict::kMalformed, std::move(reason)}; }

void ResetPacket(RocePacket* out) {
  const int64_t ts = out->ts_ns;
  const int index = out->capture_index;
  std::vector<uint16_t> vlans = std::move(out->vlan_ids);
  vlans.clear();
  *out = RocePacket{};
  out->ts_ns = ts;
  out->capture_index = index;
  out->vlan_ids = std::move(vlans);
  out->ip_ttl = 0;
}

// One's-complement sum (RFC 1071) of bytes, continuing from `sum`.
uint32_t CsumAdd(uint32_t sum, const uint8_t* p, size_t n) {
  for (size_t i = 0; i + 1 < n; i += 2) sum += Be16(p + i);
  if (n % 2) sum += uint32_t{p[n - 1]} << 8;
  return sum;
}
uint16_t CsumFold(uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

}  // namespace

RoceTransport TransportOf(uint8_t opcode) {
  if (opcode == roce_op::kCnp) return RoceTransport::kCnp;
  switch (opcode & 0xe0) {
    case roce_op::kRc:
      return RoceTransport::kRc;
    case roce_op::kUc:
      return RoceTransport::kUc;
    case roce_op::kRd:
      return RoceTransport::kRd;
    case roce_op::kUd:
      return RoceTransport::kUd;
    default:
      return RoceTransport::kUnknown;
  }
}

std::string_view TransportName(RoceTransport t) {
  static constexpr NamedValue<RoceTransport> kNames[] = {
      {RoceTransport::kRc, "RC"}, {RoceTransport::kUc, "UC"}, {RoceTransport::kRd, "RD"},
      {RoceTransport::kUd, "UD"}, {RoceTransport::kCnp, "CNP"}};
  return NameIn(kNames, t, "unknown");
}

std::string_view OpcodeName(uint8_t opcode) {
  static const std::array<std::string, 256> kNames = [] {
    std::array<std::string, 256> names;
    for (int i = 0; i < 256; ++i) {
      const auto op = static_cast<uint8_t>(i);
      if (op == roce_op::kCnp) {
        names[i] = "CNP";
      } else if (HeadersOf(op) & kHdrKnown) {
        names[i] = std::string(TransportName(TransportOf(op))) + " " + kOpNames[op & 0x1f];
      } else {
        names[i] = "Unknown";
      }
    }
    return names;
  }();
  return kNames[opcode];
}

bool IsKnownOpcode(uint8_t opcode) { return (HeadersOf(opcode) & kHdrKnown) != 0; }

int ExtensionHeaderBytes(uint8_t opcode) {
  const uint16_t h = HeadersOf(opcode);
  return (h & kHdrKnown) ? BytesOf(h) : -1;
}

bool IsAck(uint8_t opcode) { return opcode == roce_op::kAcknowledge; }

bool IsResponse(uint8_t opcode) {
  return opcode >= roce_op::kReadResponseFirst && opcode <= roce_op::kAtomicAcknowledge;
}

bool IsNak(const RocePacket& p) { return p.has_aeth && (p.aeth_syndrome & 0xe0) == 0x60; }
bool IsRnrNak(const RocePacket& p) { return p.has_aeth && (p.aeth_syndrome & 0xe0) == 0x20; }

bool IsRequest(uint8_t opcode) {
  return IsKnownOpcode(opcode) && opcode != roce_op::kCnp && !IsResponse(opcode);
}

uint32_t ComputeIcrc(std::span<const uint8_t> ip, size_t udp_offset) {
  if (ip.empty()) return 0;
  const int version = ip[0] >> 4;
  if (version != 4 && version != 6) return 0;
  if (udp_offset == 0) udp_offset = version == 4 ? size_t{ip[0] & 0x0fu} * 4 : 40;
  if (udp_offset < (version == 4 ? 20u : 40u)) return 0;
  const size_t masked_end = udp_offset + 8 + kBthBytes;
  if (ip.size() < masked_end) return 0;

  static const uint8_t kOnes[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  uLong crc = crc32(0L, kOnes, 8);
  // Masked copy of IP + UDP + BTH, fed in chunks so that long IPv6 extension chains need no heap.
  std::array<uint8_t, 256> buf;
  size_t pos = 0;
  while (pos < masked_end) {
    const size_t n = std::min(buf.size(), masked_end - pos);
    std::memcpy(buf.data(), ip.data() + pos, n);
    auto mask = [&](size_t at, uint8_t value) {
      if (at >= pos && at < pos + n) buf[at - pos] = value;
    };
    if (version == 4) {
      mask(1, 0xff);   // TOS
      mask(8, 0xff);   // TTL
      mask(10, 0xff);  // header checksum
      mask(11, 0xff);
    } else {
      mask(0, static_cast<uint8_t>((ip[0] & 0xf0) | 0x0f));  // traffic class + flow label
      mask(1, 0xff);
      mask(2, 0xff);
      mask(3, 0xff);
      mask(7, 0xff);  // hop limit
    }
    mask(udp_offset + 6, 0xff);  // UDP checksum
    mask(udp_offset + 7, 0xff);
    mask(udp_offset + 8 + 4, 0xff);  // BTH FECN/BECN/reserved
    crc = crc32(crc, buf.data(), static_cast<uInt>(n));
    pos += n;
  }
  crc = crc32(crc, ip.data() + masked_end, static_cast<uInt>(ip.size() - masked_end));
  return static_cast<uint32_t>(crc);
}

namespace {

// A link-layer header of fixed length with the ethertype at a fixed offset.
struct FixedLinkHeader {
  int dlt;
  size_t bytes;
  size_t ethertype_at;
  const char* name;  // for "shorter than <name> header"
};
constexpr FixedLinkHeader kFixedLinkHeaders[] = {
    {kDltEn10Mb, 14, 12, "an Ethernet"},
    {kDltLinuxSll, 16, 14, "a Linux SLL"},
    {kDltLinuxSll2, 20, 0, "a Linux SLL2"},
};

// The state the steps of DecodeRoceFrame share: the frame, the packet being filled and where each
// layer starts. Each step returns the verdict that ends the decoding (not RoCE, malformed), or
// nullopt to go on.
struct FrameDecoder {
  const uint8_t* d;
  size_t cap;   // captured bytes
  size_t wire;  // bytes on the wire
  RocePacket* out;
  uint16_t ethertype = 0;
  size_t off = 0;              // where the next layer starts
  size_t ip_off = 0;           // where the IP header starts
  size_t udp_off = 0;          // where the UDP header starts
  size_t ip_payload_wire = 0;  // bytes after the IP headers, by the IP length fields
  size_t roce_wire = 0;        // the UDP payload: BTH to ICRC
  size_t bth_off = 0;          // where the BTH starts
  uint16_t hdrs = 0;           // the extension headers of the opcode

  // Link layer: finds the network-layer protocol and where it starts.
  std::optional<FrameDecode> LinkLayer(int dlt) {
    for (const FixedLinkHeader& h : kFixedLinkHeaders) {
      if (h.dlt != dlt) continue;
      if (cap < h.bytes) {
        return Malformed("frame of " + std::to_string(cap) + " bytes is shorter than " + h.name + " header");
      }
      ethertype = Be16(d + h.ethertype_at);
      off = h.bytes;
      return std::nullopt;
    }
    int raw_version = 0;  // raw IP: taken from the first nibble
    switch (dlt) {
      case kDltNull: {
        if (cap < 4) return Malformed("frame shorter than its 4-byte loopback header");
        const uint32_t le = Le32(d), be = Be32(d);
        if (le == 2 || be == 2) {
          ethertype = 0x0800;
        } else if (le == 10 || le == 24 || le == 28 || le == 30 || be == 10 || be == 24 || be == 28 ||
                   be == 30) {
          ethertype = 0x86dd;
        } else {
          return NotRoce("loopback address family " + std::to_string(le));
        }
        off = 4;
        break;
      }
      case kDltRaw:
      case kDltRawOpenBsd:
      case kLinktypeRaw:
      case kDltIpv4:
      case kDltIpv6:
        if (cap < 1) return Malformed("empty frame");
        raw_version = d[0] >> 4;
        if (raw_version == 4) {
          ethertype = 0x0800;
        } else if (raw_version == 6) {
          ethertype = 0x86dd;
        } else {
          return NotRoce("raw IP version " + std::to_string(raw_version));
        }
        break;
      default:
        return NotRoce("unsupported link type " + std::to_string(dlt));
    }
    return std::nullopt;
  }

  // 802.1Q / QinQ tags (also inside cooked captures that kept them); then only IPv4 or IPv6 go on.
  std::optional<FrameDecode> VlanTags() {
    for (int tags = 0; ethertype == 0x8100 || ethertype == 0x88a8 || ethertype == 0x9100; ++tags) {
      if (tags >= 8) return NotRoce("more than 8 VLAN tags");
      if (cap < off + 4) return Malformed("frame cut inside a VLAN tag");
      out->vlan_ids.push_back(static_cast<uint16_t>(Be16(d + off) & 0x0fff));
      ethertype = Be16(d + off + 2);
      off += 4;
    }
    if (ethertype == 0x8915) return NotRoce("RoCEv1 (ethertype 0x8915)");
    if (ethertype != 0x0800 && ethertype != 0x86dd) return NotRoce("ethertype " + Hex(ethertype, 4));
    ip_off = off;
    return std::nullopt;
  }

  // The IPv4 header: addresses, DSCP/ECN, and where UDP starts.
  std::optional<FrameDecode> Ipv4() {
    if (cap < ip_off + 20) return Malformed("frame cut inside the IPv4 header");
    const uint8_t* ip = d + ip_off;
    if ((ip[0] >> 4) != 4) return Malformed("IPv4 packet with IP version " + std::to_string(ip[0] >> 4));
    const size_t ihl = size_t{ip[0] & 0x0fu} * 4;
    if (ihl < 20) return Malformed("IPv4 IHL " + std::to_string(ihl / 4) + " below 5");
    const size_t total = Be16(ip + 2);
    if (total < ihl)
      return Malformed("IPv4 total length " + std::to_string(total) + " below its header length " +
                       std::to_string(ihl));
    if (ip_off + total > wire)
      return Malformed("IPv4 total length " + std::to_string(total) + " runs past the frame");
    if (ip[9] != 17) return NotRoce("IP protocol " + std::to_string(ip[9]));
    const uint16_t frag = Be16(ip + 6);
    if ((frag & 0x1fff) != 0) return NotRoce("later IPv4 fragment");
    if (cap < ip_off + ihl) return Malformed("frame cut inside the IPv4 options");
    out->ip_dscp = ip[1] >> 2;
    out->ip_ecn = ip[1] & 3;
    out->ip_ttl = ip[8];
    out->ip_id = Be16(ip + 4);
    out->src_ip = IpAddress::V4(ip + 12);
    out->dst_ip = IpAddress::V4(ip + 16);
    udp_off = ip_off + ihl;
    ip_payload_wire = total - ihl;
    if (frag & 0x2000) {
      if (cap >= udp_off + 4 && Be16(d + udp_off + 2) != kRoceV2UdpPort)
        return NotRoce("UDP port " + std::to_string(Be16(d + udp_off + 2)));
      return Malformed("fragmented IPv4 packet (first fragment) to UDP 4791");
    }
    return std::nullopt;
  }

  // The IPv6 header and its extension headers: addresses, traffic class, flow label, and where UDP
  // starts.
  std::optional<FrameDecode> Ipv6() {
    if (cap < ip_off + 40) return Malformed("frame cut inside the IPv6 header");
    const uint8_t* ip = d + ip_off;
    if ((ip[0] >> 4) != 6) return Malformed("IPv6 packet with IP version " + std::to_string(ip[0] >> 4));
    const size_t payload_len = Be16(ip + 4);
    if (ip_off + 40 + payload_len > wire)
      return Malformed("IPv6 payload length " + std::to_string(payload_len) + " runs past the frame");
    const uint8_t tc = static_cast<uint8_t>(((ip[0] & 0x0f) << 4) | (ip[1] >> 4));
    out->ip_dscp = tc >> 2;
    out->ip_ecn = tc & 3;
    out->ip_flow_label = (uint32_t{ip[1] & 0x0fu} << 16) | Be16(ip + 2);
    out->ip_ttl = ip[7];
    out->src_ip = IpAddress::V6(ip + 8);
    out->dst_ip = IpAddress::V6(ip + 24);
    uint8_t next = ip[6];
    size_t pos = ip_off + 40;
    for (int hops = 0; next != 17; ++hops) {
      if (hops >= 16) return NotRoce("more than 16 IPv6 extension headers");
      if (next != 0 && next != 43 && next != 60 && next != 44 && next != 51)
        return NotRoce("IP protocol " + std::to_string(next));
      if (cap < pos + 8) return Malformed("frame cut inside an IPv6 extension header");
      size_t len = 8;
      if (next == 44) {
        if ((Be16(d + pos + 2) & 0xfff8) != 0) return NotRoce("later IPv6 fragment");
        if (Be16(d + pos + 2) & 1) return Malformed("fragmented IPv6 packet (first fragment)");
      } else if (next == 51) {
        len = (size_t{d[pos + 1]} + 2) * 4;
      } else {
        len = (size_t{d[pos + 1]} + 1) * 8;
      }
      next = d[pos];
      pos += len;
      if (pos > ip_off + 40 + payload_len) return Malformed("IPv6 extension headers run past the payload length");
    }
    udp_off = pos;
    ip_payload_wire = ip_off + 40 + payload_len - pos;
    return std::nullopt;
  }

  // The UDP header: ports, and the length of the RoCE payload it carries.
  std::optional<FrameDecode> Udp() {
    if (cap < udp_off + 8) {
      if (cap >= udp_off + 4 && Be16(d + udp_off + 2) != kRoceV2UdpPort)
        return NotRoce("UDP port " + std::to_string(Be16(d + udp_off + 2)));
      return Malformed("frame cut inside the UDP header");
    }
    out->udp_src_port = Be16(d + udp_off);
    out->udp_dst_port = Be16(d + udp_off + 2);
    if (out->udp_dst_port != kRoceV2UdpPort) return NotRoce("UDP port " + std::to_string(out->udp_dst_port));
    const size_t udp_len = Be16(d + udp_off + 4);
    if (udp_len < 8) return Malformed("UDP length " + std::to_string(udp_len) + " below 8");
    if (udp_len > ip_payload_wire)
      return Malformed("UDP length " + std::to_string(udp_len) + " exceeds the IP payload of " +
                       std::to_string(ip_payload_wire) + " bytes");
    roce_wire = udp_len - 8;
    bth_off = udp_off + 8;
    if (roce_wire < kBthBytes + kIcrcBytes)
      return Malformed("UDP payload of " + std::to_string(roce_wire) + " bytes is too short for BTH + ICRC");
    if (cap < bth_off + kBthBytes)
      return Malformed("frame cut by the snaplen inside the BTH (" +
                       std::to_string(cap > bth_off ? cap - bth_off : 0) + " of 12 bytes)");
    return std::nullopt;
  }

  // The BTH: opcode, QP, PSN and flags; the opcode must be known and its headers fit the payload.
  std::optional<FrameDecode> Bth() {
    const uint8_t* b = d + bth_off;
    out->opcode = b[0];
    out->solicited = (b[1] & 0x80) != 0;
    out->mig_req = (b[1] & 0x40) != 0;
    out->pad_count = (b[1] >> 4) & 3;
    out->tver = b[1] & 0x0f;
    out->pkey = Be16(b + 2);
    out->fecn = (b[4] & 0x80) != 0;
    out->becn = (b[4] & 0x40) != 0;
    out->dest_qp = Be24(b + 5);
    out->ack_req = (b[8] & 0x80) != 0;
    out->psn = Be24(b + 9);
    out->ip_ecn_ce = out->ip_ecn == 3;
    hdrs = HeadersOf(out->opcode);
    if (!(hdrs & kHdrKnown)) {
      const RoceTransport t = TransportOf(out->opcode);
      if (t == RoceTransport::kRd)
        return Malformed("BTH opcode " + Hex(out->opcode, 2) + ": RD transport is not supported");
      return Malformed("unknown or reserved BTH opcode " + Hex(out->opcode, 2));
    }
    if (out->tver != 0) return Malformed("BTH TVer " + std::to_string(out->tver) + " (only 0 is defined)");
    const size_t ext = static_cast<size_t>(BytesOf(hdrs));
    if (roce_wire < kBthBytes + ext + out->pad_count + kIcrcBytes) {
      return Malformed("UDP payload of " + std::to_string(roce_wire) + " bytes is too short for BTH + " +
                       std::string(OpcodeName(out->opcode)) + " headers (" + std::to_string(ext) + ") + pad " +
                       std::to_string(out->pad_count) + " + ICRC");
    }
    out->payload_bytes = static_cast<uint32_t>(roce_wire - kBthBytes - ext - out->pad_count - kIcrcBytes);
    return std::nullopt;
  }

  // Extension headers, in wire order; each is filled only when captured in full.
  void ExtensionHeaders() {
    size_t pos = bth_off + kBthBytes;
    auto take = [&](size_t n) -> const uint8_t* {
      const uint8_t* p = cap >= pos + n ? d + pos : nullptr;
      pos += n;
      return p;
    };
    if (hdrs & kHdrDeth) {
      if (const uint8_t* p = take(kDethBytes)) {
        out->has_deth = true;
        out->deth_qkey = Be32(p);
        out->deth_src_qp = Be24(p + 5);
      }
    }
    if (hdrs & kHdrReth) {
      if (const uint8_t* p = take(kRethBytes)) {
        out->has_reth = true;
        out->reth_va = Be64(p);
        out->reth_rkey = Be32(p + 8);
        out->reth_dma_len = Be32(p + 12);
      }
    }
    if (hdrs & kHdrAtomic) {
      if (const uint8_t* p = take(kAtomicBytes)) {
        out->has_atomic_eth = true;
        out->atomic_va = Be64(p);
        out->atomic_rkey = Be32(p + 8);
        out->atomic_swap_add = Be64(p + 12);
        out->atomic_compare = Be64(p + 20);
      }
    }
    if (hdrs & kHdrAeth) {
      if (const uint8_t* p = take(kAethBytes)) {
        out->has_aeth = true;
        out->aeth_syndrome = p[0];
        out->aeth_msn = Be24(p + 1);
      }
    }
    if (hdrs & kHdrAtomicAck) {
      if (const uint8_t* p = take(kAtomicAckBytes)) {
        out->has_atomic_ack_eth = true;
        out->atomic_ack_orig = Be64(p);
      }
    }
    if (hdrs & kHdrImm) {
      if (const uint8_t* p = take(kImmBytes)) {
        out->has_imm = true;
        out->imm_data = Be32(p);
      }
    }
    if (hdrs & kHdrIeth) {
      if (const uint8_t* p = take(kIethBytes)) {
        out->has_ieth = true;
        out->ieth_rkey = Be32(p);
      }
    }
    if (hdrs & kHdrCnp) take(kCnpBytes);
  }

  // The ICRC as captured, and (with `check_icrc`) whether it matches the one computed.
  void Icrc(std::span<const uint8_t> frame, bool check_icrc) {
    const size_t icrc_off = bth_off + roce_wire - kIcrcBytes;
    out->truncated = cap < icrc_off + kIcrcBytes;
    if (!out->truncated) {
      out->icrc_wire = Le32(d + icrc_off);
      if (check_icrc) {
        const uint32_t icrc = ComputeIcrc(frame.subspan(ip_off, icrc_off - ip_off), udp_off - ip_off);
        out->icrc = icrc == out->icrc_wire ? RocePacket::Icrc::kOk : RocePacket::Icrc::kBad;
      }
    } else if (check_icrc) {
      out->icrc = RocePacket::Icrc::kMissing;
    }
  }
};

}  // namespace

FrameDecode DecodeRoceFrame(std::span<const uint8_t> frame, uint32_t wire_len, int dlt, bool check_icrc,
                            RocePacket* out) {
  ResetPacket(out);
  FrameDecoder f{frame.data(), frame.size(), std::max<size_t>(wire_len, frame.size()), out};
  out->wire_len = static_cast<uint32_t>(f.wire);
  out->cap_len = static_cast<uint32_t>(f.cap);
  if (auto stop = f.LinkLayer(dlt)) return *stop;
  if (auto stop = f.VlanTags()) return *stop;
  if (auto stop = f.ethertype == 0x0800 ? f.Ipv4() : f.Ipv6()) return *stop;
  if (auto stop = f.Udp()) return *stop;
  if (auto stop = f.Bth()) return *stop;
  f.ExtensionHeaders();
  f.Icrc(frame, check_icrc);
  return {FrameVerdict::kRoce, {}};
}

std::vector<uint8_t> EncodeRoceFrame(const RocePacket& p, const uint8_t src_mac[6],
                                     const uint8_t dst_mac[6]) {
  const uint16_t hdrs = HeadersOf(p.opcode);
  const size_t ext = static_cast<size_t>(BytesOf(hdrs));
  const bool v6 = p.src_ip.is_v6();
  const size_t ip_hdr = v6 ? 40 : 20;
  const size_t pad = p.pad_count & 3u;
  const size_t fixed = 8 + kBthBytes + ext + pad + kIcrcBytes;
  const size_t max_payload = 65535 - fixed - (v6 ? 0 : ip_hdr);
  const size_t payload = std::min<size_t>(p.payload_bytes, max_payload);
  const size_t udp_len = fixed + payload;
  const size_t ip_off = 14 + 4 * p.vlan_ids.size();
  const size_t udp_off = ip_off + ip_hdr;

  std::vector<uint8_t> f(udp_off + udp_len);
  Cursor c{f.data()};
  c.Bytes(dst_mac, 6);
  c.Bytes(src_mac, 6);
  for (size_t i = 0; i < p.vlan_ids.size(); ++i) {
    c.U16((p.vlan_ids.size() >= 2 && i == 0) ? 0x88a8 : 0x8100);
    c.U16(p.vlan_ids[i] & 0x0fff);
  }
  c.U16(v6 ? 0x86dd : 0x0800);
  const uint8_t ecn = p.ip_ecn_ce ? 3 : (p.ip_ecn & 3);
  const uint8_t tos = static_cast<uint8_t>(((p.ip_dscp & 0x3f) << 2) | ecn);
  auto addr_bytes = [v6](const IpAddress& a, uint8_t* out) {
    std::memset(out, 0, 16);
    const auto b = a.bytes();
    std::memcpy(out, b.data(), std::min<size_t>(b.size(), v6 ? 16 : 4));
  };
  uint8_t src[16], dst[16];
  addr_bytes(p.src_ip, src);
  addr_bytes(p.dst_ip, dst);
  if (!v6) {
    c.U8(0x45);
    c.U8(tos);
    c.U16(static_cast<uint16_t>(20 + udp_len));
    c.U16(p.ip_id);
    c.U16(0x4000);  // DF
    c.U8(p.ip_ttl);
    c.U8(17);
    c.U16(0);  // checksum, below
    c.Bytes(src, 4);
    c.Bytes(dst, 4);
    const uint16_t csum = CsumFold(CsumAdd(0, f.data() + ip_off, 20));
    f[ip_off + 10] = static_cast<uint8_t>(csum >> 8);
    f[ip_off + 11] = static_cast<uint8_t>(csum);
  } else {
    c.U32((6u << 28) | (uint32_t{tos} << 20) | (p.ip_flow_label & 0xfffff));
    c.U16(static_cast<uint16_t>(udp_len));
    c.U8(17);
    c.U8(p.ip_ttl);
    c.Bytes(src, 16);
    c.Bytes(dst, 16);
  }
  c.U16(p.udp_src_port);
  c.U16(p.udp_dst_port != 0 ? p.udp_dst_port : kRoceV2UdpPort);
  c.U16(static_cast<uint16_t>(udp_len));
  c.U16(0);  // checksum: 0 for IPv4; IPv6 below
  // BTH.
  c.U8(p.opcode);
  c.U8(
      static_cast<uint8_t>((p.solicited ? 0x80 : 0) | (p.mig_req ? 0x40 : 0) | (pad << 4) | (p.tver & 0x0f)));
  c.U16(p.pkey);
  c.U8(static_cast<uint8_t>((p.fecn ? 0x80 : 0) | (p.becn ? 0x40 : 0)));
  c.U24(p.dest_qp & 0xffffff);
  c.U8(p.ack_req ? 0x80 : 0);
  c.U24(p.psn & 0xffffff);
  if (hdrs & kHdrDeth) {
    c.U32(p.deth_qkey);
    c.U8(0);
    c.U24(p.deth_src_qp & 0xffffff);
  }
  if (hdrs & kHdrReth) {
    c.U64(p.reth_va);
    c.U32(p.reth_rkey);
    c.U32(p.reth_dma_len);
  }
  if (hdrs & kHdrAtomic) {
    c.U64(p.atomic_va);
    c.U32(p.atomic_rkey);
    c.U64(p.atomic_swap_add);
    c.U64(p.atomic_compare);
  }
  if (hdrs & kHdrAeth) {
    c.U8(p.aeth_syndrome);
    c.U24(p.aeth_msn & 0xffffff);
  }
  if (hdrs & kHdrAtomicAck) c.U64(p.atomic_ack_orig);
  if (hdrs & kHdrImm) c.U32(p.imm_data);
  if (hdrs & kHdrIeth) c.U32(p.ieth_rkey);
  if (hdrs & kHdrCnp) c.Zeros(kCnpBytes);
  c.Zeros(payload + pad);
  const size_t icrc_off = static_cast<size_t>(c.at - f.data());
  const uint32_t icrc =
      ComputeIcrc(std::span<const uint8_t>(f.data() + ip_off, icrc_off - ip_off), udp_off - ip_off);
  for (int i = 0; i < 4; ++i) c.U8(static_cast<uint8_t>(icrc >> (8 * i)));
  if (v6) {
    uint32_t sum = CsumAdd(0, src, 16);
    sum = CsumAdd(sum, dst, 16);
    sum += static_cast<uint32_t>(udp_len) + 17;
    sum = CsumAdd(sum, f.data() + udp_off, udp_len);
    uint16_t csum = CsumFold(sum);
    if (csum == 0) csum = 0xffff;
    f[udp_off + 6] = static_cast<uint8_t>(csum >> 8);
    f[udp_off + 7] = static_cast<uint8_t>(csum);
  }
  return f;
}

}  // namespace toposcope::formats
