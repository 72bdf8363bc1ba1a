#include "report/host_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "pattern/generator.h"

namespace ds::report {

HostInfo HostInfo::current() {
    HostInfo h;
    utsname u{};
    if (uname(&u) == 0) {
        h.hostname = u.nodename;
        h.kernel = u.release;
        h.machine = u.machine;
    }
    h.cpus = std::thread::hardware_concurrency();
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) h.memory_bytes = static_cast<std::uint64_t>(pages) * page;
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos) h.cpu_model = line.substr(colon + 2);
            break;
        }
    }
    h.simd_path = std::string(pattern::to_string(pattern::active_simd_path()));
    return h;
}

}  // namespace ds::report
