// formats/rdma/pcap_capture: streams the RoCEv2 packets of a pcap or pcapng capture (nanosecond
// timestamps) and writes classic nanosecond pcap files for the simulator. libpcap checks every
// capture's file header and reads pcapng, compressed captures and the link types it rewrites; the
// records of an uncompressed classic pcap of the other link types are walked in place
// (formats/rdma/pcap_records: the same records as libpcap's, without its copies).
//
// Reading is O(1) in memory: every record is decoded by DecodeRoceFrame and RoCE packets go to a
// sink. Non-RoCE records are counted and skipped (not errors). UDP 4791 records with a malformed
// BTH are rejected into Diagnostics at the record's byte offset. A capture that breaks off in the
// middle keeps everything before the break, with one diagnostic and broke_off = true.
// Byte offsets: for classic pcap the offset of each record header. For
// pcapng, libpcap reads block by block, so the offset is that of the first block read for the
// record — the packet block itself unless other blocks (interface statistics, name resolution...)
// come before it; after a break, the offset of the block being read.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/rdma/roce_packet.h"

namespace toposcope::formats {

struct CaptureSummary {
  std::string path;
  int dlt = -1;         // link type (pcap_datalink)
  bool pcapng = false;  // pcapng rather than classic pcap
  uint32_t snaplen = 0;
  int64_t records = 0;  // records read, including a broken trailing one
  int64_t roce = 0, not_roce = 0, malformed = 0;
  int64_t truncated = 0;                    // RoCE packets cut by the snaplen (used for what they hold)
  int64_t icrc_bad = 0;                     // with check_icrc: RoCE packets whose ICRC did not match
  int64_t bytes_read = 0;                   // captured bytes of all records
  bool broke_off = false;                   // the file ended or failed in the middle of a record
  int64_t first_ts_ns = 0, last_ts_ns = 0;  // of the records read (0 when none)
  // counts.read = records, accepted = roce + not_roce, rejected = malformed (+1 for a broken
  // trailing record).
  ReadCounts counts;
};

struct CaptureOptions {
  bool check_icrc = false;  // recompute every RoCE packet's ICRC (a bad one is a warning)
  int capture_index = 0;    // copied into every RocePacket
  bool through_libpcap = false;  // read every record through libpcap, never walked in place
                                 // (the tests and the fuzz target compare the two readings)
};

// Streams every record of a pcap or pcapng file to `sink` (RoCE packets only). A gzip or zstd
// compressed capture (.pcap.gz, .pcapng.zst, ...) is decompressed as it is read; a pipe or FIFO is
// read through base/file_io's copy. Byte offsets are those of the decompressed capture.
// Fails (Error naming the file, "byte 0") when the file cannot be opened or is not pcap/pcapng
// (wrong magic, truncated file header). Every other problem becomes a diagnostic.
Result<CaptureSummary> ReadCapture(const std::string& path,
                                   const std::function<void(const RocePacket&)>& sink, Diagnostics& diag,
                                   const CaptureOptions& opts = {});
// Opens the capture and reads its file header, as ReadCapture does, and no record. Returns ok when
// ReadCapture would read it; fails with ReadCapture's error otherwise.
Status ProbeCapture(const std::string& path);
// The same over bytes in memory (via fmemopen), for tests and fuzzing. `source` names it. Returns
// the summary; fails as ReadCapture (when the bytes are not pcap/pcapng).
Result<CaptureSummary> ReadCaptureBytes(std::span<const uint8_t> bytes, std::string_view source,
                                        const std::function<void(const RocePacket&)>& sink, Diagnostics& diag,
                                        const CaptureOptions& opts = {});

// Classic pcap byte layout (little-endian, nanosecond magic 0xa1b23c4d, version 2.4), for writers
// and for tests that build captures by hand.
inline constexpr uint32_t kPcapMagicNano = 0xa1b23c4d;
inline constexpr uint32_t kPcapMagicMicro = 0xa1b2c3d4;
// Appends the 24-byte file header.
void AppendPcapFileHeader(std::vector<uint8_t>& out, uint32_t snaplen, uint32_t linktype = 1,
                          uint32_t magic = kPcapMagicNano);
// Appends one record: header (ts seconds, ts fraction (ns for the nano magic), caplen =
// min(frame, snaplen), orig len = frame size) and the captured bytes.
void AppendPcapRecord(std::vector<uint8_t>& out, int64_t ts_ns, std::span<const uint8_t> frame,
                      uint32_t snaplen, uint32_t magic = kPcapMagicNano);

// Writes a classic pcap file: nanosecond magic 0xa1b23c4d, DLT_EN10MB, the given snaplen (frames
// longer are cut; their original length is kept). The same calls write the same bytes.
class PcapWriter {
 public:
  // Creates or truncates `path` (parent directories are created) and writes the file header.
  static Result<PcapWriter> Open(const std::string& path, uint32_t snaplen = 262144);
  PcapWriter(PcapWriter&&) noexcept = default;
  PcapWriter& operator=(PcapWriter&&) noexcept = default;
  ~PcapWriter();
  // Appends one frame. Fails on a write error, a closed writer, or a timestamp before 1970 or
  // past 2106 (pcap keeps 32-bit unsigned seconds).
  Status Write(int64_t ts_ns, std::span<const uint8_t> frame);
  // Flushes and closes; fails on a write error. Called by the destructor if needed (errors lost).
  Status Close();
  [[nodiscard]] int64_t records_written() const { return records_; }
  [[nodiscard]] int64_t bytes_written() const { return bytes_; }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  PcapWriter() = default;
  struct FileCloser {
    void operator()(std::FILE* f) const;
  };
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::string path_;
  uint32_t snaplen_ = 262144;
  int64_t records_ = 0;
  int64_t bytes_ = 0;
  std::vector<uint8_t> buf_;
};

}  // namespace toposcope::formats
