// The modes that repeat, extend or compare runs: --repeat, --steady-state,
// --sustained-write, --compare-backends with --compare-extra, --keep and
// --sync-compare, and what each of them excludes.
#include <string>

#include "cli/options_reader.h"

namespace ds::cli::detail {

// --repeat N: the measured work run N times, its figures medians.
void read_repeat(const Options& o, model::RunConfig& c) {
    c.repeat = static_cast<unsigned>(o.count("repeat", 1, 1000));
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

}  // namespace ds::cli::detail
