// The command line: Boost.Program_options in, a validated RunConfig out.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "run/config.h"

namespace ds::cli {

// A bad command line; what() is the one-line message (without program name).
class UsageError : public std::runtime_error {
  public:
    explicit UsageError(const std::string& what) : std::runtime_error(what) {}
};

struct ParsedCommandLine {
    enum class Action { run, help, version, verify_only } action = Action::run;
    run::RunConfig config;
    std::string help_text;
    // With --preset: one labelled configuration per test, run in order.
    std::string preset;
    std::vector<std::pair<std::string, run::RunConfig>> preset_tests;
    // --verify-only STATE [--cleanup] (config.json_path holds --json).
    std::string verify_only_state;
    bool verify_cleanup = false;
    // --prom (config.prom_path): the user's own labels (--prom-label
    // KEY=VALUE, in order, validated) and how often the textfile is
    // rewritten while the run goes on (--prom-interval).
    std::vector<std::pair<std::string, std::string>> prom_labels;
    double prom_interval_s = 5;
};

// "qd=1,2,4", "qd=1..256" (powers of two from 1 to 256), "files=1..8",
// "rand-block=4K,16K,64K".  Throws UsageError naming --sweep.
run::Sweep parse_sweep(const std::string& text);

// Throws UsageError naming the option and what is wrong with it.
ParsedCommandLine parse_command_line(const std::vector<std::string>& args);

}  // namespace ds::cli
