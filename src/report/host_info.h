// Facts about the machine, for the report header and the JSON document.
#pragma once

#include <cstdint>
#include <string>

namespace ds::report {

struct HostInfo {
    std::string hostname;
    std::string kernel;   // uname release, e.g. "6.1.0-18-amd64"
    std::string machine;  // e.g. "x86_64"
    std::string cpu_model;
    unsigned cpus = 0;
    std::uint64_t memory_bytes = 0;
    std::string simd_path;  // generator path in use

    static HostInfo current();
};

}  // namespace ds::report
