// formats/rdma/pcap_capture: see pcap_capture.h.
#include "toposcope/formats/rdma/pcap_capture.h"

#include <pcap/pcap.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "toposcope/base/file_io.h"
#include "toposcope/formats/rdma/pcap_records.h"

namespace toposcope::formats {
namespace {

constexpr size_t kRawHexBytes = 48;  // frame bytes shown in a diagnostic

std::string HexHead(const uint8_t* d, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  n = std::min(n, kRawHexBytes);
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    s.push_back(kDigits[d[i] >> 4]);
    s.push_back(kDigits[d[i] & 15]);
  }
  return s;
}

void PutLe32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v >> 16);
  p[3] = static_cast<uint8_t>(v >> 24);
}

void AppendLe32(std::vector<uint8_t>& out, uint32_t v) {
  uint8_t b[4];
  PutLe32(b, v);
  out.insert(out.end(), b, b + 4);
}

bool IsPcapngMagic(const uint8_t* m) { return m[0] == 0x0a && m[1] == 0x0d && m[2] == 0x0d && m[3] == 0x0a; }

// A capture opened for libpcap: a seekable FILE (a plain file, or bytes in memory) or, for a
// compressed capture, a FILE over the decompressing InputStream (libpcap cannot read gzip/zstd).
struct OpenedCapture {
  std::FILE* f = nullptr;
  bool pcapng = false;
  bool classic = false;  // classic pcap (magic a1b2c3d4 or a1b23c4d, either byte order): 24-byte file
                         // header, 16-byte record headers, so each record's offset is a sum
  bool regular = false;  // a plain file opened directly (not through a decompressing stream)
  std::shared_ptr<std::vector<char>> buffer;  // the FILE's stdio buffer: kept until it is closed
};

// The decompressing stream behind a fopencookie FILE: the first bytes (read to detect the format)
// are served again, then the rest; ftell works (seeking does not).
struct StreamCookie {
  std::unique_ptr<InputStream> in;
  std::string head;
  size_t head_pos = 0;
  int64_t pos = 0;
};

ssize_t CookieRead(void* c, char* buf, size_t n) {
  auto* k = static_cast<StreamCookie*>(c);
  if (k->head_pos < k->head.size()) {
    const size_t m = std::min(n, k->head.size() - k->head_pos);
    std::memcpy(buf, k->head.data() + k->head_pos, m);
    k->head_pos += m;
    k->pos += static_cast<int64_t>(m);
    return static_cast<ssize_t>(m);
  }
  auto r = k->in->Read(buf, n);
  if (!r.ok()) {
    errno = EIO;
    return -1;
  }
  k->pos += static_cast<int64_t>(*r);
  return static_cast<ssize_t>(*r);
}

int CookieSeek(void* c, off64_t* off, int whence) {
  auto* k = static_cast<StreamCookie*>(c);
  if ((whence == SEEK_CUR && *off == 0) || (whence == SEEK_SET && *off == k->pos)) {
    *off = k->pos;
    return 0;
  }
  return -1;
}

int CookieClose(void* c) {
  delete static_cast<StreamCookie*>(c);
  return 0;
}

constexpr size_t kStdioBufferBytes = size_t{1} << 20;

