#include "cli/options.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <set>

#include "cli/option_table.h"
#include "cli/options_reader.h"
#include "cli/presets.h"
#include "units/units.h"

namespace po = boost::program_options;

namespace ds::cli {

using namespace detail;

namespace {

// Boost.Program_options, no guessing of abbreviations; TARGET positional.
po::variables_map tokenize(const std::vector<std::string>& args) {
    po::options_description all = boost_options();
    all.add_options()("target", po::value<std::vector<std::string>>());
    po::positional_options_description positional;
    positional.add("target", -1);
    // Boost fills %...% placeholders into its error messages and loops
    // forever when the user's own text contains one; no option name has a
    // '%', so such a token is refused here, as typed.
    for (const auto& a : args)
        if (a.size() >= 2 && a[0] == '-' && a.substr(0, a.find('=')).find('%') != std::string::npos)
            throw UsageError("unrecognised option '" + a + "'");
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args)
                      .options(all)
                      .positional(positional)
                      .style(po::command_line_style::default_style &
                             ~po::command_line_style::allow_guessing)
                      .run(),
                  vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw UsageError(e.what());
    }
    return vm;
}

// TARGET... (positional) or one --path; and any number of --raw-device
// DEV, each with a --destroy-data naming it again, in the same order (that
// they are the same device is checked against the system before the run).
// Directories come first, then devices; the first is cfg.target.
std::vector<model::RunConfig::TargetSpec> given_targets(const Options& o) {
    std::vector<std::string> dirs = o.texts("target");
    if (o.given("path")) {
        if (!dirs.empty())
            throw UsageError("--path " + o.text("path") + " and a TARGET ('" + dirs[0] +
                             "') both given: --path names the one target");
        dirs.push_back(o.text("path"));
    }
    const auto devs = o.texts("raw-device"), confirms = o.texts("destroy-data");
    if (devs.empty() && !confirms.empty())
        throw UsageError("--destroy-data needs --raw-device (it confirms the device to overwrite)");
    if (confirms.size() < devs.size())
        throw UsageError("--raw-device " + devs[confirms.size()] + " needs --destroy-data " +
                         devs[confirms.size()] + " (everything on the device is overwritten)");
    if (confirms.size() > devs.size())
        throw UsageError("--destroy-data " + confirms[devs.size()] +
                         " confirms no --raw-device (give one --destroy-data per device)");
    std::vector<model::RunConfig::TargetSpec> all;
    for (const auto& d : dirs) {
        if (d.empty()) throw UsageError("target: empty path");
        all.push_back({d, "", ""});
    }
    for (std::size_t i = 0; i < devs.size(); ++i)
        all.push_back({devs[i], devs[i], confirms[i]});
    for (std::size_t i = 0; i < all.size(); ++i)
        for (std::size_t k = i + 1; k < all.size(); ++k)
            if (all[i].target == all[k].target)
                throw UsageError("target " + all[i].target + " given twice");
    return all;
}

void read_target(const Options& o, model::RunConfig& c) {
    auto all = given_targets(o);
    c.target_may_be_prefix = o.given("path");
    if (all.empty()) return;  // the current directory
    if (all.size() > 1 && o.given("path"))
        throw UsageError("--path names one target; give several as TARGET... instead");
    c.target = all[0].target;
    c.raw_device = all[0].raw_device;
    c.raw_device_confirm = all[0].raw_device_confirm;
    c.more_targets.assign(all.begin() + 1, all.end());
}

