// The floor under drivestress's random I/O: the same ring drivestress sets
// up (SINGLE_ISSUER | DEFER_TASKRUN, one registered file, one registered
// buffer, O_DIRECT), the same batching (submit and wait for a quarter of the
// queue), and nothing else: no unit map, no verification, no statistics
// beyond a count.  scripts/bench runs it beside drivestress and fio so a
// row can say how far drivestress is above the minimum such a loop costs.
//
//   floor_randread FILE QD SECONDS [BLOCK] [touch|nop|mixPCT]
//
// touch: the loop also loads every byte of each completed block (an XOR
//   over it, kept so the compiler cannot drop it): the least any tool that
//   verifies its reads must do, whatever it compares against.  On a device
//   whose "DMA" is a CPU copy (a loop device) that is also the cost of
//   moving the block's cache lines from the copying core to this one.
// nop: every operation is IORING_OP_NOP on the same ring (the file is
//   opened and registered all the same, no byte moves): the floor under
//   drivestress --backend nop, as fio's t/io_uring -N1.
// mixPCT (mix70): PCT % reads and the rest writes, at random offsets of a
//   file opened for writing; each write first fills its block with fresh
//   data (a new pattern per write, as drivestress must: no drive may
//   compress or deduplicate it), each read is touched as above: the floor
//   under drivestress's verified mix.
//
// Prints one JSON object: ops, seconds, iops, cpu_user_s, cpu_system_s,
// touched_xor, reads, writes.
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

enum class Mode { plain, touch, nop, mix };

struct Args {
    const char* file = nullptr;
    unsigned qd = 0;
    double seconds = 0;
    unsigned block = 4096;
    Mode mode = Mode::plain;
    unsigned read_pct = 100;  // mix
};

bool parse(int argc, char** argv, Args& a) {
    if (argc < 4) return false;
    a.file = argv[1];
    a.qd = static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10));
    a.seconds = std::strtod(argv[3], nullptr);
    if (argc > 4) a.block = static_cast<unsigned>(std::strtoul(argv[4], nullptr, 10));
    if (argc > 5) {
        const char* m = argv[5];
        if (std::strcmp(m, "touch") == 0) {
            a.mode = Mode::touch;
        } else if (std::strcmp(m, "nop") == 0) {
            a.mode = Mode::nop;
        } else if (std::strncmp(m, "mix", 3) == 0 && m[3] >= '0' && m[3] <= '9') {
            a.mode = Mode::mix;
            a.read_pct = static_cast<unsigned>(std::strtoul(m + 3, nullptr, 10));
            if (a.read_pct > 100) return false;
        } else {
            return false;
        }
    }
    return argc <= 6 && a.qd > 0 && a.seconds > 0 && a.block > 0 && a.block % 512 == 0;
}

// A new pattern in the whole block, different for every `seed`: one
// multiply per word, which the compiler vectorises.
void fill_block(char* p, std::size_t n, std::uint64_t seed) {
    for (std::size_t i = 0; i < n; i += sizeof seed) {
        const std::uint64_t w = (seed + i) * 0x9E3779B97F4A7C15ULL;
        std::memcpy(p + i, &w, sizeof w);
    }
}

// The one JSON object scripts/bench reads.
void print_result(std::uint64_t ops, std::uint64_t writes, double seconds, std::uint64_t touched) {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf(
        "{\"ops\": %llu, \"seconds\": %.6f, \"iops\": %.1f, \"cpu_user_s\": %.6f, "
        "\"cpu_system_s\": %.6f, \"touched_xor\": %llu, \"reads\": %llu, \"writes\": %llu}\n",
        static_cast<unsigned long long>(ops), seconds, static_cast<double>(ops) / seconds,
        cpu_s(ru.ru_utime), cpu_s(ru.ru_stime), static_cast<unsigned long long>(touched),
        static_cast<unsigned long long>(ops - writes), static_cast<unsigned long long>(writes));
}

}  // namespace

int main(int argc, char** argv) {
    Args a;
    if (!parse(argc, argv, a)) {
        std::fprintf(stderr, "usage: floor_randread FILE QD SECONDS [BLOCK] [touch|nop|mixPCT]\n");
        return 2;
    }
    const unsigned qd = a.qd, block = a.block;
    int fd = ::open(a.file, (a.mode == Mode::mix ? O_RDWR : O_RDONLY) | O_DIRECT);
    if (fd < 0) return fail(a.file, errno);
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

    std::uint64_t rng = 0x9E3779B97F4A7C15ULL, writes_issued = 0;
    std::vector<unsigned char> is_write(qd, 0);
    auto next = [&] {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    };
    auto queue = [&](unsigned slot) {
        io_uring_sqe* sqe = io_uring_get_sqe(&ring);
        char* buf = static_cast<char*>(mem) + std::size_t{slot} * block;
        const std::uint64_t offset = (next() % blocks) * block;
        if (a.mode == Mode::nop) {
            io_uring_prep_nop(sqe);
        } else if (a.mode == Mode::mix && next() % 100 >= a.read_pct) {
            fill_block(buf, block, ++writes_issued * blocks + offset);
            io_uring_prep_write_fixed(sqe, 0, buf, block, offset, 0);
            sqe->flags |= IOSQE_FIXED_FILE;
        } else {
            io_uring_prep_read_fixed(sqe, 0, buf, block, offset, 0);
            sqe->flags |= IOSQE_FIXED_FILE;
        }
        is_write[slot] = sqe->opcode == IORING_OP_WRITE_FIXED;
        io_uring_sqe_set_data64(sqe, slot);
    };
    for (unsigned s = 0; s < qd; ++s)
        queue(s);
    const unsigned batch = qd / 4 ? qd / 4 : 1;
    const bool touch = a.mode == Mode::touch || a.mode == Mode::mix;
    const int expect = a.mode == Mode::nop ? 0 : static_cast<int>(block);
    std::vector<io_uring_cqe*> cqes(qd);
    std::uint64_t ops = 0, writes = 0, touched = 0;
    const double t0 = now_s(), end = t0 + a.seconds;
    double t = t0;
    while (t < end) {
        if (int r = io_uring_submit_and_wait(&ring, batch); r < 0 && r != -EINTR)
            return fail("submit_and_wait", -r);
        unsigned n = io_uring_peek_batch_cqe(&ring, cqes.data(), qd);
        for (unsigned i = 0; i < n; ++i) {
            if (cqes[i]->res != expect)
                return fail("completion", cqes[i]->res < 0 ? -cqes[i]->res : EIO);
            const auto slot = static_cast<unsigned>(io_uring_cqe_get_data64(cqes[i]));
            if (is_write[slot])
                ++writes;
            else if (touch)
                touched ^= touch_block(static_cast<char*>(mem) + std::size_t{slot} * block, block);
            queue(slot);
        }
        io_uring_cq_advance(&ring, n);
        ops += n;
        t = now_s();
    }
    print_result(ops, writes, t - t0, touched);
    return 0;
}
