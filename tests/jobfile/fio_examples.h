// fio's example job files (Debian's fio-examples, DS_FIO_EXAMPLES): the
// corpus the job-file tests read, sorted; empty, with a message saying why,
// when the package is not installed (the tests then check nothing else).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

#include "tests/jobfile/jobfile_paths.h"  // DS_FIO_EXAMPLES

namespace jobfile_test {

inline std::vector<std::filesystem::path> fio_examples() {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    std::error_code ec;
    if (!fs::is_directory(fs::path(DS_FIO_EXAMPLES), ec)) {
        MESSAGE("skipped: no ", DS_FIO_EXAMPLES, " (Debian's fio-examples is not installed)");
        return files;
    }
    for (const auto& entry : fs::directory_iterator(fs::path(DS_FIO_EXAMPLES)))
        if (entry.path().extension() == ".fio") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    REQUIRE(!files.empty());
    return files;
}

}  // namespace jobfile_test
