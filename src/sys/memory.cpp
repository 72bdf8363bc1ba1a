#include "sys/memory.h"

#include <fstream>
#include <limits>
#include <string>

namespace ds::run {

std::uint64_t available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    std::uint64_t kib = 0, total = 0;
    while (in >> key >> kib) {
        std::getline(in, unit);
        if (key == "MemAvailable:" || key == "SwapFree:") total += kib * 1024;
    }
    return total;
}

}  // namespace ds::run
