#include "sys/host_load.h"

#include "sys/system_tree.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ds::sys {

double HostCpu::total() const {
    return user + nice + system + idle + iowait + irq + softirq + steal;
}

double HostCpu::busy() const {
    return total() - idle - iowait - steal;
}

std::optional<HostCpu> parse_proc_stat(std::string_view text, double ticks_per_second) {
    // "cpu  user nice system idle iowait irq softirq steal guest guest_nice";
    // guest time is already inside user and nice, so it is not added again.
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string name;
        words >> name;
        if (name != "cpu") continue;
        double f[8] = {};
        for (double& v : f)
            if (!(words >> v) || v < 0) return std::nullopt;
        if (ticks_per_second <= 0) return std::nullopt;
        for (double& v : f)
            v /= ticks_per_second;
        return HostCpu{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]};
    }
    return std::nullopt;
}

namespace {

class RealProcStat final : public ProcStatSource {
  public:
    std::optional<std::string> read() const override { return system_tree().read_proc("stat"); }
};

}  // namespace

const ProcStatSource& proc_stat() {
    static const RealProcStat real;
    return real;
}

double HostLoad::steal_pct() const {
    return seconds > 0 ? steal_seconds / seconds * 100 : 0;
}

double HostLoad::foreign_pct() const {
    return seconds > 0 ? foreign_seconds / seconds * 100 : 0;
}

HostLoad& HostLoad::operator+=(const HostLoad& o) {
    measured = measured || o.measured;
    seconds += o.seconds;
    steal_seconds += o.steal_seconds;
    foreign_seconds += o.foreign_seconds;
    kernel_seconds += o.kernel_seconds;
    for (const auto& p : o.top_foreign) {
        auto same = std::find_if(top_foreign.begin(), top_foreign.end(),
                                 [&](const ForeignProcess& q) { return q.comm == p.comm; });
        if (same == top_foreign.end())
            top_foreign.push_back(p);
        else
            same->cpu_s = std::max(same->cpu_s, p.cpu_s);
    }
    std::stable_sort(top_foreign.begin(), top_foreign.end(),
                     [](const auto& a, const auto& b) { return a.cpu_s > b.cpu_s; });
    if (top_foreign.size() > kTopForeign) top_foreign.resize(kTopForeign);
    return *this;
}

HostLoad host_load(const HostCpu& before, const HostCpu& after, double own_cpu_seconds,
                   const ProcessLoad& processes) {
    HostLoad l;
    l.measured = true;
    l.seconds = after.total() - before.total();
    if (l.seconds <= 0) return HostLoad{.measured = true};
    l.steal_seconds = std::clamp(after.steal - before.steal, 0.0, l.seconds);
    const double not_ours =
        std::clamp(after.busy() - before.busy() - own_cpu_seconds, 0.0, l.seconds);
    const double interrupts =
        std::max(0.0, after.irq + after.softirq - before.irq - before.softirq);
    l.kernel_seconds = std::min(processes.kernel_thread_seconds + interrupts, not_ours);
    l.foreign_seconds = not_ours - l.kernel_seconds;
    l.top_foreign = processes.top_foreign;
    return l;
}

bool busy(const HostLoad& l) {
    return l.steal_pct() >= kBusyStealPct || l.foreign_pct() >= kBusyForeignPct;
}

}  // namespace ds::sys
