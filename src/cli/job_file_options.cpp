// --job-file FILE and --job-set KEY=VALUE: the run's jobs come from a fio
// job file (read and mapped before the run, modes/job_file_run.h), so the
// options that describe the options' own workload are refused beside it,
// each in one line naming it.
#include <algorithm>
#include <string>
#include <string_view>

#include "cli/options_reader.h"

namespace ds::cli::detail {

namespace {

// What the job file says instead, or what runs of jobs do not take yet:
// long names, one space between them; --preset first (its tests give others).
constexpr std::string_view kNotWithJobFile =
    "preset size files qd backend seq-block rand-block unit read-pct trim-pct distribution "
    "compress dedupe rand-ops rate arrivals replay replay-speed replay-loops "
    "replay-max-bytes replay-wrap seq-time phases recreate buffered no-verify cpus "
    "batch sync sync-every atomic sync-compare io-log io-log-format sweep find-rate "
    "repeat knee-gain steady-state steady-window steady-max-rounds sustained-write "
    "cliff-interval cliff-recovery compare-backends compare-extra compare-atomic keep "
    "raw-device destroy-data path size-mb mixed-sec no-direct";

// --interference: the runs it makes keep only the --json document and the
// text; the other result files follow one run.
constexpr std::string_view kNotWithInterference = "fio-json timeseries io-log prom";

void read_interference(const Options& o, model::RunConfig& c) {
    c.interference = o.flag("interference");
    if (!c.interference) return;
    if (!o.given("job-file"))
        throw UsageError(
            "--interference compares a job file's jobs alone and together; add "
            "--job-file FILE");
    for (std::size_t at = 0; at < kNotWithInterference.size();) {
        const std::size_t end =
            std::min(kNotWithInterference.find(' ', at), kNotWithInterference.size());
        const std::string name(kNotWithInterference.substr(at, end - at));
        at = end + 1;
        if (o.given(name.c_str()))
            throw UsageError("--interference and --" + name +
                             ": not yet; --json has every job alone and together");
    }
}

}  // namespace

void read_job_file(const Options& o, model::RunConfig& c) {
    read_interference(o, c);
    if (!o.given("job-file")) {
        if (o.given("job-set")) throw UsageError("--job-set works with --job-file");
        return;
    }
    for (std::size_t at = 0; at < kNotWithJobFile.size();) {
        const std::size_t end = std::min(kNotWithJobFile.find(' ', at), kNotWithJobFile.size());
        const std::string name(kNotWithJobFile.substr(at, end - at));
        at = end + 1;
        if (name == "repeat" && c.interference) continue;  // the sequence's repeats
        if (o.given(name.c_str()))
            throw UsageError("--job-file and --" + name +
                             ": the job file describes the run (--job-set KEY=VALUE sets a "
                             "fio option in every job)");
    }
    if (c.target_count() > 1) throw UsageError("--job-file works with one TARGET directory");
    c.job_file = o.text("job-file");
    if (c.job_file.empty()) throw UsageError("--job-file: empty path");
    c.job_set = o.texts("job-set");
    for (const std::string& kv : c.job_set)
        if (kv.find('=') == std::string::npos || kv.front() == '=')
            throw UsageError("--job-set '" + kv + "': not KEY=VALUE");
}

}  // namespace ds::cli::detail
