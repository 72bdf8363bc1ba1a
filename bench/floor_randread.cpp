// The floor under drivestress's random I/O: the same ring drivestress sets
// up (SINGLE_ISSUER | DEFER_TASKRUN, one registered file, one registered
// buffer, O_DIRECT), the same batching (submit and wait for a quarter of the
// queue), and nothing else: no unit map, no verification, no statistics
// beyond a count.  scripts/bench runs it beside drivestress and fio so a
// row can say how far drivestress is above the minimum such a loop costs.
//
//   floor_randread [--wait=W] [--ring=R] [--awake=CPUS] FILE QD SECONDS
//                  [BLOCK] [touch|nop|mixPCT]
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
// How the loop waits for each batch (issue #51: at QD 1 on a 2-vCPU VM the
// hand measurements there put most of an operation's time in waking idle
// vCPUs, so the way of waiting may decide the figure):
// --wait=enter (default): submit and wait in one io_uring_enter, as
//   t/io_uring and drivestress --wait sleep do.
// --wait=submit_then_wait: fio 3.33's two calls: submit with GETEVENTS and
//   no wait (engines/io_uring.c fio_ioring_commit), then, unless the batch
//   is already in the CQ ring, a blocking wait (fio_ioring_getevents).
// --wait=spin:US: submit as above, then spin up to US microseconds for the
//   batch before a blocking wait.  The CQ ring alone would never show it:
//   with DEFER_TASKRUN (and COOP_TASKRUN) a completion is posted only when
//   this thread enters the kernel, so the ring also takes TASKRUN_FLAG and
//   the spin enters (io_uring_get_events) when the kernel sets
//   IORING_SQ_TASKRUN.  With --ring=plain the completion interrupts the
//   spin and is posted on its return to user space.  drivestress --wait
//   spin:US waits so (its auto at depth 4 or less with a CPU to spare), and
//   scripts/bench runs the floor with --wait=spin:50 on those rows.
// --wait=sqpoll[@CPU] and sqpoll_spin:US[@CPU]: a kernel thread (on CPU,
//   IORING_SETUP_SQ_AFF) submits and posts completions (SQPOLL |
//   SINGLE_ISSUER, as drivestress --sqpoll); the loop enters only to wake
//   that thread, and either waits or spins on the CQ ring (posted
//   completions need no system call to be seen).
// --ring=defer|coop|plain: the completion work mode outside SQPOLL:
//   SINGLE_ISSUER | DEFER_TASKRUN (default), SINGLE_ISSUER | COOP_TASKRUN, or
//   neither (task work forced on this thread with an IPI).
// --awake=CPU[,CPU...]: a SCHED_IDLE thread on each CPU spins until the
//   loop ends, so that CPU never halts meanwhile (the "other CPU busy" case
//   of issue #51); any other thread there preempts it at once.  Its CPU
//   time counts in cpu_*_s; io_thread_* are the loop's thread alone.
//
// Prints one JSON object: ops, seconds, iops, cpu_user_s, cpu_system_s,
// touched_xor, reads, writes, wait, ring, awake, enters (io_uring_enter
// calls the loop made; an SQPOLL wake-up counted from the flag it reads
// just before), waits (blocking waits for a batch not yet in the CQ
// ring), spin_hits (batches a spin found), io_thread_cpu_s, io_thread_vcsw
// and io_thread_ivcsw (the loop thread's voluntary and involuntary context
// switches: a voluntary one is a sleep).
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
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

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
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
enum class Wait { enter, submit_then_wait, spin, sqpoll, sqpoll_spin };
enum class RingMode { defer, coop, plain };

struct Args {
    const char* file = nullptr;
    unsigned qd = 0;
    double seconds = 0;
    unsigned block = 4096;
    Mode mode = Mode::plain;
    unsigned read_pct = 100;  // mix
    Wait wait = Wait::enter;
    std::string wait_text = "enter";
    unsigned spin_us = 0;  // spin, sqpoll_spin
    int sq_cpu = -1;       // sqpoll*: the polling thread's CPU, -1 anywhere
    RingMode ring = RingMode::defer;
    std::vector<unsigned> awake;
    std::string awake_text;

