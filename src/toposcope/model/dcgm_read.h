// model/dcgm_read: reads any DCGM input (dcgmi dmon text, dcgm-exporter scrapes, TSDB CSV) into
// DcgmPoints, resolving field names through the DCGM field catalog.
#pragma once

#include <functional>
#include <string>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/sniff.h"
#include "toposcope/model/dcgm.h"

namespace toposcope::model {

// Streams the file's samples into `sink`. Samples without a host take `host`. Samples of metrics
// that are not DCGM fields (e.g. NCCL Inspector gauges in a scrape) are counted as read and
// accepted but not emitted. Fails when the file cannot be opened or is not of `format` at all.
Status ReadDcgmFile(const std::string& path, const std::string& host, formats::FileFormat format,
                    const std::function<void(const DcgmPoint&)>& sink, Diagnostics& diag, ReadCounts& counts);

}  // namespace toposcope::model
