// Transparent huge pages for the heap of a program that runs the rtl and the model backend in one
// process (bench_speed). glibc backs malloc's memory with huge pages only if the tunable
// glibc.malloc.hugetlb=1 is in GLIBC_TUNABLES when the process starts, so main() calls
// RestartWithHugePageHeap first: where the kernel gives huge pages on request
// (transparent_hugepage "madvise", the common default), the process executes itself again, once,
// with the tunable added.
//
// Why: on the virtual machines this project runs on, touching memory that lay idle for seconds
// costs microseconds per 4 KiB page, charged by the host without a fault the guest sees, and a
// huge page is charged about as one page. A model-backend call that follows a 19 s rtl run in
// the same process took 17 - 43 ms with 4 KiB pages and 12 - 18 ms with huge pages (the first
// call of a process, which touches its memory for the first time, a little longer: docs/model.md,
// "Speed"). `tpu` does not restart: it runs one backend a process, where huge pages measured no
// gain (a fresh process's model call 9 - 14 ms either way) and the restart costs about 2.7 ms
// of start-up. TPU_HUGE_PAGES=0 in the environment keeps the heap as it is.
#ifndef TPU_CLI_HUGE_PAGE_HEAP_H_
#define TPU_CLI_HUGE_PAGE_HEAP_H_

#include <optional>
#include <string>

namespace tpu::cli {

// The GLIBC_TUNABLES value to start again with, or nullopt to go on as the process is.
// `tunables` is GLIBC_TUNABLES (nullptr if unset), `thp_enabled` the contents of
// /sys/kernel/mm/transparent_hugepage/enabled ("" if unreadable), `opt_out` TPU_HUGE_PAGES
// (nullptr if unset). Only "madvise" mode asks for the tunable: "always" already backs the
// heap with huge pages, "never" (or no such file) gives none either way. A GLIBC_TUNABLES that
// names glibc.malloc.hugetlb already is the user's choice (or this restart's) and is kept.
std::optional<std::string> HugePageTunables(const char* tunables, const std::string& thp_enabled,
                                            const char* opt_out);

// Executes /proc/self/exe again with `argv` and HugePageTunables's value when it gives one (and
// the C library is glibc 2.35 or later, which reads the tunable); returns if it gives none or
// the exec fails (the process then goes on with the heap it has, GLIBC_TUNABLES unchanged).
void RestartWithHugePageHeap(char** argv);

}  // namespace tpu::cli

#endif  // TPU_CLI_HUGE_PAGE_HEAP_H_
