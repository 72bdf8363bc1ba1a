// --interference: the runs of run/interference.h, a line each as it ends
// (a run's whole text report only when it found something), then the table
// of what each job's group cost it.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "modes/live_outputs.h"
#include "report/host_info.h"
#include "report/interference.h"
#include "report/json_report.h"
#include "report/text_width.h"
#include "run/interference.h"

namespace ds::modes {

namespace {

// Run i once more; its line, and its report when it did not pass.
bool one_run(model::Interference& c, std::size_t i, const Output& out) {
    HeldText held;
    report::TextReport text = held_report(out, held);
    if (!run::interference_run(c, i, &text)) return false;
    const model::RunResult& r = c.runs[i].repeats.back();
    const model::ExitStatus status = model::exit_status(r);
    text.finish(c.runs[i].config, r, status, say_run_error(r));
    std::fputs(report::interference_run_line(c, i).c_str(), out.text);
    if (status != model::ExitStatus::success) held.show(out.text);
    std::fflush(out.text);
    return true;
}

// The run whose document --json gives: the first that did worst (its
// mismatches, its error), else the last that ran.
const model::InterferenceRun* documented(const model::Interference& c, std::size_t& repeat) {
    const model::ExitStatus worst = model::exit_status(c);
    const model::InterferenceRun* last = nullptr;
    for (std::size_t k = 0; k < c.repeat; ++k)
        for (const model::InterferenceRun& run : c.runs) {
            if (k >= run.repeats.size()) continue;
            if (model::exit_status(run.repeats[k]) == worst &&
                worst != model::ExitStatus::success) {
                repeat = k;
                return &run;
            }
            last = &run;
            repeat = k;
        }
    return last;
}

}  // namespace

model::ExitStatus run_interference(const cli::ParsedCommandLine& cmd, const Output& out) {
    model::Interference c = run::interference_plan(cmd.config);
    const std::string intro =
        "interference  " + std::to_string(c.runs.size() * c.repeat) + " runs of " +
        cmd.config.job_file + ": each job alone, then each group together" +
        (c.repeat > 1 ? ", " + std::to_string(c.repeat) + " times alternated" : std::string()) +
        "; every run lays out, runs and reverifies its files (seed " +
        std::to_string(c.runs.empty() ? 0 : c.runs.front().config.seed) +
        "); a run's report is shown when it does not pass";
    std::fputs((report::fit(intro, 14) + "\n").c_str(), out.text);
    for (unsigned k = 0; k < c.repeat; ++k)
        for (std::size_t i = 0; i < c.runs.size(); ++i)
            if (!one_run(c, i, out)) break;
    Delivery d(model::exit_status(c));
    std::size_t repeat = 0;
    const model::InterferenceRun* shown = documented(c, repeat);
    if (shown && !cmd.outputs.json.none()) {
        const model::RunResult& r = shown->repeats[repeat];
        auto doc = report::result_json(shown->config, r, report::HostInfo::current());
        doc["interference"] = report::interference_json(c);
        d.json(cmd.outputs.json, std::move(doc), &r);
    }
    std::fputs(report::interference_text(c).c_str(), out.text);
    if (shown && d.first_error().empty())
        std::fputs(report::verdict_line(
                       model::run_evidence(shown->config, shown->repeats[repeat], d.code(),
                                           one_line(shown->repeats[repeat].fatal_error)))
                       .c_str(),
                   out.text);
    d.say_error(out.text);
    return d.code();
}

}  // namespace ds::modes
