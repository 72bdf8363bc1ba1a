#include <vector>

#include "modes/live_outputs.h"
#include "report/host_info.h"
#include "report/json_report.h"
#include "report/json_snapshot.h"
#include "report/preset_report.h"

namespace ds::modes {

int run_preset(const cli::ParsedCommandLine& cmd, const Output& out) {
    const std::string& json = cmd.outputs.json;
    report::PresetResults results;
    int code = 0;
    // One textfile for the whole preset: each test's series carry its label.
    auto prom = prom_textfile(cmd);
    // --json is the first test's document (burn-in's only test): rewritten
    // while that test goes on.
    report::JsonSnapshotWriter snapshots(json, report::HostInfo::current(), stderr);
    for (const auto& [label, test_cfg] : cmd.preset_tests) {
        std::fprintf(out.text, "\n=== %s: %s\n", cmd.preset.c_str(), label.c_str());
        auto text = text_report(out);
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
        results.emplace_back(label, std::move(r));
        if (results.back().second.stop != run::StopReason::completed) break;
    }
    Delivery d(code);
    finish_prom(prom.get(), d);
    if (!json.empty()) {
        auto doc = report::result_json(cmd.preset_tests.front().second, results.front().second,
                                       report::HostInfo::current());
        doc["preset"] = report::preset_json(cmd.preset, results);
        d.json(json, std::move(doc), &results.front().second);
    }
    std::fputs(report::preset_table(cmd.preset, results).c_str(), out.text);
    d.say_error(out.text);
    return d.code();
}

}  // namespace ds::modes