// Sizes, blocks, workers and depth.  A raw device's default region size is
// the device's (0 here, resolved before the run).
void read_geometry(const Options& o, model::RunConfig& c) {
    if (o.given("size-mb")) {
        if (o.given("size")) throw UsageError("--size and --size-mb both given");
        c.file_bytes = o.count("size-mb", 1, 1ULL << 40) << 20;
    } else {
        c.file_bytes = o.size("size");
    }
    // Derived from the devices' sizes only when every target is a device
    // (several: the smallest device's region); a directory among them
    // takes the default.
    bool all_raw = !c.raw_device.empty();
    for (const auto& t : c.more_targets)
        all_raw = all_raw && !t.raw_device.empty();
    const bool derived = all_raw && !o.given("size") && !o.given("size-mb");
    if (derived) c.file_bytes = 0;
    c.files = static_cast<unsigned>(o.count("files", 1, kMaxFiles));
    c.qd = static_cast<unsigned>(o.count("qd", 1, kMaxQd));
    const std::uint64_t seq = o.size("seq-block");
    const std::uint64_t rand = read_random_blocks(o, c);
    if (seq == 0 || seq > kMaxBlock)
        throw UsageError("--seq-block: " + units::format_size_option(seq) +
                         " must be from 512 to 64M");
    if (seq % c.rand_block != 0)
        throw UsageError("--seq-block " + units::format_size_option(seq) +
                         " is not a multiple of the unit " +
                         units::format_size_option(c.rand_block) + " (" + unit_source(o) + ")");
    c.seq_block = static_cast<std::uint32_t>(seq);
    if (derived) return;
    if (c.file_bytes == 0) throw UsageError("--size: must be greater than zero");
    if (c.file_bytes % rand != 0)
        throw UsageError("--size " + units::format_size_option(c.file_bytes) +
                         " is not a multiple of --rand-block " +
                         (c.rand_mix.size() > 1 ? "'s largest size " : "") +
                         units::format_size_option(rand));
    if (seq > c.file_bytes)
        throw UsageError("--seq-block " + units::format_size_option(seq) +
                         " is larger than --size " + units::format_size_option(c.file_bytes));
}

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

// The random phase's mix and length, iterations and the run's duration.
void read_schedule(const Options& o, model::RunConfig& c) {
    c.read_pct = static_cast<unsigned>(o.count("read-pct", 0, 100));
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
    read_rate(o, c);
    c.iterations = o.count("iterations", 0, UINT64_MAX);
    if (o.given("duration")) {
        c.duration_s = o.duration("duration");
        if (*c.duration_s <= 0) throw UsageError("--duration: must be greater than zero");
    }
    if (o.given("seed")) {
        c.seed = with_option("--seed", o.text("seed"),
                             [](const std::string& t) { return units::parse_count(t); });
        c.seed_given = true;
    }
    c.recreate = o.flag("recreate");
    if (c.recreate && !c.raw_device.empty())
        throw UsageError("--recreate and --raw-device both given: a device cannot be recreated");
    c.iteration_detail = o.count("iteration-detail", 0, kMaxIterationDetail);
}

void read_phases(const Options& o, model::RunConfig& c) {
    c.verify = !o.flag("no-verify");
    c.phases.clear();
    std::set<model::Phase> seen;
    for (const auto& name : with_option("--phases", o.text("phases"), [](const std::string& t) {
             return units::split_list(t);
         })) {
        auto p = model::phase_from_string(name);
        if (!p)
            throw UsageError("--phases: unknown phase '" + name +
                             "' (use seq-write, seq-read, random, reverify)");
        if (!seen.insert(*p).second) throw UsageError("--phases: '" + name + "' given twice");
    }
    if (!seen.count(model::Phase::seq_write))
        throw UsageError("--phases: must include seq-write (the files start empty every run)");
    if (!c.verify && o.given("phases") && seen.count(model::Phase::reverify))
        throw UsageError("--phases reverify conflicts with --no-verify (it only verifies)");
    for (model::Phase p : model::kAllPhases)  // always in their natural order
        if (seen.count(p) && !(p == model::Phase::reverify && !c.verify)) c.phases.push_back(p);
    if (c.rate > 0 && (!c.has_phase(model::Phase::random) || !(c.rand_ops || c.rand_time_s > 0)))
        throw UsageError("--rate needs the random phase (--phases with random, --rand-time > 0)");
    // A schedule with no second operation inside the phase measures nothing.
    if (c.rate > 0 && !c.rand_ops && c.rate * c.rand_time_s < 2)
        throw UsageError("--rate " + o.text("rate") + " schedules fewer than 2 operations in " +
                         units::format_seconds(c.rand_time_s) + " of random phase (give at least " +
                         units::printf_string("%.4g", 2 / c.rand_time_s) +
                         ", or a longer --rand-time)");
}

