#include "modes/live_outputs.h"
#include "report/backend_comparison.h"
#include "report/host_info.h"
#include "report/json_report.h"
#include "report/json_snapshot.h"
#include "run/compare_backends.h"

namespace ds::modes {

int run_comparison(const cli::ParsedCommandLine& cmd, const Output& out) {
    const std::string& json = cmd.outputs.json;
    auto first = text_report(out);
    auto second = text_report(out);
    // --json is the io_uring run's document: rewritten while that run goes on.
    report::JsonSnapshotWriter snapshots(json, report::HostInfo::current(), stderr);
    run::ObserverList uring_observers({&snapshots, &first});
    auto cmp = run::compare_backends(cmd.config, &uring_observers, &second);
    Delivery d(run::exit_status(cmp));
    if (!json.empty()) {
        auto doc = report::result_json(cmp.uring_config, cmp.uring, report::HostInfo::current());
        if (cmp.sync_ran)
            doc["compare_backends"] = report::comparison_json(cmp.sync_config, cmp.uring, cmp.sync);
        d.json(json, std::move(doc), &cmp.uring);
    }
    first.finish(cmp.uring_config, cmp.uring, run::exit_status(cmp.uring));
    if (cmp.sync_ran) {
        second.finish(cmp.sync_config, cmp.sync, run::exit_status(cmp.sync));
        std::fputs(report::comparison_table(cmp.uring, cmp.sync).c_str(), out.text);
    }
    d.say_error(out.text);
    return d.code();
}

}  // namespace ds::modes
