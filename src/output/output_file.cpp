#include "output/output_file.h"

#include "sys/full_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <mutex>
#include <system_error>
#include <utility>

namespace ds::output {

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

// The run's own files by (device, inode), and the name each is shown by.
struct OwnFiles {
    std::mutex mutex;
    std::map<std::pair<dev_t, ino_t>, std::string> files;
};
OwnFiles& own_files() {
    static OwnFiles registry;
    return registry;
}

// Refuses a destination that is one of the run's own files.
void refuse_own_file(const struct stat& st, const std::string& path) {
    if (!S_ISREG(st.st_mode)) return;
    OwnFiles& r = own_files();
    std::lock_guard lock(r.mutex);
    auto it = r.files.find({st.st_dev, st.st_ino});
    if (it == r.files.end()) return;
    if (it->second == path) fail(EEXIST, path, "is one of the run's own files; give another path");
    fail(EEXIST, path,
         "is another name for " + it->second + ", one of the run's own files; give another path");
}

std::atomic<int (*)()> g_stop_request{nullptr};

int stop_request() {
    auto f = g_stop_request.load();
    return f ? f() : 0;
}

// A FIFO is written only when it is the caller's own: another user's FIFO
// (planted at the name in /tmp) would hand the document to that user or
// block the run at will.
void refuse_foreign_fifo(const struct stat& st, const std::string& path) {
    if (S_ISFIFO(st.st_mode) && st.st_uid != ::geteuid())
        fail(EPERM, path,
             "is a FIFO owned by uid " + std::to_string(st.st_uid) +
                 ", not by the caller; refusing to write into it");
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
sys::UniqueFd open_stream(const std::string& path) {
    if (int n = stream_name_fd(path); n >= 0) {
        sys::UniqueFd fd(::fcntl(n, F_DUPFD_CLOEXEC, 3));
        if (!fd.valid()) fail(errno, path, "descriptor " + std::to_string(n) + " is not open");
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0) fail(errno, path, "fstat");
        refuse_own_file(st, path);
        return fd;
    }
    // O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of
    // hanging the run's end, and writes wait in poll(), where a stop
    // request ends them (write_stream).  The description is ours alone.
    sys::UniqueFd fd(
        ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (!fd.valid()) {
        if (errno == ENXIO) fail(ENXIO, path, "a FIFO with no reader");
        fail(errno, path, "cannot open");
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) fail(errno, path, "fstat");
    if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode))
        fail(EBUSY, path, "changed while being opened");
    refuse_foreign_fifo(st, path);
    if (S_ISCHR(st.st_mode) && !harmless_char_device(st.st_rdev))
        fail(EBUSY, path, "changed while being opened");
    return fd;
}

// A new, empty regular file beside `path` under a name nobody can guess,
// created without following anything.  Returns its name in `tmp_name`.
sys::UniqueFd create_temporary(int dirfd, const Place& at, const std::string& path,
                               std::string& tmp_name) {
    for (int attempt = 0; attempt < 16; ++attempt) {
        // A leading dot and no .prom/.json ending: collectors and globs skip it.
        // Appended, not "." + ...: GCC 12 reports that as an overlapping
        // memcpy (-Wrestrict, a false positive: GCC bug 105329).
        tmp_name.assign(1, '.');
        tmp_name.append(at.base, 0, 200)
            .append(".")
            .append(std::to_string(::getpid()))
            .append("-")
            .append(unpredictable_suffix())
            .append(".tmp");
        int fd = ::openat(dirfd, tmp_name.c_str(),
                          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) return sys::UniqueFd(fd);
        if (errno != EEXIST) fail(errno, path, "cannot create a file in " + at.dir);
    }
    fail(EEXIST, path, "cannot create a temporary file in " + at.dir);
}

