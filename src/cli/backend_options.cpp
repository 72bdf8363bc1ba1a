// How the I/O is issued: --backend (and its nop, the engine without the
// device), the io_uring modes --sqpoll and --iopoll, --buffered, --cpus,
// and durable writes: --sync, --sync-every and --batch.
#include <algorithm>
#include <string>
#include <vector>

#include "cli/options_reader.h"

namespace ds::cli {

using namespace detail;

std::vector<unsigned> parse_cpu_list(const std::string& text) {
    constexpr unsigned kMaxCpu = 4095;
    std::vector<unsigned> cpus;
    auto number = [&](const std::string& t) {
        const std::uint64_t v =
            with_option("--cpus", t, [](const std::string& s) { return units::parse_count(s); });
        if (v > kMaxCpu)
            throw UsageError("--cpus: CPU " + t + " is above " + std::to_string(kMaxCpu));
        return static_cast<unsigned>(v);
    };
    for (const auto& item :
         with_option("--cpus", text, [](const std::string& t) { return units::split_list(t); })) {
        const auto dash = item.find('-');
        const unsigned lo = number(item.substr(0, dash));
        const unsigned hi = dash == std::string::npos ? lo : number(item.substr(dash + 1));
        if (hi < lo) throw UsageError("--cpus: range '" + item + "' must go up");
        for (unsigned c = lo; c <= hi; ++c) {
            if (std::find(cpus.begin(), cpus.end(), c) != cpus.end())
                throw UsageError("--cpus: CPU " + std::to_string(c) + " given twice");
            cpus.push_back(c);
        }
    }
    if (cpus.empty()) throw UsageError("--cpus: no CPU given (e.g. 0-3,8)");
    return cpus;
}

}  // namespace ds::cli

