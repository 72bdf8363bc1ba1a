#include "sys/host_load.h"

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
    std::optional<std::string> read() const override {
        std::ifstream f("/proc/stat");
        if (!f) return std::nullopt;
        std::ostringstream text;
        text << f.rdbuf();
        return text.str();
    }
};

}  // namespace

const ProcStatSource& proc_stat() {
    static const RealProcStat real;
    return real;
}

HostLoad host_load(const HostCpu& before, const HostCpu& after, double own_cpu_seconds) {
    HostLoad l;
    l.seconds = after.total() - before.total();
    if (l.seconds <= 0) return l;
    const double steal = after.steal - before.steal;
    const double foreign = after.busy() - before.busy() - own_cpu_seconds;
    l.steal_pct = std::clamp(steal / l.seconds * 100, 0.0, 100.0);
    l.foreign_pct = std::clamp(foreign / l.seconds * 100, 0.0, 100.0);
    return l;
}

bool busy(const HostLoad& l) {
    return l.steal_pct >= kBusyStealPct || l.foreign_pct >= kBusyForeignPct;
}

}  // namespace ds::sys
