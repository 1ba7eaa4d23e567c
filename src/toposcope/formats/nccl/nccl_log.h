// formats/nccl/nccl_log: NCCL_DEBUG=INFO logs, read and written.
// The reader streams a log (which may interleave many processes and ranks) and keeps only the
// topology-relevant lines: communicator init lines, ring orders ("Channel 00/02 :    0   1"),
// "Ring" and "Trees"/"Tree" lines, channel connection lines ("Channel 00/0 : 1[1] -> 0[0] via
// P2P/CUMEM"), "NET/IB : Using ..." device lists and QP lines ("NET/IB: Dev 1 Port 1 qpn 3038 ...").
// It understands the `host:pid:tid [dev] NCCL INFO ` prefix, optional timestamp prefixes
// (NCCL_DEBUG_TIMESTAMP_FORMAT, 2.23+) and launcher prefixes before the host ("[1,0]<stdout>:",
// "[rank0]:", "(RayTrainWorker pid=..)", srun --label's "12: ", kubectl logs' "[pod/NAME/CONTAINER] "
// and --timestamps' RFC 3339 stamp, which becomes the line's time).
// Eras: 2.1x (no "/conn", busId in brackets), 2.16-2.18.1 (busId), 2.18.3+ (nvml index),
// pre-2.23 vs 2.23+ ring-order spacing, 2.16 vs 2.21+ qpn lines, old "Init COMPLETE" comm lines.
// The writer renders records in the exact line format of a chosen NCCL version (for the simulator).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"
#include "toposcope/base/time.h"

