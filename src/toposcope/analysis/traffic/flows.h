// analysis/traffic/flows: RoCEv2 flows from packet captures, the source QP of every flow, and which host
// owns each IP address (issue 4 §2/§4; MISSION "What the seed gets wrong": source QP).
//
// A flow is one direction of one RC/UC/UD connection as the wire shows it: (source IP, destination
// IP, BTH DestQP). RoCEv2's BTH names only the destination QP, so the source QP of a flow is
// learned by pairing (DOMAIN §5.1-5.3, §3.4):
//  - deth:        UD packets carry their source QP in the DETH;
//  - reverse_psn: the responder's ACK / NAK / READ response packets B->A acknowledge PSNs of the
//                 requester's stream A->B (IBTA BTH PSN, AETH): a B->A flow whose ACK PSNs fall
//                 inside the request PSN runs of exactly one A->B flow of the IP pair (and, the
//                 other way, whose request PSNs that flow's ACKs acknowledge) is its reverse. When
//                 the PSN runs of two QPs of one NIC pair overlap (initial PSNs are random 24-bit
//                 numbers, so rarely), timing at a common capture point decides: an ACK never
//                 precedes the request it acknowledges, and the true pair's ACK lag is the
//                 shortest. Neither the UDP source port (ConnectX picks one per QP, so the two
//                 directions differ) nor MSN (NCCL splits every send over all QPs of a connection,
//                 so sibling QPs count messages in lockstep) separates the QPs of one NIC pair;
//                 an unresolved tie is reported as ambiguous in pairing_detail;
//  - reverse_ack: the responder's ACK / READ response / ATOMIC ACK packets B->A carry the
//                 requester's QP as their DestQP: a B->A flow holding responses is matched to the
//                 A->B flow with the same IP pair, the same UDP source port (the kernel's flow label
//                 is symmetric) and overlapping time; both flows are then paired;
//  - rdma_tool:   `rdma res show qp` of host A lists lqpn qA with rqpn qB: flow A->B to qB has
//                 source QP qA (cross-checked with host B's table when it is given);
//  - nccl_log:    NCCL's "NET/IB ... qpn N" lines name the local QPs of a host (2.21+ "set_ece"
//                 lines name the peer's QP right after): a local/remote pair, or the only NCCL QP of
//                 host A on a connection towards B's host (or the only one whose UDP source port
//                 hash matches), gives the source QP;
//  - udp_sport:   the UDP source port is rdma_flow_label_to_udp_sport(rdma_calc_flow_label(lqpn,
//                 rqpn)) (Linux ib_verbs.h) when the flow label is 0 (NCCL's case): a reverse
//                 B->A flow with the same port but no responses captured, or the only QP known on
//                 host A whose hash with qB gives the flow's port.
// Precedence when methods disagree: deth > reverse_psn > reverse_ack > rdma_tool > nccl_log > udp_sport (wire
// evidence seen with the packets beats host snapshots taken at another time, and the 14-bit hash
// only proposes). Every method's answer is kept on the flow (`candidates`) and disagreements are
// counted.
//
// Streaming: captures are read packet by packet (model::StreamCapture); memory grows with the
// number of flows (and, per flow, with the number of capture points that saw it), never with the
// number of packets.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/ip_address.h"
#include "toposcope/base/last_lookup.h"
#include "toposcope/base/result.h"
#include "toposcope/analysis/traffic/packet_log.h"
#include "toposcope/formats/rdma/pcap_capture.h"
#include "toposcope/formats/rdma/roce_packet.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/sources.h"

