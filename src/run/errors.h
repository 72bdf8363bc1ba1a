// A setup or usage problem found before or while preparing a run: bad
// target, no space, refused file.  `main` prints what() as one line and exits 1.
#pragma once

#include <stdexcept>
#include <string>

namespace ds::run {

class SetupError : public std::runtime_error {
  public:
    explicit SetupError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace ds::run
