// model/dcgm_read: reads any DCGM input (dcgmi dmon text, dcgm-exporter scrapes, TSDB CSV) into
// DcgmPoints, resolving field names through the DCGM field catalog.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/dcgm/dcgm_dmon.h"
#include "toposcope/formats/dcgm/prometheus_text.h"
#include "toposcope/formats/sniff.h"
#include "toposcope/model/dcgm.h"

namespace toposcope::model {

// Streams the file's samples into `sink`. Samples without a host take `host`. Samples of metrics
// that are not DCGM fields (e.g. NCCL Inspector gauges in a scrape) are counted as read and
// accepted but not emitted. Fails when the file cannot be opened or is not of `format` at all.
//
// Samples that carry no time (plain `dcgmi dmon` output, a `/metrics` scrape without timestamps)
// are placed from `untimed_origin_ns` (kNoTime: the file's modification time; the loader chooses the
// origin from the data set first, see LoadOptions::untimed_at_ns): a dmon row at
// origin + iteration x kDmonDefaultDelayMs, the n-th sample of one scrape series at origin + n x
// kExporterDefaultIntervalMs. One warning per file says so.
Status ReadDcgmFile(const std::string& path, const std::string& host, formats::FileFormat format,
                    const std::function<void(const DcgmPoint&)>& sink, Diagnostics& diag, ReadCounts& counts,
                    int64_t untimed_origin_ns = kNoTime);

// Which samples a read hands to its sink, by whether they carry a time of their own.
enum class UntimedSamples : uint8_t {
  kPlace,  // all; those without a time placed from the origin
  kSkip,   // only those with a time; the others are counted (UntimedPlacement::untimed), no warning
  kOnly,   // only those without a time, placed from the origin
};

// The MIG instances one dmon file names (`GPU-I n`, `GPU-CI n`): dmon prints their DCGM entity ids
// only, not their GPU; the loader links them through `dcgmi discovery -c` once every input is read.
struct DmonMigRows {
  std::string path;
  std::string host;                         // the file's host
  int64_t line = 0;                         // the first row naming a MIG instance
  std::vector<formats::DmonEntity> entities;  // each instance once, in label order
};

// The one warning of a dmon file whose MIG instances `entities` stay entities of their own, not
// linked to a GPU: `why` says why ("dmon does not say which GPU holds them", ...).
void WarnUnlinkedMigInstances(const std::string& path, int64_t line, const std::vector<formats::DmonEntity>& entities,
                              std::string_view why, Diagnostics& diag);

// Where a read places the samples that carry no time, and what it says about it.
struct UntimedPlacement {
  int64_t origin_ns = kNoTime;  // where they start; kNoTime: the file's modification time
  std::string origin_note;      // what the origin is, in the warning; empty: "--at" (or the mtime's note)
  UntimedSamples emit = UntimedSamples::kPlace;
  int64_t* untimed = nullptr;       // when set, counts the samples without a time
  Diagnostics* note_to = nullptr;   // where the placement warning goes; null: the read's diagnostics
  // When set, a dmon file's MIG instances are listed here for the loader to link (DmonMigRows);
  // when null, the read warns once that they stay entities of their own, not linked to a GPU.
  std::vector<DmonMigRows>* mig_rows = nullptr;
};

// ReadDcgmFile with the placement spelled out (the loader reads a file's timed samples first, and
// its untimed ones once it knows where they start). Fails as ReadDcgmFile.
Status ReadDcgmFile(const std::string& path, const std::string& host, formats::FileFormat format,
                    const std::function<void(const DcgmPoint&)>& sink, Diagnostics& diag, ReadCounts& counts,
                    const UntimedPlacement& untimed);

// The DCGM point of a Prometheus sample (a scrape line, or a value of the query API): the field
// from the metric name through the field catalog, the host from `Hostname` / `hostname`, else
// `fallback_host`, the GPU, link and MIG instance from their labels (prometheus_text's DCGM view).
// nullopt for a metric that is not a DCGM field (DCGM_FI_*) and for a sample without a time.
std::optional<DcgmPoint> DcgmPointOfPromSample(const formats::PromSample& sample, const std::string& fallback_host);

// `dcgmi dmon -d` default: 1000 ms between iterations (dcgmi dmon --help, DCGM 3.x).
inline constexpr int64_t kDmonDefaultDelayMs = 1000;
// dcgm-exporter `-c, --collect-interval` default: 30000 ms (dcgm-exporter README).
inline constexpr int64_t kExporterDefaultIntervalMs = 30000;

}  // namespace toposcope::model
