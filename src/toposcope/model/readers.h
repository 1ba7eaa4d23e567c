// model/readers: one reader per input format that `analyze` uses, in a table from the format to
// how the file is read (whole or streamed) and the function that folds it into the Dataset.
// model/load walks the directories, sniffs each file and dispatches through this table.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/sniff.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/dcgm_read.h"

namespace toposcope::model {

// How a file reaches its reader.
enum class ReadMode {
  kWhole,     // read into memory first (small node-level and fabric files)
  kStreamed,  // opened by the reader itself (or only noted, to be streamed by a later pass)
};

// One file being read: what a reader gets and what it fills.
// A DCGM input whose samples without a time wait for their origin (no --at): the loader places
// them once every input is read (PlaceUntimedDcgm in model/load).
struct UntimedDcgmInput {
  std::string path;
  std::string host;
  formats::FileFormat format = formats::FileFormat::kUnknown;
  size_t event_input = 0;  // its entry in Dataset::event_inputs
};

struct FileRead {
  Dataset& ds;
  const std::filesystem::path& file;
  const std::string& path;     // file.string()
  formats::FileFormat format;  // as sniffed
  const std::string& text;     // the whole content for kWhole readers; empty for kStreamed ones
  const LoadOptions& opt;
  std::string& host;   // the host the file is attributed to (a reader may take it from the file)
  ReadCounts& counts;  // the file's records: filled by the reader
  std::vector<UntimedDcgmInput>* untimed_dcgm = nullptr;  // where DCGM readers list untimed files
  std::vector<DmonMigRows>* dmon_mig = nullptr;  // where dmon readers list the MIG instances to link
};

// Folds one file into the dataset. Fails (the file is then a skipped input with this error) when
// the reader refuses the input as a whole; rejected records are counted, not failures.
using ReadFileFn = Status (*)(FileRead& f);

struct FormatReader {
  formats::FileFormat format;
  ReadMode mode;
  ReadFileFn read;
};

// The reader of a format; nullptr when `analyze` does not read that format (yet).
const FormatReader* FindReader(formats::FileFormat format);

// The file name without compression and one format extension: "node1.topo.txt.gz" -> "node1.topo".
// Never fails (a name without extensions is returned as it is).
std::string StemOf(const std::filesystem::path& p);

}  // namespace toposcope::model
