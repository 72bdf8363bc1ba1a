#include "jobfile/error.h"

namespace ds::jobfile {

std::string error_line(const Origin& where, const std::string& option, const std::string& message) {
    // append, not operator+: GCC 12 warns (-Wrestrict) on the inlined copies of the latter.
    std::string line;
    line.append(where.file);
    if (where.line != 0) {
        line.push_back(':');
        line.append(std::to_string(where.line));
    }
    line.append(": ");
    // An option fio does not know may be any length: a line shows 64 characters of it.
    if (!option.empty()) line.append(option, 0, 64).append(option.size() > 64 ? "...: " : ": ");
    line.append(message);
    return line;
}

JobFileError::JobFileError(Origin where, std::string option, std::string message)
    : std::invalid_argument(error_line(where, option, message)),
      where_(std::move(where)),
      option_(std::move(option)),
      message_(std::move(message)) {}

}  // namespace ds::jobfile
