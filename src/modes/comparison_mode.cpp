#include <memory>
#include <vector>

#include "modes/live_outputs.h"
#include "report/backend_comparison.h"
#include "report/host_info.h"
#include "report/json_report.h"
#include "report/json_snapshot.h"
#include "run/compare_backends.h"

namespace ds::modes {

namespace {

// A section's title: the run and the operations each worker keeps in flight;
// `atomic_pair`: --compare-atomic's rows (the atomic one's writes RWF_ATOMIC).
std::string section_title(const model::ComparedRun& r, bool atomic_pair) {
    const model::RunConfig& c = r.config;
    if (atomic_pair)
        return r.label +
               (c.atomic ? ": every write RWF_ATOMIC" : ": the same writes without RWF_ATOMIC") +
               ", qd " + std::to_string(c.qd) + " per worker";
    if (c.backend == model::BackendChoice::sync)
        return r.label + ": " +
               (c.qd > 1 ? std::to_string(c.qd) +
                               " threads per worker, each in a blocking "
                               "pread/pwrite"
                         : std::string("one blocking pread/pwrite per worker, no thread pool"));
    return r.label + ": qd " + std::to_string(c.qd) + " per worker, one ring each" +
           (c.sqpoll ? ", SQPOLL" : "");
}

// Row i's next repeat: its line, and its whole report when it did not
// pass (its damage's offsets, its error).  False when no run is left.
bool later_repeat(model::BackendComparison& cmp, std::size_t i, const Output& out) {
    HeldText held;
    report::TextReport text = held_report(out, held);
    text.set_section(section_title(cmp.runs[i], cmp.atomic) + ", repeat " +
                         std::to_string(cmp.runs[i].repeats.size() + 1),
                     false, "");
    if (!run::compare_run(cmp, i, &text)) return false;
    const model::RunResult& r = cmp.runs[i].repeats.back();
    const model::ExitStatus status = model::exit_status(r);
    text.finish(cmp.runs[i].config, r, status, say_run_error(r));
    std::fputs(report::repeat_line(cmp, i, out.units).c_str(), out.text);
    if (status != model::ExitStatus::success) held.show(out.text);
    return true;
}

// The run whose document --json gives and whose evidence the verdict
// weighs: the first (in run order) that did worst, else the first row's
// first repeat.
const model::RunResult& documented(const model::BackendComparison& cmp,
                                   const model::RunConfig*& config) {
    const model::ExitStatus worst = model::exit_status(cmp);
    config = &cmp.runs[0].config;
    if (worst != model::ExitStatus::success)
        for (std::size_t k = 0; k < cmp.repeat; ++k)
            for (const model::ComparedRun& row : cmp.runs)
                if (k < row.repeats.size() && model::exit_status(row.repeats[k]) == worst) {
                    config = &row.config;
                    return row.repeats[k];
                }
    return cmp.runs[0].result;
}

}  // namespace

model::ExitStatus run_comparison(const cli::ParsedCommandLine& cmd, const Output& out) {
    const output::OutputPath& json = cmd.outputs.json;
    model::BackendComparison cmp = run::comparison_plan(cmd.config);
    std::vector<report::TextReport> texts;
    texts.reserve(cmp.runs.size());
    for (std::size_t i = 0; i < cmp.runs.size(); ++i) {
        texts.push_back(text_report(out));
        const char* intro = cmp.atomic ? "compare  the same workload and seed with every write "
                                         "RWF_ATOMIC, then without, at the same depth and sizes"
                                       : "compare  the same workload and seed on each backend "
                                         "below, at the same operations in flight per worker";
        texts.back().set_section(section_title(cmp.runs[i], cmp.atomic), i == 0,
                                 i == 0 ? intro : "");
    }
    // --json is the first row's document (io_uring's, atomic's): rewritten
    // while that run goes on.
    report::JsonSnapshotWriter snapshots(json, report::HostInfo::current(), stderr);
    model::ObserverList uring_observers({&snapshots, &texts[0]});
    // Each section ends with its run's summary.  --repeat: the later
    // repeats, interleaved row by row, get a line each.
    for (std::size_t i = 0; i < cmp.runs.size(); ++i) {
        model::RunObserver* observer = &texts[i];
        if (i == 0) observer = &uring_observers;
        if (!run::compare_run(cmp, i, observer)) break;
        const model::RunResult& r = cmp.runs[i].result;
        texts[i].finish(cmp.runs[i].config, r, model::exit_status(r), say_run_error(r));
    }
    for (unsigned r = 1; r < cmp.repeat; ++r)
        for (std::size_t i = 0; i < cmp.runs.size(); ++i)
            if (!later_repeat(cmp, i, out)) break;
    Delivery d(model::exit_status(cmp));
    // --fio-json: each row that ran is a job (and a group) of its own.
    std::vector<report::FioRunRef> rows;
    for (const model::ComparedRun& row : cmp.runs)
        if (row.ran) rows.push_back({row.label, &row.config, &row.result});
    deliver_fio_json(cmd.outputs, d, rows);
    const model::RunConfig* config = nullptr;
    const model::RunResult& shown = documented(cmp, config);
    if (!json.none()) {
        auto doc = report::result_json(*config, shown, report::HostInfo::current());
        if (cmp.runs[1].ran)
            doc[cmp.atomic ? "compare_atomic" : "compare_backends"] = report::comparison_json(cmp);
        d.json(json, std::move(doc), &shown);
    }
    if (cmp.runs[1].ran) std::fputs(report::comparison_text(cmp, out.units).c_str(), out.text);
    // The result line names the documented run's own error (the filesystem
    // full); an output that could not be delivered is said by say_error.
    if (d.first_error().empty())
        std::fputs(report::verdict_line(
                       model::run_evidence(*config, shown, d.code(), one_line(shown.fatal_error)))
                       .c_str(),
                   out.text);
    d.say_error(out.text);
    return d.code();
}

}  // namespace ds::modes