namespace toposcope::formats {

// The `host:pid:tid [cudaDev] NCCL INFO ` prefix of one line (plus an optional timestamp prefix).
struct NcclLogPrefix {
  std::string host;
  int64_t pid = -1, tid = -1;
  int cuda_dev = -1;
  int64_t ts_ns = kNoTime;  // from a timestamp prefix (NCCL_DEBUG_TIMESTAMP_FORMAT); kNoTime if none
  friend bool operator==(const NcclLogPrefix&, const NcclLogPrefix&) = default;
};

// Which communicator line a NcclCommInit came from.
enum class NcclCommInitKind {
  kRankInfo,      // 2.19+: "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d"
  kInitStart,     // "[ncclCommInitRank] comm %p rank %d nranks %d cudaDev %d [nvmlDev %d] busId %lx [commId 0x%llx] - Init START"
  kInitComplete,  // "[ncclCommInitRank] comm %p rank %d nranks %d cudaDev %d [nvmlDev %d] busId %lx [commId 0x%llx] - Init COMPLETE"
};

struct NcclCommInit {
  NcclLogPrefix at;
  std::string comm;  // "0x55d1..." pointer text, as printed
  int rank = -1, nranks = -1, nnodes = -1, local_ranks = -1, local_rank = -1, cuda_dev = -1;
  std::string bus_id;   // hex text as printed ("81000"); empty if absent
  std::string comm_id;  // "0xb2f794396f6d0bd1"; empty if absent
  int64_t line = 0;
  // Added fields:
  NcclCommInitKind kind = NcclCommInitKind::kRankInfo;
  std::string api;    // word before "comm" ("ncclCommInitRank", "ncclCommInitRankConfig"); empty if none
  int nvml_dev = -1;  // "nvmlDev %d" (2.19+ Init lines); -1 if absent
  int mnnvl = -1;     // "MNNVL %d" of kRankInfo lines; -1 if absent
  friend bool operator==(const NcclCommInit&, const NcclCommInit&) = default;
};

// Rank 0's ring order for one channel: "Channel 00/02 :    0   1". `comm` is taken from the most
// recent comm line of the same host:pid:tid (empty when none was seen; never written).
struct NcclRingOrder {
  NcclLogPrefix at;
  std::string comm;
  int channel = -1, nchannels = -1;
  std::vector<int> ranks;
  int64_t line = 0;
  // Added: true when the printed list was cut ("..." at the end, 2.23+); the partial last number
  // is dropped, so `ranks` holds only complete entries.
  bool truncated = false;
  friend bool operator==(const NcclRingOrder&, const NcclRingOrder&) = default;
};

// "Ring 00 : 7 -> 0 -> 1" (prev -> me -> next).
struct NcclRingLine {
  NcclLogPrefix at;
  int channel = -1, prev = -1, me = -1, next = -1;
  int64_t line = 0;
  friend bool operator==(const NcclRingLine&, const NcclRingLine&) = default;
};

// One channel of "Trees [0] 14/-1/-1->13->12 [1] ..." (down0/down1/down2->me->up; one record per
// bracketed channel) or of the old "Tree 0 : up -> me -> d0/d1/d2".
struct NcclTreeLine {
  NcclLogPrefix at;
  int channel = -1;
  std::array<int, 3> down{-1, -1, -1};
  int me = -1, up = -1;
  int64_t line = 0;
  // Added: true for the old "Tree %d : up -> me -> d0/d1/d2" spelling.
  bool old_format = false;
  friend bool operator==(const NcclTreeLine&, const NcclTreeLine&) = default;
};

enum class NcclTransport { kP2p, kShm, kNet, kCollNet, kNvls, kUnknown };

// "Channel 00/0 : 1[81000] -> 0[81000] [receive] via NET/IB/1/GDRDMA" and the P2P/SHM forms.
struct NcclConnection {
  NcclLogPrefix at;
  int channel = -1, conn_index = 0;  // "Channel %02d/%d"; conn_index 0 when there is no "/conn"
  int from_rank = -1, to_rank = -1;
  std::string from_dev, to_dev;  // text in brackets: busId hex (<= 2.18.1) or nvml index (2.18.3+)
  enum class Dir { kNone, kSend, kReceive } dir = Dir::kNone;
  NcclTransport transport = NcclTransport::kUnknown;
  std::string via;  // full text after "via ", e.g. "NET/IB/3/GDRDMA", "P2P/direct pointer/read"
  std::string net_name;  // NET: "IB", "Socket", "NCCL RDMA Plugin v8"
  int net_dev = -1;      // NET: device index after the net name
  bool gdrdma = false, shared = false, read = false;
  std::string p2p_kind;  // P2P: "direct pointer", "CUMEM", "IPC", "MNNVL"; SHM: "direct", ...
  int64_t line = 0;
  // Added: true when the line had the "/conn" part ("Channel 00/0 :"), false for 2.1x "Channel 00 :".
  bool has_conn_index = true;
  int proxy_rank = -1;     // NET send lines "NET/IB/1(5)/...": the proxy rank in parentheses; -1 if none
  bool gdr_pci = false;    // "/GDRDMA(PCI)" (2.24+)
  bool ce = false;         // P2P "/CE" (copy engine)
  int indirect_rank = -1;  // "P2P/indirect/R[D]": the intermediate rank; -1 otherwise
  std::string indirect_dev;  // ... and its bracket text
  friend bool operator==(const NcclConnection&, const NcclConnection&) = default;
};

// One device of a "NET/IB : Using" list: "[0]mlx5_0:1/RoCE", "[0]mlx5_0:1/IB/SHARP",
// or for NET/Socket "[0]eth0:10.0.0.1<0>".
struct NcclNetDevice {
  int index = -1;
  std::string name;
  int port = -1;
  std::string link_layer;  // "IB" | "RoCE"; empty for sockets
  // Added:
  bool sharp = false;   // "/SHARP" suffix
  std::string address;  // NET/Socket: the address text ("10.0.0.1<0>" without the "<0>": "10.0.0.1");
                        // then `port` holds the number in angle brackets
  friend bool operator==(const NcclNetDevice&, const NcclNetDevice&) = default;
};

// "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_2:1/IB [RO]; OOB ibp209s0f0:10.128.3.13<0>".
struct NcclNetUsing {
  NcclLogPrefix at;
  std::string net_name;  // "IB", "Socket"
  std::vector<NcclNetDevice> devices;
  bool relaxed_ordering = false;  // "[RO]"
  std::string oob_iface;          // "ibp209s0f0"; empty if no OOB part
  std::string oob_ip;             // "10.128.3.13"
  int64_t line = 0;
  int oob_port = -1;              // Added: the "<0>" after the OOB address; -1 if no OOB part
  friend bool operator==(const NcclNetUsing&, const NcclNetUsing&) = default;
};

// A QP line of the IB transport.
//  2.16:      "NET/IB: Dev 1 Port 1 qpn 3038 mtu 5 LID 37"  or  "... mtu 5 GID 0 (80FE/...)"
//  2.21-2.26: "NET/IB: NCCL Dev 3 IbDev 3 Port 1 qpn 1234 mtu 5 LID 12 ..." (or GID ...)
struct NcclQpn {
  NcclLogPrefix at;
  std::string ib_dev;  // 2.21+: the word(s) before the dev number ("NCCL Dev", "NCCL MergedDev"); empty for 2.16
  int dev = -1, port = -1;
  uint32_t qpn = 0;
  int mtu = -1;
  int lid = -1;     // IB: "LID %d"; -1 for RoCE
  std::string gid;  // RoCE: the text after "GID " up to the end of its "(...)" group, e.g. "0 (80FE/5E3...)"
  int64_t line = 0;
  // Added:
  int ib_dev_index = -1;  // 2.21+: "IbDev %d"; -1 for 2.16
  std::string extra;      // 2.21+: trailing text after the LID/GID part ("subnet-prefix ... fifoLkey=0x..")
  std::string ece;        // 2.21+ RoCE: text inside "query_ece={...}" (or "set_ece={...}"); empty if none
  bool remote = false;    // the "NET/IB: IbDev %d Port %d qpn %d set_ece={...}" line: the peer's QP number
  friend bool operator==(const NcclQpn&, const NcclQpn&) = default;
};

// Everything topology-relevant in one log file (it may interleave many processes/ranks).
struct NcclLog {
  std::string source;
  std::string nccl_version;  // from "NCCL version 2.16.5+cuda11.8": "2.16.5+cuda11.8"; empty if none
  std::vector<NcclCommInit> comms;
  std::vector<NcclRingOrder> ring_orders;
  std::vector<NcclRingLine> rings;
  std::vector<NcclTreeLine> trees;
  std::vector<NcclConnection> connections;
  std::vector<NcclNetUsing> net_using;
  std::vector<NcclQpn> qpns;
  // read = lines; accepted = lines understood or ignored as irrelevant NCCL/other text;
  // rejected = recognised-but-malformed lines (each with a diagnostic).
  ReadCounts counts;
  int64_t ignored_lines = 0;  // lines that are not NCCL topology lines (counted, not kept)
  // Added: number of lines carrying an "NCCL INFO"/"NCCL WARN" prefix (or the version banner).
  int64_t nccl_lines = 0;
};

// One record, for the streaming interface.
using NcclLogRecord = std::variant<NcclCommInit, NcclRingOrder, NcclRingLine, NcclTreeLine,
                                   NcclConnection, NcclNetUsing, NcclQpn>;
using NcclLogSink = std::function<void(NcclLogRecord&&)>;

// Streams lines and hands each topology record to `sink`; memory stays bounded (apart from a
// small per-thread map of the latest comm pointer). The returned NcclLog has empty record vectors
// but the version, counts and ignored_lines filled. Fails only when the input holds no NCCL line
// at all and looks like another format (binary data), or on an I/O error.
Result<NcclLog> ReadNcclLogRecords(LineReader& lines, std::string_view source, Diagnostics& diag,
                                   const NcclLogSink& sink);

// Streams lines (LineReader from base/file_io.h) and collects the records: memory grows with the
// number of topology records, not with log size (other lines are counted and dropped).
// Malformed topology lines are rejected into `diag` with their line number and reason. Returns
// the log; fails as ReadNcclLogRecords.
Result<NcclLog> ReadNcclLog(LineReader& lines, std::string_view source, Diagnostics& diag);
// The same over an in-memory text; fails as ReadNcclLogRecords.
Result<NcclLog> ParseNcclLog(std::string_view text, std::string_view source, Diagnostics& diag);
// Line-by-line form of ReadNcclLog, for a file that another reader streams at the same time (nccl-tests
// output run with NCCL_DEBUG=INFO, read once for both): Feed each line with its 1-based number, then
// Finish once. Finish returns what ReadNcclLog returns for the same lines and fails as
// ReadNcclLogRecords (no NCCL line at all and binary data).
class NcclLogLineParser {
 public:
  NcclLogLineParser(std::string_view source, Diagnostics& diag);
  ~NcclLogLineParser();
  NcclLogLineParser(const NcclLogLineParser&) = delete;
  NcclLogLineParser& operator=(const NcclLogLineParser&) = delete;
  // True when `line` is an NCCL log line (with or without a topology record in it).
  bool Feed(std::string_view line, int64_t line_no);
  Result<NcclLog> Finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// True when the head of a file looks like an NCCL_DEBUG=INFO log (for format sniffing).
bool LooksLikeNcclLog(std::string_view head);

// Parses one "host:pid:tid [dev] NCCL INFO " prefix (optionally with a timestamp prefix before
// it). On success stores the prefix and the message text after "NCCL INFO "/"NCCL WARN " and
// returns true; false when the line has no such prefix.
bool ParseNcclLogPrefix(std::string_view line, NcclLogPrefix* prefix, std::string_view* message);

// The transport's name: "P2P", "SHM", "NET", "CollNet", "NVLS", or "unknown".
const char* NcclTransportName(NcclTransport t);

// Writer for the simulator: renders records in the exact line format of a chosen NCCL version.
enum class NcclLogEra {
  kV2_16,  // 2.16.5: busId in brackets (caller's from_dev text), "Channel %02d/%02d : " + " %3d",
           // "comm %p rank %d nranks %d cudaDev %d busId %lx commId 0x%llx - Init COMPLETE",
           // "NET/IB: Dev %d Port %d qpn %d mtu %d LID %d|GID ..."
  kV2_26,  // 2.26.2: "Channel %02d/%02d :" + " %*d" (width digits(nranks-1)), "comm %p rank %d nRanks
           // %d nNodes %d localRanks %d localRank %d MNNVL %d", "NET/IB: %s %d IbDev %d Port %d qpn ..."
  kV2_12,  // 2.12 (added): as kV2_16 but connection lines without "/conn" ("Channel 00 : ...")
};

// Each method returns one full line (several for nothing) with its prefix and a trailing '\n'.
// The prefix is the record's `at` when its host is non-empty, else the writer's prefix. A prefix
// ts_ns other than kNoTime is written as a "[%F %T.%6f] " style timestamp (microseconds, UTC)
// before the host; the reader turns it back into ts_ns.
class NcclLogWriter {
 public:
  NcclLogWriter(NcclLogEra era, NcclLogPrefix prefix);
  // "host:pid:tid [dev] NCCL INFO NCCL version 2.26.2+cuda12.8" (kV2_26); 2.16/2.12 print the bare
  // "NCCL version 2.16.5+cuda11.8" line.
  std::string Version(std::string_view version_text);
  // kRankInfo records in the 2.19+ spelling; kInitStart/kInitComplete in the "... - Init ..." form.
  // For kV2_16/kV2_12, a kRankInfo record is written as an Init COMPLETE line (that era has no
  // rank-info line).
  std::string CommInit(const NcclCommInit& c);
  // Exactly like NCCL's dumpLine: kV2_26 pads to digits(nranks-1) and cuts the message at 127
  // characters with "..."; the older eras print " %3d" for at most 20 ranks.
  std::string RingOrder(const NcclRingOrder& r, int nranks);
  std::string Ring(const NcclRingLine& r);
  // One channel: "Trees [c] d0/d1/d2->me->up" (or the old "Tree c : up -> me -> d0/d1/d2").
  std::string Tree(const NcclTreeLine& t);
  // Several channels on one "Trees [0] ... [1] ..." line, as NCCL prints them (prefix of the first).
  std::string Trees(const std::vector<NcclTreeLine>& ts);
  // Writes `via` as given, or builds it from the fields when it is empty. "/conn" is printed except
  // in kV2_12 and for SHM (NCCL never prints it there); kCollNet records use the "CollNet" line.
  std::string Connection(const NcclConnection& c);
  std::string NetUsing(const NcclNetUsing& u);
  // kV2_12/kV2_16: "NET/IB: Dev .. LID ..|GID ..". kV2_26: the 2.21+ line; an empty `ece` or
  // `extra` is filled with ConnectX-like defaults (so set them for exact round trips).
  std::string Qpn(const NcclQpn& q);
  // Any other INFO message with this writer's prefix (noise lines for the simulator).
  std::string Info(std::string_view message);

  void set_prefix(NcclLogPrefix prefix) { prefix_ = std::move(prefix); }
  [[nodiscard]] const NcclLogPrefix& prefix() const { return prefix_; }
  [[nodiscard]] NcclLogEra era() const { return era_; }

 private:
  std::string Prefix(const NcclLogPrefix& at) const;
  NcclLogEra era_;
  NcclLogPrefix prefix_;
};

}  // namespace toposcope::formats
