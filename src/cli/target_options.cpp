// The targets: TARGET... or --path, --raw-device with its --destroy-data,
// --recreate, and what only one target can do.
#include <string>
#include <vector>

#include "cli/options_reader.h"

namespace ds::cli::detail {

// TARGET... (positional) or one --path; and any number of --raw-device
// DEV, each with a --destroy-data naming it again, in the same order (that
// they are the same device is checked against the system before the run).
// Directories come first, then devices; the first is cfg.target.
std::vector<model::RunConfig::TargetSpec> given_targets(const Options& o) {
    std::vector<std::string> dirs = o.texts("target");
    if (o.given("path")) {
        if (!dirs.empty())
            throw UsageError("--path " + o.text("path") + " and a TARGET ('" + dirs[0] +
                             "') both given: --path names the one target");
        dirs.push_back(o.text("path"));
    }
    const auto devs = o.texts("raw-device"), confirms = o.texts("destroy-data");
    if (devs.empty() && !confirms.empty())
        throw UsageError("--destroy-data needs --raw-device (it confirms the device to overwrite)");
    if (confirms.size() < devs.size())
        throw UsageError("--raw-device " + devs[confirms.size()] + " needs --destroy-data " +
                         devs[confirms.size()] + " (everything on the device is overwritten)");
    if (confirms.size() > devs.size())
        throw UsageError("--destroy-data " + confirms[devs.size()] +
                         " confirms no --raw-device (give one --destroy-data per device)");
    std::vector<model::RunConfig::TargetSpec> all;
    for (const auto& d : dirs) {
        if (d.empty()) throw UsageError("target: empty path");
        all.push_back({d, "", ""});
    }
    for (std::size_t i = 0; i < devs.size(); ++i)
        all.push_back({devs[i], devs[i], confirms[i]});
    for (std::size_t i = 0; i < all.size(); ++i)
        for (std::size_t k = i + 1; k < all.size(); ++k)
            if (all[i].target == all[k].target)
                throw UsageError("target " + all[i].target + " given twice");
    return all;
}

void read_target(const Options& o, model::RunConfig& c) {
    auto all = given_targets(o);
    c.target_may_be_prefix = o.given("path");
    if (all.empty()) return;  // the current directory
    if (all.size() > 1 && o.given("path"))
        throw UsageError("--path names one target; give several as TARGET... instead");
    c.target = all[0].target;
    c.raw_device = all[0].raw_device;
    c.raw_device_confirm = all[0].raw_device_confirm;
    c.more_targets.assign(all.begin() + 1, all.end());
}

// --recreate: the files are deleted and made again every iteration, which a
// device cannot be.
void read_recreate(const Options& o, model::RunConfig& c) {
    c.recreate = o.flag("recreate");
    if (c.recreate && !c.raw_device.empty())
        throw UsageError("--recreate and --raw-device both given: a device cannot be recreated");
}

// Several targets run the phases of a plain run, each target's workers on
// its own files; the modes that reshape the workers or the files are one
// target's.
void refuse_with_several_targets(const Options& o, const model::RunConfig& c) {
    if (c.target_count() == 1) return;
    for (const char* name : {"keep", "sweep", "find-rate", "compare-backends", "sync-compare",
                             "sustained-write", "preset", "recreate"})
        if (o.given(name))
            throw UsageError("--" + std::string(name) + " works with one target; " +
                             std::to_string(c.target_count()) + " were given");
}

}  // namespace ds::cli::detail
