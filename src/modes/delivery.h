// What is left to do once the measuring is over: deliver the result files
// and settle the exit status.  A result that could not be written (a full
// disk, a FIFO without reader) is one line on stderr and turns a clean exit
// into 1; the text report's verdict line then says why.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "model/results.h"
#include "output/output_file.h"

namespace ds::modes {

inline constexpr int kExitUsage = model::code_of(model::ExitStatus::error);

// Errors are one line: control characters from user input are escaped.
std::string one_line(const std::string& text);

class Delivery {
  public:
    explicit Delivery(model::ExitStatus code) : code_(code) {}
    model::ExitStatus code() const { return code_; }
    const std::string& first_error() const { return first_error_; }

    // A result that could not be delivered: one line on stderr.
    void failed(const std::string& what);
    // --json: "-" is stdout; a file is replaced atomically, never followed.
    // `run`: the run whose iterations the document lists (none for
    // --verify-only).  The document's verdict is this delivery's status.
    void json(const output::OutputPath& out, nlohmann::json doc,
              const model::RunResult* run = nullptr);
    // A finished document's text (--fio-json), delivered as --json is;
    // `option` names it in a failure.
    void document(const char* option, const output::OutputPath& out, const std::string& text);
    void write_file(const char* option, const std::string& path, const std::string& text);
    // When a delivery failed: the verdict line of a report that has no
    // finish() of its own to say it ("result   ERROR: ... (exit 1)").
    void say_error(std::FILE* out) const;

  private:
    model::ExitStatus code_;
    std::string first_error_;
};

}  // namespace ds::modes
