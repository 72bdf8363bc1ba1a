#include "report/interference.h"

#include <algorithm>
#include <cstdio>

#include "report/json_report.h"
#include "report/text_parts.h"
#include "report/text_width.h"

namespace ds::report {

namespace {

using units::printf_string;

// Job `job`'s figures in one result of `run` (null: it did not run there).
const model::JobResult* figures_of(const model::Interference& c, const model::InterferenceRun& run,
                                   const model::RunResult& r, unsigned job) {
    for (std::size_t k = 0; k < run.jobs.size() && k < r.jobs.size(); ++k)
        if (run.jobs[k] == job && r.jobs[k].name == c.jobs[job].name) return &r.jobs[k];
    return nullptr;
}

// Its p99: response time where it was paced (completion less when the I/O
// was due), else service time.
double p99_of(const model::JobResult& j) {
    const model::PhaseCounters& k = j.workload.counters;
    if (k.response_latency.count() > 0)
        return static_cast<double>(k.response_latency.value_at_percentile(99));
    return static_cast<double>(j.workload.latency().value_at_percentile(99));
}

void add_samples(InterferenceSide& side, const model::Interference& c,
                 const model::InterferenceRun& run, unsigned job) {
    for (const model::RunResult& r : run.repeats)
        if (const model::JobResult* j = figures_of(c, run, r, job); j && j->workload.seconds > 0) {
            side.iops.push_back(j->workload.iops());
            side.p99_ns.push_back(p99_of(*j));
        }
    side.iops_estimate = stats::estimate(side.iops);
    side.p99_estimate = stats::estimate(side.p99_ns);
}

JobInterference figures_of_job(const model::Interference& c, unsigned job) {
    JobInterference f;
    f.name = c.jobs[job].name;
    f.group = c.jobs[job].group;
    f.paced = c.jobs[job].rate > 0;
    for (const model::InterferenceRun& run : c.runs) {
        const bool alone = run.jobs.size() == 1 && run.jobs.front() == job;
        const bool together = run.jobs.size() > 1 &&
                              std::find(run.jobs.begin(), run.jobs.end(), job) != run.jobs.end();
        if (alone) add_samples(f.alone, c, run, job);
        if (!together) continue;
        add_samples(f.together, c, run, job);
        for (unsigned other : run.jobs)
            if (other != job) f.with.push_back(c.jobs[other].name);
    }
    const InterferenceSide &a = f.alone, &t = f.together;
    if (a.iops.size() >= 2) f.alone_drift_pct = 100 * (a.iops.back() / a.iops.front() - 1);
    if (f.with.empty() || a.iops.empty() || t.iops.empty()) return f;
    if (a.iops_estimate.median > 0) f.iops_ratio = t.iops_estimate.median / a.iops_estimate.median;
    if (a.p99_estimate.median > 0) f.p99_ratio = t.p99_estimate.median / a.p99_estimate.median;
    f.iops_difference = stats::compare(t.iops_estimate, a.iops_estimate);
    f.p99_difference = stats::compare(t.p99_estimate, a.p99_estimate);
    return f;
}

std::string joined(const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names)
        s.append(s.empty() ? "" : ", ").append(n);
    return s;
}

// "5.2k ±2 %" (one sample: "5.2k"); "-" when it did not run.
std::string iops_cell(const stats::Estimate& e) {
    if (e.n == 0) return "-";
    std::string s = units::format_iops(e.median);
    if (e.n >= 2) s.append(printf_string(" ±%.0f %%", e.half_width_pct()));
    return s;
}

std::string p99_cell(const stats::Estimate& e) {
    if (e.n == 0) return "-";
    std::string s = ms(static_cast<std::uint64_t>(e.median));
    if (e.n >= 2) s.append(printf_string(" ±%.0f %%", e.half_width_pct()));
    return s;
}

std::string ratio_cell(double r) {
    return r > 0 ? printf_string("%.2fx", r) : std::string("-");
}

// A row: 2 + 14 + 12 + 12 + 6 + 13 + 13 + 6 + 6 columns, a space between two: 92.
std::string row(const std::string& job, const std::string& ia, const std::string& it,
                const std::string& ir, const std::string& pa, const std::string& pt,
                const std::string& pr, const std::string& drift) {
    return printf_string("  %-14.14s %12s %12s %6s %13s %13s %6s %6s\n", job.c_str(), ia.c_str(),
                         it.c_str(), ir.c_str(), pa.c_str(), pt.c_str(), pr.c_str(), drift.c_str());
}

std::string verdict_words(const std::vector<JobInterference>& jobs, unsigned repeat) {
    const JobInterference* worst = suffered_most(jobs);
    if (!worst) return "no job shared its group with another: nothing to compare";
    const bool outside = worst->p99_difference == stats::Difference::higher;
    if (repeat >= 2 && !outside) {
        const bool iops_moved = std::any_of(jobs.begin(), jobs.end(), [](const auto& j) {
            return j.iops_difference == stats::Difference::lower;
        });
        return iops_moved ? "no job's p99 grew outside the noise together; IOPS fell (see "
                            "the table)"
                          : "no job's IOPS or p99 moved outside the noise together";
    }
    std::string w = printf_string("%s p99 %.1fx under %s", worst->name.c_str(), worst->p99_ratio,
                                  joined(worst->with).c_str());
    if (outside) return w.append(" (outside the noise)");
    return w.append(" (one run each: --repeat 3 or more gives intervals)");
}

nlohmann::json side_json(const InterferenceSide& s) {
    return {{"iops", estimate_json(s.iops_estimate)},
            {"p99_ns", estimate_json(s.p99_estimate)},
            {"iops_samples", s.iops},
            {"p99_ns_samples", s.p99_ns}};
}

}  // namespace

