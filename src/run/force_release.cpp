#include "run/force_release.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "model/errors.h"
#include "sys/unique_fd.h"
#include "targets/ownership.h"
#include "targets/state_file.h"
#include "targets/target.h"
#include "targets/target_lock.h"

namespace ds::run {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;
using namespace ds::targets;

namespace {

std::string parent_of(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

ForceRelease force_release(const std::string& state_path) {
    const std::string dir_path = parent_of(state_path), state_name = base_of(state_path);
    sys::UniqueFd dir(::open(dir_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) throw SetupError(state_path + ": " + std::strerror(errno));
    const TargetLock lock =
        TargetLock::acquire(dir.get(), dir_path, "; release its files once it has ended");
    ForceRelease r;
    r.state = state_path;
    // Only at a name a state file has (drivestress.state, <prefix>.state).
    if (state_name.size() <= 6 || state_name.compare(state_name.size() - 6, 6, ".state") != 0)
        throw SetupError(state_path +
                         ": not a state file's name (drivestress.state or PREFIX.state); "
                         "nothing removed");
    r.why = damaged_state_reason(state_path, true);
    if (r.why.empty()) {
        (void)load_state_file(state_path);  // throws why it is not a state file of ours
        throw SetupError(state_path +
                         ": can be read; --force is only for a state file that cannot be: "
                         "--verify-only " +
                         state_path + " --cleanup removes its files after a PASS");
    }
    struct stat state_st {};
    if (::fstatat(dir.get(), state_name.c_str(), &state_st, AT_SYMLINK_NOFOLLOW) != 0)
        throw SetupError(state_path + ": " + std::strerror(errno));
    const std::string stem = state_name == "drivestress.state"
                                 ? std::string("drivestress-")
                                 : state_name.substr(0, state_name.size() - 6);
    std::vector<std::string> names = directory_entries(dir.get());
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
        const long n = data_file_index(name, stem);
        if (n < 0) continue;
        const std::string path = dir_path + (dir_path == "/" ? "" : "/") + name;
        const CheckedFile c = check_data_file(dir.get(), name, {static_cast<std::uint64_t>(n)});
        if (c.missing) continue;
        if (!c.ours())
            r.left.push_back(path + ": " + c.refusal);
        else if (remove_checked(dir.get(), name, c.st))
            r.removed.push_back(path);
    }
    if (!remove_checked(dir.get(), state_name, state_st))
        r.left.push_back(state_path + ": " + std::strerror(errno ? errno : EBUSY));
    (void)::fsync(dir.get());
    return r;
}

}  // namespace ds::run
