#include <sys/stat.h>

#include "model/errors.h"
#include "modes/delivery.h"
#include "modes/modes.h"
#include "report/host_info.h"
#include "report/verify_report.h"
#include "run/verify_only.h"

namespace ds::modes {

namespace {

// The document must never land on the state file it reports on.
void refuse_json_on_state(const io::OutputPath& out, const std::string& state) {
    if (!out.is_path()) return;
    const std::string& json = out.text();
    struct stat j {
    }, s{};
    if (json == state || (::stat(json.c_str(), &j) == 0 && ::stat(state.c_str(), &s) == 0 &&
                          j.st_dev == s.st_dev && j.st_ino == s.st_ino))
        throw run::SetupError("--json " + json + ": is the state file --verify-only reads (" +
                              state + "); give another path");
}

}  // namespace

// --verify-only STATE: the report goes where a run's would.
run::ExitStatus run_verify_only(const cli::ParsedCommandLine& cmd, const Output& out) {
    refuse_json_on_state(cmd.outputs.json, cmd.verify_only_state);
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
