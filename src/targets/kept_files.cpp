// What a directory already holds of drivestress's: the names a run makes
// (<stem><n>.dat), and the files a --keep run's state file protects, with the
// advice a refused run gives about them.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "model/errors.h"
#include "sys/errno_text.h"
#include "targets/state_file.h"
#include "targets/target.h"

namespace ds::targets {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

namespace {

bool ends_with(const std::string& s, const char* tail) {
    const std::size_t n = std::strlen(tail);
    return s.size() > n && s.compare(s.size() - n, n, tail) == 0;
}

}  // namespace

namespace {

// A path as one shell word: quoted unless it is plainly safe.
std::string shell_word(const std::string& p) {
    if (!p.empty() && p.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789/._-+:,=@") == std::string::npos)
        return p;
    std::string q = "'";
    for (char c : p)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace

std::vector<std::string> directory_entries(int dirfd) {
    std::vector<std::string> out;
    sys::UniqueFd scan(::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    DIR* d = scan.valid() ? ::fdopendir(scan.get()) : nullptr;
    if (!d) return out;
    (void)scan.release();  // closedir closes it
    while (dirent* e = ::readdir(d))
        out.emplace_back(e->d_name);
    ::closedir(d);
    return out;
}

long data_file_index(const std::string& name, const std::string& stem) {
    if (name.size() <= stem.size() + 4 || name.compare(0, stem.size(), stem) != 0 ||
        name.compare(name.size() - 4, 4, ".dat") != 0)
        return -1;
    const std::string n = name.substr(stem.size(), name.size() - 4 - stem.size());
    if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos ||
        (n[0] == '0' && n.size() > 1))
        return -1;
    return std::stol(n);
}

std::string kept_advice(const std::string& state, const std::vector<KeptFile>& kept,
                        const std::string& directory) {
    // --cleanup removes the files only after a verified PASS: after a loss
    // it keeps them, so the one way on is stated as a command.
    // Built with append(): "literal" + std::string trips GCC 12's -Wrestrict
    // once inlined (a false positive, GCC bug 105329).
    std::string rm = "rm --";
    for (const auto& k : kept)
        if (k.state == state && k.exists)
            rm.append(" ").append(shell_word(directory + (directory == "/" ? "" : "/") + k.name));
    rm.append(" ").append(shell_word(state));
    std::string advice = "; check it with drivestress --verify-only ";
    advice.append(state).append(": after a PASS, --verify-only ").append(state);
    advice.append(
        " --cleanup removes the files; after a loss they are its evidence (--cleanup "
        "keeps them): inspect them, then remove them with: ");
    return advice.append(rm);
}

std::string damaged_state_advice(const std::string& state, const std::string& why) {
    if (const auto format = other_version_format(state))
        return state + ": a state file of format " + std::to_string(*format) +
               ", which this drivestress does not read (" + readable_formats() +
               "): it protects the files beside it; verify them with the drivestress version "
               "that wrote it";
    return state + ": cannot be read (" + why +
           ") and may be a --keep run's state file, damaged: it protects the files beside it; "
           "see what it says with drivestress --verify-only " +
           shell_word(state) + ", or remove them unverified with drivestress --verify-only " +
           shell_word(state) + " --cleanup --force";
}

std::string state_stem(const std::string& state_name) {
    if (state_name == "drivestress.state") return "drivestress-";
    return ends_with(state_name, ".state") ? state_name.substr(0, state_name.size() - 6) : "";
}

std::optional<StateClaim> state_claim(int dirfd, const std::string& directory,
                                      const std::string& name, bool own) {
    StateClaim c;
    c.state = directory + (directory == "/" ? "" : "/") + name;
    c.stem = state_stem(name);
    if (!has_state_magic(c.state)) {
        // A power cut can take the magic with it: such a file still
        // protects what it kept (we cannot read which files those are).
        c.unreadable = damaged_state_reason(c.state, own);
        if (c.unreadable.empty()) return std::nullopt;  // provably not a state file
        return c;
    }
    std::vector<std::string> names;
    try {
        names = state_file_names(c.state);
    } catch (const SetupError& e) {
        c.unreadable = e.what();
        if (c.unreadable.rfind(c.state + ": ", 0) == 0)
            c.unreadable = c.unreadable.substr(c.state.size() + 2);
        return c;
    }
    for (auto& n : names) {
        KeptFile k{std::move(n), c.state};
        struct stat st {};
        if (::fstatat(dirfd, k.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
            k.exists = true;
            k.dev = st.st_dev;
            k.ino = st.st_ino;
        }
        c.kept.push_back(std::move(k));
    }
    return c;
}

std::vector<KeptFile> kept_files(int dirfd, const std::string& directory,
                                 const std::string& own_state) {
    std::vector<KeptFile> kept;
    for (const auto& n : directory_entries(dirfd)) {
        if (!ends_with(n, ".state")) continue;
        const bool own = n == own_state || n == "drivestress.state";
        std::optional<StateClaim> c = state_claim(dirfd, directory, n, own);
        if (!c) continue;
        if (!c->unreadable.empty()) throw SetupError(damaged_state_advice(c->state, c->unreadable));
        for (auto& k : c->kept)
            kept.push_back(std::move(k));
    }
    return kept;
}

}  // namespace ds::targets
