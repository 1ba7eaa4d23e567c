// formats/rdma/qp_state_log: QP state-transition logs, one line per `ibv_modify_qp` (or async-error)
// state change of one queue pair: ts, host, qp, [dev], [job], from_state, to_state. Two layouts
// we define and document in docs/qp_state_log.md: CSV (header line required) and JSONL (one
// object per line). Read streaming (LineReader + sink) and written (for the simulator and for
// round trips). The 8 ibverbs states (`enum ibv_qp_state`) are accepted by name (RESET ... UNKNOWN,
// any case, optional `IBV_QPS_` prefix) or by their numeric value 0..7. Transitions that the
// kernel's qp_state_table forbids (../shared/DOMAIN.md §5.5) are accepted but flagged and counted.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

// `enum ibv_qp_state`, with the same numeric values.
enum class QpState : uint8_t {
  kReset = 0,
  kInit = 1,
  kRtr = 2,
  kRts = 3,
  kSqd = 4,
  kSqe = 5,
  kErr = 6,
  kUnknown = 7,
};
inline constexpr int kNumQpStates = 8;

// "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR", "UNKNOWN".
std::string_view QpStateName(QpState s);
// Parses a state: a name in any case with or without the `IBV_QPS_` prefix ("rts", "IBV_QPS_RTS"),
// or the numeric enum value "0".."7". nullopt for anything else.
std::optional<QpState> ParseQpState(std::string_view s);
// True when `from -> to` is a legal modify_qp transition per the kernel's qp_state_table
// (DOMAIN §5.5): also RESET->ERR (newer kernels) and SQE->RTS (UD/UC), plus RTS->SQE, the
// asynchronous move of a UD/UC QP on a send error (as RTS->ERR is for RC). Any transition touching
// UNKNOWN, and a self-loop on UNKNOWN, is not legal (UNKNOWN is what a query returns, never a
// target).
bool IsLegalQpTransition(QpState from, QpState to);

struct QpStateRecord {
  int64_t ts_ns = 0;        // Unix-epoch ns (ISO 8601 or epoch s/ms/us/ns in the input)
  std::string host;         // non-empty
  uint32_t qp = 0;          // QP number (decimal or 0x hex in the input); < 2^24 per IB spec
  std::string dev;          // RDMA device ("mlx5_0"); empty when absent
  std::string job;          // job id; empty when absent
  QpState from = QpState::kReset;
  QpState to = QpState::kReset;
  bool legal = true;        // IsLegalQpTransition(from, to)
  int64_t line = 0;         // 1-based input line; 0 when built in memory

  // Equality ignores `line`.
  friend bool operator==(const QpStateRecord& a, const QpStateRecord& b) {
    return a.ts_ns == b.ts_ns && a.host == b.host && a.qp == b.qp && a.dev == b.dev &&
           a.job == b.job && a.from == b.from && a.to == b.to && a.legal == b.legal;
  }
};

enum class QpLogLayout { kCsv, kJsonl };

struct QpStateLogSummary {
  QpLogLayout layout = QpLogLayout::kCsv;
  ReadCounts counts;                   // one record per non-blank, non-comment data line
  int64_t illegal_transitions = 0;     // accepted records with legal == false (each also warned)
  int64_t out_of_order = 0;            // accepted records older than the previous one of the
                                       // same (host, qp) (accepted, warned)
  int64_t discontinuities = 0;         // accepted records whose from_state differs from the previous
                                       // to_state of the same (host, qp): records are missing
                                       // (accepted, warned)
  // illegal[from][to]: how many accepted records made that illegal transition.
  std::array<std::array<int64_t, kNumQpStates>, kNumQpStates> illegal{};
};

using QpStateSink = std::function<void(const QpStateRecord&)>;

// Streams a QP state log (CSV or JSONL, chosen from the first data line: `{` means JSONL) and
// calls `sink` for every accepted record, in input order. Rejected with line and reason (counted):
// missing/unparsable ts, empty host, bad qp (not an integer, negative, >= 2^24), unknown state,
// wrong column count, an exact duplicate of the previous record of the same QP, bad JSON, a JSON value of the wrong type; unknown JSON keys are ignored.
// `#` comment lines and blank lines are skipped (not records). Fails only when the input is not
// this format at all: binary, a CSV whose first line is not a header naming ts, host, qp,
// from_state and to_state, or data lines that were all rejected; or on an I/O error.
Result<QpStateLogSummary> ReadQpStateLog(LineReader& reader, std::string_view source,
                                         Diagnostics& diag, const QpStateSink& sink);
// Same over an in-memory text: returns the summary; fails as ReadQpStateLog.
Result<QpStateLogSummary> ParseQpStateLog(std::string_view text, std::string_view source,
                                          Diagnostics& diag, const QpStateSink& sink);

// Writers. CSV: header `ts_ns,host,qp,dev,job,from_state,to_state`, ts in epoch ns, qp in
// decimal, states by name. JSONL: {"ts_ns":..,"host":..,"qp":..,"dev":..,"job":..,"from":..,
// "to":..} (dev/job omitted when empty). Both round-trip through ReadQpStateLog.
std::string QpStateCsvHeader();                          // with trailing '\n'
std::string FormatQpStateCsvLine(const QpStateRecord& r);  // with trailing '\n'
std::string FormatQpStateJsonLine(const QpStateRecord& r);  // with trailing '\n'

}  // namespace toposcope::formats
