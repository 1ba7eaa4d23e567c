// analysis/traffic/packet_log: see packet_log.h.
#include "toposcope/analysis/traffic/packet_log.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace toposcope::analysis {
namespace {

// One packet as kept: a plain record of this process, read back by this process.
struct Kept {
  int64_t ts_ns;
  uint32_t flow;
  int32_t capture_index;
  uint32_t dest_qp, psn, payload_bytes, reth_dma_len, deth_src_qp;
  uint16_t udp_src_port;
  uint8_t opcode;
  uint8_t flags;
  uint32_t unused;
};
static_assert(sizeof(Kept) == 48);

constexpr uint8_t kHasReth = 1, kHasDeth = 2, kEcnCe = 4, kFecn = 8, kBecn = 16;
constexpr size_t kBufferBytes = sizeof(Kept) << 12;  // 4,096 packets written at a time

// An unnamed file in the temporary directory, opened for reading and writing; nullptr when none
// can be made.
std::FILE* UnnamedTempFile() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::string name = (dir / "toposcope-packets-XXXXXX").string();
  const int fd = mkstemp(name.data());
  if (fd < 0) return nullptr;
  (void)unlink(name.c_str());  // gone from the directory; the file lives while it is open
  std::FILE* f = fdopen(fd, "w+b");
  if (f == nullptr) close(fd);
  return f;
}

}  // namespace

PacketLog::PacketLog() : file_(UnnamedTempFile()) {
  if (file_ != nullptr) buffer_.reserve(kBufferBytes);
}

PacketLog::~PacketLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void PacketLog::Add(const formats::RocePacket& p, uint32_t flow) {
  if (!usable()) return;
  Kept k{};
  k.ts_ns = p.ts_ns;
  k.flow = flow;
  k.capture_index = p.capture_index;
  k.dest_qp = p.dest_qp;
  k.psn = p.psn;
  k.payload_bytes = p.payload_bytes;
  k.reth_dma_len = p.reth_dma_len;
  k.deth_src_qp = p.deth_src_qp;
  k.udp_src_port = p.udp_src_port;
  k.opcode = p.opcode;
  k.flags = static_cast<uint8_t>((p.has_reth ? kHasReth : 0) | (p.has_deth ? kHasDeth : 0) |
                                 (p.ip_ecn_ce ? kEcnCe : 0) | (p.fecn ? kFecn : 0) | (p.becn ? kBecn : 0));
  const char* bytes = reinterpret_cast<const char*>(&k);
  buffer_.insert(buffer_.end(), bytes, bytes + sizeof k);
  ++packets_;
  if (buffer_.size() >= kBufferBytes) Flush();
}

void PacketLog::Flush() {
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) failed_ = true;
  buffer_.clear();
}

bool PacketLog::ForEach(const std::function<void(const formats::RocePacket&, uint32_t flow)>& each) {
  if (usable()) Flush();
  if (!usable() || std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0) return false;
  std::vector<Kept> chunk(4096);
  formats::RocePacket p;
  int64_t read = 0;
  while (read < packets_) {
    const size_t n = std::fread(chunk.data(), sizeof(Kept), chunk.size(), file_);
    if (n == 0) break;
    for (size_t i = 0; i < n; ++i) {
      const Kept& k = chunk[i];
      p.ts_ns = k.ts_ns;
      p.capture_index = k.capture_index;
      p.dest_qp = k.dest_qp;
      p.psn = k.psn;
      p.payload_bytes = k.payload_bytes;
      p.reth_dma_len = k.reth_dma_len;
      p.deth_src_qp = k.deth_src_qp;
      p.udp_src_port = k.udp_src_port;
      p.opcode = k.opcode;
      p.has_reth = (k.flags & kHasReth) != 0;
      p.has_deth = (k.flags & kHasDeth) != 0;
      p.ip_ecn_ce = (k.flags & kEcnCe) != 0;
      p.fecn = (k.flags & kFecn) != 0;
      p.becn = (k.flags & kBecn) != 0;
      const uint32_t flow =
          renumber_.empty() ? k.flow : (k.flow < renumber_.size() ? renumber_[k.flow] : 0xffffffffu);
      each(p, flow);
    }
    read += static_cast<int64_t>(n);
  }
  // Later Adds append after what was kept.
  if (std::fseek(file_, 0, SEEK_END) != 0) failed_ = true;
  return read == packets_;
}

}  // namespace toposcope::analysis
