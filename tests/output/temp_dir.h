// A directory of its own under the temp directory, removed with what it
// holds when the test ends; a file's bytes as a string; and a file system
// that fills up, for as long as a FileSizeLimit lives.
#pragma once

#include <doctest/doctest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace ds::test {

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const char* prefix) {
        std::string tmpl =
            (std::filesystem::temp_directory_path() / (std::string(prefix) + ".XXXXXX")).string();
        REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
        path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    // The names in it, sorted.
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::directory_iterator(path))
            names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
};

// Files of this process grow to `bytes` at most while it lives: a write
// past it takes what fits and the next fails (EFBIG), as on a file system
// that fills up.  SIGXFSZ is ignored meanwhile; both are put back after.
struct FileSizeLimit {
    rlimit old{};
    struct sigaction old_action {};
    explicit FileSizeLimit(rlim_t bytes) {
        REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        REQUIRE(::sigaction(SIGXFSZ, &ignore, &old_action) == 0);
        const rlimit small{bytes, old.rlim_max};
        REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    }
    ~FileSizeLimit() {
        ::setrlimit(RLIMIT_FSIZE, &old);
        ::sigaction(SIGXFSZ, &old_action, nullptr);
    }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;
};

}  // namespace ds::test
