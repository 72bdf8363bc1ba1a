#include <vector>

#include "modes/live_outputs.h"
#include "report/host_info.h"
#include "report/json_report.h"
#include "report/json_snapshot.h"
#include "report/preset_report.h"

namespace ds::modes {

run::ExitStatus run_preset(const cli::ParsedCommandLine& cmd, const Output& out) {
    const std::string& json = cmd.outputs.json;
    report::PresetResults results;
    run::ExitStatus code = run::ExitStatus::success;
    run::RunEvidence all_tests;  // the verdict's evidence over every test
    // One textfile for the whole preset: each test's series carry its label.
    auto prom = prom_textfile(cmd);
    // --json is the first test's document (burn-in's only test): rewritten
    // while that test goes on.
    report::JsonSnapshotWriter snapshots(json, report::HostInfo::current(), stderr);
    std::vector<run::RunConfig> configs;
    for (const auto& [label, test_cfg] : cmd.preset_tests) {
        // A line per test as it ends (the header before the first); the
        // preset's table follows.  --brief: the table only.
        auto text = text_report(out);
        text.set_layout(report::TextReport::Layout::preset_test, out.brief ? "" : label,
                        results.empty() && !out.brief);
        if (results.empty() && !out.brief)
            std::fprintf(out.text, "preset %s: %zu test%s\n", cmd.preset.c_str(),
                         cmd.preset_tests.size(), cmd.preset_tests.size() == 1 ? "" : "s");
        std::vector<run::RunObserver*> observers{&text};
        if (results.empty()) observers.insert(observers.begin(), &snapshots);
        if (prom) {
            prom->begin_test(label);
            observers.push_back(prom.get());
        }
        run::ObserverList all(observers);
        run::RunResult r = run_watched(test_cfg, &all, prom.get());
        if (prom) prom->run_ended(r);
        text.finish(test_cfg, r, run::exit_status(r));
        code = run::worse_exit_status(code, run::exit_status(r));
        all_tests.verify = all_tests.verify && test_cfg.verify;
        all_tests.verified_bytes += r.totals().verified;
        results.emplace_back(label, std::move(r));
        configs.push_back(test_cfg);
        if (results.back().second.stop != run::StopReason::completed) break;
    }
    Delivery d(code);
    finish_prom(prom.get(), d);
    if (!json.empty()) {
        const report::HostInfo host = report::HostInfo::current();
        auto doc =
            report::result_json(cmd.preset_tests.front().second, results.front().second, host);
        doc["preset"] = report::preset_json(cmd.preset, results, &configs, &host);
        d.json(json, std::move(doc), &results.front().second);
    }
    std::fputs(report::preset_table(cmd.preset, results).c_str(), out.text);
    all_tests.status = d.code();
    all_tests.error = "a test could not go on";
    if (d.first_error().empty()) std::fputs(report::verdict_line(all_tests).c_str(), out.text);
    d.say_error(out.text);
    return d.code();
}

}  // namespace ds::modes
