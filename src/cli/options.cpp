#include "cli/options.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstring>
#include <numeric>
#include <set>
#include <system_error>

#include "cli/option_table.h"
#include "cli/presets.h"
#include "io/output_file.h"
#include "run/errors.h"
#include "run/raw_device.h"
#include "units/units.h"

namespace po = boost::program_options;

namespace ds::cli {

namespace {

constexpr std::uint64_t kMaxFiles = 4096;
constexpr std::uint64_t kMaxQd = 4096;
constexpr std::uint64_t kMaxBlock = 64ULL << 20;
// --iteration-detail keeps 3 histograms of 37 KiB per phase of each iteration
// kept: 10000 iterations of 4 phases hold 4.4 GiB.
constexpr std::uint64_t kMaxIterationDetail = 10000;

bool is_power_of_two(std::uint64_t v) {
    return v && (v & (v - 1)) == 0;
}

// Runs a parser and turns its complaint into a UsageError naming the option.
template <typename F>
auto with_option(const char* option, const std::string& text, F&& parse) {
    try {
        return parse(text);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string(option) + ": " + e.what());
    }
}

std::uint64_t size_option(const po::variables_map& vm, const char* name) {
    std::string opt = std::string("--") + name;
    return with_option(opt.c_str(), vm[name].as<std::string>(),
                       [](const std::string& t) { return units::parse_size(t); });
}

std::uint64_t count_option(const po::variables_map& vm, const char* name, std::uint64_t lo,
                           std::uint64_t hi) {
    std::string opt = std::string("--") + name;
    const std::string& text = vm[name].as<std::string>();
    std::uint64_t v =
        with_option(opt.c_str(), text, [](const std::string& t) { return units::parse_count(t); });
    if (v < lo || v > hi)
        throw UsageError(opt + ": '" + text + "' is out of range (" + std::to_string(lo) + " to " +
                         std::to_string(hi) + ")");
    return v;
}

double duration_option(const po::variables_map& vm, const char* name) {
    std::string opt = std::string("--") + name;
    return with_option(opt.c_str(), vm[name].as<std::string>(),
                       [](const std::string& t) { return units::parse_duration(t); });
}

// An output file (--json, --timeseries, --prom) is refused before the run
// when it could not be written at the end: see io/output_file.h for what is
// accepted.  Nothing is created here.
void check_output_path(const std::string& option, const std::string& path) {
    if (path.empty()) throw UsageError(option + ": empty path");
    if (path == "-") return;
    try {
        io::check_output_writable(path);
    } catch (const std::system_error& e) {
        throw UsageError(option + " " + e.what());
    }
}

// --prom-label KEY=VALUE (repeatable) and --prom-interval: only with --prom.
void parse_prom_options(const po::variables_map& vm, ParsedCommandLine& out) {
    const bool prom = vm.count("prom") > 0;
    if (vm.count("prom-label")) {
        if (!prom) throw UsageError("--prom-label needs --prom (the labels go on its metrics)");
        std::set<std::string> seen;
        for (const auto& item : vm["prom-label"].as<std::vector<std::string>>()) {
            const auto eq = item.find('=');
            if (eq == std::string::npos)
                throw UsageError("--prom-label: '" + item + "' is not KEY=VALUE (e.g. rack=r12)");
            std::string key = item.substr(0, eq), value = item.substr(eq + 1);
            // (The exposition format's rules for names and values are the
            // report layer's: main checks them right after parsing.)
            if (!seen.insert(key).second)
                throw UsageError("--prom-label: '" + key + "' given twice");
            out.prom_labels.emplace_back(std::move(key), std::move(value));
        }
    }
    if (!vm["prom-interval"].defaulted() && !prom)
        throw UsageError("--prom-interval needs --prom (it says how often that file is rewritten)");
    out.prom_interval_s = duration_option(vm, "prom-interval");
    if (out.prom_interval_s < 0.1)
        throw UsageError("--prom-interval: '" + vm["prom-interval"].as<std::string>() +
                         "' is below 100ms (the run looks about ten times a second)");
}

}  // namespace

