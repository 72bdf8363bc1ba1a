// The text report's job as an observer: the events of a run in order, and
// its last lines (damage, mismatch records, summary, verdict).  Each
// feature's rendering lives in the file of its feature (text_parts.h).
#include "report/text_report.h"
#include "report/text_width.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "drivestress_version.h"
#include "model/drift.h"
#include "report/figures.h"
#include "report/job_table.h"
#include "report/progress_line.h"
#include "report/result_line.h"
#include "report/target_table.h"
#include "report/text_parts.h"
#include "units/units.h"

namespace ds::report {

std::string verdict_line(const model::RunEvidence& e) {
    return "result   " + model::verdict_words(e) + " (exit " +
           std::to_string(model::code_of(e.status)) + ")\n";
}

namespace {

using units::printf_string;

}  // namespace

TextReport::TextReport(std::FILE* out, std::FILE* live, HostInfo host)
    : out_(out), live_(live), host_(std::move(host)) {}

void TextReport::iteration_done(const model::IterationResult& it) {
    std::uint64_t n = 0;
    for (const auto& p : it.phases)
        n += p.mismatches;
    mismatches_seen_ += n;
    if (layout_ != Layout::full) return;
    if (!verify_ && n == 0)
        std::fprintf(out_, "  mismatches not counted: nothing verified (%s)\n",
                     nop_ ? "--backend nop" : "--no-verify");
    else if (n == 0)
        std::fprintf(out_, "  mismatches 0\n");
    else  // observations: a damaged unit read by two phases counts twice
        std::fprintf(out_, "  mismatches %" PRIu64 " (reads that found a wrong unit)\n", n);
    std::fflush(out_);
}

std::string sync_compare_table(const model::SyncCompareResult& sc) {
    std::string t = printf_string(
        "\nsync-compare  %s, one durable write at a time (the write, then its flush); "
        "osync/dsync: file opened O_SYNC/O_DSYNC\n",
        sc.direct_io ? "O_DIRECT" : "buffered");
    t += printf_string("  %-10s %-6s %10s %9s %9s %9s  %s\n", "method", "write", "ops/s", "p50 ms",
                       "p99 ms", "max ms", "read back");
    bool groups = false;
    for (const auto& row : sc.rows) {
        if (row.group && !groups) {
            groups = true;
            t += "  O_SYNC, 16K per durable operation written as:\n";
        }
        std::string write = units::format_size_option(row.write_bytes);
        if (row.group) write = std::to_string(row.writes_per_op) + "x" + write;
        const std::string method(model::to_string(row.method));
        if (!row.available) {
            t += printf_string("  %-10s %-6s %10s  %s\n", method.c_str(), write.c_str(), "n/a",
                               row.reason.c_str());
            continue;
        }
        const auto& l = row.latency;
        t += printf_string("  %-10s %-6s %10.1f %9s %9s %9s  %s\n", method.c_str(), write.c_str(),
                           row.ops_per_sec(), ms(l.value_at_percentile(50)).c_str(),
                           ms(l.value_at_percentile(99)).c_str(), ms(l.max()).c_str(),
                           row.mismatches
                               ? printf_string("%" PRIu64 " MISMATCHES", row.mismatches).c_str()
                               : ("ok, " + units::format_bytes(row.verified_bytes)).c_str());
    }
    if (sc.interrupted) t += "  (interrupted)\n";
    return t;
}

namespace {

// The damage in extents: what a person judges the drive by.
void print_damage(std::FILE* out, const model::RunResult& r) {
    if (r.damage.empty()) return;
    std::size_t extents = 0;
    for (const auto& d : r.damage)
        extents += d.extents.size();
    std::fprintf(out,
                 "\ndamage   %" PRIu64
                 " distinct unit%s in %zu extent%s (each extent: offset, "
                 "length, class, reads that saw it)\n",
                 r.damaged_units(), r.damaged_units() == 1 ? "" : "s", extents,
                 extents == 1 ? "" : "s");
    constexpr std::size_t kShown = 20;  // per file; the JSON has them all
    for (const auto& d : r.damage) {
        if (d.truncated_to_bytes)
            std::fprintf(
                out, "  %s: truncated during the run: %" PRIu64 " bytes, should be %" PRIu64 "\n",
                d.path.c_str(), *d.truncated_to_bytes, d.expected_bytes);
        for (std::size_t i = 0; i < d.extents.size() && i < kShown; ++i) {
            const auto& e = d.extents[i];
            std::fprintf(out, "  %s offset %" PRIu64 " +%s %s, %" PRIu64 " read%s\n",
                         d.path.c_str(), e.offset, units::format_bytes(e.length).c_str(),
                         std::string(pattern::to_string(e.cls)).c_str(), e.reads,
                         e.reads == 1 ? "" : "s");
        }
        if (d.extents.size() > kShown)
            std::fprintf(out, "  %s: %zu more extents (in the JSON document)\n", d.path.c_str(),
                         d.extents.size() - kShown);
        if (d.unmerged_observations)
            std::fprintf(out, "  %s: %" PRIu64 " more observations beyond %zu extents per class\n",
                         d.path.c_str(), d.unmerged_observations, model::DamageMap::kMaxExtents);
    }
}

}  // namespace

namespace {

// What one mismatch record says: "corrupt [seq-read, iteration 1] 1 byte
// differs, expected generation 1; header says ...".
std::string record_text(const model::RunResult& r, const model::MismatchRecord& m) {
    std::string detail;
    if (m.cls == pattern::MismatchClass::io_error)
        detail = printf_string("%s failed: %s", std::string(io::to_string(m.op)).c_str(),
                               std::strerror(m.error));
    else if (m.cls == pattern::MismatchClass::short_read)
        detail = "read returned end of file";
    else
        detail = printf_string("%" PRIu64 " %s, expected generation %u", m.bad_bytes,
                               m.bad_bytes == 1 ? "byte differs" : "bytes differ",
                               m.expected_generation);
    if (m.found && m.cls != pattern::MismatchClass::io_error)
        detail += printf_string("; header says file %u offset %" PRIu64 " generation %u%s",
                                m.found->file_index, m.found->offset, m.found->generation,
                                m.found->run_id == r.run_id ? "" : " of another run");
    return std::string(pattern::to_string(m.cls)) + " [" + std::string(model::to_string(m.phase)) +
           ", iteration " + std::to_string(m.iteration) + "] " + detail;
}

// The first mismatch records, after the damage: each damaged place once
// (file, offset, class), as its first read found it, with the later reads
// that found the same named after it.
void print_mismatch_records(std::FILE* out, const model::RunResult& r) {
    if (r.mismatch_records.empty()) return;
    struct Read {  // the later reads of one phase of one iteration
        model::Phase phase;
        std::uint64_t iteration;
        std::uint64_t times;
    };
    struct Place {
        const model::MismatchRecord* first;
        std::vector<Read> also;
    };
    std::vector<Place> places;
    for (const auto& m : r.mismatch_records) {
        auto same = std::find_if(places.begin(), places.end(), [&](const Place& p) {
            return p.first->path == m.path && p.first->offset == m.offset && p.first->cls == m.cls;
        });
        if (same == places.end()) {
            places.push_back({&m, {}});
        } else if (!same->also.empty() && same->also.back().phase == m.phase &&
                   same->also.back().iteration == m.iteration) {
            ++same->also.back().times;
        } else {
            same->also.push_back({m.phase, m.iteration, 1});
        }
    }
    const std::size_t kept = r.mismatch_records.size();
    std::fprintf(out,
                 "\nmismatches (%s reads that found one, each place once; the JSON lists %s)\n",
                 kept < r.mismatch_count()
                     ? printf_string("the first %zu of %" PRIu64, kept, r.mismatch_count()).c_str()
                     : std::to_string(kept).c_str(),
                 kept < r.mismatch_count() ? "those" : "each");
    for (const Place& p : places) {
        const model::MismatchRecord& m = *p.first;
        std::string line =
            printf_string("  %s offset %" PRIu64 " (unit at %" PRIu64 "): ", m.path.c_str(),
                          m.offset, m.unit_offset) +
            record_text(r, m);
        for (std::size_t i = 0; i < p.also.size(); ++i) {
            const Read& a = p.also[i];
            line += (i ? ", " : "  also seen by ") + std::string(model::to_string(a.phase)) +
                    " (iteration " + std::to_string(a.iteration) + ")" +
                    (a.times > 1 ? " x" + std::to_string(a.times) : std::string());
        }
        std::fprintf(out, "%s\n", fit(line, 9).c_str());
    }
}

// "summary  1.7 GiB written, 3.7 GiB read, 3.7 GiB verified in 13.05 s; 0 mismatches".
std::string summary_line(const model::RunConfig& cfg, const model::RunResult& r) {
    const auto totals = r.totals();
    std::string classes;
    for (std::size_t i = 0; i < r.mismatch_totals.size(); ++i)
        if (r.mismatch_totals[i])
            classes += printf_string(
                " %s=%" PRIu64,
                std::string(pattern::to_string(static_cast<pattern::MismatchClass>(i))).c_str(),
                r.mismatch_totals[i]);
    std::string line = "summary  " + units::format_bytes(totals.written) + " written, " +
                       units::format_bytes(totals.read) + " read, ";
    if (!cfg.verify && totals.verified == 0)
        return line + printf_string("not verified (%s) in %.2f s",
                                    cfg.nop ? "--backend nop: no data moved" : "--no-verify",
                                    r.wall_seconds);
    line += units::format_bytes(totals.verified) +
            printf_string(" verified in %.2f s; %" PRIu64 " mismatch%s", r.wall_seconds,
                          r.mismatch_count(), r.mismatch_count() == 1 ? "" : "es");
    if (!classes.empty()) line += " (" + classes.substr(1) + ")";
    // Mismatches count observations (a unit read by two phases counts
    // twice); the damaged units are what the drive lost.
    if (r.mismatch_count())
        line += printf_string(" in %" PRIu64 " damaged unit%s", r.damaged_units(),
                              r.damaged_units() == 1 ? "" : "s");
    return line;
}

// "io-log   /var/tmp/run.ndjson: 123456 operations (ndjson)".
std::string io_log_line(const model::IoLogResult& l) {
    std::string line =
        "io-log   " + l.path +
        printf_string(": %" PRIu64 " operation%s (%s)", l.lines, l.lines == 1 ? "" : "s",
                      l.format == output::IoLogFormat::fio ? "fio iolog version 3" : "ndjson");
    if (!l.error.empty())
        line += "; writing it failed after them (exit 1)";
    else if (l.dropped)
        line +=
            printf_string("; %" PRIu64 " more dropped: the writer could not keep up", l.dropped);
    return line;
}

std::string verdict_text(const model::RunConfig& cfg, const model::RunResult& r,
                         model::ExitStatus code, const std::string& why) {
    return model::verdict_words(model::run_evidence(cfg, r, code, why));
}

}  // namespace

void TextReport::finish(const model::RunConfig& cfg, const model::RunResult& r,
                        model::ExitStatus code, const std::string& why) {
    clear_live();
    // A sweep's random figures are its points: the saturation line stands
    // for them in --brief too.
    if (r.find_rate)
        std::fprintf(out_, "%s\n", fit(find_rate_line(*r.find_rate)).c_str());
    else if (layout_ != Layout::preset_test && !r.sweep.points.empty())
        std::fprintf(out_, "%s\n", fit(knee_line(r.sweep, units_)).c_str());
    if (layout_ == Layout::full) {
        if (r.sync_compare) std::fputs(sync_compare_table(*r.sync_compare).c_str(), out_);
        std::fputs(drift_table(r.drift, r.iterations_run, units_).c_str(), out_);
    }
    // What went wrong is shown whatever the layout.
    print_damage(out_, r);
    print_mismatch_records(out_, r);
    if (layout_ == Layout::full) std::fputs(job_table(r, units_).c_str(), out_);
    if (layout_ != Layout::preset_test)
        std::fputs(target_table(cfg, r, code, units_).c_str(), out_);
    const std::string verdict = verdict_text(cfg, r, code, why);
    if (layout_ == Layout::preset_test) {
        if (!label_.empty())
            std::fprintf(out_, "  %-20s %s (%.2f s)\n", label_.c_str(), verdict.c_str(),
                         r.wall_seconds);
        std::fflush(out_);
        return;
    }
    if (layout_ == Layout::full) std::fprintf(out_, "\n%s\n", fit(summary_line(cfg, r), 9).c_str());
    if (!r.state_path.empty())
        std::fprintf(out_, "kept     %zu file%s and %s (delete them when done)\n",
                     r.file_paths.size(), r.file_paths.size() == 1 ? "" : "s",
                     r.state_path.c_str());
    if (r.io_log) std::fprintf(out_, "%s\n", fit(io_log_line(*r.io_log), 9).c_str());
    if (!section_.empty() || whole_preset_) {  // one verdict for all the runs follows
        std::fflush(out_);
        return;
    }
    if (!r.merged_phases.empty())
        std::fprintf(out_, "%s\n", clauses(result_line(cfg, r, units_), 9).c_str());
    std::fprintf(
        out_, "%s\n",
        fit("result   " + verdict + " (exit " + std::to_string(model::code_of(code)) + ")", 9)
            .c_str());
    std::fflush(out_);
}

}  // namespace ds::report
