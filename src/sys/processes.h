// Who used the host's CPU while a phase ran, process by process: the kernel
// threads that carry out the run's I/O (the loop driver's workers, kworkers,
// ksoftirqd) apart from user-space processes that are foreign load.  Read
// from PID/stat of the installed SystemTree's proc (sys/system_tree.h), so a
// test hands it a tree of its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sys/system_tree.h"

namespace ds::sys {

// One process's CPU time so far, from /proc/PID/stat.
struct ProcessCpu {
    int pid = 0;
    std::string comm;
    bool kernel_thread = false;  // PF_KTHREAD in the flags field
    double cpu_s = 0;            // utime + stime, seconds
    // When it started, in ticks after boot: a pid reused meanwhile is another
    // process (the name is no test: a kworker's changes with its work).
    std::uint64_t start_ticks = 0;
};
inline constexpr std::uint64_t kPfKthread = 0x00200000;

// One /proc/PID/stat text; nullopt when malformed.  The name may hold
// spaces and parentheses: it runs to the last ')'.
std::optional<ProcessCpu> parse_pid_stat(std::string_view text, double ticks_per_second);

// Every process of the tree, by pid (one vanishing while read is left out).
std::vector<ProcessCpu> sample_processes(const SystemTree& tree, double ticks_per_second);

// A user-space process outside the run and the CPU it took meanwhile.
struct ForeignProcess {
    int pid = 0;
    std::string comm;
    double cpu_s = 0;
};

// What happened between two samples: CPU-seconds of kernel threads, and
// the user-space processes other than `self_pid` that took the most (up to
// `top`, largest first, none under 1 ms).  A process present only in
// `after` started meanwhile: all of its time counts.
struct ProcessLoad {
    double kernel_thread_seconds = 0;
    std::vector<ForeignProcess> top_foreign;
};
ProcessLoad process_load(const std::vector<ProcessCpu>& before,
                         const std::vector<ProcessCpu>& after, int self_pid, std::size_t top = 3);

}  // namespace ds::sys
