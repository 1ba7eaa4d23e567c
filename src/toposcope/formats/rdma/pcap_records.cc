// formats/rdma/pcap_records: see pcap_records.h.
#include "toposcope/formats/rdma/pcap_records.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace toposcope::formats {
namespace {

constexpr int64_t kFileHeaderBytes = 24;
constexpr int64_t kRecordHeaderBytes = 16;
// libpcap's largest sane record (MAXIMUM_SNAPLEN) for the link types the walker serves.
constexpr uint32_t kMaxSnaplen = 262144;
// Bytes asked of the kernel at a time: few system calls, and a buffer small enough to stay in the
// cache while its records are decoded.
constexpr int64_t kChunkBytes = int64_t{256} << 10;

uint32_t Le32(const uint8_t* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
uint16_t Le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

std::string Printf(const char* fmt, auto... args) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

}  // namespace

bool IsClassicPcapMagic(const uint8_t* m) {
  const uint32_t magic = Le32(m);
  return magic == 0xa1b2c3d4u || magic == 0xa1b23c4du || magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
}

bool ParseClassicPcapHeader(std::span<const uint8_t> head, ClassicPcapHeader* out) {
  if (head.size() < static_cast<size_t>(kFileHeaderBytes) || !IsClassicPcapMagic(head.data())) return false;
  const uint32_t magic = Le32(head.data());
  ClassicPcapHeader h;
  h.swapped = magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
  h.nanoseconds = magic == 0xa1b23c4du || magic == 0x4d3cb2a1u;
  uint16_t major = Le16(head.data() + 4), minor = Le16(head.data() + 6);
  if (h.swapped) {
    major = __builtin_bswap16(major);
    minor = __builtin_bswap16(minor);
  }
  h.version_major = major;
  h.version_minor = minor;
  *out = h;
  return true;
}

PcapRecordWalker::PcapRecordWalker(std::span<const uint8_t> bytes, const ClassicPcapHeader& h, uint32_t snapshot)
    : header_(h),
      snapshot_(snapshot),
      view_(bytes.data()),
      view_begin_(0),
      view_end_(static_cast<int64_t>(bytes.size())) {}

PcapRecordWalker::PcapRecordWalker(int fd, const ClassicPcapHeader& h, uint32_t snapshot)
    : header_(h), snapshot_(snapshot), next_(kFileHeaderBytes), fd_(fd) {
  buffer_.resize(static_cast<size_t>(kChunkBytes + kRecordHeaderBytes + kMaxSnaplen));
  view_ = buffer_.data();
  view_begin_ = view_end_ = kFileHeaderBytes;
}

uint32_t PcapRecordWalker::U32(const uint8_t* p) const {
  const uint32_t v = Le32(p);
  return header_.swapped ? __builtin_bswap32(v) : v;
}

int64_t PcapRecordWalker::Reach(int64_t offset, size_t n, std::string* error) {
  if (fd_ < 0 || offset + static_cast<int64_t>(n) <= view_end_) return view_end_ - offset;
  // Keep the bytes from `offset` on (less than a record), then read behind them until `n` are
  // there or the file ends.
  const int64_t kept = std::max<int64_t>(0, view_end_ - offset);
  if (kept > 0) std::memmove(buffer_.data(), buffer_.data() + (offset - view_begin_), static_cast<size_t>(kept));
  view_begin_ = offset;
  view_end_ = offset + kept;
  while (view_end_ - offset < static_cast<int64_t>(n)) {
    const size_t room = buffer_.size() - static_cast<size_t>(view_end_ - view_begin_);
    const ssize_t got = pread(fd_, buffer_.data() + (view_end_ - view_begin_), room, view_end_);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      *error = std::string("error reading dump file: ") + std::strerror(errno);
      return -1;
    }
    if (got == 0) break;  // the end of the file
    view_end_ += got;
  }
  return view_end_ - offset;
}

PcapRecordWalker::Step PcapRecordWalker::Next(PcapRecordView* r, std::string* error) {
  const int64_t at = next_;
  r->offset = at;
  int64_t left = Reach(at, kRecordHeaderBytes, error);
  if (left < 0) return Step::kBroken;
  if (left == 0) return Step::kEnd;
  if (left < kRecordHeaderBytes) {
    *error = Printf("truncated dump file; tried to read %zu header bytes, only got %zu",
                    static_cast<size_t>(kRecordHeaderBytes), static_cast<size_t>(left));
    return Step::kBroken;
  }
  const uint8_t* h = At(at);
  r->ts_sec = static_cast<int32_t>(U32(h));
  r->ts_ns = static_cast<int32_t>(U32(h + 4));
  if (!header_.nanoseconds) r->ts_ns *= 1000;
  const uint32_t caplen = U32(h + 8);
  r->len = U32(h + 12);
  if (caplen > kMaxSnaplen) {
    *error = caplen > snapshot_
                 ? Printf("invalid packet capture length %u, bigger than snaplen of %d", caplen,
                          static_cast<int>(snapshot_))
                 : Printf("invalid packet capture length %u, bigger than maximum of %u", caplen, kMaxSnaplen);
    return Step::kBroken;
  }
  left = Reach(at, static_cast<size_t>(kRecordHeaderBytes) + caplen, error);
  if (left < 0) return Step::kBroken;
  const int64_t body = left - kRecordHeaderBytes;  // bytes after the record header
  uint32_t kept = caplen;
  if (caplen > snapshot_) {  // libpcap keeps the first snapshot-length bytes and skips the rest
    if (body < static_cast<int64_t>(snapshot_)) {
      *error = Printf("truncated dump file; tried to read %d captured bytes, only got %zu", static_cast<int>(snapshot_),
                      static_cast<size_t>(body));
      return Step::kBroken;
    }
    kept = snapshot_;
  }
  if (body < static_cast<int64_t>(caplen)) {
    *error = Printf("truncated dump file; tried to read %u captured bytes, only got %zu", caplen,
                    static_cast<size_t>(body));
    return Step::kBroken;
  }
  r->caplen = kept;
  r->data = At(at + kRecordHeaderBytes);
  next_ = at + kRecordHeaderBytes + caplen;
  return Step::kRecord;
}

}  // namespace toposcope::formats
