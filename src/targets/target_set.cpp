#include "targets/target_set.h"

#include <sys/stat.h>

#include <map>
#include <optional>

#include "model/errors.h"
#include "units/units.h"

namespace ds::targets {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

namespace {

// A refusal names the target it is about: the messages of one target do
// when they name a path of it; otherwise the target is put in front.
[[noreturn]] void refuse(const RunConfig& one, std::size_t t, std::size_t count,
                         const std::string& why) {
    if (count == 1 || why.find(one.target) != std::string::npos) throw SetupError(why);
    throw SetupError("target " + std::to_string(t + 1) + " (" + one.target + "): " + why);
}

// What a target is, whatever its spelling (DIR, ./DIR, DIR/, a symbolic
// link, /proc/self/root/...): the directory's inode, a device's number.
// Nothing when it cannot be looked at (the target's own checks say why).
std::optional<std::pair<dev_t, ino_t>> identity(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    if (S_ISBLK(st.st_mode)) return std::pair<dev_t, ino_t>{st.st_rdev, 0};
    return std::pair<dev_t, ino_t>{st.st_dev, st.st_ino};
}

// The command line refuses a name given twice; two names of one target are
// found here, before the second would find the first one's lock and call
// this run "another drivestress run".
void refuse_aliases(const RunConfig& cfg) {
    std::vector<std::optional<std::pair<dev_t, ino_t>>> ids;
    for (std::size_t t = 0; t < cfg.target_count(); ++t) {
        const std::string path = cfg.for_target(t).target;
        ids.push_back(identity(path));
        for (std::size_t k = 0; k < t; ++k)
            if (ids[t] && ids[k] == ids[t])
                throw SetupError("target " + path + " given twice (also as " +
                                 cfg.for_target(k).target + ")");
    }
}

}  // namespace

TargetSet::TargetSet(const RunConfig& cfg, std::uint64_t extra_bytes) : files_(cfg.files) {
    if (!cfg.target_may_be_prefix) refuse_aliases(cfg);
    for (std::size_t t = 0; t < cfg.target_count(); ++t) {
        const RunConfig one = cfg.for_target(t);
        try {
            targets_.push_back(std::make_unique<Target>(one, t == 0 ? extra_bytes : 0));
        } catch (const SetupError& e) {
            refuse(one, t, cfg.target_count(), e.what());
        }
    }
    check_shared_space(cfg, extra_bytes);
}

// Each directory's space was checked alone; directories on one filesystem
// share its free space, so what they need together must fit too.
void TargetSet::check_shared_space(const RunConfig& cfg, std::uint64_t extra_bytes) const {
    std::map<dev_t, std::vector<std::size_t>> by_fs;
    for (std::size_t t = 0; t < targets_.size(); ++t) {
        struct stat st {};
        if (!targets_[t]->raw() && ::fstat(targets_[t]->dir_fd(), &st) == 0)
            by_fs[st.st_dev].push_back(t);
    }
    for (const auto& [dev, ts] : by_fs) {
        if (ts.size() < 2) continue;
        std::uint64_t need = 0, reclaimable = 0;
        std::string names;
        for (std::size_t t : ts) {  // each fitted alone: no sum of these overflows
            need += cfg.file_bytes * cfg.files + (t == 0 ? extra_bytes : 0);
            reclaimable += targets_[t]->info().reclaimable_bytes;
            names += (names.empty() ? "" : ", ") + targets_[t]->info().directory;
        }
        const TargetInfo& first = targets_[ts.front()]->info();
        if (first.free_bytes + reclaimable < need)
            throw SetupError("not enough free space for " + std::to_string(ts.size()) +
                             " targets on one filesystem (" + names + "): need " +
                             units::format_bytes_against(need, first.free_bytes) + " together (" +
                             std::to_string(ts.size()) + " x " + std::to_string(cfg.files) + " x " +
                             units::format_bytes(cfg.file_bytes) + "), " +
                             units::format_bytes_against(first.free_bytes, need) + " available");
    }
}

void TargetSet::create_files(std::uint64_t run_id, std::uint64_t data_id,
                             pattern::UnitShape shape) {
    for (auto& t : targets_)
        t->create_files(run_id, data_id, shape);
}

void TargetSet::remove_files() noexcept {
    for (auto& t : targets_)
        t->remove_files();
}

std::size_t TargetSet::file_count() const {
    std::size_t n = 0;
    for (const auto& t : targets_)
        n += t->file_count();
    return n;
}

bool TargetSet::direct_io() const {
    for (const auto& t : targets_)
        if (!t->direct_io()) return false;
    return true;
}

std::string TargetSet::direct_io_note() const {
    for (const auto& t : targets_)
        if (!t->direct_io_note().empty())
            return targets_.size() == 1 ? t->direct_io_note()
                                        : t->info().path + ": " + t->direct_io_note();
    return "";
}

std::vector<std::pair<std::size_t, int>> TargetSet::drop_caches() const {
    std::vector<std::pair<std::size_t, int>> failed;
    for (std::size_t t = 0; t < targets_.size(); ++t)
        for (auto [i, err] : targets_[t]->drop_caches())
            failed.emplace_back(first(t) + i, err);
    return failed;
}

std::string target_name(const TargetInfo& info, bool raw) {
    if (!raw) return info.path;
    const auto slash = info.path.rfind('/');
    return slash == std::string::npos ? info.path : info.path.substr(slash + 1);
}

std::string device_kind(const std::string& path) {
    if (path.rfind("/dev/", 0) != 0) return "";
    std::string name = path.substr(path.rfind('/') + 1);
    std::size_t n = 0;
    while (n < name.size() && name[n] >= 'a' && name[n] <= 'z')
        ++n;
    name.resize(n);
    for (const char* letters : {"sd", "vd", "hd", "xvd"})  // sda, sdb: one kind
        if (name.rfind(letters, 0) == 0) return letters;
    return name;
}

}  // namespace ds::targets
