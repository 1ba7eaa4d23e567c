#!/usr/bin/env python3
"""Writes the small SYNTHETIC captures in this folder (an independent encoder: Python struct + zlib).

Run from this folder: python3 gen.py. The bytes are deterministic. What each file holds is listed in
README.md and checked by tests/formats/pcap_capture_test.cc.
"""
import struct
import zlib

SRC_MAC = bytes.fromhex("020000000001")
DST_MAC = bytes.fromhex("020000000002")

# Extension-header bytes per opcode used here.
EXT = {0x04: b"", 0x11: None, 0x06: None, 0x64: None, 0x81: bytes(16), 0x15: b"", 0x0c: None, 0x0a: None}


def icrc(ip_and_rest: bytes, udp_off: int) -> bytes:
    b = bytearray(ip_and_rest)
    if b[0] >> 4 == 4:
        b[1] = 0xFF
        b[8] = 0xFF
        b[10:12] = b"\xff\xff"
    else:
        b[0] = (b[0] & 0xF0) | 0x0F
        b[1:4] = b"\xff\xff\xff"
        b[7] = 0xFF
    b[udp_off + 6 : udp_off + 8] = b"\xff\xff"
    b[udp_off + 12] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(b)))


def csum(b: bytes) -> int:
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def bth(opcode, dest_qp, psn, ack=False, pad=0, becn=False, pkey=0xFFFF):
    return struct.pack("!BBHBBHBBH", opcode, pad << 4, pkey, 0x40 if becn else 0,
                       dest_qp >> 16, dest_qp & 0xFFFF, 0x80 if ack else 0, psn >> 16, psn & 0xFFFF)


def roce(src, dst, sport, roce_hdrs: bytes, payload: int, v6=False, vlans=(), dscp=26, ttl=64,
         bad_icrc=False):
    """Ethernet [+VLAN] / IP / UDP 4791 / roce_hdrs / zero payload / ICRC."""
    body = roce_hdrs + bytes(payload)
    udp_len = 8 + len(body) + 4
    udp = struct.pack("!HHHH", sport, 4791, udp_len, 0)
    if v6:
        ip = struct.pack("!IHBB", (6 << 28) | ((dscp << 2) << 20) | 0x12345, udp_len, 17, ttl) + src + dst
    else:
        ip = bytearray(struct.pack("!BBHHHBBH", 0x45, dscp << 2, 20 + udp_len, 7, 0x4000, ttl, 17, 0) + src + dst)
        ip[10:12] = struct.pack("!H", csum(bytes(ip)))
        ip = bytes(ip)
    pkt = ip + udp + body
    crc = icrc(pkt, len(ip))
    if bad_icrc:
        crc = bytes([crc[0] ^ 0xFF]) + crc[1:]
    eth = DST_MAC + SRC_MAC
    for i, v in enumerate(vlans):
        eth += struct.pack("!HH", 0x88A8 if len(vlans) > 1 and i == 0 else 0x8100, v)
    eth += struct.pack("!H", 0x86DD if v6 else 0x0800)
    return eth + pkt + crc


def ip4(s):
    return bytes(int(x) for x in s.split("."))


A, B = ip4("10.0.0.1"), ip4("10.0.1.1")
A6 = bytes.fromhex("fd020000000000000000000000000001")
B6 = bytes.fromhex("fd020000000000000000000000000002")