// --json, --timeseries, --prom and what goes with them, --progress.
void read_outputs(const Options& o, bool compare_backends, Outputs& out) {
    if (o.given("json")) {
        out.json = output::OutputPath(o.text("json"));
        if (out.json.none()) throw UsageError("--json: empty path");
    }
    for (const char* name : {"timeseries", "prom"}) {
        if (!o.given(name)) continue;
        const std::string opt = Options::opt(name);
        if (compare_backends)
            throw UsageError(opt +
                             " works with a single run or --preset, not with "
                             "--compare-backends");
        const output::OutputPath path(o.text(name));
        if (path.none()) throw UsageError(opt + ": empty path");
        if (path.is_stdout()) throw UsageError(opt + ": give a file path ('-' is for --json)");
        (std::string(name) == "prom" ? out.prom : out.timeseries) = path;
    }
    const bool prom = o.given("prom");
    std::set<std::string> seen;
    for (const auto& item : o.texts("prom-label")) {
        if (!prom) throw UsageError("--prom-label needs --prom (the labels go on its metrics)");
        const auto eq = item.find('=');
        if (eq == std::string::npos)
            throw UsageError("--prom-label: '" + item + "' is not KEY=VALUE (e.g. rack=r12)");
        std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        // (The exposition format's rules for names and values are the report
        // layer's: main checks them right after parsing.)
        if (!seen.insert(key).second) throw UsageError("--prom-label: '" + key + "' given twice");
        out.prom_labels.emplace_back(std::move(key), std::move(value));
    }
    if (o.given("prom-interval") && !prom)
        throw UsageError("--prom-interval needs --prom (it says how often that file is rewritten)");
    out.prom_interval_s = o.duration("prom-interval");
    if (out.prom_interval_s < 0.1)
        throw UsageError("--prom-interval: '" + o.text("prom-interval") +
                         "' is below 100ms (the run looks about ten times a second)");
    out.brief = o.flag("brief");
    out.wide = o.flag("wide");
    const std::string& byte_units = o.text("units");
    if (byte_units == "iec")
        out.units = units::ByteUnits::iec;
    else if (byte_units == "si")
        out.units = units::ByteUnits::si;
    else
        throw UsageError("--units: '" + byte_units + "' is not one of iec, si");
    const std::string& progress = o.text("progress");
    if (progress == "auto")
        out.progress = ProgressMode::automatic;
    else if (progress == "always")
        out.progress = ProgressMode::always;
    else if (progress == "never")
        out.progress = ProgressMode::never;
    else
        throw UsageError("--progress: '" + progress + "' is not one of auto, always, never");
}

// Several targets run the phases of a plain run, each target's workers on
// its own files; the modes that reshape the workers or the files are one
// target's.
void refuse_with_several_targets(const Options& o, const model::RunConfig& c) {
    if (c.target_count() == 1) return;
    for (const char* name : {"keep", "sweep", "find-rate", "compare-backends", "sync-compare",
                             "sustained-write", "preset", "recreate"})
        if (o.given(name))
            throw UsageError("--" + std::string(name) + " works with one target; " +
                             std::to_string(c.target_count()) + " were given");
}

// One run's configuration (a single run, or one test of a preset).
// Without --seq-time a sequential phase repeats its pass until its figure
// can be quoted.  Not with --keep (one pass: a cut then tells each unit's
// generation exactly), nor where passes are set otherwise.
void read_seq_passes(const Options& o, model::RunConfig& c) {
    c.seq_until_measured =
        !o.given("seq-time") && !c.keep && !c.sustained_passes && !c.sync_compare;
}

model::RunConfig read_run(const Options& o) {
    model::RunConfig c;
    read_target(o, c);
    read_geometry(o, c);
    read_backend(o, c);
    read_schedule(o, c);
    read_phases(o, c);
    read_sweep(o, c);
    read_find_rate(o, c);
    read_workload_data(o, c);
    check_arrivals(o, c);
    read_steady_state(o, c);
    read_sustained_write(o, c);
    read_latency_thresholds(o, c);
    read_modes(o, c);
    read_durability(o, c);
    read_sync_compare(o, c);
    read_nop(o, c);
    read_atomic(o, c);
    read_seq_passes(o, c);
    refuse_with_several_targets(o, c);
    return c;
}

