#include "io/output_file.h"

#include "io/full_io.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <system_error>

namespace ds::io {

namespace {

[[noreturn]] void fail(int err, const std::string& path, const std::string& what) {
    throw std::system_error(err, std::generic_category(), path + ": " + what);
}

// The descriptor a standard stream name stands for, or -1.
int stream_name_fd(const std::string& path) {
    if (path == "/dev/stdout") return STDOUT_FILENO;
    if (path == "/dev/stderr") return STDERR_FILENO;
    for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        const std::string p(prefix);
        if (path.compare(0, p.size(), p) != 0 || path.size() == p.size()) continue;
        char* end = nullptr;
        long fd = std::strtol(path.c_str() + p.size(), &end, 10);
        if (*end == '\0' && fd >= 0 && fd < 1'000'000) return static_cast<int>(fd);
    }
    return -1;
}

// Character devices that take a document without harm: the null and full
// devices (major 1, minors 3 and 7) and terminals.
bool harmless_char_device(dev_t rdev) {
    const unsigned ma = major(rdev), mi = minor(rdev);
    if (ma == 1) return mi == 3 || mi == 7;
    return ma == 4 || ma == 5 || (ma >= 136 && ma <= 143);  // tty, console, pts
}

struct Place {
    std::string dir, base;
};

Place split(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return {".", path};
    return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

// Opens a non-regular destination for writing (its kind already checked).
UniqueFd open_stream(const std::string& path) {
    if (int n = stream_name_fd(path); n >= 0) {
        int fd = ::fcntl(n, F_DUPFD_CLOEXEC, 3);
        if (fd < 0) fail(errno, path, "descriptor " + std::to_string(n) + " is not open");
        return UniqueFd(fd);
    }
    // O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of
    // hanging the run's end; blocking writes are restored right after.
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (!fd.valid()) {
        if (errno == ENXIO) fail(ENXIO, path, "a FIFO with no reader");
        fail(errno, path, "cannot open");
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) fail(errno, path, "fstat");
    if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode))
        fail(EBUSY, path, "changed while being opened");
    int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

// A new, empty regular file beside `path` under a name nobody can guess,
// created without following anything.  Returns its name in `tmp_name`.
UniqueFd create_temporary(int dirfd, const Place& at, const std::string& path,
                          std::string& tmp_name) {
    for (int attempt = 0; attempt < 16; ++attempt) {
        // A leading dot and no .prom/.json ending: collectors and globs skip it.
        // Appended, not "." + ...: GCC 12 reports that as an overlapping
        // memcpy (-Wrestrict, a false positive: GCC bug 105329).
        tmp_name.assign(1, '.');
        tmp_name.append(at.base, 0, 200).append(".").append(unpredictable_suffix()).append(".tmp");
        int fd = ::openat(dirfd, tmp_name.c_str(),
                          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) return UniqueFd(fd);
        if (errno != EEXIST) fail(errno, path, "cannot create a file in " + at.dir);
    }
    fail(EEXIST, path, "cannot create a temporary file in " + at.dir);
}

// Creates the temporary file, lets `fill` write it, renames it over `path`.
template <typename Fill>
UniqueFd replace_with(const std::string& path, bool sync, Fill&& fill) {
    const Place at = split(path);
    UniqueFd dir(::open(at.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) fail(errno, path, "directory " + at.dir);
    std::string tmp;
    UniqueFd fd = create_temporary(dir.get(), at, path, tmp);
    try {
        fill(fd.get(), tmp);
        if (sync && ::fsync(fd.get()) != 0) fail(errno, path, "fsync of the new file");
        if (::renameat(dir.get(), tmp.c_str(), dir.get(), at.base.c_str()) != 0)
            fail(errno, path, "rename over it");
    } catch (...) {
        ::unlinkat(dir.get(), tmp.c_str(), 0);
        throw;
    }
    // Make the rename durable; the document is in place whatever happens.
    if (sync) (void)::fsync(dir.get());
    return fd;
}

}  // namespace

std::string unpredictable_suffix() {
    static std::atomic<unsigned> counter{0};
    unsigned long long r = 0;
    if (::getrandom(&r, sizeof r, 0) != static_cast<ssize_t>(sizeof r))
        r = (static_cast<unsigned long long>(::getpid()) << 32) ^ ++counter ^
            static_cast<unsigned long long>(::time(nullptr));
    char text[24];
    std::snprintf(text, sizeof text, "%016llx", r);
    return text;
}

OutputKind check_output_destination(const std::string& path) {
    if (path.empty()) fail(ENOENT, path, "empty path");
    if (stream_name_fd(path) >= 0) return OutputKind::stream;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) return OutputKind::regular;
        fail(errno, path, "cannot check it");
    }
    if (S_ISREG(st.st_mode)) return OutputKind::regular;
    if (S_ISLNK(st.st_mode)) fail(ELOOP, path, "is a symbolic link; refusing to follow it");
    if (S_ISDIR(st.st_mode)) fail(EISDIR, path, "is a directory");
    if (S_ISFIFO(st.st_mode)) return OutputKind::stream;
    if (S_ISCHR(st.st_mode) && harmless_char_device(st.st_rdev)) return OutputKind::stream;
    fail(EINVAL, path, "is a device or socket; give a regular file, a FIFO or a terminal");
}

void check_output_writable(const std::string& path) {
    if (check_output_destination(path) == OutputKind::stream) return;
    const Place at = split(path);
    UniqueFd dir(::open(at.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) fail(errno, path, "directory " + at.dir);
    std::string tmp;
    UniqueFd fd = create_temporary(dir.get(), at, path, tmp);
    ::unlinkat(dir.get(), tmp.c_str(), 0);
}

void write_file_atomically(const std::string& path, std::string_view content) {
    if (check_output_destination(path) == OutputKind::stream) {
        UniqueFd fd = open_stream(path);
        if (!write_full(fd.get(), content)) fail(errno, path, "write");
        return;
    }
    replace_with(path, true, [&](int fd, const std::string& tmp) {
        if (!write_full(fd, content)) fail(errno, path, "write of " + tmp);
    });
}

UniqueFd create_output_file(const std::string& path) {
    if (check_output_destination(path) == OutputKind::stream) return open_stream(path);
    return replace_with(path, false, [](int, const std::string&) {});
}

}  // namespace ds::io