namespace ds::cli::detail {

// --backend, --sqpoll, --iopoll, --buffered (--no-direct) and --cpus.
void read_backend(const Options& o, model::RunConfig& c) {
    const std::string& b = o.text("backend");
    if (b == "auto")
        c.backend = model::BackendChoice::automatic;
    else if (b == "io_uring" || b == "io-uring" || b == "uring")
        c.backend = model::BackendChoice::io_uring;
    else if (b == "sync")
        c.backend = model::BackendChoice::sync;
    else if (b == "nop") {
        c.backend = model::BackendChoice::io_uring;
        c.nop = true;
    } else
        throw UsageError("--backend: '" + b + "' is not one of auto, io_uring, sync, nop");
    c.sqpoll = o.flag("sqpoll");
    c.iopoll = o.flag("iopoll");
    for (const char* name : {"sqpoll", "iopoll"}) {
        if (!o.flag(name)) continue;
        if (c.backend == model::BackendChoice::sync)
            throw UsageError(Options::opt(name) +
                             " is an io_uring mode; it cannot be used with --backend sync");
        if (o.flag("compare-backends"))
            throw UsageError(Options::opt(name) +
                             " is an io_uring mode; --compare-backends also runs sync");
    }
    c.buffered = o.flag("buffered") || o.flag("no-direct");
    if (c.iopoll && c.buffered)
        throw UsageError(std::string("--iopoll needs O_DIRECT; it cannot be used with ") +
                         (o.flag("buffered") ? "--buffered" : "--no-direct"));
    if (o.given("cpus")) c.cpus = parse_cpu_list(o.text("cpus"));
}

// --wait (after --backend, --rate and --replay): auto, sleep, spin or
// spin:US.  A forced spin needs a ring that sleeps for completions in a
// closed loop: an open loop waits on the ring's timer until each due time.
void read_wait(const Options& o, model::RunConfig& c) {
    const std::string& w = o.text("wait");
    if (w == "auto") return;
    if (w == "sleep") {
        c.completion_wait = model::CompletionWait::sleep;
        return;
    }
    if (w != "spin" && w.rfind("spin:", 0) != 0)
        throw UsageError("--wait: '" + w + "' is not one of auto, sleep, spin, spin:US");
    c.completion_wait = model::CompletionWait::spin;
    if (w.size() > 5) {
        const std::uint64_t us = with_option(
            "--wait", w.substr(5), [](const std::string& t) { return units::parse_count(t); });
        if (us == 0 || us > model::kMaxSpinUs)
            throw UsageError("--wait " + w + ": the spin must be 1 to " +
                             std::to_string(model::kMaxSpinUs) + " microseconds");
        c.spin_us = static_cast<unsigned>(us);
    }
    auto refuse = [&](const std::string& with, const char* why) {
        throw UsageError("--wait " + w + " and " + with + ": " + why);
    };
    if (c.backend == model::BackendChoice::sync)
        refuse("--backend sync", "a sync worker waits in blocking calls, not on a ring");
    if (c.iopoll) refuse("--iopoll", "a polled ring spins on the device already");
    if (c.open_loop() || c.find_rate)
        refuse(c.find_rate  ? "--find-rate"
               : c.rate > 0 ? "--rate"
                            : "--sweep rate",
               "an open loop waits on the ring's timer until each due time");
    if (!c.replay.empty())
        refuse("--replay", "a replay waits on the ring's timer until each due time");
}

// --sync, --sync-every, --batch.
void read_durability(const Options& o, model::RunConfig& c) {
    const std::string& sync = o.text("sync");
    auto method = model::sync_method_from_string(sync);
    if (!method)
        throw UsageError("--sync: '" + sync +
                         "' is not one of none, osync, dsync, fsync, fdatasync");
    c.sync = *method;
    if (c.iopoll && (c.sync == model::SyncMethod::fsync || c.sync == model::SyncMethod::fdatasync))
        throw UsageError("--iopoll and --sync " + std::string(model::to_string(c.sync)) +
                         ": a polled ring cannot run IORING_OP_FSYNC (use --sync dsync)");
    c.sync_every = o.count("sync-every", 1, UINT32_MAX);
    if (o.given("sync-every") && c.sync == model::SyncMethod::none)
        throw UsageError("--sync-every needs --sync (osync, dsync, fsync or fdatasync)");
    c.batch = static_cast<unsigned>(o.count("batch", 1, kMaxQd));
    if (c.batch > 1 && c.open_loop())
        throw UsageError(std::string("--batch and ") +
                         (c.find_rate  ? "--find-rate"
                          : c.rate > 0 ? "--rate"
                                       : "--sweep rate") +
                         " both given: with a rate each operation is submitted when it is due");
    if (c.batch > c.qd)
        throw UsageError("--batch " + std::to_string(c.batch) + " is larger than --qd " +
                         std::to_string(c.qd) + " (a batch must fit in flight)");
}

namespace {

// --compare-atomic: its rows are atomic and plain (run/compare_backends.h),
// the atomic one first so that a target without the promise is refused
// before any I/O; a random-write workload unless a mix is asked for.
void read_compare_atomic(const Options& o, model::RunConfig& c) {
    if (c.atomic)
        throw UsageError("--compare-atomic runs with and without RWF_ATOMIC; drop --atomic");
    if (c.compare_backends)
        throw UsageError(
            "--compare-atomic and --compare-backends both given: one comparison "
            "at a time");
    if (c.keep) throw UsageError("--keep works with a single run, not with --compare-atomic");
    if (c.sweep && c.sweep->param != model::SweepParam::rand_block)
        throw UsageError(
            "--compare-atomic sweeps rand-block only (what RWF_ATOMIC costs by write size)");
    if (!o.given("read-pct") && !o.given("trim-pct")) c.read_pct = 0;
}

}  // namespace

// --atomic: every write RWF_ATOMIC, which needs O_DIRECT and writes sized
// and placed by the run (powers of two at multiples of their size);
// --compare-atomic the same in its atomic row.
void read_atomic(const Options& o, model::RunConfig& c) {
    c.atomic = o.flag("atomic");
    c.compare_atomic = o.flag("compare-atomic");
    if (!c.atomic && !c.compare_atomic) return;
    const std::string opt = c.atomic ? "--atomic" : "--compare-atomic";
    if (c.buffered)
        throw UsageError(opt + " and " + (o.flag("buffered") ? "--buffered" : "--no-direct") +
                         " both given: RWF_ATOMIC needs O_DIRECT");
    if (c.nop) throw UsageError(opt + " and --backend nop both given: a NOP writes nothing");
    if (!c.replay.empty())
        throw UsageError(opt +
                         " and --replay both given: a trace's writes are not sized and placed as "
                         "RWF_ATOMIC needs (a power of two, at a multiple of its size)");
    if (c.sync_compare)
        throw UsageError(opt + " and --sync-compare both given: the table writes its own rows");
    if (c.compare_atomic) read_compare_atomic(o, c);
}

// --backend nop: the engine without the device.  No byte is read or
// written, so nothing can be verified (verification is off, and the report
// says why); what only means something of a device or of data is refused.
void read_nop(const Options& o, model::RunConfig& c) {
    if (!c.nop) return;
    auto refuse = [](const std::string& what, const char* why) {
        throw UsageError("--backend nop and " + what + ": " + why);
    };
    if (!c.raw_device.empty())
        refuse("--raw-device", "a NOP touches no device; give a directory for the engine's files");
    if (c.buffered) refuse("--buffered", "a NOP moves no data, through the page cache or not");
    if (c.iopoll) refuse("--iopoll", "a NOP has no device to poll");
    if (c.sync != model::SyncMethod::none) refuse("--sync", "a NOP writes nothing to make durable");
    if (c.keep) refuse("--keep", "a NOP leaves no data to verify later");
    if (c.sync_compare) refuse("--sync-compare", "a NOP writes nothing to make durable");
    if (c.sustained_passes) refuse("--sustained-write", "a NOP has no write cliff");
    if (o.given("phases") && o.text("phases").find("reverify") != std::string::npos)
        refuse("--phases reverify", "a NOP reads nothing to verify");
    c.verify = false;
    std::erase(c.phases, model::Phase::reverify);
}

}  // namespace ds::cli::detail
