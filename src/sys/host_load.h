// What else the host did while a phase ran: time stolen by the hypervisor
// and CPU taken by other processes, from /proc/stat's aggregate line, the
// process's own CPU time and the kernel threads' (sys/processes.h).  Kernel
// threads and interrupts carry out the run's own I/O (the loop driver's
// workers, kworkers, ksoftirqd): they are the I/O path's cost, a figure of
// their own, not foreign load.  A figure measured while foreign processes
// or the hypervisor took the CPU may not repeat; the report says so instead
// of letting it pass as the drive's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/processes.h"

namespace ds::sys {

// The aggregate "cpu" line of /proc/stat, in seconds summed over all CPUs.
struct HostCpu {
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    double total() const;  // every field: wall time x CPUs
    double busy() const;   // total less idle, iowait and steal
};

// The "cpu" line of a /proc/stat text; nullopt when it is missing or
// malformed.  `ticks_per_second`: USER_HZ (sysconf(_SC_CLK_TCK)).
std::optional<HostCpu> parse_proc_stat(std::string_view text, double ticks_per_second);

// Reads /proc/stat.  Abstract so a test can hand the parser a host of its
// making (a stolen or busy host on demand).
class ProcStatSource {
  public:
    virtual ~ProcStatSource() = default;
    virtual std::optional<std::string> read() const = 0;
};
// The real /proc/stat.
const ProcStatSource& proc_stat();

// How many foreign processes a HostLoad names.
inline constexpr std::size_t kTopForeign = 3;

// The host's CPU time between two readings and what of it went elsewhere,
// in CPU-seconds (so loads of several phases add up), with the shares as
// percentages of wall time x CPUs.
struct HostLoad {
    bool measured = false;       // both readings were made (a phase shorter than a tick too)
    double seconds = 0;          // CPU-seconds the host had (the readings' total delta)
    double steal_seconds = 0;    // stolen by the hypervisor
    double foreign_seconds = 0;  // busy in user-space processes other than this one
    // Kernel threads plus interrupt time: the I/O path's own cost.
    double kernel_seconds = 0;
    // The user-space processes that took the most of foreign_seconds (a
    // phase's own; a merged phase keeps the largest per name).
    std::vector<ForeignProcess> top_foreign;
    double steal_pct() const;
    double foreign_pct() const;
    HostLoad& operator+=(const HostLoad& o);
};

// `own_cpu_seconds`: this process's user + system time between the two
// readings (it is busy time too, and not foreign); `processes`: what the
// kernel threads took meanwhile, and the top foreign processes.  Kernel time
// is the kernel threads' plus irq and softirq (tick accounting may charge a
// softirq tick both ways: it is capped at the busy time not ours).
HostLoad host_load(const HostCpu& before, const HostCpu& after, double own_cpu_seconds,
                   const ProcessLoad& processes = {});

// The thresholds past which a report warns that its figures may not repeat.
inline constexpr double kBusyStealPct = 5;
inline constexpr double kBusyForeignPct = 20;
bool busy(const HostLoad& l);

}  // namespace ds::sys
