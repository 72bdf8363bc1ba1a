// drivestress: parse the command line, run, report, map the outcome to an
// exit status.  Everything else lives in the libraries under src/.
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <system_error>
#include <vector>

#include "cli/options.h"
#include "drivestress_version.h"
#include "io/output_file.h"
#include "report/backend_comparison.h"
#include "report/host_info.h"
#include "report/json_report.h"
#include "report/json_snapshot.h"
#include "report/preset_report.h"
#include "report/prom_textfile.h"
#include "report/text_report.h"
#include "report/timeseries.h"
#include "report/verify_report.h"
#include "run/errors.h"
#include "run/compare_backends.h"
#include "run/runner.h"
#include "run/verify_only.h"

namespace {

constexpr int kExitUsage = 1;

// Errors are one line: control characters from user input are escaped.
std::string one_line(const std::string& text) {
    std::string out;
    for (unsigned char c : text) {
        if (c == '\n')
            out += "\\n";
        else if (c < 0x20 || c == 0x7f) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\x%02x", c);
            out += esc;
        } else
            out += static_cast<char>(c);
    }
    return out;
}

int fail(const std::string& message) {
    std::fprintf(stderr, "drivestress: %s\n", one_line(message).c_str());
    return kExitUsage;
}

// What is left to do once the measuring is over: deliver the result files
// and settle the exit status.  A result that could not be written (a full
// disk, a FIFO without reader) is one line on stderr and turns a clean exit
// into 1; the text report's verdict line then says why.
class Delivery {
  public:
    explicit Delivery(int code) : code_(code) {}
    int code() const { return code_; }
    const std::string& first_error() const { return first_error_; }

    void failed(const std::string& what) {
        std::fprintf(stderr, "drivestress: %s\n", one_line(what).c_str());
        if (first_error_.empty()) first_error_ = one_line(what);
        if (code_ == 0) code_ = kExitUsage;
    }
    // --json: "-" is stdout; a file is replaced atomically, never followed.
    // `run`: the run whose iterations the document lists (none for --verify-only).
    void json(const std::string& path, nlohmann::json doc,
              const ds::run::RunResult* run = nullptr) {
        if (path.empty()) return;
        ds::report::set_verdict(doc, code_);
        std::string text = ds::report::document_text(doc, run);
        if (path == "-") {
            if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
                std::fflush(stdout) != 0)
                failed(std::string("--json -: writing to stdout failed: ") + std::strerror(errno));
            return;
        }
        write_file("--json", path, text);
    }
    void write_file(const char* option, const std::string& path, const std::string& text) {
        try {
            ds::io::write_file_atomically(path, text);
        } catch (const std::system_error& e) {
            failed(std::string(option) + " " + e.what());
        }
    }

  private:
    int code_;
    std::string first_error_;
};

// Where the text report and the live status line go.
struct Output {
    std::FILE* text;
    std::FILE* live;  // nullptr: no status line
};

Output output_for(const ds::run::RunConfig& cfg) {
    Output o;
    o.text = cfg.json_path == "-" ? stderr : stdout;  // never mix text into JSON
    bool live = cfg.progress == ds::run::ProgressMode::always ||
                (cfg.progress == ds::run::ProgressMode::automatic && ::isatty(STDERR_FILENO));
    o.live = live ? stderr : nullptr;
    return o;
}

ds::report::TextReport text_report(const Output& out) {
    return ds::report::TextReport(out.text, out.live, ds::report::HostInfo::current());
}

// --prom: the live textfile, or none.
std::unique_ptr<ds::report::PromTextfile> prom_textfile(const ds::cli::ParsedCommandLine& cmd,
                                                        const std::string& path) {
    if (path.empty()) return nullptr;
    return std::make_unique<ds::report::PromTextfile>(
        ds::report::PromTextfile::Settings{path, cmd.prom_labels, cmd.prom_interval_s, cmd.preset},
        ds::report::HostInfo::current());
}

// Runs one Runner; a run that ends in an exception leaves a textfile that
// says so (verdict error) rather than one that says it is still running.
ds::run::RunResult run_watched(const ds::run::RunConfig& cfg, ds::run::RunObserver* observer,
                               ds::report::PromTextfile* prom) {
    try {
        return ds::run::Runner(cfg, observer).run();
    } catch (...) {
        if (prom) (void)prom->finish(kExitUsage);
        throw;
    }
}