    bool spins() const { return wait == Wait::spin || wait == Wait::sqpoll_spin; }
    bool sqpoll() const { return wait == Wait::sqpoll || wait == Wait::sqpoll_spin; }
};

// A decimal number up to `max` at the start of `s`; `end` after it.
bool parse_uint(const char* s, unsigned long max, unsigned& out, const char** end) {
    if (*s < '0' || *s > '9') return false;
    char* e = nullptr;
    const unsigned long v = std::strtoul(s, &e, 10);
    if (v > max) return false;
    out = static_cast<unsigned>(v);
    *end = e;
    return true;
}

// W of --wait=W: enter, submit_then_wait, spin:US, sqpoll[@CPU],
// sqpoll_spin:US[@CPU].
bool parse_wait(const char* w, Args& a) {
    static const struct {
        const char* name;
        Wait wait;
    } kNames[] = {{"enter", Wait::enter},
                  {"submit_then_wait", Wait::submit_then_wait},
                  {"spin", Wait::spin},
                  {"sqpoll_spin", Wait::sqpoll_spin},
                  {"sqpoll", Wait::sqpoll}};
    for (const auto& n : kNames) {
        const std::size_t len = std::strlen(n.name);
        if (std::strncmp(w, n.name, len) != 0) continue;
        a.wait = n.wait;
        a.wait_text = w;
        const char* rest = w + len;
        if (a.spins() && (*rest != ':' || !parse_uint(rest + 1, 1'000'000, a.spin_us, &rest)))
            return false;
        if (a.sqpoll() && *rest == '@') {
            unsigned cpu = 0;
            if (!parse_uint(rest + 1, CPU_SETSIZE - 1, cpu, &rest)) return false;
            a.sq_cpu = static_cast<int>(cpu);
        }
        return *rest == '\0';
    }
    return false;
}

bool parse_awake(const char* list, Args& a) {
    a.awake_text = list;
    for (const char* p = list;; ++p) {
        unsigned cpu = 0;
        if (!parse_uint(p, CPU_SETSIZE - 1, cpu, &p)) return false;
        a.awake.push_back(cpu);
        if (*p == '\0') return true;
        if (*p != ',') return false;
    }
}

bool parse_option(const char* o, Args& a) {
    if (std::strncmp(o, "--wait=", 7) == 0) return parse_wait(o + 7, a);
    if (std::strncmp(o, "--awake=", 8) == 0) return parse_awake(o + 8, a);
    if (std::strcmp(o, "--ring=defer") == 0) {
        a.ring = RingMode::defer;
    } else if (std::strcmp(o, "--ring=coop") == 0) {
        a.ring = RingMode::coop;
    } else if (std::strcmp(o, "--ring=plain") == 0) {
        a.ring = RingMode::plain;
    } else {
        return false;
    }
    return true;
}

bool parse_mode(const char* m, Args& a) {
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
    return true;
}

// Options (--name=value) anywhere, then FILE QD SECONDS [BLOCK] [MODE].
bool parse(int argc, char** argv, Args& a) {
    std::vector<const char*> pos;
    for (int i = 1; i < argc; ++i) {
        if (std::strncmp(argv[i], "--", 2) != 0)
            pos.push_back(argv[i]);
        else if (!parse_option(argv[i], a))
            return false;
    }
    if (pos.size() < 3 || pos.size() > 5) return false;
    a.file = pos[0];
    a.qd = static_cast<unsigned>(std::strtoul(pos[1], nullptr, 10));
    a.seconds = std::strtod(pos[2], nullptr);
    if (pos.size() > 3) a.block = static_cast<unsigned>(std::strtoul(pos[3], nullptr, 10));
    if (pos.size() > 4 && !parse_mode(pos[4], a)) return false;
    return a.qd > 0 && a.seconds > 0 && a.block > 0 && a.block % 512 == 0;
}

