#include <memory>
#include <vector>

#include "metrics/timeseries.h"
#include "model/verdict.h"
#include "modes/live_outputs.h"
#include "report/host_info.h"
#include "report/json_report.h"
#include "report/json_snapshot.h"
#include "units/diag.h"

namespace ds::modes {

model::ExitStatus run_single(const cli::ParsedCommandLine& cmd, const Output& out) {
    const model::RunConfig& cfg = cmd.config;
    const cli::Outputs& o = cmd.outputs;
    auto text = text_report(out);
    std::vector<model::RunObserver*> observers{&text};
    std::unique_ptr<metrics::TimeseriesWriter> timeseries;
    if (!o.timeseries.none()) {
        timeseries = std::make_unique<metrics::TimeseriesWriter>(o.timeseries.text());
        observers.push_back(timeseries.get());
    }
    auto prom = prom_textfile(cmd);
    if (prom) observers.push_back(prom.get());
    // --json rewritten as iterations end, before the text report shows them.
    report::JsonSnapshotWriter snapshots(o.json, report::HostInfo::current(), stderr);
    observers.insert(observers.begin(), &snapshots);
    model::ObserverList all(observers);
    model::RunResult result = run_watched(cfg, &all, prom.get());
    if (!result.fatal_error.empty()) units::error(result.fatal_error);
    Delivery d(model::exit_status(result));
    if (timeseries)
        if (std::string e = timeseries->finish(); !e.empty()) d.failed(e);
    if (result.io_log && !result.io_log->error.empty()) d.failed(result.io_log->error);
    if (prom) prom->run_ended(result);
    finish_prom(prom.get(), d, model::nothing_verified(model::run_evidence(cfg, result, d.code())));
    // Before --json, whose verdict then counts a --fio-json that failed.
    deliver_fio_json(o, d, {{"random", &cfg, &result}});
    nlohmann::json doc = report::result_json(cfg, result, report::HostInfo::current());
    if (!o.json.is_stdout()) doc["checkpoints_written"] = snapshots.writes();
    d.json(o.json, std::move(doc), &result);
    // The result line names what ended the run: the run's own error (the
    // filesystem full), else an output that could not be delivered.
    const std::string why =
        result.fatal_error.empty() ? d.first_error() : one_line(result.fatal_error);
    text.finish(cfg, result, d.code(), why);
    return d.code();
}

}  // namespace ds::modes