std::vector<JobInterference> interference_figures(const model::Interference& c) {
    std::vector<JobInterference> out;
    for (unsigned j = 0; j < c.jobs.size(); ++j)
        out.push_back(figures_of_job(c, j));
    return out;
}

const JobInterference* suffered_most(const std::vector<JobInterference>& jobs) {
    const JobInterference* worst = nullptr;
    auto outside = [](const JobInterference* j) {
        return j->p99_difference == stats::Difference::higher;
    };
    for (const JobInterference& j : jobs) {
        if (j.with.empty() || j.p99_ratio <= 0) continue;
        if (!worst || (outside(&j) && !outside(worst)) ||
            (outside(&j) == outside(worst) && j.p99_ratio > worst->p99_ratio))
            worst = &j;
    }
    return worst;
}

std::string interference_run_line(const model::Interference& c, std::size_t i) {
    const model::InterferenceRun& run = c.runs[i];
    const model::RunResult& r = run.repeats.back();
    const std::size_t done = (run.repeats.size() - 1) * c.runs.size() + i + 1;
    std::string line =
        printf_string("run %zu/%zu  %-18s", done, c.runs.size() * c.repeat, run.label.c_str());
    for (unsigned job : run.jobs)
        if (const model::JobResult* j = figures_of(c, run, r, job))
            line += printf_string("  %s %s IOPS p99 %s ms", j->name.c_str(),
                                  units::format_iops(j->workload.iops()).c_str(),
                                  ms(static_cast<std::uint64_t>(p99_of(*j))).c_str());
    const model::ExitStatus status = model::exit_status(r);
    if (status != model::ExitStatus::success)
        line.append("  exit ").append(std::to_string(model::code_of(status)));
    return fit(line, 6) + "\n";
}

std::string interference_text(const model::Interference& c) {
    const std::vector<JobInterference> jobs = interference_figures(c);
    std::string intro("interference  each job alone, then with the rest of its group (");
    if (c.repeat > 1)
        intro.append(std::to_string(c.repeat))
            .append(" times, alternated; medians ± the interval's half width");
    else
        intro.append("once: no intervals");
    intro.append("); p99 from when each I/O was due for a paced job (rate_iops)");
    std::string out("\n");
    out.append(fit(intro, 14)).append("\n");
    out +=
        row("job", "IOPS alone", "together", "ratio", "p99 ms alone", "together", "ratio", "drift");
    for (const JobInterference& j : jobs) {
        const bool compared = !j.with.empty();
        out += row(j.name, iops_cell(j.alone.iops_estimate),
                   compared ? iops_cell(j.together.iops_estimate) : "-", ratio_cell(j.iops_ratio),
                   p99_cell(j.alone.p99_estimate),
                   compared ? p99_cell(j.together.p99_estimate) : "-", ratio_cell(j.p99_ratio),
                   j.alone.iops.size() >= 2 ? printf_string("%+.0f %%", j.alone_drift_pct) : "-");
    }
    out.append(fit(std::string("verdict  ").append(verdict_words(jobs, c.repeat)), 9)).append("\n");
    if (c.repeat > 1)
        out += fit("note     a drive's state carries from one run to the next (a flood leaves "
                   "garbage to collect): drift is each job's own IOPS change from its first "
                   "alone run to its last",
                   9) +
               "\n";
    return out;
}

nlohmann::json interference_json(const model::Interference& c) {
    nlohmann::json runs = nlohmann::json::array();
    for (const model::InterferenceRun& run : c.runs) {
        nlohmann::json names = nlohmann::json::array(), statuses = nlohmann::json::array();
        for (unsigned j : run.jobs)
            names.push_back(c.jobs[j].name);
        for (const model::RunResult& r : run.repeats)
            statuses.push_back(model::code_of(model::exit_status(r)));
        runs.push_back({{"label", run.label},
                        {"group", run.group},
                        {"jobs", names},
                        {"exit_codes", statuses}});
    }
    const std::vector<JobInterference> figures = interference_figures(c);
    nlohmann::json jobs = nlohmann::json::array();
    for (const JobInterference& j : figures)
        jobs.push_back({{"name", j.name},
                        {"group", j.group},
                        {"with", j.with},
                        {"paced", j.paced},
                        {"alone", side_json(j.alone)},
                        {"together", side_json(j.together)},
                        {"iops_ratio", j.iops_ratio},
                        {"p99_ratio", j.p99_ratio},
                        {"iops_difference", stats::to_string(j.iops_difference)},
                        {"p99_difference", stats::to_string(j.p99_difference)},
                        {"alone_drift_pct", j.alone_drift_pct}});
    nlohmann::json worst = nullptr;
    if (const JobInterference* w = suffered_most(figures))
        worst = {{"job", w->name},
                 {"under", w->with},
                 {"p99_ratio", w->p99_ratio},
                 {"outside_noise", w->p99_difference == stats::Difference::higher}};
    return {{"repeat", c.repeat},
            {"runs", runs},
            {"jobs", jobs},
            {"suffered_most", worst},
            {"verdict", verdict_words(figures, c.repeat)}};
}

}  // namespace ds::report
