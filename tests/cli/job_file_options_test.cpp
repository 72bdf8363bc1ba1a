// --job-file and --job-set on the command line: what they record, and the
// options that describe a workload of their own refused beside them, each
// in one line naming it (the file itself is read before the run,
// modes/job_file_run.h; tests/e2e/test_job_file.py runs it).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli/command_line.h"

using ds::cli::parse_command_line;
using ds::cli::UsageError;
using Args = std::vector<std::string>;

namespace {

std::string usage_error(const Args& args) {
    try {
        parse_command_line(args);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("--job-file and --job-set are recorded as given, in order") {
    const auto cmd = parse_command_line(
        {"--job-file", "mix.fio", "--job-set", "runtime=2", "--job-set", "size=64M", "dir"});
    CHECK(cmd.config.job_file == "mix.fio");
    CHECK(cmd.config.job_set == std::vector<std::string>{"runtime=2", "size=64M"});
    CHECK(cmd.config.target == "dir");
    CHECK(!cmd.config.jobs);  // mapped before the run, not while parsing
    CHECK(parse_command_line({"dir"}).config.job_file.empty());
}

TEST_CASE("an option that describes the workload is refused beside --job-file, by name") {
    for (const Args& extra : {Args{"--qd", "4"}, Args{"--rand-block", "8K"}, Args{"--size", "1G"},
                              Args{"--backend", "sync"}, Args{"--keep"}, Args{"--files", "2"},
                              Args{"--sweep", "qd=1,2"}, Args{"--preset", "database"}}) {
        Args args{"--job-file", "mix.fio"};
        args.insert(args.end(), extra.begin(), extra.end());
        const std::string msg = usage_error(args);
        CAPTURE(msg);
        CHECK(msg.starts_with("--job-file and " + extra.front() + ": the job file describes"));
    }
    // What does not describe the workload goes with it.
    CHECK(usage_error({"--job-file", "mix.fio", "--rand-time", "5", "--json", "r.json",
                       "--iterations", "2", "--wide"}) == "");
}

TEST_CASE("--job-set needs --job-file and KEY=VALUE; --job-file one TARGET") {
    CHECK(usage_error({"--job-set", "runtime=2"}) == "--job-set works with --job-file");
    CHECK(usage_error({"--job-file", "f", "--job-set", "runtime"}) ==
          "--job-set 'runtime': not KEY=VALUE");
    CHECK(usage_error({"--job-file", "f", "--job-set", "=2"}) == "--job-set '=2': not KEY=VALUE");
    CHECK(usage_error({"--job-file", "", "d"}) == "--job-file: empty path");
    CHECK(usage_error({"--job-file", "f", "a", "b"}) ==
          "--job-file works with one TARGET directory");
}
