// The command line: Boost.Program_options in (every option described once,
// in option_table.cpp), a RunConfig and where the results go out.  Each
// concept's options are read in a file of their own (options_reader.h lists
// them); command_line.cpp reads them in a fixed order.  Parsing only: the
// options are checked against each other here, never against the system (is
// that device unused, can that file be written): the program does that
// before the run (modes/environment.h).
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/config.h"
#include "output/output_file.h"
#include "units/units.h"

namespace ds::cli {

// A bad command line; what() is the one-line message (without program name).
class UsageError : public std::runtime_error {
  public:
    explicit UsageError(const std::string& what) : std::runtime_error(what) {}
};

enum class ProgressMode { automatic, always, never };

// Where results go: written by the report layer, during or after the run.
struct Outputs {
    output::OutputPath json;        // --json: none, stdout or a path
    output::OutputPath fio_json;    // --fio-json: none, stdout or a path (report/fio_jobs.h)
    output::OutputPath timeseries;  // --timeseries: none or a path
    output::OutputPath prom;        // --prom: none or a path
    output::OutputPath io_log;      // --io-log: none or a path (RunConfig::io_log runs it)
    // --prom-label KEY=VALUE in order, and how often the textfile is
    // rewritten while the run goes on (--prom-interval).
    std::vector<std::pair<std::string, std::string>> prom_labels;
    double prom_interval_s = 5;
    ProgressMode progress = ProgressMode::automatic;
    bool brief = false;  // --brief: the text report is the result block only
    bool wide = false;   // --wide: report lines never folded (report/text_width.h)
    units::ByteUnits units = units::ByteUnits::iec;  // --units: MiB/s or MB/s
    // The files named above (not "-"), as (option, path): the run must not
    // take any of them for one of its own.
    std::vector<std::pair<std::string, std::string>> files() const;
};

// The options --verify-only STATE combines with: where its report goes, and
// the cleanup after it (--help says so in --verify-only's line).
inline constexpr std::array<const char*, 5> kWithVerifyOnly{"json", "wide", "progress", "cleanup",
                                                            "force"};

struct ParsedCommandLine {
    enum class Action { run, help, version, verify_only } action = Action::run;
    model::RunConfig config;
    Outputs outputs;
    std::string help_text;
    // With --preset: one labelled configuration per test, run in order.
    std::string preset;
    std::vector<std::pair<std::string, model::RunConfig>> preset_tests;
    // --verify-only STATE [--cleanup [--force]].
    std::string verify_only_state;
    bool verify_cleanup = false;
    bool verify_force = false;  // release the files of a STATE that cannot be read
};

// "qd=1,2,4", "qd=1..256" (powers of two from 1 to 256), "files=1..8",
// "rand-block=4K,16K,64K" (sweep_options.cpp).  Throws UsageError naming --sweep.
model::Sweep parse_sweep(const std::string& text);
// --find-rate's "p99<=2ms" (schedule_options.cpp); throws UsageError naming a
// bad spelling.
model::FindRate parse_find_rate(const std::string& text);

// "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11} (backend_options.cpp).  Throws
// UsageError naming --cpus.
std::vector<unsigned> parse_cpu_list(const std::string& text);

// Throws UsageError naming the option and what is wrong with it.
ParsedCommandLine parse_command_line(const std::vector<std::string>& args);

}  // namespace ds::cli
