// Process CPU time (user and system), for per-phase CPU cost.
#pragma once

namespace ds::stats {

struct CpuTime {
    double user_s = 0;
    double system_s = 0;

    // CPU time of the whole process so far (all threads), from getrusage.
    static CpuTime process_now();
    CpuTime operator-(const CpuTime& o) const { return {user_s - o.user_s, system_s - o.system_s}; }
    CpuTime& operator+=(const CpuTime& o) {
        user_s += o.user_s;
        system_s += o.system_s;
        return *this;
    }
};

}  // namespace ds::stats
