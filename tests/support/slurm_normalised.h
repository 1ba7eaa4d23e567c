// A Slurm topology as the writer's round trip promises it back: the reader keeps source lines and
// the hostlist expressions as written, so those are cleared (shared by the tests that round-trip
// report/export/slurm_export's topologies through formats' readers).
#pragma once

#include "toposcope/formats/fabric/slurm_topology.h"

namespace toposcope::formats {

// Returns `t` without its source lines and hostlist expressions.
inline SlurmTopology Normalised(SlurmTopology t) {
  t.line = 0;
  for (SlurmSwitch& sw : t.switches) {
    sw.line = 0;
    sw.nodes_expr.clear();
    sw.switches_expr.clear();
  }
  for (SlurmBlock& b : t.blocks) {
    b.line = 0;
    b.nodes_expr.clear();
  }
  return t;
}

}  // namespace toposcope::formats
