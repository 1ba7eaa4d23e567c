// formats/trace/trace_event: the common event record of the global timeline (seed §2.2). Every event
// source (PyTorch/Kineto Chrome traces, NCCL Inspector records, toposcope's JSONL events) is read
// into TraceEvents on the producing host's own clock; the aligner maps local_ts_ns to the global
// axis and k-way merges. Also the parse of NCCL kernel names into collective/algo/proto.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "toposcope/base/time.h"

namespace toposcope::formats {

// One event on one host's clock.
struct TraceEvent {
  int64_t local_ts_ns = kNoTime;  // start, ns on the producing host's clock (see the reader for
                                  // the epoch: Unix epoch when known, else trace-relative)
  int64_t dur_ns = 0;             // duration in ns; 0 for instants, counters, metadata
  std::string host;               // hostname; empty when the source does not say
  int rank = -1;                  // global rank; -1 when unknown
  std::string device;             // "gpu0", "cpu", "stream7", "nic0", ...
  std::string type;               // event name, e.g. ncclDevKernel_AllReduce_Sum_f32_RING_LL
  std::string category;           // kernel, cpu_op, cuda_runtime, coll_perf, p2p_perf, COLL, ...
  std::string context;            // correlation / collective seq / comm id, as `key=value;...`
  int64_t pid = 0;                // Chrome trace pid (GPU events: device index); -1 when it was
                                  // a string
  int64_t tid = 0;                // Chrome trace tid (GPU events: stream); -1 when a string
  std::string source_file;        // the input it came from
  int64_t line = 0;               // 1-based line in source_file (0 when only byte_offset known)

  // Added fields (after the brief's list):
  char phase = 'X';               // Chrome trace `ph`: X B E i I M s t f b n e C; 'X' for
                                  // inspector / JSONL events that have a duration, 'i' without
  double value = 0.0;             // counter value (ph C); 0 otherwise
  int64_t byte_offset = -1;       // byte offset of the record in the (decompressed) input

  friend bool operator==(const TraceEvent&, const TraceEvent&) = default;
};

// Receives events one by one (streaming readers). Return value ignored.
using TraceEventSink = std::function<void(TraceEvent&&)>;

// An NCCL kernel name, decoded.
struct CollectiveInfo {
  bool is_nccl = false;      // the name is an NCCL device kernel (ncclKernel_* / ncclDevKernel_*)
  std::string collective;    // AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, SendRecv
  std::string algo;          // RING, TREE, COLLNET_DIRECT, COLLNET_CHAIN, NVLS, NVLS_TREE, PAT;
                             // empty for the generic kernel
  std::string proto;         // LL, LL128, SIMPLE; empty for the generic kernel
  std::string redop;         // Sum, Prod, Max, Min, PreMulSum, SumPostDiv; empty when absent
  std::string dtype;         // as spelled: float / f32 / int8_t / i8 / bf16 ...; empty when absent
  bool generic = false;      // the generic kernel (no algo/proto in the name)
  int era = 0;               // 218 for ncclKernel_* (NCCL <= 2.18), 219 for ncclDevKernel_*
  friend bool operator==(const CollectiveInfo&, const CollectiveInfo&) = default;
};

// Decodes an NCCL kernel name of either era, with or without the parenthesised signature:
//   <= 2.18: ncclKernel_<Func>_<ALGO>_<PROTO>_<RedOp>_<type>(ncclDevComm*, unsigned long, ncclWork*)
//   >= 2.19: ncclDevKernel_<Coll>_<RedOp>_<ty>_<ALGO>_<PROTO>(ncclDevKernelArgsStorage<4096ul>),
//            ncclDevKernel_SendRecv, ncclDevKernel_AllGather_RING_LL (no redop/type).
// Returns is_nccl = false for any other name; fields it cannot place stay empty.
CollectiveInfo ParseNcclKernelName(std::string_view name);

// Builds / reads the canonical context string `k1=v1;k2=v2` (keys in the given order, values
// with ';' and '=' replaced by '_'). ContextValue returns "" when the key is absent.
std::string ContextValue(std::string_view context, std::string_view key);

}  // namespace toposcope::formats
