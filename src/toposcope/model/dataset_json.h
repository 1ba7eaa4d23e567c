// model/dataset_json: the loaded dataset as lossless JSON (base/json_io), so an analysis can be
// re-run or tested from a dump without the raw inputs, as NCCL dumps and reloads its topology.
// Inputs that passes stream rather than hold (captures, QP state logs, events) are dumped as the
// files they name, not their records. Also declares the dump functions of every formats/ and
// model/ record type, for the pass dumps of analysis/pipeline.
#pragma once

#include <string>
#include <string_view>

#include "toposcope/base/json_io.h"
#include "toposcope/base/result.h"
#include "toposcope/base/link_type.h"
#include "toposcope/formats/clock/sync_point.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/formats/fabric/path_probe.h"
#include "toposcope/formats/fabric/slurm_topology.h"
#include "toposcope/formats/fabric/topograph_model.h"
#include "toposcope/formats/nccl/nccl_log.h"
#include "toposcope/formats/rdma/inventory_csv.h"
#include "toposcope/formats/rdma/pcap_capture.h"
#include "toposcope/formats/rdma/rdma_tools.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/dcgm.h"

namespace toposcope::formats {
TOPOSCOPE_JSON_DECLARE(CaptureSummary);
TOPOSCOPE_JSON_DECLARE(SyncPoint);
TOPOSCOPE_JSON_DECLARE(RdmaQp);
TOPOSCOPE_JSON_DECLARE(IbPort);
TOPOSCOPE_JSON_DECLARE(IbDevice);
TOPOSCOPE_JSON_DECLARE(GidEntry);
TOPOSCOPE_JSON_DECLARE(NcclLogPrefix);
TOPOSCOPE_JSON_DECLARE(NcclCommInit);
TOPOSCOPE_JSON_DECLARE(NcclRingOrder);
TOPOSCOPE_JSON_DECLARE(NcclRingLine);
TOPOSCOPE_JSON_DECLARE(NcclTreeLine);
TOPOSCOPE_JSON_DECLARE(NcclConnection);
TOPOSCOPE_JSON_DECLARE(NcclNetDevice);
TOPOSCOPE_JSON_DECLARE(NcclNetUsing);
TOPOSCOPE_JSON_DECLARE(NcclQpn);
TOPOSCOPE_JSON_DECLARE(NcclLog);
TOPOSCOPE_JSON_DECLARE(InventoryRow);
TOPOSCOPE_JSON_DECLARE(Inventory);
TOPOSCOPE_JSON_DECLARE(IbPortLink);
TOPOSCOPE_JSON_DECLARE(IbNode);
TOPOSCOPE_JSON_DECLARE(IbFabric);
TOPOSCOPE_JSON_DECLARE(IbLinkInfoPort);
TOPOSCOPE_JSON_DECLARE(IbLinkInfo);
TOPOSCOPE_JSON_DECLARE(PortCounterBlock);
TOPOSCOPE_JSON_DECLARE(PortCounters);
TOPOSCOPE_JSON_DECLARE(SlurmSwitch);
TOPOSCOPE_JSON_DECLARE(SlurmBlock);
TOPOSCOPE_JSON_DECLARE(SlurmRing);
TOPOSCOPE_JSON_DECLARE(SlurmTorus);
TOPOSCOPE_JSON_DECLARE(SlurmTopology);
TOPOSCOPE_JSON_DECLARE(TopographSwitch);
TOPOSCOPE_JSON_DECLARE(TopographCapacityBlock);
TOPOSCOPE_JSON_DECLARE(TopographModel);
TOPOSCOPE_JSON_DECLARE(PathProbe);
TOPOSCOPE_JSON_DECLARE(DcgmMigInstance);
TOPOSCOPE_JSON_DECLARE(DcgmDiscoveredGpu);
}  // namespace toposcope::formats

namespace toposcope::model {
TOPOSCOPE_JSON_DECLARE(GpuInfo);
TOPOSCOPE_JSON_DECLARE(GpuQueryInfo);
TOPOSCOPE_JSON_DECLARE(NicInfo);
TOPOSCOPE_JSON_DECLARE(DeclaredLink);
TOPOSCOPE_JSON_DECLARE(MeasuredLink);
TOPOSCOPE_JSON_DECLARE(HostEvidence);
TOPOSCOPE_JSON_DECLARE(InputFile);
TOPOSCOPE_JSON_DECLARE(EventInput);
TOPOSCOPE_JSON_DECLARE(CaptureInput);
TOPOSCOPE_JSON_DECLARE(SeriesKey);
TOPOSCOPE_JSON_DECLARE(SeriesSummary);
TOPOSCOPE_JSON_DECLARE(DcgmStore);
TOPOSCOPE_JSON_DECLARE(Dataset);
}  // namespace toposcope::model

namespace toposcope {
TOPOSCOPE_JSON_DECLARE(LinkClass);
}  // namespace toposcope

namespace toposcope::model {

// The dataset as compact JSON text. Deterministic: the same dataset gives the same bytes.
std::string DatasetToJsonText(const Dataset& ds);

// The dataset of DatasetToJsonText text (`source` names it in errors). Fails on malformed JSON or a
// value of the wrong shape; never throws.
Result<Dataset> DatasetFromJsonText(std::string_view text, const std::string& source);

}  // namespace toposcope::model
