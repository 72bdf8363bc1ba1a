#include "targets/ownership.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pattern/unit.h"
#include "sys/unique_fd.h"

namespace ds::targets {

std::string plain_own_file(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return std::strerror(errno);
    if (!S_ISREG(st.st_mode)) return "is not a regular file";
    if (st.st_uid != ::geteuid()) return "is owned by uid " + std::to_string(st.st_uid);
    if (st.st_nlink != 1) return "has " + std::to_string(st.st_nlink) + " links";
    return "";
}

std::string not_our_data_file(int fd, const DataFileMark& mark) {
    if (std::string why = plain_own_file(fd); !why.empty()) return why;
    std::byte head[pattern::kHeaderBytes]{};
    const auto h = ::pread(fd, head, sizeof head, 0) == static_cast<ssize_t>(sizeof head)
                       ? pattern::parse_header(head)
                       : std::nullopt;
    if (!h) return "is not a drivestress file";
    if (mark.run_id && (h->run_id != *mark.run_id || h->offset != 0))
        return "does not carry this run's data";
    if (mark.index && (h->offset != 0 || h->file_index != *mark.index))
        return "does not start with drivestress's unit 0 of file " + std::to_string(*mark.index);
    return "";
}

CheckedFile check_data_file(int dirfd, const std::string& name, const DataFileMark& mark) {
    CheckedFile c;
    sys::UniqueFd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid()) {
        c.missing = errno == ENOENT;
        if (!c.missing) c.refusal = errno == ELOOP ? "is a symbolic link" : std::strerror(errno);
        return c;
    }
    if (::fstat(fd.get(), &c.st) != 0) {
        c.refusal = std::strerror(errno);
        return c;
    }
    c.refusal = not_our_data_file(fd.get(), mark);
    return c;
}

bool remove_checked(int dirfd, const std::string& name, const struct stat& checked) {
    struct stat now {};
    return ::fstatat(dirfd, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 &&
           now.st_dev == checked.st_dev && now.st_ino == checked.st_ino &&
           ::unlinkat(dirfd, name.c_str(), 0) == 0;
}

}  // namespace ds::targets