// The last textfile write; a live rewrite that failed is said, not fatal.
void finish_prom(ds::report::PromTextfile* prom, Delivery& d) {
    if (!prom) return;
    if (std::string e = prom->finish(d.code()); !e.empty()) {
        d.failed(e);
    } else if (prom->live_failures() > 0) {
        std::fprintf(stderr,
                     "drivestress: note: %u live rewrite(s) of --prom failed, the last one "
                     "landed (first failure: %s)\n",
                     prom->live_failures(), one_line(prom->live_error()).c_str());
    }
}

int run_single(const ds::cli::ParsedCommandLine& cmd, const Output& out) {
    const ds::run::RunConfig& cfg = cmd.config;
    auto text = text_report(out);
    std::vector<ds::run::RunObserver*> observers{&text};
    std::unique_ptr<ds::report::TimeseriesWriter> timeseries;
    if (!cfg.timeseries_path.empty()) {
        timeseries = std::make_unique<ds::report::TimeseriesWriter>(cfg.timeseries_path);
        observers.push_back(timeseries.get());
    }
    auto prom = prom_textfile(cmd, cfg.prom_path);
    if (prom) observers.push_back(prom.get());
    // --json rewritten after every iteration, before the text report shows it.
    ds::report::JsonSnapshotWriter snapshots(cfg.json_path, ds::report::HostInfo::current(),
                                             stderr);
    observers.insert(observers.begin(), &snapshots);
    ds::run::ObserverList all(observers);
    ds::run::RunResult result = run_watched(cfg, &all, prom.get());
    if (!result.fatal_error.empty())
        std::fprintf(stderr, "drivestress: %s\n", one_line(result.fatal_error).c_str());
    Delivery d(ds::run::exit_status(result));
    if (timeseries)
        if (std::string e = timeseries->finish(); !e.empty()) d.failed(e);
    if (prom) prom->run_ended(result);
    finish_prom(prom.get(), d);
    d.json(cfg.json_path, ds::report::result_json(cfg, result, ds::report::HostInfo::current()),
           &result);
    text.finish(cfg, result, d.code(), d.first_error());
    return d.code();
}

int run_comparison(const ds::run::RunConfig& cfg, const Output& out) {
    auto first = text_report(out);
    auto second = text_report(out);
    // --json is the io_uring run's document: rewritten while that run goes on.
    ds::report::JsonSnapshotWriter snapshots(cfg.json_path, ds::report::HostInfo::current(),
                                             stderr);
    ds::run::ObserverList uring_observers({&snapshots, &first});
    auto cmp = ds::run::compare_backends(cfg, &uring_observers, &second);
    Delivery d(ds::run::exit_status(cmp));
    if (!cfg.json_path.empty()) {
        auto doc =
            ds::report::result_json(cmp.uring_config, cmp.uring, ds::report::HostInfo::current());
        if (cmp.sync_ran)
            doc["compare_backends"] =
                ds::report::comparison_json(cmp.sync_config, cmp.uring, cmp.sync);
        d.json(cfg.json_path, std::move(doc), &cmp.uring);
    }
    first.finish(cmp.uring_config, cmp.uring, ds::run::exit_status(cmp.uring));
    if (cmp.sync_ran) {
        second.finish(cmp.sync_config, cmp.sync, ds::run::exit_status(cmp.sync));
        std::fputs(ds::report::comparison_table(cmp.uring, cmp.sync).c_str(), out.text);
    }
    if (!d.first_error().empty())
        std::fprintf(out.text, "result   ERROR: %s (exit %d)\n", d.first_error().c_str(), d.code());
    return d.code();
}

// --verify-only STATE: the report goes where a run's would.
int run_verify_only(const ds::cli::ParsedCommandLine& cmd, const Output& out) {
    const auto host = ds::report::HostInfo::current();
    ds::run::VerifyOnlyResult r;
    try {
        r = ds::run::verify_only(cmd.verify_only_state, cmd.verify_cleanup);
    } catch (const ds::run::SetupError& e) {
        throw ds::run::SetupError(std::string("--verify-only ") + e.what());
    }
    Delivery d(ds::run::exit_status(r));
    d.json(cmd.config.json_path, ds::report::verify_json(r, host));
    ds::report::print_verify_text(out.text, r, host);
    if (!d.first_error().empty())
        std::fprintf(out.text, "result   ERROR: %s (exit %d)\n", d.first_error().c_str(), d.code());
    return d.code();
}

