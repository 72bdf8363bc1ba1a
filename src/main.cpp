// drivestress: parse the command line, run, report, map the outcome to an
// exit status.  Everything else lives in the libraries under src/.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "cli/options.h"
#include "drivestress_version.h"
#include "report/backend_comparison.h"
#include "report/host_info.h"
#include "report/json_report.h"
#include "report/preset_report.h"
#include "report/prometheus.h"
#include "report/text_report.h"
#include "report/timeseries.h"
#include "report/verify_report.h"
#include "run/errors.h"
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

// Writes the result document; "-" is stdout.  Returns false on failure.
bool write_json(const std::string& path, const nlohmann::json& doc, std::string& error) {
    std::string text = doc.dump(2) + "\n";
    if (path == "-") {
        if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
            std::fflush(stdout) != 0) {
            error = std::string("--json -: writing to stdout failed: ") + std::strerror(errno);
            return false;
        }
        return true;
    }
    std::ofstream f(path, std::ios::trunc);
    f << text;
    f.close();
    if (!f) {
        error = "--json " + path + ": write failed";
        return false;
    }
    return true;
}

// Writes the document; a failed write turns a clean exit into 1.
int finish_json(const std::string& path, const nlohmann::json& doc, int code) {
    std::string error;
    if (!write_json(path, doc, error)) {
        std::fprintf(stderr, "drivestress: %s\n", error.c_str());
        if (code == 0) code = kExitUsage;
    }
    return code;
}

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

int run_single(const ds::run::RunConfig& cfg, const Output& out) {
    auto text = text_report(out);
    std::vector<ds::run::RunObserver*> observers{&text};
    std::unique_ptr<ds::report::TimeseriesWriter> timeseries;
    if (!cfg.timeseries_path.empty()) {
        timeseries = std::make_unique<ds::report::TimeseriesWriter>(cfg.timeseries_path);
        observers.push_back(timeseries.get());
    }
    ds::run::ObserverList all(observers);
    ds::run::RunResult result = ds::run::Runner(cfg, &all).run();
    text.finish(cfg, result);
    if (!result.fatal_error.empty())
        std::fprintf(stderr, "drivestress: %s\n", one_line(result.fatal_error).c_str());
    int code = ds::run::exit_status(result);
    if (!cfg.prom_path.empty()) {
        try {
            ds::report::write_prometheus_file(cfg.prom_path,
                                              ds::report::prometheus_text(cfg, result));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "drivestress: --prom: %s\n", one_line(e.what()).c_str());
            if (code == 0) code = kExitUsage;
        }
    }
    if (cfg.json_path.empty()) return code;
    return finish_json(cfg.json_path,
                       ds::report::result_json(cfg, result, ds::report::HostInfo::current()), code);
}

int run_comparison(const ds::run::RunConfig& cfg, const Output& out) {
    auto first = text_report(out);
    auto second = text_report(out);
    auto cmp = ds::run::compare_backends(cfg, &first, &second);
    first.finish(cmp.uring_config, cmp.uring);
    if (cmp.sync_ran) {
        second.finish(cmp.sync_config, cmp.sync);
        std::fputs(ds::report::comparison_table(cmp.uring, cmp.sync).c_str(), out.text);
    }
    int code = ds::run::exit_status(cmp);
    if (cfg.json_path.empty()) return code;
    auto doc =
        ds::report::result_json(cmp.uring_config, cmp.uring, ds::report::HostInfo::current());
    if (cmp.sync_ran)
        doc["compare_backends"] = ds::report::comparison_json(cmp.sync_config, cmp.uring, cmp.sync);
    ds::report::set_verdict(doc, code);
    return finish_json(cfg.json_path, doc, code);
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
    ds::report::print_verify_text(out.text, r, host);
    const int code = ds::run::exit_status(r);
    const std::string& json_path = cmd.config.json_path;
    if (json_path.empty()) return code;
    return finish_json(json_path, ds::report::verify_json(r, host), code);
}

int run_preset(const ds::cli::ParsedCommandLine& cmd, const Output& out) {
    ds::report::PresetResults results;
    int code = 0;
    for (const auto& [label, test_cfg] : cmd.preset_tests) {
        std::fprintf(out.text, "\n=== %s: %s\n", cmd.preset.c_str(), label.c_str());
        auto report = text_report(out);
        ds::run::RunResult r = ds::run::Runner(test_cfg, &report).run();
        report.finish(test_cfg, r);
        code = ds::run::worse_exit_status(code, ds::run::exit_status(r));
        results.emplace_back(label, std::move(r));
        if (results.back().second.stop != ds::run::StopReason::completed) break;
    }
    std::fputs(ds::report::preset_table(cmd.preset, results).c_str(), out.text);
    const std::string& json_path = cmd.config.json_path;
    if (json_path.empty()) return code;
    auto doc = ds::report::result_json(cmd.preset_tests.front().second, results.front().second,
                                       ds::report::HostInfo::current());
    doc["preset"] = ds::report::preset_json(cmd.preset, results);
    ds::report::set_verdict(doc, code);
    return finish_json(json_path, doc, code);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    ds::cli::ParsedCommandLine cmd;
    try {
        cmd = ds::cli::parse_command_line(args);
    } catch (const ds::cli::UsageError& e) {
        return fail(std::string(e.what()) + " (see --help)");
    }
    if (cmd.action == ds::cli::ParsedCommandLine::Action::help) {
        std::fputs(cmd.help_text.c_str(), stdout);
        return 0;
    }
    if (cmd.action == ds::cli::ParsedCommandLine::Action::version) {
        std::printf("drivestress %s\n", DRIVESTRESS_VERSION);
        return 0;
    }

    const ds::run::RunConfig& cfg = cmd.config;
    const Output out = output_for(cfg);
    try {
        if (cmd.action == ds::cli::ParsedCommandLine::Action::verify_only)
            return run_verify_only(cmd, out);
        if (!cmd.preset.empty()) return run_preset(cmd, out);
        if (cfg.compare_backends) return run_comparison(cfg, out);
        return run_single(cfg, out);
    } catch (const ds::run::SetupError& e) {
        return fail(e.what());
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}
