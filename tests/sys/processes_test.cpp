// Every process's CPU time from /proc/PID/stat: stat lines with odd names, kernel
// threads apart, reused pids, and the foreign load named.
#include "sys/processes.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "sys/host_load.h"

using namespace ds::sys;
namespace fs = std::filesystem;

namespace {

// A /proc of the test's making: pid -> the text of its stat file.
struct FakeProc {
    fs::path root;
    FakeProc() {
        char tmpl[] = "/tmp/ds-fakeproc-XXXXXX";
        REQUIRE(::mkdtemp(tmpl) != nullptr);
        root = tmpl;
        fs::create_directory(root / "self");  // not a pid: ignored
    }
    ~FakeProc() { fs::remove_all(root); }
    void set(int pid, const std::string& stat) {
        fs::create_directories(root / std::to_string(pid));
        std::ofstream(root / std::to_string(pid) / "stat") << stat;
    }
};

// A stat line: flags and utime/stime in ticks.
std::string stat_line(int pid, const std::string& comm, unsigned long flags, int utime, int stime) {
    return std::to_string(pid) + " (" + comm + ") S 2 0 0 0 -1 " + std::to_string(flags) +
           " 0 0 0 0 " + std::to_string(utime) + " " + std::to_string(stime) +
           " 0 0 20 0 1 0 100 0 0\n";
}

}  // namespace

TEST_CASE("a stat line: name with spaces and parentheses, kernel thread flag, CPU time") {
    const auto p = parse_pid_stat(
        "42 (a (b) c) R 1 42 42 0 -1 2097216 5 0 0 0 150 50 0 0 20 0 1 0 777 0 0\n", 100);
    REQUIRE(p.has_value());
    CHECK(p->pid == 42);
    CHECK(p->comm == "a (b) c");
    CHECK(p->kernel_thread);
    CHECK(p->cpu_s == doctest::Approx(2.0));
    CHECK(p->start_ticks == 777);
    const auto user =
        parse_pid_stat("7 (bash) S 1 7 7 34816 7 4194304 1 0 0 0 3 1 0 0 20 0 1 0 5 0 0\n", 100);
    REQUIRE(user.has_value());
    CHECK_FALSE(user->kernel_thread);
}

TEST_CASE("a malformed stat line is no reading") {
    CHECK_FALSE(parse_pid_stat("", 100).has_value());
    CHECK_FALSE(parse_pid_stat("42 (x R 1 2", 100).has_value());
    CHECK_FALSE(parse_pid_stat("x (y) R 1 2 3 4 5 6 7 8 9 10 11 12", 100).has_value());
    CHECK_FALSE(parse_pid_stat("42 (y) R 1 2 3", 100).has_value());
    CHECK_FALSE(
        parse_pid_stat("42 (y) R 1 2 3 4 5 6 7 8 9 10 11 12", 100).has_value());  // no start
    CHECK_FALSE(parse_pid_stat("42 (y) R 1 2 3 4 5 6 7 8 9 10 11 12 1 2 3 4 5 6 7", 0).has_value());
}

