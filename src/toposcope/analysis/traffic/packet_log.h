// analysis/traffic/packet_log: the RoCE packets of a first pass over the captures, kept for the
// second pass (which needs the flows' pairing, known only once every packet is seen) so that the
// captures are not read and decoded again. Only what the second pass's consumers read of a packet
// is kept: its time, capture, flow, BTH fields, message lengths, UDP source port and congestion
// marks, 48 bytes a packet, in an unnamed temporary file (TMPDIR, else /tmp) behind a fixed
// buffer: memory stays flat whatever the captures' size. When the file cannot be made or written
// the log says so (usable() false) and the second pass reads the captures again.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <utility>
#include <vector>

#include "toposcope/formats/rdma/roce_packet.h"

namespace toposcope::analysis {

class PacketLog {
 public:
  PacketLog();
  ~PacketLog();
  PacketLog(const PacketLog&) = delete;
  PacketLog& operator=(const PacketLog&) = delete;

  // Keeps `p`, of the writer's flow number `flow`.
  void Add(const formats::RocePacket& p, uint32_t flow);
  // True while every packet added is kept (the file was made and every write went through).
  [[nodiscard]] bool usable() const { return file_ != nullptr && !failed_; }
  [[nodiscard]] int64_t packets() const { return packets_; }
  // From now on ForEach hands `index[flow]` for a packet added with `flow` (0xffffffff past the
  // end of `index`): the writer's flow numbers renamed once they are known.
  void Renumber(std::vector<uint32_t> index) { renumber_ = std::move(index); }

  // Hands every kept packet back, in the order added, with its flow number. The packet holds the
  // fields kept (ts_ns, capture_index, dest_qp, psn, opcode, payload_bytes, udp_src_port,
  // reth/deth lengths and source QP with their has_ flags, ip_ecn_ce, fecn, becn); the others,
  // addresses included, are left default. False (after handing back what it could) when a read fails.
  bool ForEach(const std::function<void(const formats::RocePacket&, uint32_t flow)>& each);

 private:
  // Writes the packets held in buffer_ (failed_ when the write falls short).
  void Flush();

  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;  // packets not yet written
  std::vector<uint32_t> renumber_;
  bool failed_ = false;
  int64_t packets_ = 0;
};

}  // namespace toposcope::analysis
