#include "model/errors.h"
#include "modes/delivery.h"
#include "modes/modes.h"
#include "report/host_info.h"
#include "report/verify_report.h"
#include "run/verify_only.h"

namespace ds::modes {

// --verify-only STATE: the report goes where a run's would.
int run_verify_only(const cli::ParsedCommandLine& cmd, const Output& out) {
    const auto host = report::HostInfo::current();
    run::VerifyOnlyResult r;
    try {
        r = run::verify_only(cmd.verify_only_state, cmd.verify_cleanup);
    } catch (const run::SetupError& e) {
        throw run::SetupError(std::string("--verify-only ") + e.what());
    }
    Delivery d(run::exit_status(r));
    d.json(cmd.outputs.json, report::verify_json(r, host));
    report::print_verify_text(out.text, r, host);
    d.say_error(out.text);
    return d.code();
}

}  // namespace ds::modes
