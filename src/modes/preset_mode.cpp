#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "metrics/timeseries.h"
#include "model/errors.h"
#include "modes/live_outputs.h"
#include "report/host_info.h"
#include "report/json_report.h"
#include "report/json_snapshot.h"
#include "report/preset_report.h"
#include "targets/target.h"

namespace ds::modes {

namespace {

// The whole preset's space, checked before its first test: the test that
// needs the most (tests run one after another, each removing its files)
// is set up as its run would be (directory, names, free space, the lock)
// and let go, so a preset that cannot finish refuses before writing
// anything, naming that test.
void check_preset_space(const cli::ParsedCommandLine& cmd) {
    const auto& tests = cmd.preset_tests;
    std::size_t biggest = tests.size();
    std::uint64_t most = 0;
    for (std::size_t i = 0; i < tests.size(); ++i) {
        const model::RunConfig& c = tests[i].second;
        if (!c.raw_device.empty()) continue;  // raw regions are checked against the device
        std::uint64_t need = 0;
        if (__builtin_mul_overflow(c.file_bytes, std::uint64_t{c.files}, &need))
            need = std::numeric_limits<std::uint64_t>::max();
        if (biggest == tests.size() || need > most) {
            biggest = i;
            most = need;
        }
    }
    if (biggest == tests.size()) return;
    try {
        const targets::Target check(tests[biggest].second);
    } catch (const model::SetupError& e) {
        throw model::SetupError("--preset " + cmd.preset + ", test " + tests[biggest].first + ": " +
                                e.what() + " (checked before the first test)");
    }
}

}  // namespace

namespace {

// After the tests: the result files, the preset's table and the verdict.
model::ExitStatus deliver(const cli::ParsedCommandLine& cmd, const Output& out,
                          model::ExitStatus code, metrics::TimeseriesWriter* timeseries,
                          metrics::PromTextfile* prom, const report::PresetResults& results,
                          const std::vector<model::RunConfig>& configs,
                          model::RunEvidence& all_tests) {
    const output::OutputPath& json = cmd.outputs.json;
    Delivery d(code);
    if (timeseries)
        if (std::string e = timeseries->finish(); !e.empty()) d.failed(e);
    finish_prom(prom, d);
    // --fio-json: each test's random phase a job (and a group) of its own.
    std::vector<report::FioRunRef> tests;
    for (std::size_t i = 0; i < results.size(); ++i)
        tests.push_back({results[i].first, &configs[i], &results[i].second});
    deliver_fio_json(cmd.outputs, d, tests);
    if (!json.none()) {
        const report::HostInfo host = report::HostInfo::current();
        auto doc =
            report::result_json(cmd.preset_tests.front().second, results.front().second, host);
        doc["preset"] = report::preset_json(cmd.preset, results, &configs, &host);
        d.json(json, std::move(doc), &results.front().second);
    }
    std::fputs(report::preset_table(cmd.preset, results, out.units).c_str(), out.text);
    all_tests.status = d.code();
    all_tests.error = "a test could not go on";
    if (d.first_error().empty()) std::fputs(report::verdict_line(all_tests).c_str(), out.text);
    d.say_error(out.text);
    return d.code();
}

}  // namespace

model::ExitStatus run_preset(const cli::ParsedCommandLine& cmd, const Output& out) {
    check_preset_space(cmd);
    const output::OutputPath& json = cmd.outputs.json;
    report::PresetResults results;
    model::ExitStatus code = model::ExitStatus::success;
    model::RunEvidence all_tests;  // the verdict's evidence over every test
    // One textfile for the whole preset: each test's series carry its label.
    auto prom = prom_textfile(cmd);
    // One --timeseries stream too: each line names its test.
    std::unique_ptr<metrics::TimeseriesWriter> timeseries;
    if (!cmd.outputs.timeseries.none())
        timeseries = std::make_unique<metrics::TimeseriesWriter>(cmd.outputs.timeseries.text());
    // --json is the first test's document (burn-in's only test): rewritten
    // while that test goes on.
    report::JsonSnapshotWriter snapshots(json, report::HostInfo::current(), stderr);
    std::vector<model::RunConfig> configs;
    for (const auto& [label, test_cfg] : cmd.preset_tests) {
        // A line per test as it ends (the header before the first); the
        // preset's table follows.  --brief: the table only.
        auto text = text_report(out);
        // A preset that is one run of many iterations (burn-in) reports
        // like that run: iterations, bytes verified, drift.
        if (cmd.preset_tests.size() == 1 && test_cfg.iterations != 1 && !out.brief)
            text.set_whole_preset(true);
        else
            text.set_layout(report::TextReport::Layout::preset_test, out.brief ? "" : label,
                            results.empty() && !out.brief);
        if (results.empty() && !out.brief)
            std::fprintf(out.text, "preset %s: %zu test%s\n", cmd.preset.c_str(),
                         cmd.preset_tests.size(), cmd.preset_tests.size() == 1 ? "" : "s");
        std::vector<model::RunObserver*> observers{&text};
        if (results.empty()) observers.insert(observers.begin(), &snapshots);
        if (timeseries) {
            timeseries->begin_test(label);
            observers.push_back(timeseries.get());
        }
        if (prom) {
            prom->begin_test(label);
            observers.push_back(prom.get());
        }
        model::ObserverList all(observers);
        model::RunResult r = run_watched(test_cfg, &all, prom.get());
        if (prom) prom->run_ended(r);
        text.finish(test_cfg, r, model::exit_status(r));
        code = model::worse_exit_status(code, model::exit_status(r));
        all_tests.verify = all_tests.verify && test_cfg.verify;
        all_tests.verified_bytes += r.totals().verified;
        results.emplace_back(label, std::move(r));
        configs.push_back(test_cfg);
        if (results.back().second.stop != model::StopReason::completed) break;
    }
    return deliver(cmd, out, code, timeseries.get(), prom.get(), results, configs, all_tests);
}

}  // namespace ds::modes
