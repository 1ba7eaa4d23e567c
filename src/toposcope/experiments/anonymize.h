// experiments/anonymize: renames a dataset before it is shared, or to check that the analyzer
// leans on no name. Every host, switch and capture file gets a new name, consistently across every
// text file (plain, .gz or .zst), every file and directory name, and truth.json when present; pcap
// and pcapng payloads carry addresses, not names, and are copied as they are. Names are replaced
// as whole tokens only (a name is not replaced inside a longer word: `host1` stays in `host12`).
// New names follow one of several real naming styles (`dgx-a12-07`, `gpu-r3-n14`,
// `ip-10-1-2-3`), chosen by the seed, in random order, so they carry no placement. Optionally the
// job column of every CSV input (and the "job" key of every JSON-lines record) is blanked. The
// mapping is written to OUT/rename_map.json. Nothing in analysis/ uses this.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/sim/naming.h"

namespace toposcope::experiments {

// The naming styles of the new names (sim/naming.h).
using NameStyle = sim::NameStyle;
using sim::NameStyleName;
using sim::NameStyleOfSeed;

struct AnonymizeOptions {
  uint64_t seed = 1;
  bool blank_jobs = false;  // blank every job column / "job" key
};

// The names of one kind, old -> new.
using NameMap = std::map<std::string, std::string>;

struct RenameMap {
  NameStyle style = NameStyle::kDgx;
  NameMap hosts;
  NameMap switches;
  NameMap captures;  // file names (no directory), "leaf00-p1.pcap" -> "span17.pcap"
};

struct AnonymizeSummary {
  RenameMap map;
  int files = 0;               // files written (rename_map.json not counted)
  int files_rewritten = 0;     // text files whose content went through the renaming
  int files_copied = 0;        // binary files (captures, ...) copied byte for byte
  int64_t jobs_blanked = 0;    // job cells / keys emptied
  std::string map_path;        // OUT/rename_map.json
};

// The new names of `hosts`, `switches` and `captures` (capture file names keep their extension):
// drawn in `style` from `seed`, unique, none equal to an old name, in random order. Never fails.
RenameMap MakeRenameMap(const std::vector<std::string>& hosts, const std::vector<std::string>& switches,
                        const std::vector<std::string>& captures, NameStyle style, uint64_t seed);

// `text` with every whole-token occurrence of a key of `names` replaced by its value; where two
// names start at the same place, the longer wins. A token boundary is any character other than a
// letter, digit or '_'. Never fails.
std::string ReplaceNameTokens(std::string_view text, const NameMap& names);

// The names a dataset holds: from DIR/truth.json when present (hosts[].name, fabric.switches[],
// leaves, spines, groups, rings, rdma.captures[].file), else from the inputs themselves (host
// directories, inventory, path probes, NCCL logs, DCGM, ibnetdiscover). Fills hosts, switches and
// capture file names (sorted, unique). Fails (kInput) when `dir` is not a readable directory or
// truth.json is malformed.
Status DatasetNames(const std::string& dir, std::vector<std::string>* hosts, std::vector<std::string>* switches,
                    std::vector<std::string>* captures);

// Writes the renamed copy of the dataset in `in_dir` to `out_dir` (created; must not be `in_dir`
// or lie inside it) with OUT/rename_map.json. Returns what was done. Fails with kUsage when
// out_dir is in_dir or inside it, kInput when in_dir cannot be read (the Error names the file),
// kOutput when a file cannot be written.
Result<AnonymizeSummary> AnonymizeDataset(const std::string& in_dir, const std::string& out_dir,
                                          const AnonymizeOptions& options);

// The JSON text of OUT/rename_map.json (schema toposcope.rename_map/1): style, seed, blank_jobs,
// hosts, switches and captures as old -> new objects. Never fails.
std::string RenameMapJson(const RenameMap& map, const AnonymizeOptions& options);

}  // namespace toposcope::experiments