// Creates the temporary file, lets `fill` write it, renames it over `path`.
template <typename Fill>
sys::UniqueFd replace_with(const std::string& path, bool sync, Fill&& fill) {
    const Place at = split(path);
    sys::UniqueFd dir(::open(at.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) fail(errno, path, "directory " + at.dir);
    std::string tmp;
    sys::UniqueFd fd = create_temporary(dir.get(), at, path, tmp);
    try {
        fill(fd.get(), tmp);
        if (sync && ::fsync(fd.get()) != 0) fail(errno, path, "fsync of the new file");
        // Whatever name led here (a hard link, a bind mount), the file at
        // it is never one of the run's own.
        struct stat st {};
        if (::fstatat(dir.get(), at.base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
            refuse_own_file(st, path);
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

// Where an output lands: its resolved name, the directory's (device,
// inode) and the name in it, or for a stream what is there.
struct Landing {
    std::string name;
    bool dir_known = false, stream = false;
    struct stat dir {
    }, st{};
};

Landing landing_of(const OutputPath& out) {
    Landing l;
    const std::string& path = out.text();
    const int n = out.is_stdout() ? STDOUT_FILENO : stream_name_fd(path);
    if (n >= 0) {
        l.name = "/dev/fd/" + std::to_string(n);
        l.stream = ::fstat(n, &l.st) == 0;
        return l;
    }
    const Place at = split(path);
    char real[PATH_MAX];
    l.name = ::realpath(at.dir.c_str(), real) ? std::string(real) + "/" + at.base : path;
    l.dir_known = ::stat(at.dir.c_str(), &l.dir) == 0;
    l.stream = ::lstat(path.c_str(), &l.st) == 0 && S_ISFIFO(l.st.st_mode);
    return l;
}

}  // namespace

bool same_output(const OutputPath& a, const OutputPath& b) {
    const Landing x = landing_of(a), y = landing_of(b);
    if (x.name == y.name) return true;
    // The same name in one directory reached two ways (a bind mount, a
    // link to the directory).  Two hard links are two names: each is
    // replaced by its own document, nothing is lost.
    if (x.dir_known && y.dir_known && x.dir.st_dev == y.dir.st_dev &&
        x.dir.st_ino == y.dir.st_ino && split(a.text()).base == split(b.text()).base)
        return true;
    // One pipe or FIFO behind two names; terminals and /dev/null lose nothing.
    return x.stream && y.stream && !S_ISCHR(x.st.st_mode) && x.st.st_dev == y.st.st_dev &&
           x.st.st_ino == y.st.st_ino;
}

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

void protect_from_outputs(dev_t dev, ino_t ino, const std::string& shown_path) {
    OwnFiles& r = own_files();
    std::lock_guard lock(r.mutex);
    r.files[{dev, ino}] = shown_path;
}

void forget_own_file(dev_t dev, ino_t ino) {
    OwnFiles& r = own_files();
    std::lock_guard lock(r.mutex);
    r.files.erase({dev, ino});
}

void set_stop_request(int (*stop_signal)()) {
    g_stop_request.store(stop_signal);
}

namespace {

// Waits until `fd` has room: 1 room, 0 not yet (ask again), -1 stop with
// errno set (an error, or a stop request write_stream gives up on).
int wait_for_room(int fd, AfterStop after_stop, bool stopping_already) {
    if (!stopping_already && stop_request() != 0) {
        errno = EINTR;
        return -1;
    }
    // Wait for room in slices, so a stop request that went to another
    // thread is seen too (one to this thread ends poll with EINTR).
    pollfd p{fd, POLLOUT, 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready < 0 && errno != EINTR) return -1;
    if (ready <= 0 && after_stop == AfterStop::give_up && stop_request() != 0) {
        errno = EINTR;
        return -1;
    }
    if (ready <= 0) return 0;
    if (p.revents & POLLNVAL) {
        errno = EBADF;
        return -1;
    }
    return 1;
}

}  // namespace

bool write_stream(int fd, std::string_view data, AfterStop after_stop, std::size_t* done) {
    const bool stopping_already = stop_request() != 0;
    std::size_t written = 0;
    bool ok = true;
    while (written < data.size()) {
        const int room = wait_for_room(fd, after_stop, stopping_already);
        if (room < 0) {
            ok = false;
            break;
        }
        if (room == 0) continue;
        // At most PIPE_BUF after POLLOUT: a pipe with room takes it whole,
        // even through a descriptor shared with others and left blocking.
        // The one write loop; EAGAIN (a terminal took part) and a signal
        // go back to the wait, which looks for a stop request.
        std::size_t n = 0;
        const bool whole = sys::write_full(
            fd, data.substr(written, std::min<std::size_t>(data.size() - written, PIPE_BUF)), &n,
            sys::OnSignal::stop);
        written += n;
        if (!whole && errno != EAGAIN && errno != EINTR) {
            ok = false;
            break;
        }
    }
    if (done) *done = written;
    return ok;
}

OutputKind check_output_destination(const std::string& path) {
    if (path.empty()) fail(ENOENT, path, "empty path");
    struct stat st {};
    if (int n = stream_name_fd(path); n >= 0) {
        // A descriptor name means a descriptor the caller opened: checked
        // when drivestress starts, before it opens anything, so it can
        // never be one of the run's own files taking that number later.
        if (::fstat(n, &st) != 0)
            fail(errno, path,
                 "descriptor " + std::to_string(n) +
                     " is not open (a descriptor name must be open when drivestress starts)");
        refuse_own_file(st, path);
        return OutputKind::stream;
    }
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) return OutputKind::regular;
        fail(errno, path, "cannot check it");
    }
    refuse_own_file(st, path);
    if (S_ISREG(st.st_mode)) return OutputKind::regular;
    if (S_ISLNK(st.st_mode)) fail(ELOOP, path, "is a symbolic link; refusing to follow it");
    if (S_ISDIR(st.st_mode)) fail(EISDIR, path, "is a directory");
    refuse_foreign_fifo(st, path);
    if (S_ISFIFO(st.st_mode)) return OutputKind::stream;
    if (S_ISCHR(st.st_mode) && harmless_char_device(st.st_rdev)) return OutputKind::stream;
    fail(EINVAL, path, "is a device or socket; give a regular file, a FIFO or a terminal");
}

namespace {

// The process id a temporary name of `base` carries (".BASE.PID-HEX.tmp"),
// or 0 when `name` is not one.
pid_t temporary_owner(const std::string& name, const std::string& base) {
    const std::string head = "." + base + ".";
    if (name.size() <= head.size() + 4 || name.compare(0, head.size(), head) != 0 ||
        name.compare(name.size() - 4, 4, ".tmp") != 0)
        return 0;
    const std::string rest = name.substr(head.size(), name.size() - head.size() - 4);
    const auto dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || rest.size() - dash - 1 != 16) return 0;
    if (rest.find_first_not_of("0123456789") != dash) return 0;
    if (rest.find_first_not_of("0123456789abcdef", dash + 1) != std::string::npos) return 0;
    return static_cast<pid_t>(std::stol(rest.substr(0, dash)));
}

// Removes the temporary files of `base` that a killed run left in `dirfd`:
// a regular file of ours with one link, named by a process that no longer
// exists (a live one may still be writing it).  Returns how many.
std::size_t sweep_dead_temporaries(int dirfd, const std::string& base) {
    DIR* d = ::fdopendir(::dup(dirfd));
    if (!d) return 0;
    std::size_t removed = 0;
    while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        const pid_t pid = temporary_owner(name, base);
        if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
        struct stat st {};
        if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != ::geteuid() || st.st_nlink != 1)
            continue;
        if (::unlinkat(dirfd, name.c_str(), 0) == 0) ++removed;
    }
    ::closedir(d);
    return removed;
}

}  // namespace

std::size_t check_output_writable(const std::string& path) {
    if (check_output_destination(path) == OutputKind::stream) return 0;
    const Place at = split(path);
    sys::UniqueFd dir(::open(at.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) fail(errno, path, "directory " + at.dir);
    std::string tmp;
    sys::UniqueFd fd = create_temporary(dir.get(), at, path, tmp);
    ::unlinkat(dir.get(), tmp.c_str(), 0);
    return sweep_dead_temporaries(dir.get(), at.base);
}

void write_file_atomically(const std::string& path, std::string_view content) {
    if (check_output_destination(path) == OutputKind::stream) {
        sys::UniqueFd fd = open_stream(path);
        if (!write_stream(fd.get(), content)) fail(errno, path, "write");
        return;
    }
    replace_with(path, true, [&](int fd, const std::string& tmp) {
        if (!sys::write_full(fd, content)) fail(errno, path, "write of " + tmp);
    });
}

sys::UniqueFd create_output_file(const std::string& path) {
    if (check_output_destination(path) == OutputKind::stream) return open_stream(path);
    return replace_with(path, false, [](int, const std::string&) {});
}

}  // namespace ds::output
