// fio's own examples (Debian's fio-examples, /usr/share/doc/fio/examples)
// through the reader and the mapper: each maps onto the engine's jobs or is
// refused in one line naming one option; the ones that map today must keep
// mapping.  Without the package the test says so and passes.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli/job_file_jobs.h"
#include "jobfile/job_file.h"
#include "model/plan.h"
#include "tests/jobfile/fio_examples.h"
#include "tests/jobfile/jobfile_paths.h"  // DS_FIO_EXAMPLES

using namespace ds;

namespace {

namespace fs = std::filesystem;

// The examples that map today (the rest are refused, by the reader or the
// mapper); a change that refuses one of them fails here.
const char* const kMapping[] = {
    "aio-read.fio",       "basic-verify.fio", "fio-rand-RW.fio",   "fio-rand-read.fio",
    "fio-rand-write.fio", "fio-seq-read.fio", "fio-seq-write.fio", "fsx.fio",
    "null.fio",           "rand-zones.fio",   "ssd-test.fio",      "tiobench-example.fio",
    "zipf.fio",
};

jobfile::Environment fixed_env() {
    jobfile::Environment env;
    env.variable = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
    env.pagesize = std::string("4096");  // not = "..": GCC 12 -Wrestrict
    env.mb_memory = std::string("16384");
    env.ncpus = std::string("8");
    return env;
}

// A TARGET given; every /dev/ path a 64 GiB block device, nothing else there.
cli::JobFileContext fixed_context() {
    cli::JobFileContext ctx;
    ctx.target = "/scratch";
    ctx.look = [](const std::string& path) -> std::optional<cli::PathFacts> {
        if (path.starts_with("/dev/")) return cli::PathFacts{64ULL << 30, true};
        return std::nullopt;
    };
    return ctx;
}

// "" when it maps, else the refusal (checked to be one line naming an option).
std::string outcome(const fs::path& file) {
    std::istringstream no_stdin;
    try {
        std::vector<jobfile::Job> jobs =
            jobfile::read_job_file(file.string(), no_stdin, fixed_env());
        cli::JobFileJobs m = cli::jobs_from_job_file(jobs, fixed_context());
        CHECK(m.jobs.size() == jobs.size());
        // The plan takes what the mapping makes (its per-file rules, ranges).
        const model::RunPlan plan = model::make_run_plan(model::RunConfig{}, m.jobs, {8, 512});
        CHECK(plan.jobs.size() == m.jobs.size());
        return "";
    } catch (const jobfile::JobFileError& e) {
        std::string line = e.what();
        CHECK_MESSAGE(line.find('\n') == std::string::npos, line);
        CHECK_MESSAGE(!e.option().empty(), line, ": no option");
        CHECK_MESSAGE(line.starts_with(file.string() + ":"), line);
        return line;
    }
}

}  // namespace

TEST_CASE("fio's examples map onto the engine's jobs or are refused naming one option") {
    const std::vector<fs::path> files = jobfile_test::fio_examples();
    if (files.empty()) return;
    std::vector<std::string> mapping;
    for (const fs::path& f : files) {
        const std::string o = outcome(f);
        if (o.empty())
            mapping.push_back(f.filename().string());
        else
            MESSAGE("refused: ", o);
    }
    MESSAGE(mapping.size(), " of ", files.size(), " examples map, ", files.size() - mapping.size(),
            " are refused");
    for (const char* name : kMapping) {
        CAPTURE(name);
        CHECK(std::find(mapping.begin(), mapping.end(), name) != mapping.end());
    }
}