// Opens `path` for libpcap: directly when it is not compressed, else through the decompressing
// stream (pipes and FIFOs through their copy, see OpenInput). Fails when it cannot be opened.
Result<OpenedCapture> OpenCapture(const std::string& path) {
  auto in = OpenInput(path);
  if (!in.ok()) return MakeError(path, 0, 0, "cannot open capture: " + in.error().message, in.error().hint);
  uint8_t raw[4] = {0, 0, 0, 0};
  OpenedCapture out;
  out.f = std::fopen(ReadablePathOf(path).c_str(), "rb");
  if (out.f == nullptr) return MakeError(path, 0, 0, std::string("cannot open capture: ") + std::strerror(errno));
  // libpcap reads through stdio: a 1 MiB buffer makes one read(2) per MiB instead of one per 4 KiB
  // (the system calls were most of a capture pass's time). glibc ignores the size without a buffer.
  out.buffer = std::make_shared<std::vector<char>>(kStdioBufferBytes);
  (void)std::setvbuf(out.f, out.buffer->data(), _IOFBF, out.buffer->size());
  const size_t got = std::fread(raw, 1, 4, out.f);
  const Compression c = DetectCompression(std::string_view(reinterpret_cast<const char*>(raw), got));
  if (c == Compression::kNone) {
    out.pcapng = got == 4 && IsPcapngMagic(raw);
    out.classic = got == 4 && IsClassicPcapMagic(raw);
    out.regular = true;
    if (std::fseek(out.f, 0, SEEK_SET) == 0) return out;
    std::fclose(out.f);
    return MakeError(path, 0, 0, "byte 0: cannot seek in the capture", "read a regular file");
  }
  std::fclose(out.f);
  auto cookie = std::make_unique<StreamCookie>();
  cookie->in = std::move(*in);
  cookie->head.resize(4);
  size_t n = 0;
  while (n < 4) {
    auto r = cookie->in->Read(cookie->head.data() + n, 4 - n);
    if (!r.ok()) return MakeError(path, 0, 0, "byte 0: cannot decompress the capture: " + r.error().message);
    if (*r == 0) break;
    n += *r;
  }
  cookie->head.resize(n);
  out.pcapng = n == 4 && IsPcapngMagic(reinterpret_cast<const uint8_t*>(cookie->head.data()));
  out.classic = n == 4 && IsClassicPcapMagic(reinterpret_cast<const uint8_t*>(cookie->head.data()));
  out.f = fopencookie(cookie.get(), "rb", cookie_io_functions_t{CookieRead, nullptr, CookieSeek, CookieClose});
  if (out.f == nullptr) return MakeError(path, 0, 0, std::string("cannot open capture: ") + std::strerror(errno));
  (void)cookie.release();  // owned by the FILE now
  out.buffer = std::make_shared<std::vector<char>>(kStdioBufferBytes);
  (void)std::setvbuf(out.f, out.buffer->data(), _IOFBF, out.buffer->size());
  return out;
}

