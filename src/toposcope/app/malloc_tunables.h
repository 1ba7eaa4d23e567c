// app/malloc_tunables: runs the program under the glibc malloc settings its allocation pattern
// wants. The data set of a large cluster is hundreds of millions of small allocations, and the
// outputs build and free millions of small JSON nodes:
//   - glibc.malloc.hugetlb=1: the heap on transparent huge pages. On 4 KiB pages every page costs
//     a fault (about 240,000 for 2,048 simulated hosts) and a TLB entry, and in a virtual machine
//     faults are dear and slow down every process beside it.
//   - glibc.malloc.tcache_count=256 and glibc.malloc.mxfast=0: small chunks freed go to a deeper
//     per-thread cache (7 by default) and never to the fast bins, which glibc empties into the
//     heap in one sweep (malloc_consolidate) each time a large block is asked for; freeing the
//     result's JSON tree spent a third of the output rendering there. 2,048 hosts, one thread:
//     about 11 % less wall, the same peak (bench/README.md).
// glibc reads tunables only at start-up: the program sets them and executes itself again, once,
// before doing anything else.
#pragma once

namespace toposcope::app {

// Adds to GLIBC_TUNABLES each of the tunables above that it does not name yet (the user's value
// wins) and re-executes /proc/self/exe with `argv` when it added any. Huge pages are left out when
// the kernel has transparent huge pages off ("[never]") or TOPOSCOPE_HUGE_PAGES=0; the cache
// settings when TOPOSCOPE_MALLOC_CACHE=0. Returns (and the program goes on as it is) when there is
// nothing to add or the exec fails.
void TuneMalloc(char** argv);

}  // namespace toposcope::app
