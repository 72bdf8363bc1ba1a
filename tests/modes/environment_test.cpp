// The command line against the system: result files that could not be
// written at the end are refused before the run, naming the option; what
// the run must not take for its own files is handed to every run.
#include "modes/environment.h"

#include <doctest/doctest.h>

#include <string>

#include "cli/command_line.h"
#include "model/errors.h"

using ds::cli::parse_command_line;
using ds::modes::check_environment;

namespace {

std::string refusal(const std::vector<std::string>& args) {
    auto cmd = parse_command_line(args);
    try {
        check_environment(cmd);
    } catch (const ds::model::SetupError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("result files that cannot be written are refused, naming the option and path") {
    const std::string missing = "/nonexistent-drivestress-dir/out.json";
    CHECK(refusal({"--json", missing, "/tmp"}).find("--json " + missing) != std::string::npos);
    CHECK(refusal({"--json", "/tmp", "/tmp"}).find("is a directory") != std::string::npos);
    CHECK(refusal({"--prom", "/proc/x.prom", "/tmp"}).find("--prom /proc/x.prom") !=
          std::string::npos);
    CHECK(refusal({"--timeseries", missing, "/tmp"}).find("--timeseries") != std::string::npos);
    CHECK(refusal({"--json", "-", "/tmp"}).empty());
    CHECK(refusal({"--json", "/dev/null", "/tmp"}).empty());
}

TEST_CASE("every run is told which files are the results'") {
    auto cmd = parse_command_line({"--json", "/tmp/env_test.json", "--prom", "/tmp/env_test.prom",
                                   "--preset", "desktop", "/tmp"});
    check_environment(cmd);
    const std::vector<std::pair<std::string, std::string>> want{{"--json", "/tmp/env_test.json"},
                                                                {"--prom", "/tmp/env_test.prom"}};
    for (const auto& [label, cfg] : cmd.preset_tests) {
        CAPTURE(label);
        CHECK(cfg.reserved_paths == want);
    }
}

TEST_CASE("--destroy-data must name the --raw-device's device") {
    // Not block devices at all: refused before anything else is looked at.
    const std::string what = refusal({"--raw-device", "/dev/null", "--destroy-data", "/dev/null"});
    CHECK(what.find("/dev/null") != std::string::npos);
}
