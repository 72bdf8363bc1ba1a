#include "modes/environment.h"

#include <numeric>
#include <system_error>

#include "io/output_file.h"
#include "model/errors.h"
#include "target/raw_device.h"

namespace ds::cli {

namespace {

// An output file is refused before the run when it could not be written at
// the end (io/output_file.h says what is accepted).  Nothing is left behind.
void check_output(const char* option, const std::string& path) {
    if (path.empty() || path == "-") return;
    try {
        io::check_output_writable(path);
    } catch (const std::system_error& e) {
        throw run::SetupError(std::string(option) + " " + e.what());
    }
}

// Equal regions (workers: the largest of a files sweep); the default size
// is aligned to the sequential block and the largest random block, a given
// --size is taken as it is (a multiple of the unit).
void resolve_raw_device(run::RunConfig& c) {
    if (c.raw_device.empty()) return;
    if (!run::same_block_device(c.raw_device, c.raw_device_confirm))
        throw run::SetupError("--destroy-data " + c.raw_device_confirm +
                              " is not the same device as --raw-device " + c.raw_device);
    run::check_raw_device_unused(c.raw_device);  // again right before the run
    const std::uint64_t bytes = run::block_device_bytes(c.raw_device);
    c.file_bytes = run::raw_region_bytes(
        c.raw_device, bytes, c.files, c.file_bytes,
        std::lcm(std::uint64_t{c.seq_block}, std::uint64_t{c.max_rand_block()}));
}

}  // namespace

void check_environment(ParsedCommandLine& cmd) {
    check_output("--json", cmd.outputs.json);
    check_output("--timeseries", cmd.outputs.timeseries);
    check_output("--prom", cmd.outputs.prom);
    const auto reserved = cmd.outputs.files();
    if (cmd.action != ParsedCommandLine::Action::run) return;
    resolve_raw_device(cmd.config);
    cmd.config.reserved_paths = reserved;
    for (auto& [label, test] : cmd.preset_tests) {
        resolve_raw_device(test);
        test.reserved_paths = reserved;
    }
}

}  // namespace ds::cli