TEST_CASE("kernel threads apart, foreign processes named, ours left out") {
    FakeProc proc;
    const int self = 100;
    proc.set(2, stat_line(2, "kthreadd", kPfKthread, 0, 10));
    proc.set(50, stat_line(50, "kworker/u4:1", kPfKthread | 0x40, 0, 100));
    proc.set(self, stat_line(self, "drivestress", 0x400000, 500, 500));
    proc.set(200, stat_line(200, "stress", 0x400000, 1000, 0));
    proc.set(300, stat_line(300, "idle-shell", 0x400000, 5, 5));
    const SystemTree fs_{proc.root.string(), "/sys"};
    const auto before = sample_processes(fs_, 100);
    REQUIRE(before.size() == 5);
    // A kworker's name changes with its work: still the same thread.
    proc.set(50, stat_line(50, "kworker/u4:1-loop0", kPfKthread | 0x40, 0, 250));  // +1.5 s
    proc.set(self, stat_line(self, "drivestress", 0x400000, 900, 900));            // ours: left out
    proc.set(200, stat_line(200, "stress", 0x400000, 1200, 0));                    // +2 s
    proc.set(400, stat_line(400, "loop0", kPfKthread, 0, 30));                     // new: all 0.3 s
    proc.set(500, stat_line(500, "cron", 0x400000, 40, 10));                       // new: all 0.5 s
    const auto after = sample_processes(fs_, 100);
    const ProcessLoad load = process_load(before, after, self);
    CHECK(load.kernel_thread_seconds == doctest::Approx(1.8));
    REQUIRE(load.top_foreign.size() == 2);  // idle-shell took nothing
    CHECK(load.top_foreign[0].comm == "stress");
    CHECK(load.top_foreign[0].pid == 200);
    CHECK(load.top_foreign[0].cpu_s == doctest::Approx(2.0));
    CHECK(load.top_foreign[1].comm == "cron");
}

TEST_CASE("a reused pid is another process: all of its time counts") {
    const std::vector<ProcessCpu> before{{7, "same", false, 50, 1000}};
    const std::vector<ProcessCpu> after{{7, "same", false, 0.5, 2000}};
    const ProcessLoad load = process_load(before, after, 1);
    REQUIRE(load.top_foreign.size() == 1);
    CHECK(load.top_foreign[0].cpu_s == doctest::Approx(0.5));
}

TEST_CASE("the real /proc: this process is found, with its own name") {
    const auto all = sample_processes(SystemTree{}, static_cast<double>(::sysconf(_SC_CLK_TCK)));
    const auto self = std::find_if(all.begin(), all.end(),
                                   [](const ProcessCpu& p) { return p.pid == ::getpid(); });
    REQUIRE(self != all.end());
    CHECK_FALSE(self->kernel_thread);
    CHECK(std::any_of(all.begin(), all.end(), [](const ProcessCpu& p) { return p.kernel_thread; }));
}

TEST_CASE("kernel threads' CPU is not foreign load") {
    HostCpu before{};
    HostCpu after{};
    // 2 CPUs x 10 s = 20 CPU-seconds: 10 busy, 2 of them ours, 1 softirq.
    after.user = 3;
    after.system = 6;
    after.softirq = 1;
    after.idle = 10;
    ProcessLoad processes;
    processes.kernel_thread_seconds = 4;
    processes.top_foreign = {{9, "stress", 3}};
    const HostLoad l = host_load(before, after, 2.0, processes);
    CHECK(l.measured);
    CHECK(l.kernel_seconds == doctest::Approx(5));   // 4 in kernel threads + 1 softirq
    CHECK(l.foreign_seconds == doctest::Approx(3));  // 10 - 2 ours - 5 kernel
    CHECK(l.foreign_pct() == doctest::Approx(15));
    CHECK_FALSE(busy(l));
    REQUIRE(l.top_foreign.size() == 1);
    // Kernel time never exceeds what was not ours.
    processes.kernel_thread_seconds = 40;
    const HostLoad capped = host_load(before, after, 2.0, processes);
    CHECK(capped.kernel_seconds == doctest::Approx(8));
    CHECK(capped.foreign_seconds == doctest::Approx(0));
}

TEST_CASE("merged loads keep the largest per name, three at most") {
    HostLoad a, b;
    a.top_foreign = {{1, "x", 1.0}, {2, "y", 0.5}};
    b.top_foreign = {{3, "x", 2.0}, {4, "z", 0.7}, {5, "w", 0.1}};
    a += b;
    REQUIRE(a.top_foreign.size() == 3);
    CHECK(a.top_foreign[0].comm == "x");
    CHECK(a.top_foreign[0].cpu_s == doctest::Approx(2.0));
    CHECK(a.top_foreign[1].comm == "z");
    CHECK(a.top_foreign[2].comm == "y");
}
