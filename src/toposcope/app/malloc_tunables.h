// app/malloc_tunables: runs the program under the glibc malloc settings its allocation pattern
// wants. The data set of a large cluster is hundreds of millions of small allocations, and the
// outputs build and free millions of small JSON nodes:
//   - glibc.malloc.hugetlb=1: the heap on transparent huge pages. On 4 KiB pages every page costs
//     a fault (about 240,000 for 2,048 simulated hosts) and a TLB entry, and in a virtual machine
//     faults are dear and slow down every process beside it. Not in a virtual machine whose
//     balloon driver reports free pages to the host (virtio feature VIRTIO_BALLOON_F_REPORTING,
//     bit 5): the guest hands back free 2 MiB blocks, exactly what a huge page takes, and the
//     host faults each one in again, zeroed, on its next use. There 256 and 2,048 hosts took
//     0.5-1 s more wall with huge pages than without (system time zeroing pages), not less; only
//     at 12,500 hosts (4 GB of heap) did they still win, by 3-8 % (docs/scale.md).
//   - glibc.malloc.tcache_count=256 and glibc.malloc.mxfast=0: small chunks freed go to a deeper
//     per-thread cache (7 by default) and never to the fast bins, which glibc empties into the
//     heap in one sweep (malloc_consolidate) each time a large block is asked for; freeing the
//     result's JSON tree spent a third of the output rendering there. 2,048 hosts, one thread:
//     about 11 % less wall, the same peak (bench/README.md).
// glibc reads tunables only at start-up: the program sets them and executes itself again, once,
// before doing anything else.
#pragma once

#include <string>

namespace toposcope::app {

// True when a virtio balloon device under `balloon_driver_dir` has free page reporting (feature
// bit 5) negotiated: sysfs shows each device's features as a string of '0'/'1', bit 0 first.
bool FreePagesReportedToHost(const std::string& balloon_driver_dir = "/sys/bus/virtio/drivers/virtio_balloon");

// Adds to GLIBC_TUNABLES each of the tunables above that it does not name yet (the user's value
// wins) and re-executes /proc/self/exe with `argv` when it added any. Huge pages are left out when
// the kernel has transparent huge pages off ("[never]"), when free pages are reported to a host
// (as above; TOPOSCOPE_HUGE_PAGES=1 asks for them anyway) or TOPOSCOPE_HUGE_PAGES=0; the cache
// settings when TOPOSCOPE_MALLOC_CACHE=0. Returns (and the program goes on as it is) when there is
// nothing to add or the exec fails.
void TuneMalloc(char** argv);

}  // namespace toposcope::app
