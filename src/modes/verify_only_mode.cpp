#include <sys/stat.h>

#include <cstdio>
#include <optional>
#include <vector>

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

// --verify-only STATE --cleanup --force: what it will remove, said before
// it is removed, then what was, unverified.
model::ExitStatus run_force_release(const std::string& state, const Output& out) {
    std::optional<run::ForceRelease> plan;
    try {
        plan.emplace(state);
    } catch (const model::SetupError& e) {
        throw model::SetupError(std::string("--verify-only --force ") + e.what());
    }
    std::fprintf(out.text, "release  %s (cannot be read: %s): nothing verified\n",
                 plan->state().c_str(), plan->why().c_str());
    for (const auto& p : plan->to_remove())
        std::fprintf(out.text, "  remove  %s\n", p.c_str());
    for (const auto& p : plan->left())
        std::fprintf(out.text, "  leave   %s\n", p.c_str());
    std::fflush(out.text);
    const std::size_t planned_left = plan->left().size();
    const std::vector<std::string> removed = plan->carry_out();
    for (std::size_t i = planned_left; i < plan->left().size(); ++i)
        std::fprintf(out.text, "  left    %s\n", plan->left()[i].c_str());
    const bool state_left = plan->state_left();
    std::fprintf(out.text, "result   %s: %zu file%s%s removed unverified (exit %d)\n",
                 state_left ? "ERROR" : "RELEASED", removed.size(), removed.size() == 1 ? "" : "s",
                 state_left ? ", the state file could not be" : " and the state file",
                 state_left ? 1 : 0);
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
        if (!targets::other_version_format(cmd.verify_only_state) &&
            !targets::damaged_state_reason(cmd.verify_only_state, true).empty())
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