// Hands an opened capture to libpcap; nullptr (with `error` set) when its file header is refused.
// Takes ownership of the FILE (closed on every path).
pcap_t* OpenPcap(OpenedCapture c, const std::string& source, Error* error) {
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  pcap_t* p = pcap_fopen_offline_with_tstamp_precision(c.f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (p == nullptr) {
    std::fclose(c.f);
    *error = MakeError(source, 0, 0, std::string("byte 0: not a pcap or pcapng capture: ") + errbuf,
                       "give a pcap (magic a1b2c3d4/a1b23c4d) or pcapng file, e.g. from tcpdump -w");
  }
  return p;
}

// libpcap's records as PcapRecordWalker hands them. Each record's byte offset, for the diagnostics:
// summed over a classic pcap's records, asked of stdio for pcapng and after a record as long as the
// snapshot length (libpcap cuts a longer one to it and skips the rest).
class LibpcapRecords {
 public:
  LibpcapRecords(pcap_t* p, bool classic, uint32_t snaplen)
      : p_(p), classic_(classic), snaplen_(snaplen), next_offset_(classic ? 24 : -1) {}
  PcapRecordWalker::Step Next(PcapRecordView* r, std::string* error) {
    r->offset = next_offset_ >= 0 ? next_offset_ : static_cast<int64_t>(std::ftell(pcap_file(p_)));
    pcap_pkthdr* hdr = nullptr;
    const u_char* data = nullptr;
    const int rc = pcap_next_ex(p_, &hdr, &data);
    next_offset_ = classic_ && rc == 1 && hdr->caplen < snaplen_ ? r->offset + 16 + static_cast<int64_t>(hdr->caplen)
                                                                  : -1;
    if (rc == PCAP_ERROR_BREAK) return PcapRecordWalker::Step::kEnd;
    if (rc != 1) {
      *error = pcap_geterr(p_);
      return PcapRecordWalker::Step::kBroken;
    }
    r->ts_sec = hdr->ts.tv_sec;
    r->ts_ns = hdr->ts.tv_usec;
    r->caplen = hdr->caplen;
    r->len = hdr->len;
    r->data = data;
    return PcapRecordWalker::Step::kRecord;
  }

 private:
  pcap_t* p_;
  bool classic_;
  uint32_t snaplen_;
  int64_t next_offset_;
};

// Decodes every record `records` hands into `s`, RoCE packets to `sink`.
template <typename Records>
void ReadRecords(Records& records, const std::string& source, const std::function<void(const RocePacket&)>& sink,
                 Diagnostics& diag, const CaptureOptions& opts, CaptureSummary& s) {
  RocePacket pkt;
  pkt.capture_index = opts.capture_index;
  PcapRecordView rec;
  std::string error;
  for (;;) {
    const PcapRecordWalker::Step step = records.Next(&rec, &error);
    if (step == PcapRecordWalker::Step::kEnd) break;
    ++s.records;
    ++s.counts.read;
    if (step == PcapRecordWalker::Step::kBroken) {
      s.broke_off = true;
      ++s.counts.rejected;
      diag.RejectAtByte(source, rec.offset, "", "capture breaks off; records before it are kept: " + error);
      break;
    }
    // pcapng timestamps are 64-bit counts of the interface's unit: their seconds can lie past what
    // int64 nanoseconds hold. Such a packet is rejected, never wrapped.
    int64_t ts_ns = 0;
    if (__builtin_mul_overflow(rec.ts_sec, int64_t{1000000000}, &ts_ns) ||
        __builtin_add_overflow(ts_ns, rec.ts_ns, &ts_ns)) {
      ++s.malformed;
      ++s.counts.rejected;
      diag.RejectAtByte(source, rec.offset, "", "packet timestamp out of range (past year 2262)");
      continue;
    }
    if (s.records == 1) s.first_ts_ns = ts_ns;
    s.last_ts_ns = ts_ns;
    s.bytes_read += rec.caplen;
    pkt.ts_ns = ts_ns;
    const FrameDecode dec =
        DecodeRoceFrame(std::span<const uint8_t>(rec.data, rec.caplen), rec.len, s.dlt, opts.check_icrc, &pkt);
    switch (dec.verdict) {
      case FrameVerdict::kRoce:
        ++s.roce;
        ++s.counts.accepted;
        if (pkt.truncated) ++s.truncated;
        if (pkt.icrc == RocePacket::Icrc::kBad) {
          ++s.icrc_bad;
          char buf[96];
          std::snprintf(buf, sizeof buf, "record at byte %ld: ICRC 0x%08x on the wire, computed otherwise",
                        rec.offset, pkt.icrc_wire);
          diag.Warn(source, 0, HexHead(rec.data, rec.caplen), buf);
        }
        sink(pkt);
        break;
      case FrameVerdict::kNotRoce:
        ++s.not_roce;
        ++s.counts.accepted;
        break;
      case FrameVerdict::kMalformed:
        ++s.malformed;
        ++s.counts.rejected;
        diag.RejectAtByte(source, rec.offset, HexHead(rec.data, rec.caplen), dec.reason);
        break;
    }
  }
}

// True for the link types libpcap hands over as they are in the file (pcap_post_process rewrites
// some others' headers): their records can be read without libpcap.
bool WalkableLinkType(int dlt) {
  return dlt == kDltEn10Mb || dlt == kDltRaw || dlt == kDltRawOpenBsd || dlt == kDltIpv4 || dlt == kDltIpv6;
}

// The classic pcap header of a capture the walker can read (version 2.4 or later 2.x, a walkable
// link type), from `head` (its first bytes); nullopt otherwise.
std::optional<ClassicPcapHeader> WalkableHeader(std::span<const uint8_t> head, int dlt, const CaptureOptions& opts) {
  ClassicPcapHeader h;
  if (opts.through_libpcap || !WalkableLinkType(dlt) || !ParseClassicPcapHeader(head, &h)) return std::nullopt;
  if (h.version_major != 2 || h.version_minor < 4) return std::nullopt;
  return h;
}

// Reads every record of an opened capture. Takes ownership of its FILE (closed on every path).
// `bytes`: the whole capture when it is in memory (else empty). A classic pcap in memory or in a
// regular file is walked without libpcap's copies once libpcap has checked its file header.
Result<CaptureSummary> ReadFromFile(OpenedCapture c, const std::string& source, std::span<const uint8_t> bytes,
                                    const std::function<void(const RocePacket&)>& sink, Diagnostics& diag,
                                    const CaptureOptions& opts) {
  CaptureSummary s;
  s.path = source;
  s.pcapng = c.pcapng;
  Error error;
  pcap_t* p = OpenPcap(c, source, &error);
  if (p == nullptr) return error;
  s.dlt = pcap_datalink(p);
  s.snaplen = static_cast<uint32_t>(pcap_snapshot(p));
  if (c.classic && !bytes.empty()) {
    if (const std::optional<ClassicPcapHeader> h = WalkableHeader(bytes, s.dlt, opts)) {
      PcapRecordWalker walker(bytes, *h, s.snaplen);
      ReadRecords(walker, source, sink, diag, opts, s);
      pcap_close(p);
      return s;
    }
  }
  const int fd = fileno(pcap_file(p));
  struct stat st {};
  uint8_t head[24] = {0};
  if (c.classic && bytes.empty() && c.regular && fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      pread(fd, head, sizeof head, 0) == static_cast<ssize_t>(sizeof head)) {
    if (const std::optional<ClassicPcapHeader> h = WalkableHeader(head, s.dlt, opts)) {
      PcapRecordWalker walker(fd, *h, s.snaplen);
      ReadRecords(walker, source, sink, diag, opts, s);
      pcap_close(p);  // closes f
      return s;
    }
  }
  LibpcapRecords records(p, c.classic, s.snaplen);
  ReadRecords(records, source, sink, diag, opts, s);
  pcap_close(p);  // closes f
  return s;
}

}  // namespace

