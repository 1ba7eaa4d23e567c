// model/dcgm_read: reads any DCGM input (dcgmi dmon text, dcgm-exporter scrapes, TSDB CSV) into
// DcgmPoints, resolving field names through the DCGM field catalog.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/sniff.h"
#include "toposcope/model/dcgm.h"

namespace toposcope::model {

// Streams the file's samples into `sink`. Samples without a host take `host`. Samples of metrics
// that are not DCGM fields (e.g. NCCL Inspector gauges in a scrape) are counted as read and
// accepted but not emitted. Fails when the file cannot be opened or is not of `format` at all.
//
// Samples that carry no time (plain `dcgmi dmon` output, a `/metrics` scrape without timestamps)
// are placed from `untimed_origin_ns` (kNoTime: the file's modification time): a dmon row at
// origin + iteration x kDmonDefaultDelayMs, the n-th sample of one scrape series at origin + n x
// kExporterDefaultIntervalMs. One warning per file says so.
Status ReadDcgmFile(const std::string& path, const std::string& host, formats::FileFormat format,
                    const std::function<void(const DcgmPoint&)>& sink, Diagnostics& diag, ReadCounts& counts,
                    int64_t untimed_origin_ns = kNoTime);

// `dcgmi dmon -d` default: 1000 ms between iterations (dcgmi dmon --help, DCGM 3.x).
inline constexpr int64_t kDmonDefaultDelayMs = 1000;
// dcgm-exporter `-c, --collect-interval` default: 30000 ms (dcgm-exporter README).
inline constexpr int64_t kExporterDefaultIntervalMs = 30000;

}  // namespace toposcope::model
