#include "io/probe.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <liburing.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <span>

#include "io/backend.h"
#include "sys/system_tree.h"
#include "sys/unique_fd.h"

namespace ds::io {

std::string_view to_string(BackendKind k) {
    return k == BackendKind::io_uring ? "io_uring" : "sync";
}

unsigned backend_flags(BackendKind k) {
    return k == BackendKind::io_uring ? kCancels | kRing : kBlockingCalls;
}

std::optional<BackendKind> backend_named(std::string_view name) {
    if (name == "io_uring") return BackendKind::io_uring;
    if (name == "sync") return BackendKind::sync;
    return std::nullopt;
}

std::string_view to_string(OpKind k) {
    switch (k) {
        case OpKind::read:
            return "read";
        case OpKind::write:
            return "write";
        case OpKind::fsync:
            return "fsync";
        case OpKind::fdatasync:
            return "fdatasync";
        case OpKind::trim:
            return "trim";
    }
    return "?";
}

bool is_block_device(int fd) {
    struct stat st {};
    return ::fstat(fd, &st) == 0 && S_ISBLK(st.st_mode);
}

namespace {

// What the kernel sysctl says, if it restricts io_uring ("" when it does not).
std::string sysctl_hint() {
    std::ifstream f(sys::system_tree().proc_path("sys/kernel/io_uring_disabled"));
    int v = 0;
    if (f >> v && v != 0) return " (kernel.io_uring_disabled=" + std::to_string(v) + ")";
    return "";
}

std::string explain(const char* call, int err) {
    std::string why = std::string(call) + ": " + std::strerror(err);
    if (err == ENOSYS) return why + " (kernel built without io_uring)";
    if (err == EPERM || err == EACCES) {
        std::string hint = sysctl_hint();
        return why + (hint.empty() ? " (blocked by a seccomp filter or security policy?)" : hint);
    }
    if (err == ENOMEM) {
        // Kernels before 5.12 (and any without memory cgroups) charge the
        // ring to the locked-memory limit: a limit of 0 fails like this.
        rlimit lim{};
        if (::getrlimit(RLIMIT_MEMLOCK, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
            return why + " (RLIMIT_MEMLOCK is " + std::to_string(lim.rlim_cur / 1024) +
                   " KiB: raise it with ulimit -l, or use --backend sync)";
    }
    return why;
}

}  // namespace

UringProbe probe_io_uring() {
    io_uring ring{};
    int ret = io_uring_queue_init(4, &ring, 0);
    if (ret < 0) return {false, explain("io_uring_setup", -ret)};

    UringProbe result{false, ""};
    int fds[2];
    if (::pipe(fds) != 0) {
        io_uring_queue_exit(&ring);
        return {false, explain("pipe", errno)};
    }
    sys::UniqueFd rd(fds[0]), wr(fds[1]);
    char out = 'x', in = 0;
    if (::write(wr.get(), &out, 1) != 1) {
        io_uring_queue_exit(&ring);
        return {false, explain("write", errno)};
    }
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    io_uring_prep_read(sqe, rd.get(), &in, 1, 0);
    ret = io_uring_submit_and_wait(&ring, 1);
    if (ret < 0) {
        result.reason = explain("io_uring_enter", -ret);
    } else {
        io_uring_cqe* cqe = nullptr;
        ret = io_uring_peek_cqe(&ring, &cqe);
        if (ret < 0 || !cqe) {
            result.reason = "io_uring: read completion missing";
        } else if (cqe->res < 0) {
            result.reason = explain("io_uring read", -cqe->res);
        } else if (cqe->res != 1 || in != out) {
            result.reason = "io_uring read returned wrong data";
        } else {
            result.usable = true;
        }
        if (cqe) io_uring_cqe_seen(&ring, cqe);
    }
    io_uring_queue_exit(&ring);
    return result;
}

std::string probe_polled_io(Backend& backend, std::byte* buf, std::uint32_t length) {
    std::memset(buf, 0, length);
    // The write first: it makes the extent written, so the read must reach
    // the device too.  Filesystems may complete some writes without polling
    // (ext4 does), and reads of unwritten extents never reach the device.
    for (OpKind kind : {OpKind::write, OpKind::read}) {
        const char* what = kind == OpKind::write ? "polled write" : "polled read";
        Request r;
        r.kind = kind;
        r.length = length;
        r.offset = 0;
        r.buf = buf;
        backend.prepare(r);
        Completion c{};
        std::size_t n = 0;
        // An IOPOLL wait returns empty-handed while a completion that did not
        // come through polling is on its way (seen thousands of times in a row),
        // so ask again, for a few seconds at most.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (n == 0 && std::chrono::steady_clock::now() < deadline)
            n = backend.reap(std::span<Completion>(&c, 1), 1);
        if (n == 0) return std::string(what) + ": no completion within 10 s";
        if (c.result == -EOPNOTSUPP)
            return std::string(what) +
                   ": the device cannot poll for completions (no poll queues; loop and "
                   "virtio devices have none by default): " +
                   std::strerror(EOPNOTSUPP);
        if (c.result < 0) return std::string(what) + ": " + std::strerror(-c.result);
        if (static_cast<std::uint32_t>(c.result) != length)
            return std::string(what) + ": short transfer (" + std::to_string(c.result) + " of " +
                   std::to_string(length) + " bytes)";
    }
    return "";
}

}  // namespace ds::io