// --verify-only STATE: everything about the run comes from STATE; only
// where the report goes can be chosen.
void read_verify_only(const po::variables_map& vm, const Options& o, ParsedCommandLine& out) {
    for (const auto& [name, value] : vm) {
        if (value.defaulted() || name == "verify-only" || name == "json" || name == "cleanup" ||
            name == "force" || name == "progress" || name == "wide")
            continue;
        throw UsageError(
            "--verify-only takes the run's settings from STATE; " +
            (name == "target" || name == "path" ? std::string("a TARGET") : "--" + name) +
            " cannot be combined with it (only --json and --cleanup can)");
    }
    out.action = ParsedCommandLine::Action::verify_only;
    out.verify_only_state = o.text("verify-only");
    if (out.verify_only_state.empty()) throw UsageError("--verify-only: empty path");
    out.verify_cleanup = o.flag("cleanup");
    out.verify_force = o.flag("force");
    if (out.verify_force && !out.verify_cleanup)
        throw UsageError("--force works only with --verify-only STATE --cleanup");
    if (out.verify_force && o.given("json"))
        throw UsageError("--force verifies nothing, so it writes no --json document");
    read_outputs(o, false, out.outputs);
}

// --preset NAME: one configuration per test, from the user's own options
// and each test's options that the user did not give (presets.h: data, read
// through the same Options, never spelled back into a command line).
void read_preset(const po::variables_map& vm, const Options& o, ParsedCommandLine& out) {
    if (o.flag("keep")) throw UsageError("--keep works with a single run, not with --preset");
    if (o.given("io-log") || o.given("io-log-format"))
        throw UsageError("--io-log works with a single run, not with --preset");
    if (o.given("find-rate")) throw UsageError("--find-rate and --preset both given");
    if (o.text("backend") == "nop")
        throw UsageError("--backend nop and --preset: a preset measures a drive; a NOP has none");
    if (const auto n = given_targets(o).size(); n > 1)
        throw UsageError("--preset works with one target; " + std::to_string(n) + " were given");
    const std::string name = o.text("preset");
    const Preset* preset = find_preset(name);
    if (!preset)
        throw UsageError("--preset: unknown preset '" + name +
                         "' (use quick, desktop, nvme, burn-in, nvme-endurance)");
    out.preset = name;
    for (const auto& test : preset->tests) {
        Options::Values values = test.options;
        for (auto& [key, v] : values)
            // --no-verify drops the preset's reverify phase, as it drops the
            // default's (it only verifies).
            if (key == "phases" && o.flag("no-verify"))
                if (auto at = v.find(",reverify"); at != std::string::npos)
                    v.erase(at, std::string_view(",reverify").size());
        out.preset_tests.emplace_back(test.label, read_run(Options(vm, &values)));
    }
    out.config = out.preset_tests.front().second;
    read_outputs(o, false, out.outputs);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> Outputs::files() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [option, path] : {std::pair{"--json", &json},
                                       {"--timeseries", &timeseries},
                                       {"--prom", &prom},
                                       {"--io-log", &io_log}})
        if (path->is_path()) out.emplace_back(option, path->text());
    return out;
}

// rate=10k,20k,50k (IOPS), rate=10%,50%,100% (of the closed-loop IOPS,
// measured first), or a range LO..HI in steps of LO (rate=10%..100%).
static model::Sweep parse_rate_sweep(const std::string& list) {
    model::Sweep sw;
    sw.param = model::SweepParam::rate;
    sw.percent = !list.empty() && list.find('%') != std::string::npos;
    auto value = [&](std::string t) -> std::uint64_t {
        if (sw.percent) {
            if (t.empty() || t.back() != '%')
                throw UsageError("--sweep rate: '" + t + "' mixes IOPS with percentages");
            t.pop_back();
        }
        const double v =
            with_option("--sweep", t, [](const std::string& x) { return units::parse_rate(x); });
        if (sw.percent && (v < 1 || v > 1000 || v != std::floor(v)))
            throw UsageError("--sweep rate: '" + t + "%' is not a whole percent from 1 to 1000");
        return static_cast<std::uint64_t>(std::llround(v));
    };
    if (auto range = list.find(".."); range != std::string::npos) {
        const std::uint64_t lo = value(list.substr(0, range)), hi = value(list.substr(range + 2));
        if (hi < lo || hi / lo > 100)
            throw UsageError("--sweep rate: range '" + list +
                             "' must go up, in at most 100 steps of its first value");
        for (std::uint64_t v = lo; v <= hi; v += lo)
            sw.values.push_back(v);
    } else {
        for (const auto& item : with_option(
                 "--sweep", list, [](const std::string& t) { return units::split_list(t); }))
            sw.values.push_back(value(item));
    }
    std::set<std::uint64_t> seen;
    for (auto v : sw.values)
        if (!seen.insert(v).second)
            throw UsageError("--sweep: value " + std::to_string(v) + " given twice");
    return sw;
}

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