run::Sweep parse_sweep(const std::string& text) {
    auto eq = text.find('=');
    if (eq == std::string::npos)
        throw UsageError("--sweep: '" + text + "' is not NAME=VALUES (e.g. qd=1..128)");
    std::string name = text.substr(0, eq), list = text.substr(eq + 1);
    run::Sweep sw;
    if (name == "qd")
        sw.param = run::SweepParam::qd;
    else if (name == "files")
        sw.param = run::SweepParam::files;
    else if (name == "rand-block")
        sw.param = run::SweepParam::rand_block;
    else
        throw UsageError("--sweep: unknown parameter '" + name + "' (use qd, files or rand-block)");
    const bool sizes = sw.param == run::SweepParam::rand_block;
    auto value = [&](const std::string& t) {
        return with_option("--sweep", t, [&](const std::string& v) {
            return sizes ? units::parse_size(v) : units::parse_count(v);
        });
    };
    auto range = list.find("..");
    if (range != std::string::npos) {
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
        std::uint64_t limit = sw.param == run::SweepParam::qd      ? kMaxQd
                              : sw.param == run::SweepParam::files ? kMaxFiles
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

ParsedCommandLine parse_command_line(const std::vector<std::string>& args) {
    // Every option is described once, in cli/option_table.cpp; TARGET is
    // positional and not listed.
    po::options_description all = boost_options();
    all.add_options()("target", po::value<std::vector<std::string>>());
    po::positional_options_description positional;
    positional.add("target", -1);

    // Boost fills %...% placeholders into its error messages and loops
    // forever when the user's own text contains one; no option name has a
    // '%', so such a token is refused here, as typed.
    for (const auto& a : args) {
        if (a.size() < 2 || a[0] != '-') continue;
        if (a.substr(0, a.find('=')).find('%') != std::string::npos)
            throw UsageError("unrecognised option '" + a + "'");
    }

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

    if (vm.count("verify-only")) {
        // Everything about the run comes from STATE; only where the report
        // goes can be chosen.
        for (const auto& [name, value] : vm) {
            if (value.defaulted() || name == "verify-only" || name == "json" || name == "cleanup" ||
                name == "progress")
                continue;
            throw UsageError(
                "--verify-only takes the run's settings from STATE; " +
                (name == "target" || name == "path" ? std::string("a TARGET") : "--" + name) +
                " cannot be combined with it (only --json and --cleanup can)");
        }
        out.action = ParsedCommandLine::Action::verify_only;
        out.verify_only_state = vm["verify-only"].as<std::string>();
        if (out.verify_only_state.empty()) throw UsageError("--verify-only: empty path");
        out.verify_cleanup = vm["cleanup"].as<bool>();
        if (vm.count("json")) {
            out.config.json_path = vm["json"].as<std::string>();
            check_output_path("--json", out.config.json_path);
        }
        return out;
    }
    if (vm["cleanup"].as<bool>()) throw UsageError("--cleanup works only with --verify-only STATE");
    parse_prom_options(vm, out);

    if (vm.count("preset")) {
        if (vm["keep"].as<bool>())
            throw UsageError("--keep works with a single run, not with --preset");
        if (vm.count("timeseries"))
            throw UsageError(
                "--timeseries works with a single run, not with --preset or --compare-backends");
        const std::string name = vm["preset"].as<std::string>();
        const Preset* preset = find_preset(name);
        if (!preset)
            throw UsageError("--preset: unknown preset '" + name +
                             "' (use quick, desktop, nvme, burn-in)");
        // The user's own arguments without --preset, then each test's
        // options that the user did not give.
        std::vector<std::string> own;
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (args[i] == "--preset") {
                ++i;
                continue;
            }
            if (args[i].rfind("--preset=", 0) == 0) continue;
            own.push_back(args[i]);
        }
        out.preset = name;
        for (const auto& test : preset->tests) {
            std::vector<std::string> merged = own;
            for (const auto& [key, value] : test.options) {
                if (vm.count(key) && !vm[key].defaulted()) continue;
                std::string v = value;
                // --no-verify drops the preset's reverify phase, as it drops
                // the default's (it only verifies).
                if (key == "phases" && vm["no-verify"].as<bool>()) {
                    if (auto at = v.find(",reverify"); at != std::string::npos)
                        v.erase(at, std::string_view(",reverify").size());
                }
                merged.push_back("--" + key);
                if (!v.empty()) merged.push_back(v);
            }
            out.preset_tests.emplace_back(test.label, parse_command_line(merged).config);
        }
        out.config = out.preset_tests.front().second;
        return out;
    }

    run::RunConfig& c = out.config;
    // Target: positional, or --path; not both, not two.
    std::vector<std::string> targets;
    if (vm.count("target")) targets = vm["target"].as<std::vector<std::string>>();
    if (vm.count("path")) targets.push_back(vm["path"].as<std::string>());
    if (targets.size() > 1)
        throw UsageError("more than one target given ('" + targets[0] + "', '" + targets[1] + "')");
    if (!targets.empty()) c.target = targets[0];
    c.target_may_be_prefix = vm.count("path") > 0;
    if (c.target.empty()) throw UsageError("target: empty path");
    if (vm.count("raw-device") || vm.count("destroy-data")) {
        if (!vm.count("raw-device"))
            throw UsageError(
                "--destroy-data needs --raw-device (it confirms the device to overwrite)");
        const std::string dev = vm["raw-device"].as<std::string>();
        if (!vm.count("destroy-data"))
            throw UsageError("--raw-device " + dev + " needs --destroy-data " + dev +
                             " (everything on the device is overwritten)");
        if (!targets.empty())
            throw UsageError("--raw-device and a TARGET ('" + targets[0] +
                             "') both given: a raw-device run has no target directory");
        const std::string confirm = vm["destroy-data"].as<std::string>();
        try {
            if (!run::same_block_device(dev, confirm))
                throw UsageError("--destroy-data " + confirm +
                                 " is not the same device as --raw-device " + dev);
        } catch (const run::SetupError& e) {
            throw UsageError(e.what());
        }
        c.raw_device = dev;
        c.target = dev;
    }

    auto defaulted = [&](const char* name) { return vm[name].defaulted(); };

    if (vm.count("size-mb")) {
        if (!defaulted("size")) throw UsageError("--size and --size-mb both given");
        std::uint64_t mb = count_option(vm, "size-mb", 1, 1ULL << 40);
        c.file_bytes = mb << 20;
    } else {
        c.file_bytes = size_option(vm, "size");
    }
    c.files = static_cast<unsigned>(count_option(vm, "files", 1, kMaxFiles));
    c.qd = static_cast<unsigned>(count_option(vm, "qd", 1, kMaxQd));

    const std::string& backend = vm["backend"].as<std::string>();
    if (backend == "auto")
        c.backend = run::BackendChoice::automatic;
    else if (backend == "io_uring" || backend == "io-uring" || backend == "uring")
        c.backend = run::BackendChoice::io_uring;
    else if (backend == "sync")
        c.backend = run::BackendChoice::sync;
    else
        throw UsageError("--backend: '" + backend + "' is not one of auto, io_uring, sync");

    std::uint64_t seq_block = size_option(vm, "seq-block");
    std::uint64_t rand_block = size_option(vm, "rand-block");
    if (!is_power_of_two(rand_block) || rand_block < 512 || rand_block > kMaxBlock)
        throw UsageError("--rand-block: " + units::format_size_option(rand_block) +
                         " must be a power of two from 512 to 64M");
    if (seq_block == 0 || seq_block > kMaxBlock)
        throw UsageError("--seq-block: " + units::format_size_option(seq_block) +
                         " must be from 512 to 64M");
    if (seq_block % rand_block != 0)
        throw UsageError("--seq-block " + units::format_size_option(seq_block) +
                         " is not a multiple of --rand-block " +
                         units::format_size_option(rand_block));
    if (c.file_bytes == 0) throw UsageError("--size: must be greater than zero");
    if (c.file_bytes % rand_block != 0)
        throw UsageError("--size " + units::format_size_option(c.file_bytes) +
                         " is not a multiple of --rand-block " +
                         units::format_size_option(rand_block));
    if (seq_block > c.file_bytes)
        throw UsageError("--seq-block " + units::format_size_option(seq_block) +
                         " is larger than --size " + units::format_size_option(c.file_bytes));
    c.seq_block = static_cast<std::uint32_t>(seq_block);
    c.rand_block = static_cast<std::uint32_t>(rand_block);

    c.read_pct = static_cast<unsigned>(count_option(vm, "read-pct", 0, 100));

    if (vm.count("mixed-sec")) {
        if (!defaulted("rand-time")) throw UsageError("--rand-time and --mixed-sec both given");
        c.rand_time_s = static_cast<double>(count_option(vm, "mixed-sec", 0, 1ULL << 30));
    } else {
        c.rand_time_s = duration_option(vm, "rand-time");
    }
    if (vm.count("rand-ops")) {
        c.rand_ops = count_option(vm, "rand-ops", 1, UINT64_MAX);
        if (!defaulted("rand-time") || vm.count("mixed-sec"))
            throw UsageError(std::string("--rand-ops and ") +
                             (vm.count("mixed-sec") ? "--mixed-sec" : "--rand-time") +
                             " both given (the random phase ends on one)");
    }
    c.iterations = count_option(vm, "iterations", 0, UINT64_MAX);
    if (vm.count("duration")) {
        c.duration_s = duration_option(vm, "duration");
        if (*c.duration_s <= 0) throw UsageError("--duration: must be greater than zero");
    }

    c.verify = !vm["no-verify"].as<bool>();
    c.phases.clear();
    std::set<run::Phase> seen;
    const std::string& phases = vm["phases"].as<std::string>();
    std::vector<std::string> names =
        with_option("--phases", phases, [](const std::string& t) { return units::split_list(t); });
    for (const auto& name : names) {
        auto p = run::phase_from_string(name);
        if (!p)
            throw UsageError("--phases: unknown phase '" + name +
                             "' (use seq-write, seq-read, random, reverify)");
        if (!seen.insert(*p).second) throw UsageError("--phases: '" + name + "' given twice");
    }
    if (!seen.count(run::Phase::seq_write))
        throw UsageError("--phases: must include seq-write (the files start empty every run)");
    if (!c.verify && !defaulted("phases") && seen.count(run::Phase::reverify))
        throw UsageError("--phases reverify conflicts with --no-verify (it only verifies)");
    for (run::Phase p : run::kAllPhases)  // always in their natural order
        if (seen.count(p) && !(p == run::Phase::reverify && !c.verify)) c.phases.push_back(p);

    if (vm.count("seed")) {
        c.seed = with_option("--seed", vm["seed"].as<std::string>(),
                             [](const std::string& t) { return units::parse_count(t); });
        c.seed_given = true;
    }
    c.recreate = vm["recreate"].as<bool>();
    if (c.recreate && !c.raw_device.empty())
        throw UsageError("--recreate and --raw-device both given: a device cannot be recreated");
    c.buffered = vm["buffered"].as<bool>() || vm["no-direct"].as<bool>();
    if (vm.count("json")) {
        c.json_path = vm["json"].as<std::string>();
        check_output_path("--json", c.json_path);
    }
    c.iteration_detail = count_option(vm, "iteration-detail", 0, kMaxIterationDetail);
    if (vm.count("sweep")) {
        c.sweep = parse_sweep(vm["sweep"].as<std::string>());
        if (!c.has_phase(run::Phase::random) || !(c.rand_ops || c.rand_time_s > 0))
            throw UsageError(
                "--sweep needs the random phase (--phases with random, --rand-time > 0)");
        if (c.iterations != 1) throw UsageError("--sweep runs one iteration; drop --iterations");
        const auto& v = c.sweep->values;
        std::uint64_t lo = *std::min_element(v.begin(), v.end());
        std::uint64_t hi = *std::max_element(v.begin(), v.end());
        switch (c.sweep->param) {
            case run::SweepParam::qd:
                if (!defaulted("qd")) throw UsageError("--sweep qd=... and --qd both given");
                c.qd = static_cast<unsigned>(hi);
                break;
            case run::SweepParam::files:
                if (!defaulted("files"))
                    throw UsageError("--sweep files=... and --files both given");
                c.files = static_cast<unsigned>(hi);
                break;
            case run::SweepParam::rand_block:
                if (!defaulted("rand-block"))
                    throw UsageError("--sweep rand-block=... and --rand-block both given");
                // The smallest block is the verification unit; the others are
                // whole multiples of it.
                if (c.seq_block % lo != 0 || c.file_bytes % hi != 0 || hi > c.file_bytes)
                    throw UsageError("--sweep rand-block: values must divide --seq-block " +
                                     units::format_size_option(c.seq_block) +
                                     " (smallest) and --size " +
                                     units::format_size_option(c.file_bytes) + " (largest)");
                c.rand_block = static_cast<std::uint32_t>(lo);
                break;
        }
    }
    if (!c.raw_device.empty()) {
        // Equal regions (workers: the largest of a files sweep); the default
        // size is aligned to the sequential block and the largest random
        // block, a given --size is taken as it is (a multiple of the unit).
        try {
            run::check_raw_device_unused(c.raw_device);  // again right before the run
            std::uint64_t bytes = run::block_device_bytes(c.raw_device);
            c.file_bytes = run::raw_region_bytes(
                c.raw_device, bytes, c.files,
                defaulted("size") && !vm.count("size-mb") ? 0 : c.file_bytes,
                std::lcm(std::uint64_t{c.seq_block}, std::uint64_t{c.max_rand_block()}));
        } catch (const run::SetupError& e) {
            throw UsageError(e.what());
        }
    }
    c.knee_gain_pct = static_cast<double>(count_option(vm, "knee-gain", 0, 1000));
    c.latency_thresholds_s.clear();
    for (const auto& item :
         with_option("--latency-thresholds", vm["latency-thresholds"].as<std::string>(),
                     [](const std::string& t) { return units::split_list(t); })) {
        double sec = with_option("--latency-thresholds", item,
                                 [](const std::string& t) { return units::parse_duration(t); });
        if (sec <= 0)
            throw UsageError("--latency-thresholds: '" + item + "' must be greater than zero");
        c.latency_thresholds_s.push_back(sec);
    }
    c.sqpoll = vm["sqpoll"].as<bool>();
    c.iopoll = vm["iopoll"].as<bool>();
    for (const char* name : {"sqpoll", "iopoll"}) {
        if (!vm[name].as<bool>()) continue;
        std::string opt = std::string("--") + name;
        if (c.backend == run::BackendChoice::sync)
            throw UsageError(opt + " is an io_uring mode; it cannot be used with --backend sync");
        if (vm["compare-backends"].as<bool>())
            throw UsageError(opt + " is an io_uring mode; --compare-backends also runs sync");
    }
    if (c.iopoll && c.buffered)
        throw UsageError(std::string("--iopoll needs O_DIRECT; it cannot be used with ") +
                         (vm["buffered"].as<bool>() ? "--buffered" : "--no-direct"));
    c.compare_backends = vm["compare-backends"].as<bool>();
    c.keep = vm["keep"].as<bool>();
    if (c.keep && c.compare_backends)
        throw UsageError("--keep works with a single run, not with --compare-backends");
    if (c.keep && !c.raw_device.empty())
        throw UsageError(
            "--keep and --raw-device both given: the state file lives beside test files");
    if (c.compare_backends) {
        if (!defaulted("backend"))
            throw UsageError("--compare-backends runs both backends; drop --backend");
        if (c.sweep) throw UsageError("--compare-backends and --sweep cannot be combined");
    }

    for (const char* name : {"timeseries", "prom"}) {
        if (!vm.count(name)) continue;
        std::string opt = std::string("--") + name;
        if (c.compare_backends)
            throw UsageError(opt + (std::string(name) == "prom"
                                        ? " works with a single run or --preset, not with "
                                          "--compare-backends"
                                        : " works with a single run, not with --preset or "
                                          "--compare-backends"));
        const std::string& path = vm[name].as<std::string>();
        if (path == "-") throw UsageError(opt + ": give a file path ('-' is for --json)");
        check_output_path(opt, path);
        (std::string(name) == "prom" ? c.prom_path : c.timeseries_path) = path;
    }

    const std::string& sync = vm["sync"].as<std::string>();
    auto method = run::sync_method_from_string(sync);
    if (!method)
        throw UsageError("--sync: '" + sync +
                         "' is not one of none, osync, dsync, fsync, fdatasync");
    c.sync = *method;
    if (c.iopoll && (c.sync == run::SyncMethod::fsync || c.sync == run::SyncMethod::fdatasync))
        throw UsageError("--iopoll and --sync " + std::string(run::to_string(c.sync)) +
                         ": a polled ring cannot run IORING_OP_FSYNC (use --sync dsync)");
    c.sync_every = count_option(vm, "sync-every", 1, UINT32_MAX);
    if (!defaulted("sync-every") && c.sync == run::SyncMethod::none)
        throw UsageError("--sync-every needs --sync (osync, dsync, fsync or fdatasync)");
    c.batch = static_cast<unsigned>(count_option(vm, "batch", 1, kMaxQd));
    if (c.batch > c.qd)
        throw UsageError("--batch " + std::to_string(c.batch) + " is larger than --qd " +
                         std::to_string(c.qd) + " (a batch must fit in flight)");
    c.sync_compare = vm["sync-compare"].as<bool>();
    if (c.sync_compare) {
        for (const char* name : {"sync", "sync-every", "sweep", "files", "phases", "iterations"})
            if (vm.count(name) && !defaulted(name))
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
        if (defaulted("size") && !vm.count("size-mb")) c.file_bytes = 16ULL << 20;
        if (c.file_bytes % (16 * 1024) != 0)
            throw UsageError("--size " + units::format_size_option(c.file_bytes) +
                             " with --sync-compare must be a multiple of 16K");
        c.rand_block = 4096;
        c.seq_block = 16 * 1024;
        c.sync_compare_row_s = defaulted("rand-time") ? 2.0 : c.rand_time_s;
        if (c.sync_compare_row_s <= 0) throw UsageError("--rand-time: must be greater than zero");
        c.sync_compare_row_ops = c.rand_ops;
    }

    const std::string& progress = vm["progress"].as<std::string>();
    if (progress == "auto")
        c.progress = run::ProgressMode::automatic;
    else if (progress == "always")
        c.progress = run::ProgressMode::always;
    else if (progress == "never")
        c.progress = run::ProgressMode::never;
    else
        throw UsageError("--progress: '" + progress + "' is not one of auto, always, never");
    return out;
}

}  // namespace ds::cli
