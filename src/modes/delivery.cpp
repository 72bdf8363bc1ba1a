#include "modes/delivery.h"

#include <cerrno>
#include <cstring>
#include <system_error>

#include "output/output_file.h"
#include "report/json_report.h"
#include "sys/signals.h"
#include "units/diag.h"
#include "units/utf8.h"

namespace ds::modes {

std::string one_line(const std::string& text) {
    return units::printable(text);
}

void Delivery::failed(const std::string& what) {
    units::error(what);
    if (first_error_.empty()) first_error_ = one_line(what);
    if (code_ == model::ExitStatus::success) code_ = model::ExitStatus::error;
}

void Delivery::json(const output::OutputPath& out, nlohmann::json doc,
                    const model::RunResult* run) {
    if (out.none()) return;
    report::set_verdict(doc, code_);
    document("--json", out, report::document_text(doc, run));
}

void Delivery::document(const char* option, const output::OutputPath& out,
                        const std::string& text) {
    if (out.none()) return;
    if (out.is_stdout()) {
        if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
            std::fflush(stdout) != 0)
            failed(std::string(option) + " -: writing to stdout failed: " + std::strerror(errno));
        return;
    }
    write_file(option, out.text(), text);
}

void Delivery::write_file(const char* option, const std::string& path, const std::string& text) {
    try {
        output::write_file_atomically(path, text);
    } catch (const std::system_error& e) {
        const bool was_clean = code_ == model::ExitStatus::success;
        failed(std::string(option) + " " + e.what());
        // A write a stop request ended: the run was interrupted, 128+n.
        if (e.code().value() == EINTR && was_clean)
            if (int sig = sys::stop_signal()) code_ = model::interrupted_by(sig);
    }
}

void Delivery::say_error(std::FILE* out) const {
    if (!first_error_.empty())
        std::fprintf(out, "result   ERROR: %s (exit %d)\n", first_error_.c_str(),
                     model::code_of(code_));
}

}  // namespace ds::modes