std::string flag_names(unsigned flags) {
    static const struct {
        unsigned bit;
        const char* name;
    } kFlags[] = {{IORING_SETUP_SQPOLL, "SQPOLL"},
                  {IORING_SETUP_SQ_AFF, "SQ_AFF"},
                  {IORING_SETUP_SINGLE_ISSUER, "SINGLE_ISSUER"},
                  {IORING_SETUP_DEFER_TASKRUN, "DEFER_TASKRUN"},
                  {IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN"},
                  {IORING_SETUP_TASKRUN_FLAG, "TASKRUN_FLAG"}};
    std::string s;
    for (const auto& f : kFlags) {
        if (!(flags & f.bit)) continue;
        if (!s.empty()) s += '|';
        s += f.name;
    }
    return s.empty() ? "none" : s;
}

// The ring --wait and --ring ask for; `flags` gets the setup flags taken.
// SQPOLL refuses the task-run flags (the polling thread posts completions)
// and keeps SINGLE_ISSUER where the kernel takes it, as drivestress does.
int setup_ring(const Args& a, io_uring& ring, unsigned& flags) {
    io_uring_params p{};
    if (a.sqpoll()) {
        p.flags = IORING_SETUP_SQPOLL | IORING_SETUP_SINGLE_ISSUER;
        if (a.sq_cpu >= 0) {
            p.flags |= IORING_SETUP_SQ_AFF;
            p.sq_thread_cpu = static_cast<unsigned>(a.sq_cpu);
        }
    } else if (a.ring == RingMode::defer) {
        p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    } else if (a.ring == RingMode::coop) {
        p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN;
    }
    if (a.spins() && (p.flags & (IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_COOP_TASKRUN)))
        p.flags |= IORING_SETUP_TASKRUN_FLAG;
    const unsigned asked = p.flags;
    int r = io_uring_queue_init_params(a.qd, &ring, &p);
    if (r == -EINVAL && a.sqpoll()) {
        p = io_uring_params{};
        p.flags = asked & ~IORING_SETUP_SINGLE_ISSUER;
        p.sq_thread_cpu = static_cast<unsigned>(a.sq_cpu >= 0 ? a.sq_cpu : 0);
        r = io_uring_queue_init_params(a.qd, &ring, &p);
    }
    flags = p.flags;
    return r;
}

// --awake: see the header.
class Awake {
  public:
    // Empty when every thread runs on its CPU; else what failed.
    std::string start(const std::vector<unsigned>& cpus) {
        for (unsigned cpu : cpus) {
            threads_.emplace_back([this] { spin(); });
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            if (int e = pthread_setaffinity_np(threads_.back().native_handle(), sizeof set, &set))
                return "--awake CPU " + std::to_string(cpu) + ": " + std::strerror(e);
        }
        return {};
    }
    ~Awake() {
        stop_.store(true, std::memory_order_relaxed);
        for (auto& t : threads_)
            t.join();
    }

  private:
    void spin() {
        sched_param none{};
        pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
        while (!stop_.load(std::memory_order_relaxed))
            cpu_relax();
    }
    std::atomic<bool> stop_{false};
    std::vector<std::thread> threads_;
};

struct Counts {
    std::uint64_t enters = 0, waits = 0, spin_hits = 0;
};

// A blocking wait for the rest of a batch (none if the CQ ring has it).
int block_for(io_uring& ring, unsigned batch, Counts& c) {
    if (io_uring_cq_ready(&ring) >= batch) return 0;
    ++c.enters;
    ++c.waits;
    io_uring_cqe* cqe = nullptr;
    return io_uring_wait_cqe_nr(&ring, &cqe, batch);
}

// Spins up to `us` for a batch, entering the kernel only when it says it
// holds completion work for this thread (IORING_SQ_TASKRUN), then blocks.
// The clock is read every 16 turns (a vDSO read costs more than a turn).
int spin_for(io_uring& ring, unsigned batch, unsigned us, bool taskrun_flag, Counts& c) {
    const double until = now_s() + us / 1e6;
    for (unsigned turn = 1;; ++turn) {
        if (taskrun_flag && (IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_TASKRUN)) {
            ++c.enters;
            if (int r = io_uring_get_events(&ring); r < 0 && r != -EINTR) return r;
        }
        if (io_uring_cq_ready(&ring) >= batch) {
            ++c.spin_hits;
            return 0;
        }
        if (turn % 16 == 0 && now_s() >= until) return block_for(ring, batch, c);
        cpu_relax();
    }
}

// Submits what is queued and returns once `batch` completions are in the
// CQ ring, the way --wait says.
int submit_and_wait(const Args& a, io_uring& ring, unsigned flags, unsigned batch, Counts& c) {
    int r = 0;
    if (a.wait == Wait::enter) {
        c.waits += io_uring_cq_ready(&ring) < batch;
        ++c.enters;
        r = io_uring_submit_and_wait(&ring, batch);
        return r < 0 ? r : 0;
    }
    if (a.sqpoll()) {
        c.enters += (IO_URING_READ_ONCE(*ring.sq.kflags) & IORING_SQ_NEED_WAKEUP) != 0;
        r = io_uring_submit(&ring);
    } else {
        ++c.enters;
        r = io_uring_submit_and_get_events(&ring);
    }
    if (r < 0) return r;
    if (!a.spins()) return block_for(ring, batch, c);
    return spin_for(ring, batch, a.spin_us, flags & IORING_SETUP_TASKRUN_FLAG, c);
}

// A new pattern in the whole block, different for every `seed`: one
// multiply per word, which the compiler vectorises.
void fill_block(char* p, std::size_t n, std::uint64_t seed) {
    for (std::size_t i = 0; i < n; i += sizeof seed) {
        const std::uint64_t w = (seed + i) * 0x9E3779B97F4A7C15ULL;
        std::memcpy(p + i, &w, sizeof w);
    }
}

struct Result {
    std::uint64_t ops = 0, writes = 0, touched = 0;
    double seconds = 0;
    Counts counts;
};

// The one JSON object scripts/bench reads.
void print_result(const Args& a, unsigned flags, const Result& r) {
    rusage ru{}, th{};
    getrusage(RUSAGE_SELF, &ru);
    getrusage(RUSAGE_THREAD, &th);
    std::printf(
        "{\"ops\": %llu, \"seconds\": %.6f, \"iops\": %.1f, \"cpu_user_s\": %.6f, "
        "\"cpu_system_s\": %.6f, \"touched_xor\": %llu, \"reads\": %llu, \"writes\": %llu, "
        "\"wait\": \"%s\", \"ring\": \"%s\", \"awake\": \"%s\", \"enters\": %llu, "
        "\"waits\": %llu, \"spin_hits\": %llu, \"io_thread_cpu_s\": %.6f, "
        "\"io_thread_vcsw\": %ld, \"io_thread_ivcsw\": %ld}\n",
        static_cast<unsigned long long>(r.ops), r.seconds, static_cast<double>(r.ops) / r.seconds,
        cpu_s(ru.ru_utime), cpu_s(ru.ru_stime), static_cast<unsigned long long>(r.touched),
        static_cast<unsigned long long>(r.ops - r.writes),
        static_cast<unsigned long long>(r.writes), a.wait_text.c_str(), flag_names(flags).c_str(),
        a.awake_text.c_str(), static_cast<unsigned long long>(r.counts.enters),
        static_cast<unsigned long long>(r.counts.waits),
        static_cast<unsigned long long>(r.counts.spin_hits),
        cpu_s(th.ru_utime) + cpu_s(th.ru_stime), th.ru_nvcsw, th.ru_nivcsw);
}

// Each slot's next operation: a random block of the file, read, or (mix)
// written with fresh data.
struct Issuer {
    const Args& a;
    io_uring& ring;
    char* mem;
    std::uint64_t blocks;
    std::vector<unsigned char> is_write;
    std::uint64_t rng = 0x9E3779B97F4A7C15ULL, writes_issued = 0;

    std::uint64_t next() {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    }
    char* buf(unsigned slot) const { return mem + std::size_t{slot} * a.block; }
    void queue(unsigned slot) {
        io_uring_sqe* sqe;
        while (!(sqe = io_uring_get_sqe(&ring))) {  // SQPOLL: its thread has not taken them yet
            if (a.sqpoll())
                io_uring_sqring_wait(&ring);
            else
                io_uring_submit(&ring);
        }
        const std::uint64_t offset = (next() % blocks) * a.block;
        if (a.mode == Mode::nop) {
            io_uring_prep_nop(sqe);
        } else if (a.mode == Mode::mix && next() % 100 >= a.read_pct) {
            fill_block(buf(slot), a.block, ++writes_issued * blocks + offset);
            io_uring_prep_write_fixed(sqe, 0, buf(slot), a.block, offset, 0);
            sqe->flags |= IOSQE_FIXED_FILE;
        } else {
            io_uring_prep_read_fixed(sqe, 0, buf(slot), a.block, offset, 0);
            sqe->flags |= IOSQE_FIXED_FILE;
        }
        is_write[slot] = sqe->opcode == IORING_OP_WRITE_FIXED;
        io_uring_sqe_set_data64(sqe, slot);
    }
};

// The loop: `qd` operations in flight on `blocks` blocks of the file, each
// batch reaped, checked (and touched) and replaced, until the time is up.
int run(const Args& a, io_uring& ring, unsigned flags, char* mem, std::uint64_t blocks,
        Result& out) {
    Issuer is{a, ring, mem, blocks, std::vector<unsigned char>(a.qd, 0)};
    for (unsigned s = 0; s < a.qd; ++s)
        is.queue(s);
    const unsigned batch = a.qd / 4 ? a.qd / 4 : 1;
    const bool touch = a.mode == Mode::touch || a.mode == Mode::mix;
    const int expect = a.mode == Mode::nop ? 0 : static_cast<int>(a.block);
    std::vector<io_uring_cqe*> cqes(a.qd);
    const double t0 = now_s(), end = t0 + a.seconds;
    double t = t0;
    while (t < end) {
        if (int r = submit_and_wait(a, ring, flags, batch, out.counts); r < 0 && r != -EINTR)
            return fail("wait", -r);
        unsigned n = io_uring_peek_batch_cqe(&ring, cqes.data(), a.qd);
        for (unsigned i = 0; i < n; ++i) {
            if (cqes[i]->res != expect)
                return fail("completion", cqes[i]->res < 0 ? -cqes[i]->res : EIO);
            const auto slot = static_cast<unsigned>(io_uring_cqe_get_data64(cqes[i]));
            if (is.is_write[slot])
                ++out.writes;
            else if (touch)
                out.touched ^= touch_block(is.buf(slot), a.block);
            is.queue(slot);
        }
        io_uring_cq_advance(&ring, n);
        out.ops += n;
        t = now_s();
    }
    out.seconds = t - t0;
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Args a;
    if (!parse(argc, argv, a)) {
        std::fprintf(stderr,
                     "usage: floor_randread [--wait=W] [--ring=defer|coop|plain] "
                     "[--awake=CPU[,CPU...]]\n"
                     "         FILE QD SECONDS [BLOCK] [touch|nop|mixPCT]\n"
                     "  W: enter, submit_then_wait, spin:US, sqpoll[@CPU], sqpoll_spin:US[@CPU]\n");
        return 2;
    }
    int fd = ::open(a.file, (a.mode == Mode::mix ? O_RDWR : O_RDONLY) | O_DIRECT);
    if (fd < 0) return fail(a.file, errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(a.block))
        return fail("file too small", EINVAL);
    io_uring ring{};
    unsigned flags = 0;
    if (int r = setup_ring(a, ring, flags); r < 0) return fail("ring", -r);
    if (int r = io_uring_register_files(&ring, &fd, 1); r < 0) return fail("files", -r);
    void* mem = nullptr;
    if (posix_memalign(&mem, 4096, std::size_t{a.qd} * a.block) != 0) return fail("memory", ENOMEM);
    iovec iov{mem, std::size_t{a.qd} * a.block};
    if (int r = io_uring_register_buffers(&ring, &iov, 1); r < 0) return fail("buffers", -r);
    Result res;
    {
        Awake awake;
        if (std::string e = awake.start(a.awake); !e.empty()) {
            std::fprintf(stderr, "floor_randread: %s\n", e.c_str());
            return 1;
        }
        const std::uint64_t blocks = static_cast<std::uint64_t>(st.st_size) / a.block;
        if (int r = run(a, ring, flags, static_cast<char*>(mem), blocks, res)) return r;
    }
    print_result(a, flags, res);
    return 0;
}
