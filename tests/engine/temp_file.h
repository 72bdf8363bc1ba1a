// A file of a given size under /tmp for a worker to run phases on, removed
// when the test ends.
#pragma once

#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace ds::test {

struct TempFile {
    std::string path;
    int fd = -1;
    explicit TempFile(std::uint64_t bytes) {
        char name[] = "/tmp/drivestress-engine-test-XXXXXX";
        fd = ::mkstemp(name);
        REQUIRE(fd >= 0);
        path = name;
        REQUIRE(::ftruncate(fd, static_cast<off_t>(bytes)) == 0);
    }
    ~TempFile() {
        ::close(fd);
        ::unlink(path.c_str());
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
};

}  // namespace ds::test
