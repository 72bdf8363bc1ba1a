#include "report/prometheus.h"

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <ctime>
#include <optional>
#include <utility>
#include <vector>

#include "io/backend.h"
#include "pattern/unit.h"
#include "stats/histogram.h"

namespace ds::report {

namespace {

using Labels = std::vector<std::pair<std::string_view, std::string>>;

// One metric family: its name, help text and rendered sample lines.
struct Family {
    std::string_view name;
    std::string_view help;
    std::vector<std::string> samples;

    void add(const Labels& labels, double value);
};

// Sample values: shortest text that reads back as the same double; the
// exposition format spells the special values NaN, +Inf and -Inf.
std::string format_value(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc{} ? std::string(buf, end) : "NaN";
}

void Family::add(const Labels& labels, double value) {
    std::string line(name);
    if (!labels.empty()) {
        line += '{';
        for (std::size_t i = 0; i < labels.size(); ++i) {
            if (i) line += ',';
            line += labels[i].first;
            line += "=\"";
            line += prometheus_escape_label(labels[i].second);
            line += '"';
        }
        line += '}';
    }
    line += ' ';
    line += format_value(value);
    samples.push_back(std::move(line));
}

// HELP text escapes only backslash and newline.
std::string escape_help(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

double per_second(std::uint64_t v, double s) {
    return s > 0 ? static_cast<double>(v) / s : 0.0;
}

// Seconds since the epoch at which the run ended: started_at ("%FT%TZ", UTC,
// whole seconds) plus its wall time; the current time if started_at is unset.
double ended_at(const run::RunResult& r) {
    std::tm tm{};
    const char* end = r.started_at.empty()
                          ? nullptr
                          : ::strptime(r.started_at.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (end && *end == '\0') return static_cast<double>(::timegm(&tm)) + r.wall_seconds;
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

// A temporary file this process created: removed by the destructor unless
// commit() says it was renamed into place, so a failed write leaves nothing.
}  // namespace

std::string prometheus_escape_label(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::string prometheus_text(const run::RunConfig& cfg, const run::RunResult& r) {
    const std::string target = cfg.target;
    const std::string backend(io::to_string(r.backend.used));

    Family bandwidth{"drivestress_bandwidth_bytes_per_second",
                     "Bytes read and written per second, per phase of the latest iteration.",
                     {}};
    Family iops{"drivestress_iops",
                "Read and write operations per second, per phase of the latest iteration.",
                {}};
    Family p50{"drivestress_latency_p50_seconds",
               "Median operation latency in seconds, per phase of the latest iteration.",
               {}};
    Family p99{"drivestress_latency_p99_seconds",
               "99th percentile operation latency in seconds, per phase of the latest iteration.",
               {}};
    Family max{"drivestress_latency_max_seconds",
               "Largest operation latency in seconds, per phase of the latest iteration.",
               {}};
    Family mismatches{"drivestress_mismatches_total",
                      "Data mismatches and I/O errors found by the run, per class.",
                      {}};
    Family exit_status{"drivestress_exit_status",
                       "Exit status of the run: 0 passed, 1 error, 2 mismatch or I/O error, "
                       "128+N interrupted by signal N.",
                       {}};
    Family last_run{"drivestress_last_run_timestamp_seconds",
                    "Time the run ended, in seconds since the Unix epoch.",
                    {}};

    if (!r.iterations.empty()) {
        const run::IterationResult& it = r.iterations.back();
        const std::string iteration = std::to_string(it.index);
        for (const run::PhaseFigures& p : it.phases) {
            const Labels labels{{"phase", std::string(run::to_string(p.phase))},
                                {"target", target},
                                {"backend", backend},
                                {"iteration", iteration}};
            bandwidth.add(labels, per_second(p.read_bytes + p.write_bytes, p.seconds));
            iops.add(labels, per_second(p.read_ops + p.write_ops, p.seconds));
            // A phase without operations has no latency: no sample rather than
            // a 0 (every completed operation has its latency recorded).
            if (p.read_ops + p.write_ops == 0) continue;
            p50.add(labels, static_cast<double>(p.p50_ns) / 1e9);
            p99.add(labels, static_cast<double>(p.p99_ns) / 1e9);
            max.add(labels, static_cast<double>(p.max_ns) / 1e9);
        }
    }
    for (std::size_t i = 0; i < r.mismatch_totals.size(); ++i) {
        const auto cls = static_cast<pattern::MismatchClass>(i);
        mismatches.add({{"class", std::string(pattern::to_string(cls))},
                        {"target", target},
                        {"backend", backend}},
                       static_cast<double>(r.mismatch_totals[i]));
    }
    // Labelled by target and backend too: the collector merges the files of
    // several runs, and two unlabelled samples of one name would clash.
    const Labels run_labels{{"target", target}, {"backend", backend}};
    exit_status.add(run_labels, run::exit_status(r));
    last_run.add(run_labels, ended_at(r));

    std::string out;
    for (const Family* f :
         {&bandwidth, &iops, &p50, &p99, &max, &mismatches, &exit_status, &last_run}) {
        out += "# HELP ";
        out += f->name;
        out += ' ';
        out += escape_help(f->help);
        out += "\n# TYPE ";
        out += f->name;
        out += " gauge\n";
        for (const auto& s : f->samples) {
            out += s;
            out += '\n';
        }
    }
    return out;
}

}  // namespace ds::report
