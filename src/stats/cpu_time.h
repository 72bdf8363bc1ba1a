// Process CPU time (user and system), for per-phase CPU cost.
#pragma once

#include <cstdint>

namespace ds::stats {

struct CpuTime {
    double user_s = 0;
    double system_s = 0;
    // Context switches, voluntary (a thread blocked: I/O, a wait) and
    // involuntary (preempted) together.
    std::uint64_t context_switches = 0;

    // CPU time and context switches of the whole process so far (all
    // threads, also those that ended), from getrusage.
    static CpuTime process_now();
    CpuTime operator-(const CpuTime& o) const {
        return {user_s - o.user_s, system_s - o.system_s, context_switches - o.context_switches};
    }
    CpuTime& operator+=(const CpuTime& o) {
        user_s += o.user_s;
        system_s += o.system_s;
        context_switches += o.context_switches;
        return *this;
    }
};

}  // namespace ds::stats
