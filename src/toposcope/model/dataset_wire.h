// model/dataset_wire: a LoadedPart (model/load_plan) as bytes, to hand a shard's load from one
// process to another (the MPI ranks of dist/). The DCGM series, most of a cluster's data, go as
// packed binary (each trace's times and values delta-coded: a few bytes a point rather than 16);
// the rest in the packed form of model/dataset_json's field lists (base/json_io's Pack: as lossless
// as its JSON, and about twice as fast each way as that text was). The bytes are for processes of
// one build on machines of one byte order, never stored.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/model/load_plan.h"

namespace toposcope::model {

// What travels beside a part's data set, packed in its bytes.
struct PartHead {
  size_t first_chunk = 0, end_chunk = 0;
  std::vector<UntimedDcgmInput> untimed;
  std::vector<DmonMigRows> dmon_mig;
};

// The part as bytes. Deterministic: the same part gives the same bytes.
std::string PartToWire(const LoadedPart& part);

// The part of PartToWire bytes (`source` names them in errors: "rank 3"). Fails on bytes that are
// cut short or not of PartToWire; never throws.
Result<LoadedPart> PartFromWire(std::string_view bytes, const std::string& source);

}  // namespace toposcope::model
