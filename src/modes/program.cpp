// The program: parse the command line, check it against the system,
// dispatch to a mode, map the outcome to an exit status.  src/main.cpp runs
// it; so does the tests' hooked build (tests/helpers/drivestress_hooked.cpp),
// after installing its pause points.
#include "modes/program.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "drivestress_version.h"
#include "metrics/prometheus.h"
#include "modes/delivery.h"
#include "modes/environment.h"
#include "modes/job_file_run.h"
#include "modes/modes.h"
#include "output/output_file.h"
#include "sys/memory.h"
#include "sys/signals.h"
#include "units/diag.h"

namespace {

using ds::model::ExitStatus;

ExitStatus fail(const std::string& message) {
    ds::units::error(message);
    return ExitStatus::error;
}

// Standard streams closed by the caller are reopened on /dev/null before
// anything else opens a file: otherwise the first test file would become fd
// 1 and the report would be written into the data.
bool hold_standard_streams() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
        int got = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (got != fd) return false;  // the lowest free number is fd itself
    }
    return true;
}

// --prom-label names and values follow the exposition format's rules
// (the report layer's); "" when they do.
std::string prom_label_problem(const ds::cli::Outputs& o) {
    for (const auto& [key, value] : o.prom_labels) {
        if (auto why = ds::metrics::prom_label_name_problem(key); !why.empty())
            return "--prom-label: " + why;
        if (auto why = ds::metrics::prom_label_value_problem(value); !why.empty())
            return "--prom-label " + key + ": " + why;
    }
    return "";
}

ExitStatus dispatch(ds::cli::ParsedCommandLine& cmd) {
    // Before any thread is made: threads take their stack size from it.
    if (std::string why = ds::sys::ensure_stack(); !why.empty()) return fail(why);
    try {
        for (const std::string& line : ds::modes::load_job_file(cmd.config))
            ds::units::info(line);
        ds::modes::check_environment(cmd);
        const ds::modes::Output out = ds::modes::output_for(cmd.outputs);
        if (cmd.action == ds::cli::ParsedCommandLine::Action::verify_only)
            return ds::modes::run_verify_only(cmd, out);
        if (!cmd.preset.empty()) return ds::modes::run_preset(cmd, out);
        if (cmd.config.compare_backends || cmd.config.compare_atomic)
            return ds::modes::run_comparison(cmd, out);
        if (cmd.config.interference) return ds::modes::run_interference(cmd, out);
        return ds::modes::run_single(cmd, out);
    } catch (const std::bad_alloc&) {
        return fail("out of memory (lower --size, --files or --qd, or raise --rand-block)");
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}

}  // namespace

namespace ds::modes {

int run_program(int argc, char** argv) {
    if (!hold_standard_streams()) return ds::model::code_of(ExitStatus::error);
    // Blocks of 128 KiB and more are mapped and given back when freed, always.
    // glibc otherwise raises that threshold to the largest block freed (the
    // --json document, rebuilt after every iteration and growing with them)
    // and then keeps twice as much free heap resident: a run of days would
    // hold memory in proportion to its length.
    ::mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    // A write to a FIFO or terminal whose reader stopped reading ends at a
    // stop request instead of holding the run.
    ds::output::set_stop_request(&ds::sys::stop_signal);
    std::vector<std::string> args(argv + 1, argv + argc);
    ds::cli::ParsedCommandLine cmd;
    try {
        cmd = ds::cli::parse_command_line(args);
    } catch (const ds::cli::UsageError& e) {
        return ds::model::code_of(fail(std::string(e.what()) + " (see --help)"));
    }
    if (std::string why = prom_label_problem(cmd.outputs); !why.empty())
        return ds::model::code_of(fail(why + " (see --help)"));
    ExitStatus code = ExitStatus::success;
    if (cmd.action == ds::cli::ParsedCommandLine::Action::help)
        std::fputs(cmd.help_text.c_str(), stdout);
    else if (cmd.action == ds::cli::ParsedCommandLine::Action::version)
        std::printf("drivestress %s\n", DRIVESTRESS_VERSION);
    else
        code = dispatch(cmd);
    // The report is part of the result: stdout on a full disk is an error
    // (with --json - or --fio-json - the document's delivery has said so already).
    const bool document_on_stdout =
        cmd.outputs.json.is_stdout() || cmd.outputs.fio_json.is_stdout();
    if (!document_on_stdout && (std::fflush(stdout) != 0 || std::ferror(stdout))) {
        ds::units::error(std::string("writing to standard output failed: ") +
                         std::strerror(errno ? errno : EIO));
        if (code == ExitStatus::success) code = ExitStatus::error;
    }
    return ds::model::code_of(code);
}

}  // namespace ds::modes
