#include "stats/cpu_time.h"

#include <sys/resource.h>

namespace ds::stats {

static double seconds(const timeval& tv) {
    return tv.tv_sec + tv.tv_usec / 1e6;
}

CpuTime CpuTime::process_now() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return {seconds(ru.ru_utime), seconds(ru.ru_stime),
            static_cast<std::uint64_t>(ru.ru_nvcsw) + static_cast<std::uint64_t>(ru.ru_nivcsw)};
}

}  // namespace ds::stats
