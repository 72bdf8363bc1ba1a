// The schedule: how long the phases and the run last (--rand-time,
// --rand-ops, --seq-time, --iterations, --duration), and when the random
// phase's operations are issued: open loop at --rate with its --arrivals,
// the rate --find-rate searches for, or a trace's own times (--replay).
#include <cstddef>
#include <string>

#include "cli/options_reader.h"

namespace ds::cli {

using namespace detail;

// "p99<=2ms", "p99.9<=500us", "p50<=1.5ms": the percentile and the bound.
model::FindRate parse_find_rate(const std::string& text) {
    auto bad = [&](const std::string& why) {
        return UsageError("--find-rate: '" + text + "' " + why);
    };
    const auto op = text.find("<=");
    if (text.size() < 2 || text[0] != 'p' || op == std::string::npos)
        throw bad("is not pNN<=DURATION (e.g. p99<=2ms)");
    const std::string pct = text.substr(1, op - 1);
    model::FindRate fr;
    std::size_t used = 0;
    try {
        fr.percentile = std::stod(pct, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (pct.empty() || used != pct.size() || !(pct[0] >= '0' && pct[0] <= '9') ||
        !(fr.percentile > 0 && fr.percentile < 100))
        throw bad("has no percentile between 0 and 100 after 'p' (e.g. p99, p99.9)");
    fr.bound_s = with_option("--find-rate", text.substr(op + 2),
                             [](const std::string& t) { return units::parse_duration(t); });
    if (!(fr.bound_s > 0)) throw bad("has a bound of zero; give a duration (e.g. 2ms)");
    return fr;
}

}  // namespace ds::cli

namespace ds::cli::detail {

// --rand-time (or the seed tool's --mixed-sec), --rand-ops: how the random
// phase ends; --seq-time: how long a sequential phase lasts.
void read_phase_lengths(const Options& o, model::RunConfig& c) {
    if (o.given("mixed-sec")) {
        if (o.given("rand-time")) throw UsageError("--rand-time and --mixed-sec both given");
        c.rand_time_s = static_cast<double>(o.count("mixed-sec", 0, 1ULL << 30));
    } else {
        c.rand_time_s = o.duration("rand-time");
    }
    if (o.given("rand-ops")) {
        c.rand_ops = o.count("rand-ops", 1, UINT64_MAX);
        if (o.given("rand-time") || o.given("mixed-sec"))
            throw UsageError(std::string("--rand-ops and ") +
                             (o.given("mixed-sec") ? "--mixed-sec" : "--rand-time") +
                             " both given (the random phase ends on one)");
    }
    if (o.given("seq-time")) c.seq_time_s = o.duration("seq-time");
}

// --rate and --arrivals: the random phase's open-loop schedule.
void read_rate(const Options& o, model::RunConfig& c) {
    const std::string& arrivals = o.text("arrivals");
    const auto a = model::arrivals_from_string(arrivals);
    if (!a) throw UsageError("--arrivals: '" + arrivals + "' is not one of fixed, poisson");
    c.arrivals = *a;
    if (!o.given("rate")) return;
    c.rate = with_option("--rate", o.text("rate"),
                         [](const std::string& t) { return units::parse_rate(t); });
}

// --iterations (0: until --duration or a signal) and --duration.
void read_run_length(const Options& o, model::RunConfig& c) {
    c.iterations = o.count("iterations", 0, UINT64_MAX);
    if (o.given("duration")) {
        c.duration_s = o.duration("duration");
        if (*c.duration_s <= 0) throw UsageError("--duration: must be greater than zero");
    }
}

// --rate needs a random phase long enough to hold two of its operations
// (read once the phases are).
void check_rate(const Options& o, const model::RunConfig& c) {
    if (c.rate > 0 && (!c.has_phase(model::Phase::random) || !(c.rand_ops || c.rand_time_s > 0)))
        throw UsageError("--rate needs the random phase (--phases with random, --rand-time > 0)");
    // A schedule with no second operation inside the phase measures nothing.
    if (c.rate > 0 && !c.rand_ops && c.rate * c.rand_time_s < 2)
        throw UsageError("--rate " + o.text("rate") + " schedules fewer than 2 operations in " +
                         units::format_seconds(c.rand_time_s) + " of random phase (give at least " +
                         units::printf_string("%.4g", 2 / c.rand_time_s) +
                         ", or a longer --rand-time)");
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

// --replay FILE and its pace; what would draw the random phase instead is
// refused beside it (the trace decides its mix, sizes, places and length).
void read_replay(const Options& o, model::RunConfig& c) {
    if (!o.given("replay")) {
        for (const char* name : {"replay-speed", "replay-loops", "replay-wrap", "replay-max-bytes"})
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
    c.replay_max_bytes = o.size("replay-max-bytes");
    if (c.replay_max_bytes == 0) throw UsageError("--replay-max-bytes: must be greater than zero");
}

// --arrivals spaces an open-loop schedule; read once --rate, --sweep and
// --find-rate are.
void check_arrivals(const Options& o, const model::RunConfig& c) {
    if (o.given("arrivals") && !c.open_loop())
        throw UsageError(
            "--arrivals needs --rate, --sweep rate=... or --find-rate (it spaces their schedule)");
}

// Without --seq-time a sequential phase repeats its pass until its figure
// can be quoted.  Not with --keep (one pass: a cut then tells each unit's
// generation exactly), nor where passes are set otherwise.
void read_seq_passes(const Options& o, model::RunConfig& c) {
    c.seq_until_measured =
        !o.given("seq-time") && !c.keep && !c.sustained_passes && !c.sync_compare;
}

}  // namespace ds::cli::detail
