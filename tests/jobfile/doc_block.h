// A generated block of docs/jobs.md: the lines after a marker comment up to
// the next blank line.  The tests compare it with what the code makes;
// DS_UPDATE_DOCS=1 in the environment rewrites it instead (then review the diff).
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace jobfile_test {

inline std::string read_page(const std::string& path) {
    std::ifstream in(path);
    std::stringstream page;
    page << in.rdbuf();
    return page.str();
}

// [begin, end) of the block: the lines after the one holding `marker`,
// up to an empty line or the end; npos when the marker is absent.
inline std::pair<std::size_t, std::size_t> block_span(const std::string& page,
                                                      const std::string& marker) {
    std::size_t at = page.find(marker);
    if (at == std::string::npos) return {std::string::npos, std::string::npos};
    at = page.find('\n', at);
    at = at == std::string::npos ? page.size() : at + 1;
    std::size_t end = at;
    while (end < page.size() && page[end] != '\n') {
        std::size_t next = page.find('\n', end);
        end = next == std::string::npos ? page.size() : next + 1;
    }
    return {at, end};
}

// The block as documented, after rewriting it with `made` under DS_UPDATE_DOCS.
inline std::string documented_block(const std::string& path, const std::string& marker,
                                    const std::string& made) {
    std::string page = read_page(path);
    auto [begin, end] = block_span(page, marker);
    if (begin == std::string::npos) return "(no " + marker + " in " + path + ")";
    if (std::getenv("DS_UPDATE_DOCS") != nullptr) {
        page.replace(begin, end - begin, made);
        std::ofstream(path) << page;
        return made;
    }
    return page.substr(begin, end - begin);
}

}  // namespace jobfile_test
