#include "sys/system_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <memory>

namespace ds::sys {

namespace {

SystemTree& installed() {
    static SystemTree tree;
    return tree;
}

std::string joined(const std::string& root, std::string_view relative) {
    return root + "/" + std::string(relative);
}

}  // namespace

std::string SystemTree::proc_path(std::string_view relative) const {
    return joined(proc, relative);
}

std::string SystemTree::sys_path(std::string_view relative) const {
    return joined(sys, relative);
}

std::optional<std::string> SystemTree::read_proc(std::string_view relative) const {
    return read_text_file(proc_path(relative));
}

std::optional<std::string> SystemTree::read_sys(std::string_view relative) const {
    return read_text_file(sys_path(relative));
}

std::vector<int> SystemTree::pids() const {
    std::vector<int> out;
    const std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(proc.c_str()), ::closedir);
    if (!dir) return out;
    while (const dirent* e = ::readdir(dir.get())) {
        const std::string_view name = e->d_name;
        int pid = 0;
        const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
        if (ec == std::errc{} && end == name.data() + name.size() && pid > 0) out.push_back(pid);
    }
    std::sort(out.begin(), out.end());
    return out;
}

void install_system_tree(const SystemTree& tree) {
    installed() = tree;
}

const SystemTree& system_tree() {
    return installed();
}

// open and read, not a stream: a phase reads every process's /proc/PID/stat
// twice, and a stream's buffers cost more than the files' few hundred bytes.
std::optional<std::string> read_text_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::string text;
    char chunk[4096];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            ::close(fd);
            return std::nullopt;
        }
        if (n == 0) break;
        text.append(chunk, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

}  // namespace ds::sys