Result<CaptureSummary> ReadCapture(const std::string& path,
                                   const std::function<void(const RocePacket&)>& sink, Diagnostics& diag,
                                   const CaptureOptions& opts) {
  auto c = OpenCapture(path);
  if (!c.ok()) return c.error();
  return ReadFromFile(*c, path, {}, sink, diag, opts);
}

Status ProbeCapture(const std::string& path) {
  auto c = OpenCapture(path);
  if (!c.ok()) return c.error();
  Error error;
  pcap_t* p = OpenPcap(*c, path, &error);
  if (p == nullptr) return error;
  pcap_close(p);
  return {};
}

Result<CaptureSummary> ReadCaptureBytes(std::span<const uint8_t> bytes, std::string_view source,
                                        const std::function<void(const RocePacket&)>& sink, Diagnostics& diag,
                                        const CaptureOptions& opts) {
  const std::string src(source);
  if (bytes.empty()) {
    return MakeError(src, 0, 0, "byte 0: not a pcap or pcapng capture: the input is empty");
  }
  // fmemopen reads only in "rb" mode; the buffer is not written to.
  std::FILE* f = fmemopen(const_cast<uint8_t*>(bytes.data()), bytes.size(), "rb");
  if (f == nullptr) {
    return MakeError(src, 0, 0, std::string("cannot open the bytes as a stream: ") + std::strerror(errno));
  }
  OpenedCapture c;
  c.f = f;
  c.pcapng = bytes.size() >= 4 && IsPcapngMagic(bytes.data());
  c.classic = bytes.size() >= 4 && IsClassicPcapMagic(bytes.data());
  return ReadFromFile(c, src, bytes, sink, diag, opts);
}

