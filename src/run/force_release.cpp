#include "run/force_release.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "model/errors.h"
#include "targets/ownership.h"
#include "targets/state_file.h"
#include "targets/target.h"

namespace ds::run {

namespace {

using model::SetupError;

std::string parent_of(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Refuses, removing nothing, a STATE that --force is not for.
void refuse_unless_released(const std::string& state_path, const std::string& state_name,
                            const std::string& why) {
    if (targets::state_stem(state_name).empty())
        throw SetupError(state_path +
                         ": not a state file's name (drivestress.state or PREFIX.state); "
                         "nothing removed");
    if (const auto format = targets::other_version_format(state_path))
        throw SetupError(state_path + ": a state file of format " + std::to_string(*format) +
                         ", which this drivestress does not read (" + targets::readable_formats() +
                         "): the version that wrote it may read it whole; verify it with that "
                         "version; nothing removed");
    if (why.empty()) {
        (void)targets::load_state_file(state_path);  // throws why it is not a state file of ours
        throw SetupError(state_path +
                         ": can be read; --force is only for a state file that cannot be: "
                         "--verify-only " +
                         state_path + " --cleanup removes its files after a PASS");
    }
}

// Why `name` (identity `st`) stays because another state file of the
// directory may keep it ("" when none does); the state is named without
// its directory (it is this one's).
std::string kept_by_another(const std::vector<targets::StateClaim>& others, const std::string& name,
                            const struct stat& st) {
    for (const auto& c : others) {
        const std::string state = base_of(c.state);
        if (!c.unreadable.empty()) {
            if (targets::data_file_index(name, c.stem) >= 0)
                return "may be kept by " + state + ", which cannot be read either";
            continue;
        }
        for (const auto& k : c.kept)
            if (k.name == name || (k.exists && k.dev == st.st_dev && k.ino == st.st_ino))
                return "kept by " + state + ", which can be read (verify it)";
    }
    return "";
}

}  // namespace

ForceRelease::ForceRelease(const std::string& state_path)
    : state_(state_path), dir_path_(parent_of(state_path)), state_name_(base_of(state_path)) {
    dir_.reset(::open(dir_path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir_.valid()) throw SetupError(state_ + ": " + std::strerror(errno));
    lock_ = targets::TargetLock::acquire(dir_.get(), dir_path_,
                                         "; release its files once it has ended");
    if (!targets::state_stem(state_name_).empty())
        why_ = targets::damaged_state_reason(state_, true);
    refuse_unless_released(state_, state_name_, why_);
    if (::fstatat(dir_.get(), state_name_.c_str(), &state_st_, AT_SYMLINK_NOFOLLOW) != 0)
        throw SetupError(state_ + ": " + std::strerror(errno));
    plan_files();
}

void ForceRelease::plan_files() {
    std::vector<std::string> names = targets::directory_entries(dir_.get());
    std::sort(names.begin(), names.end());
    std::vector<targets::StateClaim> others;
    for (const auto& n : names)
        if (n != state_name_ && !targets::state_stem(n).empty())
            if (auto c = targets::state_claim(dir_.get(), dir_path_, n, n == "drivestress.state"))
                others.push_back(std::move(*c));
    const std::string stem = targets::state_stem(state_name_);
    for (const auto& name : names) {
        const long n = targets::data_file_index(name, stem);
        if (n < 0) continue;
        const std::string path = dir_path_ + (dir_path_ == "/" ? "" : "/") + name;
        const targets::CheckedFile c =
            targets::check_data_file(dir_.get(), name, {static_cast<std::uint64_t>(n)});
        if (c.missing) continue;
        std::string why = c.refusal;
        if (why.empty()) why = kept_by_another(others, name, c.st);
        if (!why.empty()) {
            left_.push_back(path + ": " + why);
            continue;
        }
        names_.push_back(name);
        to_remove_.push_back(path);
        checked_.push_back(c.st);
    }
}

std::vector<std::string> ForceRelease::carry_out() {
    std::vector<std::string> removed;
    // errno stays 0 when the name is there but is another file now.
    auto not_removed = [] {
        return std::string(": not removed: ") +
               (errno ? std::strerror(errno) : "it changed since it was checked");
    };
    for (std::size_t i = 0; i < names_.size(); ++i) {
        errno = 0;
        if (targets::remove_checked(dir_.get(), names_[i], checked_[i]))
            removed.push_back(to_remove_[i]);
        else
            left_.push_back(to_remove_[i] + not_removed());
    }
    names_.clear();
    errno = 0;
    if (!targets::remove_checked(dir_.get(), state_name_, state_st_)) {
        left_.push_back(state_ + not_removed());
        state_left_ = true;
    }
    (void)::fsync(dir_.get());
    return removed;
}

}  // namespace ds::run
