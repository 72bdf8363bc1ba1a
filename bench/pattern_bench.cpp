// Single-core throughput of the pattern generator and of the unit check, per
// SIMD path this CPU runs.  Prints figures only; it never asserts on time.
// Each figure is the fastest of several passes over its buffer, so a machine
// shared with other work still shows what one core can do.
//
//   cache-resident: 4 KiB and 256 KiB calls cycling over a 256 KiB buffer
//                   (L2-sized), one key per call, so per-key seeding counts
//   streaming:      256 MiB calls over a 256 MiB buffer, 4 passes (1 GiB)
//   units:          fill_unit / first_mismatch per 4 KiB (and 64 KiB) unit,
//                   the real write and verify paths with header and per-unit
//                   key, over both buffers; and fill_unit_streaming
//   handed over:    4 KiB units filled into eight 1 MiB blocks in turn while
//                   another thread pwrite()s each filled block to a file in
//                   /dev/shm, as a loop device's worker copies a write out
//                   (a device's DMA reads it likewise): the filling
//                   thread's GiB/s with cached and with streaming stores
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <thread>

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "pattern/generator.h"
#include "pattern/unit.h"

namespace {

using ds::pattern::SimdPath;
using Clock = std::chrono::steady_clock;

constexpr std::size_t KiB = 1024;
constexpr std::size_t MiB = 1024 * KiB;
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

// Page-aligned, pre-faulted buffer (what the I/O path uses for O_DIRECT).
struct Buffer {
    struct Free {
        void operator()(std::byte* p) const { std::free(p); }
    };
    std::unique_ptr<std::byte, Free> data;
    std::size_t size;

    explicit Buffer(std::size_t bytes)
        : data(static_cast<std::byte*>(std::aligned_alloc(4096, bytes))), size(bytes) {
        if (!data) throw std::bad_alloc();
        std::memset(data.get(), 1, size);
    }
    std::span<std::byte> span() { return {data.get(), size}; }
};

// Sink for results so the compiler keeps every call.
volatile std::size_t g_sink = 0;

// Times single passes of `pass` (each processing `bytes_per_pass` bytes)
// until `min_seconds` and at least `min_passes` passed; GiB/s of the fastest
// pass, which filters out time slices lost to other processes.
double throughput(std::size_t bytes_per_pass, double min_seconds, int min_passes,
                  const std::function<void(std::size_t)>& pass) {
    double best = 1e30;
    double total = 0;
    for (std::size_t n = 0; total < min_seconds || n < static_cast<std::size_t>(min_passes); ++n) {
        const auto start = Clock::now();
        pass(n);
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        best = std::min(best, seconds);
        total += seconds;
    }
    return static_cast<double>(bytes_per_pass) / GiB / best;
}

// Calls of `chunk` bytes over the whole buffer, one key per call.
double bench_generate(Buffer& buf, std::size_t chunk, SimdPath path, double min_seconds) {
    return throughput(buf.size, min_seconds, 4, [&](std::size_t pass) {
        for (std::size_t at = 0; at < buf.size; at += chunk) {
            ds::pattern::generate(pass * 1000003 + at, buf.span().subspan(at, chunk), path);
        }
    });
}

double bench_mismatch(Buffer& buf, std::size_t chunk, SimdPath path, double min_seconds) {
    // Content equal to the stream, so every call scans its whole chunk.
    for (std::size_t at = 0; at < buf.size; at += chunk) {
        ds::pattern::generate(at, buf.span().subspan(at, chunk), path);
    }
    return throughput(buf.size, min_seconds, 4, [&](std::size_t) {
        std::size_t sum = 0;
        for (std::size_t at = 0; at < buf.size; at += chunk) {
            sum += ds::pattern::mismatch(at, buf.span().subspan(at, chunk), path);
        }
        g_sink = g_sink + sum;
    });
}

// `shape`: the units' (ds::pattern::UnitShape); the default, every unit its own.
ds::pattern::UnitIdentity unit_at(std::size_t offset, std::size_t unit_bytes,
                                  ds::pattern::UnitShape shape = ds::pattern::kSectorBytes) {
    return {.run_id = ds::pattern::data_id_from_seed(1),
            .file_index = 0,
            .offset = offset,
            .generation = 1,
            .unit_bytes = static_cast<std::uint32_t>(unit_bytes),
            .shape = shape};
}

// The filling thread's GiB/s over `blocks` 1 MiB blocks, each pwritten by a
// second thread once filled (and not refilled until written); -1 when
// /dev/shm cannot be written.
// Pins the calling thread to the `nth` CPU it may run on (no-op when there
// are fewer).
void pin_to_nth_allowed_cpu(int nth) {
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (!CPU_ISSET(cpu, &allowed) || seen++ != nth) continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pthread_setaffinity_np(pthread_self(), sizeof one, &one);
        return;
    }
}

