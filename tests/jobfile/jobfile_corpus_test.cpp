// fio's own examples (Debian's fio-examples, /usr/share/doc/fio/examples):
// each parses into jobs or is refused in one line naming file:line:option,
// and docs/jobs.md records which, and why, exactly as the reader does now.
// Without the package the test says so and passes.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "jobfile/job_file.h"
#include "tests/jobfile/doc_block.h"
#include "tests/jobfile/fio_examples.h"
#include "tests/jobfile/jobfile_paths.h"  // DS_JOBS_DOC, DS_FIO_EXAMPLES

using namespace ds::jobfile;

namespace {

namespace fs = std::filesystem;

// No ${VAR} is set and fio's keywords are fixed: the outcome is the same anywhere.
Environment fixed_env() {
    Environment env;
    env.variable = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
    env.pagesize = std::string("4096");  // not = "..": GCC 12 -Wrestrict
    env.mb_memory = std::string("16384");
    env.ncpus = std::string("8");
    return env;
}

// "N jobs" (with numjobs copies), or the refusal without the directory.
std::string outcome(const fs::path& file) {
    std::istringstream no_stdin;
    try {
        std::vector<Job> jobs = read_job_file(file.string(), no_stdin, fixed_env());
        std::size_t copies = 0;
        for (const Job& j : jobs)
            copies += j.numjobs;
        std::string s = std::to_string(jobs.size()) + (jobs.size() == 1 ? " job" : " jobs");
        if (copies != jobs.size()) s += " (" + std::to_string(copies) + " with numjobs)";
        return s;
    } catch (const JobFileError& e) {
        std::string line = e.what();
        CHECK_MESSAGE(line.find('\n') == std::string::npos, line);
        CHECK_MESSAGE(e.where().line != 0, line, ": no line");
        CHECK_MESSAGE(!e.option().empty(), line, ": no option");
        CHECK_MESSAGE(line.starts_with(file.string() + ":"), line);
        return "refused: " + line.substr(file.parent_path().string().size() + 1);
    }
}

}  // namespace

TEST_CASE("fio's examples parse or are refused in one line, as docs/jobs.md says") {
    const std::vector<fs::path> files = jobfile_test::fio_examples();
    if (files.empty()) return;
    std::string table = "| example | what the reader makes of it |\n|---|---|\n";
    std::size_t parsed = 0;
    for (const fs::path& f : files) {
        std::string o = outcome(f);
        parsed += !o.starts_with("refused");
        table += "| `" + f.filename().string() + "` | " + o + " |\n";
    }
    MESSAGE(parsed, " of ", files.size(), " examples parse");
    CHECK_MESSAGE(jobfile_test::documented_block(DS_JOBS_DOC, "<!-- fio examples:", table) == table,
                  "docs/jobs.md's table of fio's examples differs; it is:\n", table);
}
