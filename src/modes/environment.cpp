#include "modes/environment.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <numeric>
#include <system_error>

#include "model/errors.h"
#include "output/output_file.h"
#include "targets/raw_device.h"
#include "targets/state_file.h"
#include "units/diag.h"
#include "units/utf8.h"

namespace ds::modes {

using cli::Outputs;
using cli::ParsedCommandLine;

namespace {

// An output file is refused before the run when it could not be written at
// the end (output/output_file.h says what is accepted).  Nothing is left behind.
void check_output(const char* option, const output::OutputPath& out) {
    if (!out.is_path()) return;
    const std::string& path = out.text();
    try {
        if (const std::size_t n = output::check_output_writable(path))
            units::info(units::printf_string(
                "%s %s: removed %zu temporary file%s that killed runs left beside it", option,
                path.c_str(), n, n == 1 ? "" : "s"));
    } catch (const std::system_error& e) {
        throw model::SetupError(std::string(option) + " " + e.what());
    }
}

// Two outputs at one file: one of them would be silently lost.
void check_distinct_outputs(const Outputs& o) {
    const std::pair<const char*, const output::OutputPath*> all[] = {
        {"--json", &o.json},
        {"--fio-json", &o.fio_json},
        {"--timeseries", &o.timeseries},
        {"--prom", &o.prom},
        {"--io-log", &o.io_log}};
    for (std::size_t i = 0; i < std::size(all); ++i)
        for (std::size_t k = i + 1; k < std::size(all); ++k)
            if (!all[i].second->none() && !all[k].second->none() &&
                output::same_output(*all[i].second, *all[k].second))
                throw model::SetupError(std::string(all[i].first) + " " + all[i].second->text() +
                                        " and " + all[k].first + " " + all[k].second->text() +
                                        ": name the same file; give each its own path");
}

// A regular file at `path` (not a link) that no output may replace.
void protect(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
        output::protect_from_outputs(st.st_dev, st.st_ino, path);
}

// --verify-only: the state file and the files it names are the run's own;
// no output may be one of them (--verify-only S --json S would destroy S).
// A state file that cannot be read is left to the verification to report.
void protect_verified_files(const std::string& state) {
    protect(state);
    const auto slash = state.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : state.substr(0, slash + 1);
    try {
        for (const auto& name : targets::state_file_names(state))
            protect(dir + name);
    } catch (const std::exception&) {
    }
}

// Equal regions (workers: the largest of a files sweep); the default size
// is aligned to the sequential block and the largest random block, a given
// --size is taken as it is (a multiple of the unit).  Several devices: the
// default is the smallest device's region, so --size is one for all.
void resolve_raw_device(model::RunConfig& c) {
    std::uint64_t derived = 0;
    for (std::size_t t = 0; t < c.target_count(); ++t) {
        const model::RunConfig one = c.for_target(t);
        if (one.raw_device.empty()) continue;
        if (!targets::same_block_device(one.raw_device, one.raw_device_confirm))
            throw model::SetupError("--destroy-data " + one.raw_device_confirm +
                                    " is not the same device as --raw-device " + one.raw_device);
        targets::check_raw_device_unused(one.raw_device);  // again right before the run
        const std::uint64_t bytes = targets::block_device_bytes(one.raw_device);
        const std::uint64_t region = targets::raw_region_bytes(
            one.raw_device, bytes, c.files, c.file_bytes,
            std::lcm(std::uint64_t{c.seq_block}, std::uint64_t{c.max_rand_block()}));
        derived = derived ? std::min(derived, region) : region;
    }
    if (c.file_bytes == 0) c.file_bytes = derived;
}

}  // namespace

void check_environment(ParsedCommandLine& cmd) {
    if (cmd.action == ParsedCommandLine::Action::verify_only)
        protect_verified_files(cmd.verify_only_state);
    // --replay: every worker reads the trace again as its phase runs, so no
    // output may replace it (--replay T --io-log T would replay its own log).
    if (!cmd.config.replay.empty() && cmd.config.replay != "-") protect(cmd.config.replay);
    check_distinct_outputs(cmd.outputs);
    check_output("--json", cmd.outputs.json);
    check_output("--fio-json", cmd.outputs.fio_json);
    check_output("--timeseries", cmd.outputs.timeseries);
    check_output("--prom", cmd.outputs.prom);
    check_output("--io-log", cmd.outputs.io_log);
    const auto reserved = cmd.outputs.files();
    if (cmd.action != ParsedCommandLine::Action::run) return;
    resolve_raw_device(cmd.config);
    cmd.config.reserved_paths = reserved;
    for (auto& [label, test] : cmd.preset_tests) {
        resolve_raw_device(test);
        test.reserved_paths = reserved;
    }
}

}  // namespace ds::modes
