#include "sys/memory.h"
#include "sys/system_tree.h"

#include <pthread.h>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <string>

namespace ds::sys {

std::uint64_t available_memory_bytes() {
    std::ifstream in(system_tree().proc_path("meminfo"));
    std::string key, unit;
    std::uint64_t kib = 0, total = 0;
    while (in >> key >> kib) {
        std::getline(in, unit);
        if (key == "MemAvailable:" || key == "SwapFree:") total += kib * 1024;
    }
    return total;
}

std::string ensure_stack() {
    struct rlimit lim {};
    if (::getrlimit(RLIMIT_STACK, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY ||
        lim.rlim_cur >= kStackWantedBytes)
        return "";  // unlimited: glibc gives threads its own default (8 MiB)
    const rlim_t want = lim.rlim_max == RLIM_INFINITY
                            ? kStackWantedBytes
                            : std::min<rlim_t>(lim.rlim_max, kStackWantedBytes);
    if (want > lim.rlim_cur) {
        struct rlimit raised = lim;
        raised.rlim_cur = want;
        if (::setrlimit(RLIMIT_STACK, &raised) == 0) lim = raised;
    }
    if (lim.rlim_cur < kStackNeededBytes)
        return "RLIMIT_STACK is " + std::to_string(lim.rlim_cur / 1024) + " KiB (hard limit " +
               std::to_string(lim.rlim_max / 1024) + " KiB); a run needs " +
               std::to_string(kStackNeededBytes / 1024) + " KiB of stack (ulimit -s " +
               std::to_string(kStackNeededBytes / 1024) + ")";
    // The main thread's stack grows up to the new limit; threads made later
    // get their size from the default attributes, read by glibc at start.
    pthread_attr_t attr;
    if (::pthread_getattr_default_np(&attr) != 0) return "";
    std::size_t size = 0;
    if (::pthread_attr_getstacksize(&attr, &size) == 0 && size < lim.rlim_cur &&
        ::pthread_attr_setstacksize(&attr, lim.rlim_cur) == 0)
        ::pthread_setattr_default_np(&attr);
    ::pthread_attr_destroy(&attr);
    return "";
}

}  // namespace ds::sys
