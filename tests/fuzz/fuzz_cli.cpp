// libFuzzer target for ds::cli::parse_command_line: the input, split on NUL
// bytes, is argv (without the program name).  It must return or throw
// ds::cli::UsageError; any other exception, a crash, a sanitizer report or a
// returned configuration that breaks the rules the parser enforces is a
// finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "cli/command_line.h"

namespace {

const std::vector<std::string>* g_args;  // the argv being parsed, for the finding message

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "fuzz_cli: %s; argv:", what);
    for (const auto& a : *g_args)
        std::fprintf(stderr, " '%s'", a.c_str());
    std::fprintf(stderr, "\n");
    std::abort();
}

bool is_power_of_two(std::uint64_t v) {
    return v && (v & (v - 1)) == 0;
}

// What cli/command_line.cpp promises about a configuration it returns.
void check_config(const ds::model::RunConfig& c) {
    if (c.target.empty()) finding("empty target accepted");
    if (c.files < 1 || c.files > 4096) finding("files out of 1..4096");
    if (c.qd < 1 || c.qd > 4096) finding("qd out of 1..4096");
    if (!is_power_of_two(c.rand_block) || c.rand_block < 512 || c.rand_block > (64U << 20))
        finding("rand_block not a power of two in 512..64M");
    if (c.seq_block == 0 || c.seq_block % c.rand_block != 0)
        finding("seq_block not a multiple of rand_block");
    if (c.file_bytes == 0 || c.file_bytes % c.rand_block != 0)
        finding("file size zero or not a multiple of rand_block");
    if (c.seq_block > c.file_bytes) finding("seq_block larger than the file");
    if (c.read_pct > 100) finding("read_pct above 100");
    if (!(c.rand_time_s >= 0)) finding("negative or NaN rand_time");
    if (c.rand_ops && *c.rand_ops == 0) finding("rand_ops of zero accepted");
    if (c.duration_s && !(*c.duration_s > 0)) finding("duration not positive");
    if (c.phases.empty() || c.phases.front() != ds::model::Phase::seq_write)
        finding("phases do not start with seq-write");
    for (std::size_t i = 1; i < c.phases.size(); ++i)
        if (!(c.phases[i - 1] < c.phases[i])) finding("phases repeated or out of order");
    if (!c.verify && c.has_phase(ds::model::Phase::reverify))
        finding("reverify kept with --no-verify");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args;
    std::string current;
    for (std::size_t i = 0; i < size; ++i) {
        if (data[i] == 0) {
            args.push_back(current);
            current.clear();
        } else {
            current.push_back(static_cast<char>(data[i]));
        }
    }
    if (size > 0) args.push_back(current);
    g_args = &args;
    try {
        auto parsed = ds::cli::parse_command_line(args);
        if (parsed.action == ds::cli::ParsedCommandLine::Action::run) check_config(parsed.config);
    } catch (const ds::cli::UsageError&) {
        // The documented refusal.
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_cli: unexpected exception: %s\n", e.what());
        finding("exception other than ds::cli::UsageError");
    } catch (...) {
        finding("non-standard exception");
    }
    return 0;
}