namespace toposcope::analysis {

struct FlowKey {
  IpAddress src, dst;
  uint32_t dest_qp = 0;  // BTH DestQP (24 bit)
  auto operator<=>(const FlowKey&) const = default;
};

// The key of a packet's flow (source IP, destination IP, 24-bit DestQP). Never fails.
FlowKey KeyOf(const formats::RocePacket& p);

struct FlowKeyHash {
  // A hash of the whole key. Never fails.
  size_t operator()(const FlowKey& k) const noexcept;
};

enum class QpPairing {
  kNone,
  kReverseAck,
  kUdpSourcePort,
  kNcclLog,
  kRdmaTool,
  kDeth,       // UD carries its source QP
  kReversePsn  // the reverse flow's ACK PSNs fall in this flow's request PSNs
};
// The method's name: "none", "reverse_ack", "udp_sport", "nccl_log", "rdma_tool", "deth",
// "reverse_psn" ("none" for a value outside the enum). Never fails.
std::string_view QpPairingName(QpPairing p);
// The method's precedence, higher wins: deth 6, reverse_psn 5, reverse_ack 4, rdma_tool 3, nccl_log 2,
// udp_sport 1, none 0 (0 for a value outside the enum). Never fails.
int QpPairingRank(QpPairing p);

// Index into Flow::opcode_mix.
enum OpClass : int {
  kOpSend = 0,     // SEND First..Only (RC/UC/UD), with immediate / invalidate
  kOpWrite = 1,    // RDMA WRITE First..Only (RC/UC), with immediate
  kOpReadReq = 2,  // RDMA READ Request
  kOpReadResp = 3, // RDMA READ Response First..Only
  kOpAck = 4,      // ACKNOWLEDGE (ACK, NAK, RNR NAK) and ATOMIC ACKNOWLEDGE
  kOpAtomic = 5,   // CmpSwap, FetchAdd
  kOpCnp = 6,      // RoCEv2 CNP (0x81)
  kOpOther = 7,
};
inline constexpr int kOpClasses = 8;
// The class's name: "send", "write", "read_req", "read_resp", "ack", "atomic", "cnp", "other" ("other"
// for an index outside 0..kOpClasses-1). Never fails.
std::string_view OpClassName(int op_class);
// The OpClass of a BTH opcode: kOpCnp for a CNP, kOpOther for opcodes outside RC/UC/UD or reserved
// ones. Never fails.
int OpClassOf(uint8_t opcode);

// The UDP source port Linux derives for a RoCEv2 QP whose flow label is 0 (ib_verbs.h):
// fl = lqpn * rqpn; fl ^= fl >> 20; fl ^= fl >> 40; fl &= 0xFFFFF (rdma_calc_flow_label), then
// ((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) | 0xC000 (rdma_flow_label_to_udp_sport). Symmetric in
// its arguments. Returns that port (always >= 0xC000); never fails.
uint16_t RoceUdpSourcePort(uint32_t lqpn, uint32_t rqpn);

struct Flow {
  FlowKey key;
  std::string src_host, dst_host;  // from the HostMap; empty when unknown
  uint16_t udp_src_port = 0;       // the most frequent UDP source port of the flow
  bool udp_src_port_mixed = false; // more than one source port was seen
  formats::RoceTransport transport = formats::RoceTransport::kUnknown;  // of the first packet
  int64_t packets = 0, bytes = 0, payload_bytes = 0;  // bytes = wire length
  int64_t first_ns = 0, last_ns = 0;
  std::array<int64_t, kOpClasses> opcode_mix{};  // packets per OpClass
  // Requester PSN space (SEND/WRITE/READ request/atomics; CNP, ACK and READ responses excluded):
  // 24-bit modular comparison with the highest PSN seen + 1. psn_gaps = PSNs skipped ahead (sum of
  // the jumps), retransmissions = packets at or behind the highest PSN seen. After a READ request
  // of L bytes the next request may legally jump by up to ceil(L / 256) PSNs (the response
  // packets' PSNs at the smallest IB MTU): such jumps are not gaps. ACK PSNs (coalesced) are not
  // tracked.
  int64_t psn_gaps = 0, retransmissions = 0;
  int64_t naks = 0, rnr_naks = 0, acks = 0;  // AETH syndromes of ACK-class packets (acks = positive)
  int64_t ecn_ce = 0, becn = 0, fecn = 0;    // packets with IP ECN CE / BTH BECN / BTH FECN
  int64_t data_bytes = 0;  // payload of SEND / WRITE / READ responses (the data the flow carries)
  // UD: the DETH source QP (first one seen) and whether others were seen too.
  int64_t deth_packets = 0;
  uint32_t deth_src_qp = 0;
  bool deth_mixed = false;
  // Pairing result.
  uint32_t src_qp = 0;  // valid when pairing != kNone
  QpPairing pairing = QpPairing::kNone;
  std::vector<std::pair<QpPairing, uint32_t>> candidates;  // every method's answer, best first
  bool pairing_conflict = false;  // two methods named different source QPs
  std::string pairing_detail;     // short human evidence, e.g. "reverse flow qp 0x12 sport 0xc0a1"
  // Capture points (CaptureInput::index) that saw the flow, sorted. With several points the
  // counters above come from the point that saw the most packets of the flow (first/last_ns span
  // all points).
  std::vector<int> capture_points;