model::Sweep parse_sweep(const std::string& text) {
    auto eq = text.find('=');
    if (eq == std::string::npos)
        throw UsageError("--sweep: '" + text + "' is not NAME=VALUES (e.g. qd=1..128)");
    std::string name = text.substr(0, eq), list = text.substr(eq + 1);
    model::Sweep sw;
    if (name == "qd")
        sw.param = model::SweepParam::qd;
    else if (name == "files")
        sw.param = model::SweepParam::files;
    else if (name == "rand-block")
        sw.param = model::SweepParam::rand_block;
    else if (name == "rate")
        return parse_rate_sweep(list);
    else
        throw UsageError("--sweep: unknown parameter '" + name +
                         "' (use qd, files, rand-block or rate)");
    const bool sizes = sw.param == model::SweepParam::rand_block;
    auto value = [&](const std::string& t) {
        return with_option("--sweep", t, [&](const std::string& v) {
            return sizes ? units::parse_size(v) : units::parse_count(v);
        });
    };
    if (auto range = list.find(".."); range != std::string::npos) {
        std::uint64_t lo = value(list.substr(0, range)), hi = value(list.substr(range + 2));
        if (lo == 0 || hi < lo)
            throw UsageError("--sweep: range '" + list + "' must go from a positive value up");
        for (std::uint64_t v = lo; v <= hi; v *= 2) {
            sw.values.push_back(v);
            if (v > hi / 2) break;
        }
        if (sw.values.back() != hi) sw.values.push_back(hi);
    } else {
        for (const auto& item : with_option(
                 "--sweep", list, [](const std::string& t) { return units::split_list(t); }))
            sw.values.push_back(value(item));
    }
    std::set<std::uint64_t> seen;
    for (auto v : sw.values) {
        if (v == 0) throw UsageError("--sweep: values must be greater than zero");
        if (!seen.insert(v).second)
            throw UsageError("--sweep: value " + std::to_string(v) + " given twice");
        const std::uint64_t limit = sw.param == model::SweepParam::qd      ? kMaxQd
                                    : sw.param == model::SweepParam::files ? kMaxFiles
                                                                           : kMaxBlock;
        if (v > limit)
            throw UsageError("--sweep: " + name + " value " + std::to_string(v) + " is above " +
                             std::to_string(limit));
        if (sizes && (!is_power_of_two(v) || v < 512))
            throw UsageError("--sweep: rand-block " + units::format_size_option(v) +
                             " must be a power of two of at least 512");
    }
    return sw;
}

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

ParsedCommandLine parse_command_line(const std::vector<std::string>& args) {
    const po::variables_map vm = tokenize(args);
    const Options o(vm);
    ParsedCommandLine out;
    if (vm.count("help")) {
        out.action = ParsedCommandLine::Action::help;
        out.help_text = help_text();
        return out;
    }
    if (vm.count("version")) {
        out.action = ParsedCommandLine::Action::version;
        return out;
    }
    if (o.given("verify-only")) {
        read_verify_only(vm, o, out);
        return out;
    }
    if (o.flag("cleanup")) throw UsageError("--cleanup works only with --verify-only STATE");
    if (o.flag("force")) throw UsageError("--force works only with --verify-only STATE --cleanup");
    if (o.given("preset")) {
        read_preset(vm, o, out);
        return out;
    }
    out.config = read_run(o);
    read_outputs(o, out.config.compare_backends, out.outputs);
    detail::read_io_log(o, out.config);
    if (!out.config.io_log.empty()) out.outputs.io_log = output::OutputPath(out.config.io_log);
    return out;
}

}  // namespace ds::cli
