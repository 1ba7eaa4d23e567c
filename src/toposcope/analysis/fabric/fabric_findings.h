// analysis/fabric/fabric_findings: what the merged fabric graph (analysis/fabric/fabric) says is
// wrong with its links, judged against the fabric itself, never a constant: a port printed down
// where the peer side still shows a link or where most switches of its tier link that port, and an
// active link slower than the most common width and speed of its tier's active links.
#pragma once

#include "toposcope/analysis/fabric/fabric.h"

namespace toposcope::analysis {

// Appends to r.findings:
// - port_down_expected_link, for each of r.down_ports whose (node, port) is an end of one of r.links
//   (another source, or the other end, prints the link: evidence "peer side"), or, on a switch, whose
//   port number is linked on more than half of the other switches of its level with the same port
//   count, at least two of them (evidence "switch pattern");
// - link_below_usual, for each link (state Active, or unknown from ibnetdiscover) whose lanes or
//   per-lane speed are below those of its tier's usual width x speed: the most common pair among the
//   tier's active links of known width and speed, held by at least two links and more than any other
//   pair (no usual, no finding).
// Sorted by kind, node, port. Never fails.
void AddFabricFindings(FabricReport& r);

}  // namespace toposcope::analysis