double bench_handed_over(bool streaming, std::size_t blocks) {
    constexpr std::size_t kBlock = MiB;
    constexpr std::size_t kRing = 8;
    char path[] = "/dev/shm/ds-pattern-bench-XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd < 0) return -1;
    ::unlink(path);
    Buffer ring(kRing * kBlock);
    std::atomic<std::size_t> filled{0}, written{0};
    bool write_failed = false;
    // Filler and writer on two cores, as a drive's worker thread and the
    // loop device's worker (or the device's DMA engine) are.
    std::thread writer([&] {
        pin_to_nth_allowed_cpu(1);
        for (std::size_t n = 0; n < blocks; ++n) {
            while (filled.load(std::memory_order_acquire) <= n)
                std::this_thread::yield();
            const auto at = static_cast<off_t>((n % 64) * kBlock);  // a 64 MiB file, rewritten
            if (::pwrite(fd, ring.data.get() + (n % kRing) * kBlock, kBlock, at) !=
                static_cast<ssize_t>(kBlock)) {
                write_failed = true;
            }
            written.store(n + 1, std::memory_order_release);
        }
    });
    cpu_set_t was;
    const bool restore = sched_getaffinity(0, sizeof was, &was) == 0;
    pin_to_nth_allowed_cpu(0);
    double busy = 0;
    for (std::size_t n = 0; n < blocks; ++n) {
        while (n >= written.load(std::memory_order_acquire) + kRing)
            std::this_thread::yield();
        std::byte* block = ring.data.get() + (n % kRing) * kBlock;
        const auto start = Clock::now();
        for (std::size_t at = 0; at < kBlock; at += 4 * KiB) {
            const std::span<std::byte> unit(block + at, 4 * KiB);
            if (streaming) {
                ds::pattern::fill_unit_streaming(unit, unit_at(n * kBlock + at, 4 * KiB));
            } else {
                ds::pattern::fill_unit(unit, unit_at(n * kBlock + at, 4 * KiB));
            }
        }
        if (streaming) ds::pattern::stream_fence();
        busy += std::chrono::duration<double>(Clock::now() - start).count();
        filled.store(n + 1, std::memory_order_release);
    }
    writer.join();
    if (restore) sched_setaffinity(0, sizeof was, &was);
    ::close(fd);
    return write_failed ? -1 : static_cast<double>(blocks * kBlock) / GiB / busy;
}

void print_row(const char* what, double generate_gibs, double verify_gibs) {
    std::printf("  %-34s %8.1f %8.1f\n", what, generate_gibs, verify_gibs);
}

}  // namespace

