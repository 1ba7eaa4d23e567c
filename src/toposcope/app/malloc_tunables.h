// app/huge_pages: runs the program on transparent huge pages. The data set of a large cluster is
// hundreds of millions of small allocations; on 4 KiB pages every page of it costs a page fault
// (about 240,000 for 2,048 simulated hosts) and a TLB entry, and in a virtual machine faults are
// dear and slow down every process beside it. glibc's malloc backs its heap with huge pages when
// the `glibc.malloc.hugetlb=1` tunable is set, which glibc reads only at start-up: so the program
// sets it and executes itself again, once, before doing anything else.
#pragma once

namespace toposcope::app {

// Sets GLIBC_TUNABLES=...:glibc.malloc.hugetlb=1 and re-executes /proc/self/exe with `argv`,
// unless the tunable is already there (set by this function or by the user), the kernel has
// transparent huge pages off ("[never]"), or TOPOSCOPE_HUGE_PAGES=0. Returns (and the program goes
// on as it is) when it does nothing or the exec fails.
void PreferHugePages(char** argv);

}  // namespace toposcope::app