def pcap(path, records, snaplen=65535, magic=0xA1B23C4D, linktype=1, cut_last_at=None):
    out = struct.pack("<IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)
    for i, (ts_ns, frame, caplen) in enumerate(records):
        caplen = len(frame) if caplen is None else caplen
        frac = ts_ns % 10**9 if magic == 0xA1B23C4D else (ts_ns % 10**9) // 1000
        rec = struct.pack("<IIII", ts_ns // 10**9, frac, caplen, len(frame)) + frame[:caplen]
        if cut_last_at is not None and i == len(records) - 1:
            rec = rec[:cut_last_at]
        out += rec
    open(path, "wb").write(out)


T0 = 1_700_000_000_123_456_789

mixed = [
    roce(A, B, 0xC001, bth(0x04, 0x000123, 100, ack=True) , 64, vlans=(100,)),
    roce(B, A, 0xC001, bth(0x11, 0x000456, 100) + struct.pack("!I", (0x1F << 24) | 7), 0, vlans=(100,)),
    roce(B, A, 0xC001, bth(0x11, 0x000456, 101) + struct.pack("!I", (0x60 << 24) | 8), 0, vlans=(100,)),
    roce(A, B, 0xC001, bth(0x06, 0x000123, 0xFFFFFF) + struct.pack("!QII", 0x7F0000001000, 0x1234, 4096), 256,
         vlans=(100,)),
    roce(A, B, 0xC002, bth(0x64, 0x0000AA, 5) + struct.pack("!II", 0x80010000, 0x0000AB), 32),
    roce(B, A, 0xC003, bth(0x81, 0x000123, 0, becn=True) + bytes(16), 0),
    DST_MAC + SRC_MAC + b"\x08\x06" + bytes(28),  # ARP
    DST_MAC + SRC_MAC + b"\x08\x00" + bytes.fromhex("45000021000040004011") + b"\0\0" + A + B
    + struct.pack("!HHHH", 5353, 53, 13, 0) + b"hello",  # UDP 53
    roce(A, B, 0xC001, bth(0x15, 0x000123, 7), 0),  # reserved opcode
    roce(A, B, 0xC001, bth(0x0C, 0x000123, 200, ack=True) + struct.pack("!QII", 0x1000, 0x99, 65536), 0,
         bad_icrc=True),
]
pcap("mixed_v4_vlan.pcap",
     [(T0 + 1000 * i, f, 80 if i == 3 else None) for i, f in enumerate(mixed)])

# Broken tail: 3 good records (microsecond magic) and a 4th cut inside its data.
tail = [roce(A, B, 0xC001, bth(0x0A, 0x000777, 10 + i) + struct.pack("!QII", 0x2000, 0x5, 128), 128)
        for i in range(4)]
pcap("broken_tail_usec.pcap", [(T0 + 1000 * i, f, None) for i, f in enumerate(tail)], magic=0xA1B2C3D4,
     cut_last_at=16 + 50)

# Linux cooked v2 (SLL2, linktype 276) around IPv6 RoCE.
def sll2(frame_eth):
    return frame_eth[12:14] + b"\0\0" + struct.pack("!IHBB", 2, 1, 0, 6) + SRC_MAC + b"\0\0" + frame_eth[14:]

v6pkts = [roce(A6, B6, 0xD000, bth(0x0A, 0x000042, i) + struct.pack("!QII", 0x3000, 0x7, 1024), 1024, v6=True)
          for i in range(2)]
pcap("sll2_ipv6.pcap", [(T0 + i, sll2(f), None) for i, f in enumerate(v6pkts)], linktype=276)


# pcapng: SHB, IDB (Ethernet, if_tsresol 9 = ns), a custom block between packets, EPBs with IPv6 QinQ RoCE,
# an ISB at the end.
def block(btype, body):
    body += bytes((-len(body)) % 4)
    n = 12 + len(body)
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def opt(code, val):
    return struct.pack("<HH", code, len(val)) + val + bytes((-len(val)) % 4)


shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) + opt(0, b""))
idb = block(1, struct.pack("<HHI", 1, 0, 0) + opt(9, b"\x09") + opt(0, b""))
ng = shb + idb
qinq = [roce(A6, B6, 0xD001, bth(0x12, 0x000099, 300 + i) + struct.pack("!IQ", (0x1F << 24) | i, 0xDEAD), 0,
             v6=True, vlans=(10, 20)) for i in range(3)]
for i, f in enumerate(qinq):
    ts = T0 + 500 * i
    ng += block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(f), len(f)) + f + bytes((-len(f)) % 4))
    if i == 0:
        ng += block(0x00000BAD, struct.pack("<I", 32473) + b"toposcope test custom block")
ng += block(5, struct.pack("<III", 0, 0, 0))
open("ipv6_qinq.pcapng", "wb").write(ng)

# Seeds for fuzz/roce_packet_fuzz: one selector byte (0 = Ethernet) + one frame.
import os

os.makedirs("frames", exist_ok=True)
real = bytes.fromhex(open("../../../shared/fixtures/real/pcap/pcapplusplus_pr1603_softroce_rdma_read_req.hex").read().strip()) \
    if os.path.exists("../../../shared/fixtures/real/pcap/pcapplusplus_pr1603_softroce_rdma_read_req.hex") else None
seeds = {"rc_send_vlan": mixed[0], "rc_nak": mixed[2], "ud_send": mixed[4], "cnp": mixed[5],
         "v6_atomic_ack_qinq": qinq[0], "v6_write_only": v6pkts[0]}
if real:
    seeds["real_read_req"] = real
for name, frame in seeds.items():
    open(os.path.join("frames", name + ".bin"), "wb").write(b"\0" + frame)
