// The floor of scripts/bench's replay case: a thread that does nothing but
// wait for each due time of a trace, as drivestress --replay's worker would
// before issuing the operation, and notes how late it woke.  What this
// machine's timers and scheduler allow any tool; drivestress's share of
// operations issued on time is read against it.
//
//   floor_timer TRACE [TOLERANCE_NS]
//
// TRACE is fio's iolog version 3 (scripts/bench writes the tracefs trace so):
// each I/O line's first field is its time in microseconds from the start.
// Operations due while the thread was late count as issued when it woke
// (all of them at once, as an engine with free queue slots would).  The
// thread's timer slack is 1 ns (as drivestress's open loop); it sleeps with
// clock_nanosleep on CLOCK_MONOTONIC, no spin.  Prints one JSON line:
//   {"events":N,"on_time":K,"tolerance_ns":T,"max_late_ns":M,"elapsed_s":S}
#include <sys/prctl.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::uint64_t now_ns() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000ULL +
           static_cast<std::uint64_t>(t.tv_nsec);
}

// The due times (ns from the start) of the I/O lines: five fields, the third
// an action other than add, open and close.
std::vector<std::uint64_t> due_times(const char* path) {
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "floor_timer: %s: cannot open\n", path);
        std::exit(2);
    }
    std::vector<std::uint64_t> due;
    std::string line;
    std::getline(in, line);
    if (line != "fio version 3 iolog") {
        std::fprintf(stderr, "floor_timer: %s: not fio iolog version 3\n", path);
        std::exit(2);
    }
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::uint64_t us = 0;
        std::string name, action, offset, length;
        if (f >> us >> name >> action >> offset >> length) due.push_back(us * 1000);
    }
    return due;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: floor_timer TRACE [TOLERANCE_NS]\n");
        return 2;
    }
    const std::uint64_t tolerance = argc == 3 ? std::strtoull(argv[2], nullptr, 10) : 1'000'000;
    const std::vector<std::uint64_t> due = due_times(argv[1]);
    ::prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    const std::uint64_t start = now_ns() + 1'000'000;  // as drivestress: 1 ms of lead
    std::uint64_t on_time = 0, max_late = 0, awake = 0;
    for (const std::uint64_t d : due) {
        const std::uint64_t at = start + d;
        if (awake < at) {  // not woken past it already: sleep until it is due
            const timespec ts{static_cast<time_t>(at / 1'000'000'000ULL),
                              static_cast<long>(at % 1'000'000'000ULL)};
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
            }
            awake = now_ns();
        }
        const std::uint64_t late = awake > at ? awake - at : 0;
        on_time += late <= tolerance;
        if (late > max_late) max_late = late;
    }
    std::printf(
        "{\"events\":%zu,\"on_time\":%llu,\"tolerance_ns\":%llu,\"max_late_ns\":%llu,"
        "\"elapsed_s\":%.6f}\n",
        due.size(), static_cast<unsigned long long>(on_time),
        static_cast<unsigned long long>(tolerance), static_cast<unsigned long long>(max_late),
        static_cast<double>(now_ns() - start) / 1e9);
    return 0;
}