  [[nodiscard]] int64_t requests() const {
    return opcode_mix[kOpSend] + opcode_mix[kOpWrite] + opcode_mix[kOpReadReq] + opcode_mix[kOpAtomic];
  }
  [[nodiscard]] int64_t responses() const { return opcode_mix[kOpReadResp] + opcode_mix[kOpAck]; }
};

// A run of consecutive request PSNs of one flow: [lo, lo + len) mod 2^24 (a READ request's run
// reaches over the PSNs its responses may take).
struct PsnRun {
  uint32_t lo = 0, len = 0;
};
// One sampled packet: its PSN and capture time.
struct PsnSample {
  uint32_t psn = 0;
  int64_t ts_ns = 0;
};
// What one capture point saw of a flow's PSNs: request packets that advanced the stream (sampled
// evenly, in capture order) and ACK / NAK / READ response packets (sampled evenly). At most
// kMaxPsnSamples each, whatever the number of packets.
struct PointPsnEvidence {
  int capture_index = 0;
  std::vector<PsnSample> requests, acks;
};
// The PSN evidence of one flow for pairing (kept out of Flow: it is not part of the result).
struct FlowPsnEvidence {
  FlowKey key;
  std::vector<PsnRun> runs;  // request PSN runs, every capture point's
  std::vector<PointPsnEvidence> points;
};
inline constexpr size_t kMaxPsnSamples = 16;
inline constexpr size_t kMaxPsnRuns = 16;

// Streaming flow table: memory grows with the number of flows (times the capture points that saw
// each flow), not with packets. Packets of one capture point should arrive in capture order.
class FlowTable {
 public:
  // Adds one packet to its flow (KeyOf(p)), on capture point p.capture_index. Never fails.
  // Returns the flow's number in the table (the order flows were first seen; see KeyAt).
  size_t Add(const formats::RocePacket& p);
  // The key of the flow numbered `i` by Add.
  [[nodiscard]] const FlowKey& KeyAt(size_t i) const { return states_[i].key; }
  // The number of flows.
  [[nodiscard]] size_t size() const { return index_.size(); }
  // The number of packets added.
  [[nodiscard]] int64_t packets() const { return packets_; }
  // Every flow, finalised (per-point counters folded as described on Flow), sorted by key. Hosts
  // and pairing are left empty: see AnalyzeFlows / PairFlows.
  [[nodiscard]] std::vector<Flow> Flows() const;
  // One flow, finalised; nullopt when no packet of that key was added.
  [[nodiscard]] std::optional<Flow> Find(const FlowKey& key) const;
  // Every flow's PSN evidence, sorted by key (the order of Flows()). Never fails.
  [[nodiscard]] std::vector<FlowPsnEvidence> PsnEvidence() const;

