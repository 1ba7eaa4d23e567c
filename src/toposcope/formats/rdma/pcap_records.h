// formats/rdma/pcap_records: the records of a classic (version 2.4) pcap capture read straight
// from its bytes, as libpcap's pcap_next_ex hands them, without libpcap's stdio reads (two per
// record) and its copy of every record. A file is read in large pieces into one buffer that
// stays in the cache (memory flat whatever the capture's size, no copy but the kernel's); bytes
// already in memory are walked in place. Same records, timestamps, snapshot-length cuts and error
// texts as libpcap (the tests and the fuzz target compare the two on the same bytes).
// pcap_capture uses it for the link types libpcap hands over unchanged; pcapng, compressed
// captures and other link types go through libpcap.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>


namespace toposcope::formats {

// What a classic pcap file header says, as libpcap reads it.
struct ClassicPcapHeader {
  bool swapped = false;       // written in the other byte order
  bool nanoseconds = false;   // magic a1b23c4d: the second timestamp field counts nanoseconds
  int version_major = 0, version_minor = 0;
};

// True when the 4 bytes at `m` are a classic pcap magic (a1b2c3d4 microseconds, a1b23c4d
// nanoseconds, in either byte order).
bool IsClassicPcapMagic(const uint8_t* m);

// Reads the 24-byte file header's magic and version; false when `head` is shorter or its magic is
// not a classic pcap's.
bool ParseClassicPcapHeader(std::span<const uint8_t> head, ClassicPcapHeader* out);

struct PcapRecordView {
  int64_t offset = 0;          // of the record header in the file
  uint32_t caplen = 0;         // bytes at `data` (cut to the snapshot length, as libpcap does)
  uint32_t len = 0;            // the frame's length on the wire
  int64_t ts_sec = 0;          // seconds, signed 32-bit in the file
  int64_t ts_ns = 0;           // the fraction, in nanoseconds (microsecond files scaled up)
  const uint8_t* data = nullptr;
};

class PcapRecordWalker {
 public:
  enum class Step { kRecord, kEnd, kBroken };

  // Over bytes in memory (kept by the caller), the file header included.
  PcapRecordWalker(std::span<const uint8_t> bytes, const ClassicPcapHeader& h, uint32_t snapshot);
  // Over an open file (`fd`, read with pread from byte 24, kept open by the caller).
  PcapRecordWalker(int fd, const ClassicPcapHeader& h, uint32_t snapshot);

  // The next record into `r` (its offset set on kBroken too); kBroken with `error` worded as
  // libpcap words it when the capture breaks off (a record cut short, an absurd length, a failed
  // read).
  Step Next(PcapRecordView* r, std::string* error);

 private:
  // The bytes readable at At(offset), at least `n` unless the capture ends first (reading more of
  // a file when needed); -1 with `error` set when a read fails.
  int64_t Reach(int64_t offset, size_t n, std::string* error);
  [[nodiscard]] const uint8_t* At(int64_t offset) const { return view_ + (offset - view_begin_); }
  uint32_t U32(const uint8_t* p) const;

  ClassicPcapHeader header_;
  uint32_t snapshot_ = 0;
  int64_t next_ = 24;  // offset of the next record header
  const uint8_t* view_ = nullptr;  // file bytes [view_begin_, view_end_)
  int64_t view_begin_ = 0, view_end_ = 0;
  // Files only.
  int fd_ = -1;
  std::vector<uint8_t> buffer_;
};

}  // namespace toposcope::formats