void AppendPcapFileHeader(std::vector<uint8_t>& out, uint32_t snaplen, uint32_t linktype, uint32_t magic) {
  AppendLe32(out, magic);
  out.push_back(2);  // version 2.4
  out.push_back(0);
  out.push_back(4);
  out.push_back(0);
  AppendLe32(out, 0);  // thiszone
  AppendLe32(out, 0);  // sigfigs
  AppendLe32(out, snaplen);
  AppendLe32(out, linktype);
}

void AppendPcapRecord(std::vector<uint8_t>& out, int64_t ts_ns, std::span<const uint8_t> frame,
                      uint32_t snaplen, uint32_t magic) {
  const uint32_t caplen = static_cast<uint32_t>(std::min<size_t>(frame.size(), snaplen));
  const int64_t sec = ts_ns / 1000000000;
  const int64_t frac_ns = ts_ns % 1000000000;
  AppendLe32(out, static_cast<uint32_t>(sec));
  AppendLe32(out, static_cast<uint32_t>(magic == kPcapMagicNano ? frac_ns : frac_ns / 1000));
  AppendLe32(out, caplen);
  AppendLe32(out, static_cast<uint32_t>(frame.size()));
  out.insert(out.end(), frame.begin(), frame.begin() + caplen);
}

void PcapWriter::FileCloser::operator()(std::FILE* f) const {
  if (f != nullptr) std::fclose(f);
}

Result<PcapWriter> PcapWriter::Open(const std::string& path, uint32_t snaplen) {
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    return MakeError(path, 0, 0, std::string("cannot create capture: ") + std::strerror(errno));
  }
  PcapWriter w;
  w.file_.reset(f);
  w.path_ = path;
  w.snaplen_ = snaplen == 0 ? 262144 : snaplen;
  std::vector<uint8_t> header;
  AppendPcapFileHeader(header, w.snaplen_, kDltEn10Mb, kPcapMagicNano);
  if (std::fwrite(header.data(), 1, header.size(), f) != header.size()) {
    return MakeError(path, 0, 0, std::string("cannot write capture header: ") + std::strerror(errno));
  }
  w.bytes_ = static_cast<int64_t>(header.size());
  return w;
}

PcapWriter::~PcapWriter() {
  if (file_) (void)Close();
}

Status PcapWriter::Write(int64_t ts_ns, std::span<const uint8_t> frame) {
  if (!file_) return MakeError(path_, 0, 0, "write to a closed capture");
  if (ts_ns < 0 || ts_ns / 1000000000 > int64_t{UINT32_MAX}) {
    return MakeError(path_, 0, 0, "timestamp " + std::to_string(ts_ns) + " ns does not fit a pcap record",
                     "pcap keeps unsigned 32-bit seconds since 1970");
  }
  buf_.clear();
  AppendPcapRecord(buf_, ts_ns, frame, snaplen_, kPcapMagicNano);
  if (std::fwrite(buf_.data(), 1, buf_.size(), file_.get()) != buf_.size()) {
    return MakeError(path_, 0, 0, std::string("cannot write capture record: ") + std::strerror(errno));
  }
  ++records_;
  bytes_ += static_cast<int64_t>(buf_.size());
  return {};
}

Status PcapWriter::Close() {
  if (!file_) return {};
  std::FILE* f = file_.release();
  const bool flush_ok = std::fflush(f) == 0 && std::ferror(f) == 0;
  const int saved = errno;
  const bool close_ok = std::fclose(f) == 0;
  if (!flush_ok || !close_ok) {
    return MakeError(path_, 0, 0,
                     std::string("cannot finish capture: ") + std::strerror(flush_ok ? errno : saved));
  }
  return {};
}

}  // namespace toposcope::formats
