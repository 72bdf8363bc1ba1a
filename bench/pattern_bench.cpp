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
//                   key, over both buffers
#include <algorithm>
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

ds::pattern::UnitIdentity unit_at(std::size_t offset, std::size_t unit_bytes) {
    return {.run_id = ds::pattern::run_id_from_seed(1),
            .file_index = 0,
            .offset = offset,
            .generation = 1,
            .unit_bytes = static_cast<std::uint32_t>(unit_bytes)};
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
    return 0;
}