 private:
  struct PsnTrack {
    bool started = false;
    uint32_t next = 0;        // highest PSN seen + 1 (mod 2^24)
    uint32_t read_slack = 0;  // allowed jump after a READ request
  };
  // Keeps every stride-th item (stride doubles when kMaxPsnSamples are held) in a block of the
  // table's sample arena, taken at its first item: a flow's samples need no allocation of their own.
  struct Sampler {
    static constexpr uint32_t kNoBlock = 0xffffffffu;
    uint32_t block = kNoBlock;
    uint32_t count = 0, stride = 1, seen = 0;
  };
  struct PointState {
    int capture_index = 0;
    int64_t packets = 0, bytes = 0, payload_bytes = 0, data_bytes = 0;
    int64_t first_ns = 0, last_ns = 0;
    std::array<int64_t, kOpClasses> opcode_mix{};
    int64_t psn_gaps = 0, retransmissions = 0, naks = 0, rnr_naks = 0, acks = 0;
    int64_t ecn_ce = 0, becn = 0, fecn = 0;
    PsnTrack req;
    PsnRun run;                 // the request PSN run being extended (valid once req.started)
    std::vector<PsnRun> runs;   // the runs before it (a gap closes a run)
    Sampler req_samples, ack_samples;
  };
  struct State {
    FlowKey key;
    formats::RoceTransport transport = formats::RoceTransport::kUnknown;
    std::vector<PointState> points;
    // UDP source ports: the first two distinct ones with counts (enough for "most frequent" in the
    // usual one-port case; more ports only set `mixed`).
    uint16_t port_a = 0, port_b = 0;
    int64_t port_a_n = 0, port_b_n = 0;
    bool ports_mixed = false;
    int64_t deth_packets = 0;
    uint32_t deth_src_qp = 0;
    bool deth_mixed = false;
  };
  Flow Finalise(const State& s) const;
  void Sample(Sampler& s, uint32_t psn, int64_t ts_ns);
  [[nodiscard]] std::vector<PsnSample> SamplesOf(const Sampler& s) const;
  std::unordered_map<FlowKey, size_t, FlowKeyHash> index_;
  std::vector<State> states_;
  LastLookup<FlowKey, size_t> last_;  // the last packet's flow, as an index into states_
  int64_t packets_ = 0;
  std::vector<uint32_t> psn_arena_;  // kMaxPsnSamples per block
  std::vector<int64_t> ts_arena_;
};

// Which host owns an IP address.
struct HostMap {
  // ip -> (host, source). Sources, strongest first: "inventory", "show_gids", "ibv_devinfo" (RoCE
  // GIDs that are IPv4-mapped or IPv6), "nccl_log" (the OOB address of "NET/IB : Using ... OOB
  // iface:IP", with the log line's host). A weaker source never overrides a stronger one.
  std::map<IpAddress, std::pair<std::string, std::string>> ip_host_source;
  // ip -> NIC / netdev when a source names it (inventory nic, show_gids dev, ibv_devinfo device).
  std::map<IpAddress, std::string> ip_nic;
  // "10.0.0.1: inventory says a, nccl_log says b" — an IP claimed by two hosts.
  std::vector<std::string> conflicts;
  // The host of `ip`; "" when unknown.
  [[nodiscard]] std::string HostOf(const IpAddress& ip) const;
  // The NIC of `ip`; "" when unknown.
  [[nodiscard]] std::string NicOf(const IpAddress& ip) const;
  // Adds one mapping (keeps the stronger source; records a conflict when hosts differ).
  void Add(const IpAddress& ip, const std::string& host, const std::string& source,
           const std::string& nic = {});
};

// The host map from the inventory rows (ip and gid columns), every host's show_gids (GID and IPv4
// cells), ibv_devinfo GIDs and the NCCL logs' addresses (OOB, NICs, qpn-line GIDs). Never fails:
// unparsable addresses are skipped, conflicting claims recorded in `conflicts`.
HostMap BuildHostMap(const model::Dataset& ds);

// Parses a GID as printed (8 groups of 4 hex digits or compressed IPv6); an IPv4-mapped GID
// (::ffff:a.b.c.d) gives the IPv4 address. nullopt when it is not a GID / is the zero GID.
std::optional<IpAddress> GidToIp(std::string_view gid);
// The address in an NCCL qpn line's GID text, "3 (0/B00000AFFFF0000)": NCCL prints the GID's two
// halves as little-endian uint64 in hex. IPv4-mapped GIDs give the IPv4 address; link-local and
// zero GIDs give nullopt.
std::optional<IpAddress> NcclGidToIp(std::string_view gid);

struct PairingOptions {
  // Reverse flows must overlap in time within this slack (capture clocks of different points may
  // differ).
  int64_t overlap_slack_ns = 1'000'000'000;
  bool use_udp_sport_hash = true;
};

// Fills src_host/dst_host of every flow and pairs source QPs by every method (see the file
// comment). `flows` must be sorted by key (FlowTable::Flows()). Returns the number of flows with a
// pairing conflict; never fails (a flow no method pairs keeps pairing kNone).
// `psn` (may be null; else FlowTable::PsnEvidence() of the same flows) enables reverse_psn.
int64_t PairFlows(std::vector<Flow>& flows, const model::Dataset& ds, const HostMap& hosts,
                  const PairingOptions& opts = {}, const std::vector<FlowPsnEvidence>* psn = nullptr);

struct FlowReport {
  std::vector<Flow> flows;  // sorted by key
  int64_t packets = 0;      // RoCE packets read (all captures)
  std::vector<formats::CaptureSummary> captures;
  std::map<std::string, int64_t> pairing_counts;  // flows by QpPairingName (the winning method)
  int64_t pairing_conflicts = 0;
  HostMap hosts;
};

// The flow of a key in a report (binary search); nullptr when absent.
const Flow* FindFlow(const FlowReport& report, const FlowKey& key);

struct FlowOptions {
  bool check_icrc = false;
  PairingOptions pairing;
};

// Per-packet callback of the second pass: the packet, its flow's source QP (0 when the flow is
// unpaired: flow.pairing == kNone) and the flow (paired, hosts filled).
using FlowPacketSink = std::function<void(const formats::RocePacket&, uint32_t src_qp, const Flow&)>;

// Reads every capture of the dataset once (streaming) into a FlowTable, builds the host map and
// pairs the flows' source QPs; returns the report. When `second_pass` is given, every capture is read a SECOND time
// after pairing and each RoCE packet is handed to it with its flow's source QP (capture order,
// captures in Dataset order); diagnostics of the second read are not repeated. A capture that
// cannot be opened is an error diagnostic (RejectAtByte at byte 0) and is skipped; fails only
// when the dataset has captures and none of them could be read.
Result<FlowReport> AnalyzeFlows(const model::Dataset& ds, Diagnostics& diag,
                                const FlowPacketSink& second_pass = nullptr);
Result<FlowReport> AnalyzeFlows(const model::Dataset& ds, Diagnostics& diag, const FlowOptions& opts,
                                const FlowPacketSink& second_pass = nullptr);
// The same, keeping every RoCE packet in `log` (when it is usable) for a later ReplayPackets; the
// log's flow numbers are then indices into the report's `flows`.
Result<FlowReport> AnalyzeFlows(const model::Dataset& ds, Diagnostics& diag, const FlowOptions& opts,
                                PacketLog* log);

// A second pass over the captures of a finished report (for consumers that run later): each
// packet with its flow's source QP, as AnalyzeFlows' callback (packets of flows the report does not
// hold are skipped). Does nothing without a sink. Fails, with the last read error, only when the
// dataset has captures and none of them could be read.
Status ReplayPackets(const model::Dataset& ds, const FlowReport& report, const FlowPacketSink& sink,
                     bool check_icrc = false);
// The same from the packets AnalyzeFlows kept in `log` (no capture read again): each packet holds
// what PacketLog keeps, and its flow's addresses. Reads the captures again, as above, when the log
// is null or not usable.
Status ReplayPackets(const model::Dataset& ds, const FlowReport& report, const FlowPacketSink& sink,
                     bool check_icrc, PacketLog* log);

}  // namespace toposcope::analysis
