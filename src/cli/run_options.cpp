// The readers of each feature's options: sweeps, --find-rate, steady state,
// sustained write, latency thresholds, durable writes, the modes and
// --sync-compare.  Each fills its part of the RunConfig or throws
// UsageError naming the option.
#include <algorithm>
#include <cmath>
#include <set>

#include "cli/option_table.h"
#include "cli/options_reader.h"
#include "cli/presets.h"

namespace ds::cli::detail {

void read_sweep(const Options& o, model::RunConfig& c) {
    c.interval_s = o.duration("interval");
    if (o.given("interval") && !o.given("timeseries"))
        throw UsageError("--interval needs --timeseries (it is the length of that file's lines)");
    if (c.interval_s < 0.1 || c.interval_s > 60)
        throw UsageError("--interval: '" + o.text("interval") + "' is not between 100ms and 60s");
    c.knee_gain_pct = static_cast<double>(o.count("knee-gain", 0, 1000));
    c.repeat = static_cast<unsigned>(o.count("repeat", 1, 1000));
    if (!o.given("sweep")) return;
    c.sweep = parse_sweep(o.text("sweep"));
    if (!c.has_phase(model::Phase::random) || !(c.rand_ops || c.rand_time_s > 0))
        throw UsageError("--sweep needs the random phase (--phases with random, --rand-time > 0)");
    if (c.iterations != 1) throw UsageError("--sweep runs one iteration; drop --iterations");
    const auto& v = c.sweep->values;
    const std::uint64_t lo = *std::min_element(v.begin(), v.end());
    const std::uint64_t hi = *std::max_element(v.begin(), v.end());
    switch (c.sweep->param) {
        case model::SweepParam::qd:
            if (o.given("qd")) throw UsageError("--sweep qd=... and --qd both given");
            c.qd = static_cast<unsigned>(hi);
            // At most half of a file's units are in flight (picking a free
            // one stays cheap): a deeper point would run shallower than its
            // row says.  (A raw device's region size is known later.)
            if (const std::uint64_t units = c.file_bytes / c.max_rand_block();
                units && hi > std::max<std::uint64_t>(1, units / 2))
                throw UsageError("--sweep qd: " + std::to_string(hi) +
                                 " is more than half of a file's " + std::to_string(units) +
                                 " blocks (--size " + units::format_size_option(c.file_bytes) +
                                 ", --rand-block " + units::format_size_option(c.max_rand_block()) +
                                 "): at most " +
                                 std::to_string(std::max<std::uint64_t>(1, units / 2)) +
                                 " are in flight per worker");
            break;
        case model::SweepParam::files:
            if (o.given("files")) throw UsageError("--sweep files=... and --files both given");
            c.files = static_cast<unsigned>(hi);
            break;
        case model::SweepParam::rand_block:
            if (o.given("rand-block"))
                throw UsageError("--sweep rand-block=... and --rand-block both given");
            if (o.given("unit"))
                throw UsageError(
                    "--sweep rand-block=... and --unit both given (the smallest value is the "
                    "unit)");
            // The smallest block is the verification unit; the others are
            // whole multiples of it.
            if (c.seq_block % lo != 0 ||
                (c.file_bytes && (c.file_bytes % hi != 0 || hi > c.file_bytes)))
                throw UsageError("--sweep rand-block: values must divide --seq-block " +
                                 units::format_size_option(c.seq_block) +
                                 " (smallest) and --size " +
                                 units::format_size_option(c.file_bytes) + " (largest)");
            c.rand_block = static_cast<std::uint32_t>(lo);
            break;
        case model::SweepParam::rate:
            if (c.rate > 0) throw UsageError("--sweep rate=... and --rate both given");
            break;
    }
}

// --find-rate pNN<=DURATION: a rate sweep whose points the search chooses
// (run/runner.cpp), so what refuses a rate sweep refuses it too.
void read_find_rate(const Options& o, model::RunConfig& c) {
    if (!o.given("find-rate")) return;
    for (const char* name : {"sweep", "rate", "compare-backends", "steady-state"})
        if (o.given(name))
            throw UsageError(std::string("--find-rate and --") + name + " both given");
    c.find_rate = parse_find_rate(o.text("find-rate"));
    if (!c.has_phase(model::Phase::random) || !(c.rand_ops || c.rand_time_s > 0))
        throw UsageError(
            "--find-rate needs the random phase (--phases with random, --rand-time > 0)");
    if (c.iterations != 1) throw UsageError("--find-rate runs one iteration; drop --iterations");
    c.sweep = model::Sweep{model::SweepParam::rate, {}, false};
}

// Where the verification unit came from, for a message.
std::string unit_source(const Options& o) {
    return o.given("unit") ? "--unit" : "the smallest --rand-block";
}

// --rand-block, one size or a mix (model/block_mix.h), and --unit: sets the
// mix and the verification unit (c.rand_block); returns the largest size.
std::uint64_t read_random_blocks(const Options& o, model::RunConfig& c) {
    const std::string& text = o.text("rand-block");
    c.rand_mix.clear();
    if (text.find_first_of(":,") != std::string::npos) {
        c.rand_mix = with_option("--rand-block", text,
                                 [](const std::string& t) { return units::parse_block_mix(t); });
    } else {
        const std::uint64_t rand = o.size("rand-block");
        if (!is_power_of_two(rand) || rand < 512 || rand > kMaxBlock)
            throw UsageError("--rand-block: " + units::format_size_option(rand) +
                             " must be a power of two from 512 to 64M, or a mix as "
                             "4K:60,16K:20,128K:20");
        c.rand_mix.push_back({static_cast<std::uint32_t>(rand), 100});
    }
    std::uint64_t unit = c.rand_mix.front().bytes;
    if (o.given("unit")) {
        unit = o.size("unit");
        if (!is_power_of_two(unit) || unit < 512 || unit > kMaxBlock)
            throw UsageError("--unit: " + units::format_size_option(unit) +
                             " must be a power of two from 512 to 64M");
        if (c.rand_mix.front().bytes % unit != 0)
            throw UsageError("--unit " + units::format_size_option(unit) +
                             " does not divide --rand-block " +
                             units::format_size_option(c.rand_mix.front().bytes));
    }
    c.rand_block = static_cast<std::uint32_t>(unit);
    const std::uint64_t largest = c.rand_mix.back().bytes;
    // One size that is the unit: no mix (every operation is one unit).
    if (c.rand_mix.size() == 1 && largest == unit) c.rand_mix.clear();
    return largest;
}

// A plain decimal from 1 to 8 (pattern/unit.h, kMaxCompressRatio, says why 8).
static void read_compress(const Options& o, model::RunConfig& c) {
    const std::string t = o.text("compress");
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(t, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    const bool digits = !t.empty() && t.find_first_not_of("0123456789.") == std::string::npos;
    if (!digits || used != t.size() || !(v >= 1 && v <= model::kMaxCompress))
        throw UsageError("--compress: '" + t +
                         "' is not a ratio from 1 to 8 (a number such as 1.5, 2 or 4; 1 = "
                         "incompressible)");
    c.compress = v;
}

// --trim-pct, beside --read-pct (read first): the rest are writes.
static void read_trims(const Options& o, model::RunConfig& c) {
    c.trim_pct = static_cast<unsigned>(o.count("trim-pct", 0, 100));
    if (c.read_pct + c.trim_pct > 100)
        throw UsageError("--trim-pct " + std::to_string(c.trim_pct) + " and --read-pct " +
                         std::to_string(c.read_pct) +
                         " add up to more than 100 (reads + trims <= 100, the rest are writes)");
}

// A percentage from 0 to 100 with one decimal at most, kept in tenths
// (model::kDedupeScale).
static void read_dedupe(const Options& o, model::RunConfig& c) {
    const std::string t = o.text("dedupe");
    const std::size_t dot = t.find('.');
    const std::string whole = t.substr(0, dot);
    const std::string tenth = dot == std::string::npos ? "0" : t.substr(dot + 1);
    const bool digits = !whole.empty() && whole.size() <= 3 && tenth.size() == 1 &&
                        (whole + tenth).find_first_not_of("0123456789") == std::string::npos;
    const unsigned v = digits ? static_cast<unsigned>(std::stoul(whole) * 10 + std::stoul(tenth))
                              : model::kDedupeScale + 1;
    if (v > model::kDedupeScale)
        throw UsageError("--dedupe: '" + t +
                         "' is not a percentage from 0 to 100 (a number such as 25 or 12.5; 0 = "
                         "no duplicate units)");
    c.dedupe = v;
}

void read_workload_data(const Options& o, model::RunConfig& c) {
    read_trims(o, c);
    c.distribution = with_option("--distribution", o.text("distribution"),
                                 [](const std::string& t) { return stats::parse_distribution(t); });
    read_compress(o, c);
    read_dedupe(o, c);
    read_replay(o, c);
}

// --replay FILE and its pace; what would draw the random phase instead is
// refused beside it (the trace decides its mix, sizes, places and length).
void read_replay(const Options& o, model::RunConfig& c) {
    if (!o.given("replay")) {
        for (const char* name : {"replay-speed", "replay-loops", "replay-wrap"})
            if (o.given(name)) throw UsageError(Options::opt(name) + " needs --replay FILE");
        return;
    }
    c.replay = o.text("replay");
    if (c.replay.empty()) throw UsageError("--replay: empty path (- reads standard input)");
    for (const char* name : {"rate", "sweep", "find-rate", "steady-state", "rand-ops", "rand-time",
                             "mixed-sec", "read-pct", "trim-pct", "distribution", "keep",
                             "compare-backends", "sustained-write", "sync-compare"})
        if (o.given(name))
            throw UsageError("--replay and " + Options::opt(name) +
                             " both given: the trace decides the random phase's operations, "
                             "their times and its length");
    if (!c.has_phase(model::Phase::random))
        throw UsageError("--replay needs the random phase (--phases with random)");
    const std::string speed = o.text("replay-speed");
    std::size_t used = 0;
    double v = -1;
    try {
        v = std::stod(speed, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != speed.size() || speed.find_first_not_of("0123456789.") != std::string::npos ||
        !(v >= 0 && v <= 1e6))
        throw UsageError("--replay-speed: '" + speed +
                         "' is not a speed (a number such as 1, 2 or 0.5; 0 = as fast as the "
                         "queue allows)");
    c.replay_speed = v;
    c.replay_loops = o.count("replay-loops", 1, 1'000'000);
    c.replay_wrap = o.flag("replay-wrap");
}

// --arrivals spaces an open-loop schedule; read once --rate, --sweep and
// --find-rate are.
void check_arrivals(const Options& o, const model::RunConfig& c) {
    if (o.given("arrivals") && !c.open_loop())
        throw UsageError(
            "--arrivals needs --rate, --sweep rate=... or --find-rate (it spaces their schedule)");
}

// --steady-state ROUND, --steady-window, --steady-max-rounds.
void read_steady_state(const Options& o, model::RunConfig& c) {
    if (!o.given("steady-state")) {
        for (const char* name : {"steady-window", "steady-max-rounds"})
            if (o.given(name)) throw UsageError(Options::opt(name) + " needs --steady-state ROUND");
        return;
    }
    c.steady_round_s = o.duration("steady-state");
    if (c.steady_round_s <= 0) throw UsageError("--steady-state: ROUND must be greater than zero");
    if (!c.has_phase(model::Phase::random) || c.rand_time_s <= 0)
        throw UsageError("--steady-state needs the random phase (--phases with random)");
    if (c.rand_ops) throw UsageError("--steady-state and --rand-ops both given (rounds are timed)");
    if (c.sweep) throw UsageError("--steady-state and --sweep cannot be combined");
    if (c.repeat > 1)
        throw UsageError("--steady-state and --repeat cannot be combined (rounds are its repeats)");
    stats::SteadyStateRule rule;
    rule.window_rounds = o.count("steady-window", 2, 1000);
    rule.max_rounds = o.count("steady-max-rounds", 1, 100000);
    if (rule.max_rounds < rule.window_rounds)
        throw UsageError("--steady-max-rounds " + std::to_string(rule.max_rounds) +
                         " is below --steady-window " + std::to_string(rule.window_rounds));
    c.steady_state = rule;
}

// --sustained-write N, --cliff-interval, --cliff-recovery.
void read_sustained_write(const Options& o, model::RunConfig& c) {
    if (!o.given("sustained-write")) {
        for (const char* name : {"cliff-interval", "cliff-recovery"})
            if (o.given(name)) throw UsageError(Options::opt(name) + " needs --sustained-write N");
        return;
    }
    if (o.given("seq-time"))
        throw UsageError(
            "--seq-time and --sustained-write both given (its passes are the "
            "sequential write's length)");
    c.sustained_passes = o.count("sustained-write", 1, 1000);
    c.cliff_interval_s = o.duration("cliff-interval");
    if (c.cliff_interval_s < 0.2)
        throw UsageError("--cliff-interval: '" + o.text("cliff-interval") +
                         "' is below 200ms (the run samples its progress every 100ms)");
    if (o.given("cliff-recovery")) {
        c.cliff_idle_s = o.duration("cliff-recovery");
        if (c.cliff_idle_s <= 0)
            throw UsageError("--cliff-recovery: IDLE must be greater than zero");
    }
}

void read_latency_thresholds(const Options& o, model::RunConfig& c) {
    c.latency_thresholds_s.clear();
    // The seed tool's thresholds, for comparing with its reports: every
    // request of an SSD is faster than both, so they are not the default.
    if (o.text("latency-thresholds") == "seed") {
        c.latency_thresholds_s = {2, 10};
        return;
    }
    for (const auto& item :
         with_option("--latency-thresholds", o.text("latency-thresholds"),
                     [](const std::string& t) { return units::split_list(t); })) {
        const double s = with_option("--latency-thresholds", item,
                                     [](const std::string& t) { return units::parse_duration(t); });
        if (s <= 0)
            throw UsageError("--latency-thresholds: '" + item + "' must be greater than zero");
        c.latency_thresholds_s.push_back(s);
    }
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

// --compare-backends and --keep, and what they exclude.
void read_modes(const Options& o, model::RunConfig& c) {
    c.compare_backends = o.flag("compare-backends");
    c.keep = o.flag("keep");
    if (c.keep && c.compare_backends)
        throw UsageError("--keep works with a single run, not with --compare-backends");
    if (c.keep && !c.raw_device.empty())
        throw UsageError(
            "--keep and --raw-device both given: the state file lives beside test files");
    if (o.given("compare-extra") && !c.compare_backends)
        throw UsageError("--compare-extra adds rows to --compare-backends; add it");
    if (!c.compare_backends) return;
    if (o.given("backend"))
        throw UsageError("--compare-backends runs both backends; drop --backend");
    if (c.sweep && c.sweep->param != model::SweepParam::qd)
        throw UsageError("--compare-backends sweeps qd only (both backends' curves over depth)");
    if (!o.given("compare-extra")) return;
    for (const auto& item :
         with_option("--compare-extra", o.text("compare-extra"),
                     [](const std::string& t) { return units::split_list(t); })) {
        if (item == "sync-qd1")
            c.compare_sync_qd1 = true;
        else if (item == "sqpoll")
            c.compare_sqpoll = true;
        else
            throw UsageError("--compare-extra: '" + item + "' is not one of sync-qd1, sqpoll");
    }
    if (c.sweep && c.compare_sync_qd1)
        throw UsageError("--compare-extra sync-qd1 has no depth to sweep; drop it with --sweep");
}

// --sync-compare: its own fixed table on one small file.
void read_sync_compare(const Options& o, model::RunConfig& c) {
    c.sync_compare = o.flag("sync-compare");
    if (!c.sync_compare) return;
    for (const char* name :
         {"sync", "sync-every", "sweep", "find-rate", "files", "phases", "iterations", "seq-time"})
        if (o.given(name))
            throw UsageError(std::string("--sync-compare runs its own fixed table; drop --") +
                             name);
    if (c.compare_backends)
        throw UsageError("--sync-compare and --compare-backends cannot be combined");
    if (c.keep)
        throw UsageError("--sync-compare removes its files; it cannot be combined with --keep");
    if (!c.raw_device.empty())
        throw UsageError("--sync-compare writes small files in a directory, not --raw-device");
    // One small file; rows write 4K, 8K and 16K blocks of 4K units.
    c.files = 1;
    if (!o.given("size") && !o.given("size-mb")) c.file_bytes = 16ULL << 20;
    if (c.file_bytes % (16 * 1024) != 0)
        throw UsageError("--size " + units::format_size_option(c.file_bytes) +
                         " with --sync-compare must be a multiple of 16K");
    c.rand_block = 4096;
    c.seq_block = 16 * 1024;
    c.sync_compare_row_s = o.given("rand-time") ? c.rand_time_s : 2.0;
    if (c.sync_compare_row_s <= 0) throw UsageError("--rand-time: must be greater than zero");
    c.sync_compare_row_ops = c.rand_ops;
}

// --atomic: every write RWF_ATOMIC, which needs O_DIRECT and writes sized
// and placed by the run (powers of two at multiples of their size).
void read_atomic(const Options& o, model::RunConfig& c) {
    c.atomic = o.flag("atomic");
    if (!c.atomic) return;
    if (c.buffered)
        throw UsageError(std::string("--atomic and ") +
                         (o.flag("buffered") ? "--buffered" : "--no-direct") +
                         " both given: RWF_ATOMIC needs O_DIRECT");
    if (c.nop) throw UsageError("--atomic and --backend nop both given: a NOP writes nothing");
    if (!c.replay.empty())
        throw UsageError(
            "--atomic and --replay both given: a trace's writes are not sized and placed as "
            "RWF_ATOMIC needs (a power of two, at a multiple of its size)");
    if (c.sync_compare)
        throw UsageError("--atomic and --sync-compare both given: the table writes its own rows");
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

// --io-log PATH and --io-log-format: the log of one run, so not of the modes
// that make several (each would replace the last one's log).
void read_io_log(const Options& o, model::RunConfig& c) {
    if (!o.given("io-log")) {
        if (o.given("io-log-format"))
            throw UsageError("--io-log-format needs --io-log PATH (it is that file's format)");
        return;
    }
    const std::string& path = o.text("io-log");
    if (path.empty()) throw UsageError("--io-log: empty path");
    if (path == "-") throw UsageError("--io-log: give a file path ('-' is for --json)");
    for (const char* name : {"compare-backends", "sync-compare"})
        if (o.given(name))
            throw UsageError("--io-log and " + Options::opt(name) +
                             " both given: --io-log records a single run's operations");
    if (c.repeat > 1)
        throw UsageError(
            "--io-log and --repeat both given: --io-log records a single run's "
            "operations");
    const std::string& format = o.text("io-log-format");
    if (format == "ndjson")
        c.io_log_format = output::IoLogFormat::ndjson;
    else if (format == "fio")
        c.io_log_format = output::IoLogFormat::fio;
    else
        throw UsageError("--io-log-format: '" + format + "' is not one of ndjson, fio");
    c.io_log = path;
}

}  // namespace ds::cli::detail
