#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include "model/errors.h"
#include "modes/delivery.h"
#include "modes/modes.h"
#include "report/host_info.h"
#include "report/verify_report.h"
#include "run/force_release.h"
#include "run/verify_only.h"
#include "targets/state_file.h"

namespace ds::modes {

namespace {

// The document must never land on the state file it reports on.
void refuse_json_on_state(const output::OutputPath& out, const std::string& state) {
    if (!out.is_path()) return;
    const std::string& json = out.text();
    struct stat j {
    }, s{};
    if (json == state || (::stat(json.c_str(), &j) == 0 && ::stat(state.c_str(), &s) == 0 &&
                          j.st_dev == s.st_dev && j.st_ino == s.st_ino))
        throw model::SetupError("--json " + json + ": is the state file --verify-only reads (" +
                                state + "); give another path");
}

}  // namespace

// --verify-only STATE --cleanup --force: what was removed, unverified.
model::ExitStatus run_force_release(const std::string& state, const Output& out) {
    run::ForceRelease r;
    try {
        r = run::force_release(state);
    } catch (const model::SetupError& e) {
        throw model::SetupError(std::string("--verify-only --force ") + e.what());
    }
    std::fprintf(out.text, "released %s (cannot be read: %s): nothing verified\n", r.state.c_str(),
                 r.why.c_str());
    for (const auto& p : r.removed)
        std::fprintf(out.text, "  removed %s\n", p.c_str());
    for (const auto& p : r.left)
        std::fprintf(out.text, "  left    %s\n", p.c_str());
    const bool state_left = std::any_of(r.left.begin(), r.left.end(), [&](const std::string& l) {
        return l.rfind(r.state + ": ", 0) == 0;
    });
    std::fprintf(
        out.text, "result   %s: %zu file%s%s removed unverified (exit %d)\n",
        state_left ? "ERROR" : "RELEASED", r.removed.size(), r.removed.size() == 1 ? "" : "s",
        state_left ? ", the state file could not be" : " and the state file", state_left ? 1 : 0);
    return state_left ? model::ExitStatus::error : model::ExitStatus::success;
}

// --verify-only STATE: the report goes where a run's would.
model::ExitStatus run_verify_only(const cli::ParsedCommandLine& cmd, const Output& out) {
    if (cmd.verify_force) return run_force_release(cmd.verify_only_state, out);
    refuse_json_on_state(cmd.outputs.json, cmd.verify_only_state);
    const auto host = report::HostInfo::current();
    model::VerifyOnlyResult r;
    try {
        r = run::verify_only(cmd.verify_only_state, cmd.verify_cleanup);
    } catch (const model::SetupError& e) {
        std::string what = std::string("--verify-only ") + e.what();
        // A power cut can damage the header: say how the files beside it are released.
        if (!targets::damaged_state_reason(cmd.verify_only_state, true).empty())
            what +=
                "; if it is a --keep run's state file a power cut damaged, --cleanup --force "
                "removes it and the files beside it that are drivestress's, unverified";
        throw model::SetupError(what);
    }
    Delivery d(model::exit_status(r));
    d.json(cmd.outputs.json, report::verify_json(r, host));
    report::print_verify_text(out.text, r, host);
    d.say_error(out.text);
    return d.code();
}

}  // namespace ds::modes
