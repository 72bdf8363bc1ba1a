// The floor under drivestress's random reads: the same ring drivestress sets
// up (SINGLE_ISSUER | DEFER_TASKRUN, one registered file, one registered
// buffer, O_DIRECT), the same batching (submit and wait for a quarter of the
// queue), and nothing else: no unit map, no verification, no statistics
// beyond a count.  scripts/bench runs it beside drivestress and fio so a
// row can say how far drivestress is above the minimum such a loop costs.
//
//   floor_randread FILE QD SECONDS [BLOCK] [touch]
//
// With "touch" the loop also loads every byte of each completed block (an
// XOR over it, kept so the compiler cannot drop it): the least any tool that
// verifies its reads must do, whatever it compares against.  On a device
// whose "DMA" is a CPU copy (a loop device) that is also the cost of moving
// the block's cache lines from the copying core to this one.
//
// Prints one JSON object: ops, seconds, iops, cpu_user_s, cpu_system_s,
// touched_xor.
#include <fcntl.h>
#include <liburing.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

double now_s() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double cpu_s(const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

int fail(const char* what, int err) {
    std::fprintf(stderr, "floor_randread: %s: %s\n", what, std::strerror(err));
    return 1;
}

// Loads every byte of the block; the XOR keeps the loads from being dropped.
std::uint64_t touch_block(const char* p, std::size_t n) {
    std::uint64_t x = 0;
    for (std::size_t i = 0; i < n; i += sizeof x) {
        std::uint64_t w;
        std::memcpy(&w, p + i, sizeof w);
        x ^= w;
    }
    return x;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: floor_randread FILE QD SECONDS [BLOCK] [touch]\n");
        return 2;
    }
    const unsigned qd = static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10));
    const double seconds = std::strtod(argv[3], nullptr);
    const unsigned block =
        argc > 4 ? static_cast<unsigned>(std::strtoul(argv[4], nullptr, 10)) : 4096;
    const bool touch = argc > 5 && std::strcmp(argv[5], "touch") == 0;
    if (qd == 0 || seconds <= 0 || block == 0 || block % 512 || (argc > 5 && !touch)) {
        std::fprintf(stderr, "floor_randread: bad QD, SECONDS, BLOCK or mode\n");
        return 2;
    }
    int fd = ::open(argv[1], O_RDONLY | O_DIRECT);
    if (fd < 0) return fail(argv[1], errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(block))
        return fail("file too small", EINVAL);
    const std::uint64_t blocks = static_cast<std::uint64_t>(st.st_size) / block;

    io_uring ring{};
    io_uring_params p{};
    p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    if (int r = io_uring_queue_init_params(qd, &ring, &p); r < 0) return fail("ring", -r);
    if (int r = io_uring_register_files(&ring, &fd, 1); r < 0) return fail("files", -r);
    void* mem = nullptr;
    if (posix_memalign(&mem, 4096, std::size_t{qd} * block) != 0) return fail("memory", ENOMEM);
    iovec iov{mem, std::size_t{qd} * block};
    if (int r = io_uring_register_buffers(&ring, &iov, 1); r < 0) return fail("buffers", -r);

    std::uint64_t rng = 0x9E3779B97F4A7C15ULL;
    auto queue = [&](unsigned slot) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        io_uring_sqe* sqe = io_uring_get_sqe(&ring);
        char* buf = static_cast<char*>(mem) + std::size_t{slot} * block;
        io_uring_prep_read_fixed(sqe, 0, buf, block, (rng % blocks) * block, 0);
        sqe->flags |= IOSQE_FIXED_FILE;
        io_uring_sqe_set_data64(sqe, slot);
    };
    for (unsigned s = 0; s < qd; ++s)
        queue(s);
    const unsigned batch = qd / 4 ? qd / 4 : 1;
    std::vector<io_uring_cqe*> cqes(qd);
    std::uint64_t ops = 0, touched = 0;
    const double t0 = now_s(), end = t0 + seconds;
    double t = t0;
    while (t < end) {
        if (int r = io_uring_submit_and_wait(&ring, batch); r < 0 && r != -EINTR)
            return fail("submit_and_wait", -r);
        unsigned n = io_uring_peek_batch_cqe(&ring, cqes.data(), qd);
        for (unsigned i = 0; i < n; ++i) {
            if (cqes[i]->res != static_cast<int>(block)) return fail("read", EIO);
            const auto slot = static_cast<unsigned>(io_uring_cqe_get_data64(cqes[i]));
            if (touch)
                touched ^= touch_block(static_cast<char*>(mem) + std::size_t{slot} * block, block);
            queue(slot);
        }
        io_uring_cq_advance(&ring, n);
        ops += n;
        t = now_s();
    }
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf(
        "{\"ops\": %llu, \"seconds\": %.6f, \"iops\": %.1f, \"cpu_user_s\": %.6f, "
        "\"cpu_system_s\": %.6f, \"touched_xor\": %llu}\n",
        static_cast<unsigned long long>(ops), t - t0, static_cast<double>(ops) / (t - t0),
        cpu_s(ru.ru_utime), cpu_s(ru.ru_stime), static_cast<unsigned long long>(touched));
    return 0;
}
