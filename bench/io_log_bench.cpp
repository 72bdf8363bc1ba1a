// What --io-log costs and how fast its writer is (output/io_log.h).  Prints
// figures only; it never asserts on time.
//
//   push:    ns per push() into a ring with room (the worker's whole cost),
//            the fastest of several passes
//   writer:  records a second the writer thread formats and writes, one
//            core, per format, into a file under $TMPDIR (or /tmp): one
//            producer pushes as fast as it can, spinning while its ring is
//            full, so the figure is the writer's pace, not the producer's
//
// Usage: io_log_bench [RECORDS]   (default 4M for the writer figures)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>

#include "output/io_log.h"

namespace {

using Clock = std::chrono::steady_clock;
using ds::output::IoLog;
using ds::output::IoLogFormat;
using ds::output::IoRecord;

IoRecord sample(std::uint64_t i) {
    const std::uint64_t t = 1'000'000 + i * 250;
    return IoRecord{t, t + 40, t + 90'000, (i * 7919 % 1'000'000) * 4096, 4096, 4096, 0, 0, 1};
}

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// ns per push of the fastest of 20 passes of 2^15 pushes into an empty
// ring of 2^16 (the writer idle, sleeping between passes).
double push_ns(const std::string& path) {
    constexpr std::uint64_t kPass = 1 << 15;
    IoLog log(path, IoLogFormat::ndjson, 1, {"t"}, 0, std::size_t{1} << 16);
    double best = 1e9;
    for (int pass = 0; pass < 20; ++pass) {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));  // the writer drains
        const auto start = Clock::now();
        for (std::uint64_t i = 0; i < kPass; ++i)
            (void)log.push(0, sample(i));
        best = std::min(best, seconds_since(start) * 1e9 / kPass);
    }
    (void)log.finish();
    return best;
}

// Records a second written, and how many were dropped (none: the producer
// retries a full ring, which only a benchmark may do).
double writer_rate(const std::string& path, IoLogFormat format, std::uint64_t records) {
    IoLog log(path, format, 1, {"/dev/shm/target"}, 0);
    const auto start = Clock::now();
    for (std::uint64_t i = 0; i < records; ++i)
        while (!log.push(0, sample(i)))
            std::this_thread::yield();
    const std::string error = log.finish();
    const double s = seconds_since(start);
    if (!error.empty()) std::fprintf(stderr, "%s\n", error.c_str());
    return static_cast<double>(log.written()) / s;
}

}  // namespace

int main(int argc, char** argv) {
    const std::uint64_t records = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4'000'000;
    const char* tmp = std::getenv("TMPDIR");
    const std::string path =
        (std::filesystem::path(tmp ? tmp : "/tmp") / "io_log_bench.log").string();
    std::printf("push:            %6.1f ns\n", push_ns(path));
    for (auto [format, name] :
         {std::pair{IoLogFormat::ndjson, "ndjson"}, std::pair{IoLogFormat::fio, "fio"}}) {
        const double rate = writer_rate(path, format, records);
        std::printf("writer %-7s  %6.2f M records/s (%llu records, %ju bytes)\n", name, rate / 1e6,
                    static_cast<unsigned long long>(records),
                    static_cast<std::uintmax_t>(std::filesystem::file_size(path)));
    }
    std::filesystem::remove(path);
    return 0;
}