int run_preset(const ds::cli::ParsedCommandLine& cmd, const Output& out) {
    ds::report::PresetResults results;
    int code = 0;
    // One textfile for the whole preset: each test's series carry its label.
    auto prom = prom_textfile(cmd, cmd.config.prom_path);
    // --json is the first test's document (burn-in's only test): rewritten
    // while that test goes on.
    ds::report::JsonSnapshotWriter snapshots(cmd.config.json_path, ds::report::HostInfo::current(),
                                             stderr);
    for (const auto& [label, test_cfg] : cmd.preset_tests) {
        std::fprintf(out.text, "\n=== %s: %s\n", cmd.preset.c_str(), label.c_str());
        auto report = text_report(out);
        std::vector<ds::run::RunObserver*> observers{&report};
        if (results.empty()) observers.insert(observers.begin(), &snapshots);
        if (prom) {
            prom->begin_test(label);
            observers.push_back(prom.get());
        }
        ds::run::ObserverList all(observers);
        ds::run::RunResult r = run_watched(test_cfg, &all, prom.get());
        if (prom) prom->run_ended(r);
        report.finish(test_cfg, r, ds::run::exit_status(r));
        code = ds::run::worse_exit_status(code, ds::run::exit_status(r));
        results.emplace_back(label, std::move(r));
        if (results.back().second.stop != ds::run::StopReason::completed) break;
    }
    Delivery d(code);
    finish_prom(prom.get(), d);
    if (!cmd.config.json_path.empty()) {
        auto doc = ds::report::result_json(cmd.preset_tests.front().second, results.front().second,
                                           ds::report::HostInfo::current());
        doc["preset"] = ds::report::preset_json(cmd.preset, results);
        d.json(cmd.config.json_path, std::move(doc), &results.front().second);
    }
    std::fputs(ds::report::preset_table(cmd.preset, results).c_str(), out.text);
    if (!d.first_error().empty())
        std::fprintf(out.text, "result   ERROR: %s (exit %d)\n", d.first_error().c_str(), d.code());
    return d.code();
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

int dispatch(const ds::cli::ParsedCommandLine& cmd) {
    const ds::run::RunConfig& cfg = cmd.config;
    const Output out = output_for(cfg);
    try {
        if (cmd.action == ds::cli::ParsedCommandLine::Action::verify_only)
            return run_verify_only(cmd, out);
        if (!cmd.preset.empty()) return run_preset(cmd, out);
        if (cfg.compare_backends) return run_comparison(cfg, out);
        return run_single(cmd, out);
    } catch (const std::bad_alloc&) {
        return fail("out of memory (lower --size, --files or --qd, or raise --rand-block)");
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (!hold_standard_streams()) return kExitUsage;
    // Blocks of 128 KiB and more are mapped and given back when freed, always.
    // glibc otherwise raises that threshold to the largest block freed (the
    // --json document, rebuilt after every iteration and growing with them)
    // and then keeps twice as much free heap resident: a run of days would
    // hold memory in proportion to its length.
    ::mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    std::vector<std::string> args(argv + 1, argv + argc);
    ds::cli::ParsedCommandLine cmd;
    try {
        cmd = ds::cli::parse_command_line(args);
    } catch (const ds::cli::UsageError& e) {
        return fail(std::string(e.what()) + " (see --help)");
    }
    // --prom-label names and values follow the exposition format's rules.
    for (const auto& [key, value] : cmd.prom_labels) {
        if (auto why = ds::report::prom_label_name_problem(key); !why.empty())
            return fail("--prom-label: " + why + " (see --help)");
        if (auto why = ds::report::prom_label_value_problem(value); !why.empty())
            return fail("--prom-label " + key + ": " + why + " (see --help)");
    }
    int code = 0;
    if (cmd.action == ds::cli::ParsedCommandLine::Action::help)
        std::fputs(cmd.help_text.c_str(), stdout);
    else if (cmd.action == ds::cli::ParsedCommandLine::Action::version)
        std::printf("drivestress %s\n", DRIVESTRESS_VERSION);
    else
        code = dispatch(cmd);
    // The report is part of the result: stdout on a full disk is an error
    // (with --json - the document's delivery has said so already).
    if (cmd.config.json_path != "-" && (std::fflush(stdout) != 0 || std::ferror(stdout))) {
        std::fprintf(stderr, "drivestress: writing to standard output failed: %s\n",
                     std::strerror(errno ? errno : EIO));
        if (code == 0) code = kExitUsage;
    }
    return code;
}
