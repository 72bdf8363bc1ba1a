// Where the results go and what they hold: --json, --fio-json, --timeseries
// and its --interval, --prom with its labels and pace, --io-log, the text
// report's --brief, --wide, --units and --progress, --iteration-detail and
// --latency-thresholds.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cli/options_reader.h"

namespace ds::cli {

std::vector<std::pair<std::string, std::string>> Outputs::files() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [option, path] : {std::pair{"--json", &json},
                                       {"--fio-json", &fio_json},
                                       {"--timeseries", &timeseries},
                                       {"--prom", &prom},
                                       {"--io-log", &io_log}})
        if (path->is_path()) out.emplace_back(option, path->text());
    return out;
}

}  // namespace ds::cli

namespace ds::cli::detail {

// --json, --fio-json, --timeseries, --prom and what goes with them, --progress.
void read_outputs(const Options& o, const char* comparison, Outputs& out) {
    for (const char* name : {"json", "fio-json"}) {
        if (!o.given(name)) continue;
        const output::OutputPath path(o.text(name));
        if (path.none()) throw UsageError(Options::opt(name) + ": empty path");
        (std::string(name) == "json" ? out.json : out.fio_json) = path;
    }
    for (const char* name : {"timeseries", "prom"}) {
        if (!o.given(name)) continue;
        const std::string opt = Options::opt(name);
        if (comparison)
            throw UsageError(opt + " works with a single run or --preset, not with " + comparison);
        const output::OutputPath path(o.text(name));
        if (path.none()) throw UsageError(opt + ": empty path");
        if (path.is_stdout()) throw UsageError(opt + ": give a file path ('-' is for --json)");
        (std::string(name) == "prom" ? out.prom : out.timeseries) = path;
    }
    const bool prom = o.given("prom");
    std::set<std::string> seen;
    for (const auto& item : o.texts("prom-label")) {
        if (!prom) throw UsageError("--prom-label needs --prom (the labels go on its metrics)");
        const auto eq = item.find('=');
        if (eq == std::string::npos)
            throw UsageError("--prom-label: '" + item + "' is not KEY=VALUE (e.g. rack=r12)");
        std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        // (The exposition format's rules for names and values are the report
        // layer's: the program checks them right after parsing.)
        if (!seen.insert(key).second) throw UsageError("--prom-label: '" + key + "' given twice");
        out.prom_labels.emplace_back(std::move(key), std::move(value));
    }
    if (o.given("prom-interval") && !prom)
        throw UsageError("--prom-interval needs --prom (it says how often that file is rewritten)");
    out.prom_interval_s = o.duration("prom-interval");
    if (out.prom_interval_s < 0.1)
        throw UsageError("--prom-interval: '" + o.text("prom-interval") +
                         "' is below 100ms (the run looks about ten times a second)");
    out.brief = o.flag("brief");
    out.wide = o.flag("wide");
    const std::string& byte_units = o.text("units");
    if (byte_units == "iec")
        out.units = units::ByteUnits::iec;
    else if (byte_units == "si")
        out.units = units::ByteUnits::si;
    else
        throw UsageError("--units: '" + byte_units + "' is not one of iec, si");
    const std::string& progress = o.text("progress");
    if (progress == "auto")
        out.progress = ProgressMode::automatic;
    else if (progress == "always")
        out.progress = ProgressMode::always;
    else if (progress == "never")
        out.progress = ProgressMode::never;
    else
        throw UsageError("--progress: '" + progress + "' is not one of auto, always, never");
}

// --interval: the length of a --timeseries line, 100ms to 60s.
void read_interval(const Options& o, model::RunConfig& c) {
    c.interval_s = o.duration("interval");
    if (o.given("interval") && !o.given("timeseries"))
        throw UsageError("--interval needs --timeseries (it is the length of that file's lines)");
    if (c.interval_s < 0.1 || c.interval_s > 60)
        throw UsageError("--interval: '" + o.text("interval") + "' is not between 100ms and 60s");
}

// --iteration-detail N: the last N iterations kept in full in --json.
void read_iteration_detail(const Options& o, model::RunConfig& c) {
    c.iteration_detail = o.count("iteration-detail", 0, kMaxIterationDetail);
}

// --latency-thresholds: the durations the report counts slower operations
// against.
void read_latency_thresholds(const Options& o, model::RunConfig& c) {
    c.latency_thresholds_s.clear();
    // The seed tool's thresholds, for comparing with its reports: every
    // request of an SSD is faster than both, so they are not the default.
    if (o.text("latency-thresholds") == "seed") {
        c.latency_thresholds_s = {2, 10};
        return;
    }
    for (const auto& item :
         with_option("--latency-thresholds", o.text("latency-thresholds"),
                     [](const std::string& t) { return units::split_list(t); })) {
        const double s = with_option("--latency-thresholds", item,
                                     [](const std::string& t) { return units::parse_duration(t); });
        if (s <= 0)
            throw UsageError("--latency-thresholds: '" + item + "' must be greater than zero");
        c.latency_thresholds_s.push_back(s);
    }
}

// --io-log PATH and --io-log-format: the log of one run, so not of the modes
// that make several (each would replace the last one's log).
void read_io_log(const Options& o, model::RunConfig& c) {
    if (!o.given("io-log")) {
        if (o.given("io-log-format"))
            throw UsageError("--io-log-format needs --io-log PATH (it is that file's format)");
        return;
    }
    const std::string& path = o.text("io-log");
    if (path.empty()) throw UsageError("--io-log: empty path");
    if (path == "-") throw UsageError("--io-log: give a file path ('-' is for --json)");
    for (const char* name : {"compare-backends", "compare-atomic", "sync-compare"})
        if (o.given(name))
            throw UsageError("--io-log and " + Options::opt(name) +
                             " both given: --io-log records a single run's operations");
    if (c.repeat > 1)
        throw UsageError(
            "--io-log and --repeat both given: --io-log records a single run's "
            "operations");
    const std::string& format = o.text("io-log-format");
    if (format == "ndjson")
        c.io_log_format = output::IoLogFormat::ndjson;
    else if (format == "fio")
        c.io_log_format = output::IoLogFormat::fio;
    else
        throw UsageError("--io-log-format: '" + format + "' is not one of ndjson, fio");
    c.io_log = path;
}

// Whether a run has a random phase: what --fio-json writes (report/fio_jobs.h).
bool runs_random_phase(const model::RunConfig& c) {
    return !c.sync_compare && c.has_phase(model::Phase::random) &&
           (c.rand_ops || c.rand_time_s > 0 || !c.replay.empty());
}

// --fio-json writes the random phase of each run (a preset: of each test
// that has one), so a command line without any has nothing to write.
void check_fio_json(const Options& o, const std::vector<const model::RunConfig*>& runs) {
    if (!o.given("fio-json")) return;
    for (const model::RunConfig* c : runs)
        if (runs_random_phase(*c)) return;
    throw UsageError(
        "--fio-json writes the random phase's figures as fio's JSON+, and this run has no "
        "random phase (--phases with random, --rand-time > 0; not --sync-compare)");
}

}  // namespace ds::cli::detail
