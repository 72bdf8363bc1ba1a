// libFuzzer target for the fio job-file reader (ds::jobfile): the input up
// to its first NUL byte is a job file, the lines after it are --job-set
// overrides.  The reader must return jobs or throw JobFileError (one line);
// any other exception, a crash, a sanitizer report or jobs that break the
// reader's promises (checked below) is a finding.  Includes are off: the
// target opens no file.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "jobfile/job_file.h"

namespace {

std::string_view g_input;  // for the finding message

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "fuzz_jobfile: %s; input (%zu bytes): '%.*s'\n", what, g_input.size(),
                 static_cast<int>(g_input.size() > 400 ? 400 : g_input.size()), g_input.data());
    std::abort();
}

ds::jobfile::Environment fixed_env() {
    ds::jobfile::Environment env;
    env.variable = [](const std::string& name) -> std::optional<std::string> {
        if (name == "BS") return std::string("4k");
        if (name == "SIZE") return std::string("50%");
        return std::nullopt;
    };
    env.pagesize = std::string("4096");  // not = "..": GCC 12 -Wrestrict
    env.mb_memory = std::string("16384");
    env.ncpus = std::string("8");
    env.includes = false;
    return env;
}

// What job_file.h promises of the jobs it returns.
void check_jobs(const std::vector<ds::jobfile::Job>& jobs) {
    if (jobs.empty()) finding("no jobs returned");
    std::size_t copies = 0;
    int group = 0;
    for (const auto& j : jobs) {
        copies += j.numjobs;
        if (j.numjobs < 1) finding("numjobs below 1");
        if (j.group < group || j.group > group + 1) finding("groups not in order");
        group = j.group;
        if (j.rwmixread > 100) finding("rwmixread above 100");
        for (int d = 0; d < 3; ++d) {
            if (j.bs[d] == 0) finding("a block size of 0");
            unsigned sum = 0;
            for (const auto& b : j.bssplit[d])
                sum += b.percent;
            if (!j.bssplit[d].empty() && sum != 100) finding("bssplit not 100%");
            if (j.bsrange[d] && j.bsrange[d]->min > j.bsrange[d]->max) finding("bsrange backwards");
        }
        if (j.size.percent && (*j.size.percent < 1 || *j.size.percent > 100))
            finding("size percent out of 1..100");
        if (!j.filenames.empty() && j.nrfiles != j.filenames.size()) finding("nrfiles != names");
    }
    if (copies > ds::jobfile::kMaxJobs) finding("more than 4096 jobs");
}

void check_error(const ds::jobfile::JobFileError& e) {
    std::string_view line = e.what();
    if (line.find('\n') != std::string_view::npos) finding("an error of several lines");
    if (!line.starts_with("fuzz.fio") && !line.starts_with("--job-set"))
        finding("an error that names no file");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string input(reinterpret_cast<const char*>(data), size);
    g_input = input;
    std::size_t nul = input.find('\0');
    std::string text = input.substr(0, nul);
    std::vector<std::string> overrides;
    if (nul != std::string::npos) {
        std::string rest = input.substr(nul + 1);
        for (std::size_t start = 0; start <= rest.size() && overrides.size() < 8;) {
            std::size_t end = rest.find('\n', start);
            overrides.push_back(rest.substr(start, end - start));
            if (end == std::string::npos) break;
            start = end + 1;
        }
    }
    try {
        auto jobs = ds::jobfile::parse_job_text(text, "fuzz.fio", fixed_env());
        check_jobs(jobs);
        if (!overrides.empty()) {
            ds::jobfile::apply_job_set(jobs, overrides);
            check_jobs(jobs);
        }
    } catch (const ds::jobfile::JobFileError& e) {
        check_error(e);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_jobfile: unexpected exception: %s\n", e.what());
        finding("exception other than JobFileError");
    } catch (...) {
        finding("non-standard exception");
    }
    return 0;
}