int main() {
    constexpr double kMinSeconds = 0.25;
    Buffer cached(256 * KiB);
    Buffer streaming(256 * MiB);

    std::printf("pattern throughput on one core, GiB/s (fastest pass over the buffer)\n");
    std::printf("active path: %s\n",
                std::string(ds::pattern::to_string(ds::pattern::active_simd_path())).c_str());
    std::printf("  %-34s %8s %8s\n", "", "generate", "mismatch");
    for (const SimdPath path : ds::pattern::available_simd_paths()) {
        const std::string name(ds::pattern::to_string(path));
        std::printf("%s\n", name.c_str());
        print_row("cache-resident, 4 KiB calls", bench_generate(cached, 4 * KiB, path, kMinSeconds),
                  bench_mismatch(cached, 4 * KiB, path, kMinSeconds));
        print_row("cache-resident, 256 KiB calls",
                  bench_generate(cached, 256 * KiB, path, kMinSeconds),
                  bench_mismatch(cached, 256 * KiB, path, kMinSeconds));
        // At least 1 GiB in total: 4 passes over 256 MiB.
        print_row("streaming, 256 MiB calls", bench_generate(streaming, 256 * MiB, path, 0),
                  bench_mismatch(streaming, 256 * MiB, path, 0));
    }

    // The real write and verify paths: header, per-unit key and seeding.
    std::printf("units (%s), fill_unit / first_mismatch\n",
                std::string(ds::pattern::to_string(ds::pattern::active_simd_path())).c_str());
    for (const std::size_t unit_bytes : {4 * KiB, 64 * KiB}) {
        for (Buffer* buf : {&cached, &streaming}) {
            const double fill = throughput(buf->size, kMinSeconds, 4, [&](std::size_t) {
                for (std::size_t at = 0; at < buf->size; at += unit_bytes) {
                    ds::pattern::fill_unit(buf->span().subspan(at, unit_bytes),
                                           unit_at(at, unit_bytes));
                }
            });
            const double verify = throughput(buf->size, kMinSeconds, 4, [&](std::size_t) {
                std::size_t sum = 0;
                for (std::size_t at = 0; at < buf->size; at += unit_bytes) {
                    sum += ds::pattern::first_mismatch(buf->span().subspan(at, unit_bytes),
                                                       unit_at(at, unit_bytes));
                }
                g_sink = g_sink + sum;
            });
            const std::string what = std::to_string(unit_bytes / KiB) + " KiB units, " +
                                     (buf == &cached ? "256 KiB buffer" : "256 MiB buffer");
            print_row(what.c_str(), fill, verify);
        }
    }
    {
        // fill_unit_streaming (its check is first_mismatch, above).
        const std::size_t u = 4 * KiB;
        const double fill = throughput(streaming.size, 0, 4, [&](std::size_t) {
            for (std::size_t at = 0; at < streaming.size; at += u)
                ds::pattern::fill_unit_streaming(streaming.span().subspan(at, u), unit_at(at, u));
            ds::pattern::stream_fence();
        });
        std::printf("  %-34s %8.1f %8s\n", "4 KiB units streamed, 256 MiB buffer", fill, "-");
    }
    {
        // --dedupe 30: every unit pays the pick, 30 % are copies of a source.
        const std::size_t u = 4 * KiB;
        const auto shape = ds::pattern::make_shape(ds::pattern::kSectorBytes, 300);
        const double fill = throughput(cached.size, kMinSeconds, 4, [&](std::size_t) {
            for (std::size_t at = 0; at < cached.size; at += u)
                ds::pattern::fill_unit(cached.span().subspan(at, u), unit_at(at, u, shape));
        });
        const double verify = throughput(cached.size, kMinSeconds, 4, [&](std::size_t) {
            std::size_t sum = 0;
            for (std::size_t at = 0; at < cached.size; at += u)
                sum += ds::pattern::first_mismatch(cached.span().subspan(at, u),
                                                   unit_at(at, u, shape));
            g_sink = g_sink + sum;
        });
        print_row("4 KiB units, dedupe 30 %, 256 KiB", fill, verify);
    }

    // Why the write path streams: the block leaves this core before it is
    // filled again.  2 GiB per figure.
    std::printf("handed over (%s), 4 KiB units in 1 MiB blocks pwritten by another thread\n",
                std::string(ds::pattern::to_string(ds::pattern::active_simd_path())).c_str());
    std::printf("  %-34s %8s %8s\n", "", "cached", "stream");
    print_row("filling thread, GiB/s", bench_handed_over(false, 2048),
              bench_handed_over(true, 2048));
    return 0;
}
