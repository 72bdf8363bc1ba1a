// The command line as a whole: Boost.Program_options over the option table,
// the action it asks for (--help, --version, --verify-only, --preset or a
// run), and a run's options read concept by concept in a fixed order.
#include "cli/command_line.h"

#include <boost/program_options.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/option_table.h"
#include "cli/options_reader.h"
#include "cli/presets.h"

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

// One run's configuration (a single run, or one test of a preset).  The
// order matters: a reader may use what an earlier one set, and of two
// mistakes on one command line the earlier reader's is the one reported.
model::RunConfig read_run(const Options& o) {
    model::RunConfig c;
    read_target(o, c);
    read_geometry(o, c);
    read_backend(o, c);
    read_read_pct(o, c);
    read_phase_lengths(o, c);
    read_rate(o, c);
    read_run_length(o, c);
    read_seed(o, c);
    read_recreate(o, c);
    read_iteration_detail(o, c);
    read_phases(o, c);
    check_rate(o, c);
    read_interval(o, c);
    read_knee_gain(o, c);
    read_repeat(o, c);
    read_sweep(o, c);
    read_find_rate(o, c);
    read_workload_data(o, c);
    read_replay(o, c);
    check_arrivals(o, c);
    read_steady_state(o, c);
    read_sustained_write(o, c);
    read_latency_thresholds(o, c);
    read_modes(o, c);
    read_durability(o, c);
    read_wait(o, c);
    read_sync_compare(o, c);
    read_nop(o, c);
    read_atomic(o, c);
    read_seq_passes(o, c);
    refuse_with_several_targets(o, c);
    read_job_file(o, c);
    return c;
}

// --verify-only STATE: everything about the run comes from STATE; only
// where the report goes, and the cleanup after it, can be chosen.
void read_verify_only(const po::variables_map& vm, const Options& o, ParsedCommandLine& out) {
    for (const auto& [name, value] : vm) {
        if (value.defaulted() || name == "verify-only" ||
            std::find(kWithVerifyOnly.begin(), kWithVerifyOnly.end(), name) !=
                kWithVerifyOnly.end())
            continue;
        std::string can;
        for (std::size_t i = 0; i < kWithVerifyOnly.size(); ++i)
            can += std::string(i == 0                           ? "--"
                               : i + 1 < kWithVerifyOnly.size() ? ", --"
                                                                : " and --") +
                   kWithVerifyOnly[i];
        throw UsageError(
            "--verify-only takes the run's settings from STATE; " +
            (name == "target" || name == "path" ? std::string("a TARGET") : "--" + name) +
            " cannot be combined with it (only " + can + " can)");
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
    read_outputs(o, nullptr, out.outputs);
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
        throw UsageError("--preset: unknown preset '" + name + "' (use " + preset_names() + ")");
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
    read_outputs(o, nullptr, out.outputs);
    std::vector<const model::RunConfig*> tests;
    for (const auto& test : out.preset_tests)
        tests.push_back(&test.second);
    check_fio_json(o, tests);
}

}  // namespace

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
    read_outputs(o,
                 out.config.compare_backends ? "--compare-backends"
                 : out.config.compare_atomic ? "--compare-atomic"
                                             : nullptr,
                 out.outputs);
    check_fio_json(o, {&out.config});
    detail::read_io_log(o, out.config);
    if (!out.config.io_log.empty()) out.outputs.io_log = output::OutputPath(out.config.io_log);
    return out;
}

}  // namespace ds::cli
