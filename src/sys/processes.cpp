#include "sys/processes.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

namespace ds::sys {

std::optional<ProcessCpu> parse_pid_stat(std::string_view text, double ticks_per_second) {
    // "pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt
    // majflt cmajflt utime stime ..."
    const auto open = text.find(" (");
    const auto close = text.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open ||
        ticks_per_second <= 0)
        return std::nullopt;
    ProcessCpu p;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + open, p.pid);
    if (ec != std::errc{} || end != text.data() + open || p.pid <= 0) return std::nullopt;
    p.comm = std::string(text.substr(open + 2, close - open - 2));
    std::istringstream rest{std::string(text.substr(close + 1))};
    std::string state;
    rest >> state;
    // ppid pgrp session tty_nr tpgid (may be negative), flags, minflt cminflt
    // majflt cmajflt, utime stime, cutime cstime priority nice (signed),
    // num_threads itrealvalue, starttime: fields 4 to 22 of proc(5).
    long long f[19];
    for (long long& v : f)
        if (!(rest >> v)) return std::nullopt;
    if (f[5] < 0 || f[10] < 0 || f[11] < 0 || f[18] < 0) return std::nullopt;
    p.kernel_thread = (static_cast<std::uint64_t>(f[5]) & kPfKthread) != 0;
    p.cpu_s = static_cast<double>(f[10] + f[11]) / ticks_per_second;
    p.start_ticks = static_cast<std::uint64_t>(f[18]);
    return p;
}

std::vector<ProcessCpu> sample_processes(const SystemTree& tree, double ticks_per_second) {
    std::vector<ProcessCpu> out;
    for (int pid : tree.pids()) {
        const auto text = tree.read_proc(std::to_string(pid) + "/stat");
        if (!text) continue;  // it ended meanwhile
        if (auto p = parse_pid_stat(*text, ticks_per_second); p && p->pid == pid)
            out.push_back(std::move(*p));
    }
    return out;
}

ProcessLoad process_load(const std::vector<ProcessCpu>& before,
                         const std::vector<ProcessCpu>& after, int self_pid, std::size_t top) {
    std::map<int, const ProcessCpu*> earlier;
    for (const auto& p : before)
        earlier[p.pid] = &p;
    ProcessLoad load;
    for (const auto& p : after) {
        const auto it = earlier.find(p.pid);
        // Same pid, other process (the pid was reused): all of its time.
        const bool same = it != earlier.end() && it->second->start_ticks == p.start_ticks;
        const double used = std::max(0.0, same ? p.cpu_s - it->second->cpu_s : p.cpu_s);
        if (p.kernel_thread)
            load.kernel_thread_seconds += used;
        else if (p.pid != self_pid && used >= 1e-3)
            load.top_foreign.push_back({p.pid, p.comm, used});
    }
    std::stable_sort(load.top_foreign.begin(), load.top_foreign.end(),
                     [](const auto& a, const auto& b) { return a.cpu_s > b.cpu_s; });
    if (load.top_foreign.size() > top) load.top_foreign.resize(top);
    return load;
}

}  // namespace ds::sys
