// The one way the job-file reader refuses: a JobFileError naming the file,
// the line, the option and what is wrong, printed as one line
// "FILE:LINE: OPTION: message" (no option when the line itself is wrong,
// "--job-set: OPTION: message" for an override from the command line).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace ds::jobfile {

// Where a value was written: a job file and a line from 1 (line 0: the
// command line's --job-set, file "--job-set").
struct Origin {
    std::string file;
    std::size_t line = 0;
    bool operator==(const Origin&) const = default;
};

// An std::invalid_argument (src/model/errors.h: a ground-floor room's
// refusal) carrying its parts; what() is the whole line.
class JobFileError : public std::invalid_argument {
  public:
    JobFileError(Origin where, std::string option, std::string message);
    const Origin& where() const { return where_; }
    const std::string& option() const { return option_; }
    const std::string& message() const { return message_; }

  private:
    Origin where_;
    std::string option_;
    std::string message_;
};

// "FILE:LINE: OPTION: message" as JobFileError::what() spells it.
std::string error_line(const Origin& where, const std::string& option, const std::string& message);

}  // namespace ds::jobfile
