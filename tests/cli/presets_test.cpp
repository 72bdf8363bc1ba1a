// --preset: each preset's tests expand to exactly their documented options,
// the user's own options win, every option a preset names is a real one,
// --help lists them, and the result files a preset run may write.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/option_table.h"
#include "cli/presets.h"

using ds::cli::parse_command_line;
using ds::cli::ParsedCommandLine;
using ds::cli::UsageError;
using ds::model::Phase;
using ds::model::RunConfig;

namespace {

constexpr std::uint64_t KiB = 1024;

using Args = std::vector<std::string>;

// The UsageError message for `args`, or "" when they are accepted (so a
// missing rejection fails the check on the message).
std::string usage_error(const Args& args) {
    try {
        parse_command_line(args);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// Checks that `args` are rejected with a message naming `option`.
void check_rejected(const Args& args, const std::string& option) {
    std::string msg = usage_error(args);
    CAPTURE(msg);
    CHECK(!msg.empty());
    CHECK(contains(msg, option));
}

}  // namespace

TEST_CASE("presets expand to exactly their documented options") {
    auto desktop = parse_command_line({"--preset", "desktop", "/tmp"});
    REQUIRE(desktop.preset_tests.size() == 6);
    const auto& seq8 = desktop.preset_tests[0];
    CHECK(seq8.first == "SEQ1M Q8T1");
    CHECK(seq8.second.seq_block == 1U << 20);
    CHECK(seq8.second.qd == 8);
    CHECK(seq8.second.files == 1);
    CHECK(seq8.second.phases.size() == 2);
    CHECK(seq8.second.verify);
    const auto& rnd_write = desktop.preset_tests[3];
    CHECK(rnd_write.first == "RND4K Q32T1 write");
    CHECK(rnd_write.second.read_pct == 0);
    CHECK(rnd_write.second.qd == 32);
    CHECK(rnd_write.second.has_phase(ds::model::Phase::reverify));
    CHECK(rnd_write.second.target == "/tmp");

    auto nvme = parse_command_line({"--preset", "nvme"});
    REQUIRE(nvme.preset_tests.size() == 3);
    CHECK(nvme.preset_tests[0].second.seq_block == 128 * 1024);
    CHECK(nvme.preset_tests[1].second.files == 16);

    auto burn = parse_command_line({"--preset", "burn-in", "--duration", "1h"});
    REQUIRE(burn.preset_tests.size() == 1);
    CHECK(burn.preset_tests[0].second.iterations == 0);
    CHECK(burn.preset_tests[0].second.read_pct == 50);
    CHECK(burn.preset_tests[0].second.phases.size() == 4);

    auto quick = parse_command_line({"--preset", "quick"});
    REQUIRE(quick.preset_tests.size() == 1);
    CHECK(quick.preset_tests[0].second.file_bytes == parse_command_line({}).config.file_bytes);
}

TEST_CASE("explicit options override a preset's values") {
    auto cmd = parse_command_line({"--preset", "desktop", "--qd", "4", "-s", "64M"});
    for (const auto& [label, cfg] : cmd.preset_tests) {
        CAPTURE(label);
        CHECK(cfg.qd == 4);
        CHECK(cfg.file_bytes == 64ULL << 20);
    }
    CHECK_THROWS_AS(parse_command_line({"--preset", "fastest"}), UsageError);
}

TEST_CASE("--no-verify with a preset drops the preset's reverify phases") {
    auto cmd = parse_command_line({"--preset", "desktop", "--no-verify"});
    REQUIRE_FALSE(cmd.preset_tests.empty());
    bool had_random_write = false;
    for (const auto& [label, cfg] : cmd.preset_tests) {
        CAPTURE(label);
        CHECK_FALSE(cfg.verify);
        CHECK_FALSE(cfg.has_phase(ds::model::Phase::reverify));
        if (cfg.read_pct == 0) {
            had_random_write = true;
            CHECK(cfg.has_phase(ds::model::Phase::random));
        }
    }
    CHECK(had_random_write);
    // Named by the user, reverify still conflicts with --no-verify.
    CHECK_THROWS_AS(parse_command_line(
                        {"--preset", "desktop", "--no-verify", "--phases", "seq-write,reverify"}),
                    UsageError);
}

TEST_CASE("every preset option is a real option, with a value exactly when it takes one") {
    // Presets are data read through the option table (no command line is
    // spelled from them), so a misspelt key would otherwise be ignored.
    for (const auto& preset : ds::cli::presets())
        for (const auto& test : preset.tests)
            for (const auto& [key, value] : test.options) {
                CAPTURE(preset.name);
                CAPTURE(key);
                const ds::cli::OptionSpec* spec = nullptr;
                for (const auto& s : ds::cli::option_specs())
                    if (key == s.name) spec = &s;
                REQUIRE(spec != nullptr);
                CHECK(value.empty() == (spec->kind == ds::cli::OptionSpec::Kind::flag));
            }
}

TEST_CASE("a preset value the user gave the same way is the user's; the others still apply") {
    auto cmd = parse_command_line({"--preset", "nvme", "--read-pct", "30", "/tmp"});
    REQUIRE(cmd.preset_tests.size() == 3);
    CHECK(cmd.preset_tests[1].second.read_pct == 30);  // the user's, over RND4K's 100
    CHECK(cmd.preset_tests[1].second.files == 16);     // the preset's
    CHECK(cmd.preset_tests[2].second.read_pct == 30);
    CHECK(cmd.preset_tests[0].second.seq_time_s == 5);  // the preset's seq-time
}

TEST_CASE("help lists every preset with its options") {
    auto help = parse_command_line({"--help"}).help_text;
    for (const auto& p : ds::cli::presets()) {
        CHECK(help.find(p.name + ": ") != std::string::npos);
        for (const auto& t : p.tests)
            for (const auto& [key, value] : t.options)
                CHECK(help.find("--" + key + (value.empty() ? "" : " " + value)) !=
                      std::string::npos);
    }
}

TEST_CASE("--preset database: the size mix, skew and commit groups docs/presets.md states") {
    ParsedCommandLine p = parse_command_line({"--preset", "database", "/tmp"});
    REQUIRE(p.preset_tests.size() == 1);
    const RunConfig& c = p.preset_tests[0].second;
    CHECK(c.rand_block_text() == "8K:70,16K:15,64K:10,128K:5");
    CHECK(c.rand_block == 8 * KiB);
    CHECK(c.read_pct == 70);
    CHECK(c.distribution.text() == "zipf:1.1");
    CHECK((c.qd == 16 && c.files == 4));
    CHECK((c.sync == ds::model::SyncMethod::fdatasync && c.sync_every == 32));
    CHECK(c.rand_time_s == 30);
    CHECK(c.phases == std::vector<Phase>{Phase::seq_write, Phase::random, Phase::reverify});
    // The user's own options win, as with every preset.
    p = parse_command_line({"--preset", "database", "--rand-block", "16K", "/tmp"});
    CHECK(p.preset_tests[0].second.rand_mix.empty());
}

TEST_CASE("--prom and --timeseries work with a preset (one file for its tests)") {
    const std::string prom = "/tmp/options_test_never_written.prom";
    ParsedCommandLine p = parse_command_line(
        {"--preset", "desktop", "--prom", prom, "--prom-label", "rack=r1", "/tmp"});
    CHECK(p.preset == "desktop");
    CHECK(p.outputs.prom.text() == prom);
    CHECK(p.outputs.prom_labels ==
          std::vector<std::pair<std::string, std::string>>{{"rack", "r1"}});
    CHECK(p.preset_tests.size() > 1);  // one textfile for every test
    // Even the one-test presets promise per-second detail (issue 27).
    for (const char* name : {"desktop", "burn-in", "nvme-endurance"}) {
        const std::string ts = "/tmp/options_test_never_written.ndjson";
        ParsedCommandLine t =
            parse_command_line({"--preset", name, "--timeseries", ts, "--duration", "1m", "/tmp"});
        CHECK(t.outputs.timeseries.text() == ts);
        CHECK(!t.preset_tests.empty());
    }
    check_rejected({"--timeseries", "/tmp/options_test_ts.ndjson", "--compare-backends", "/tmp"},
                   "--timeseries works with a single run or --preset");
}

TEST_CASE("--preset's own help and its refusal name every preset") {
    const std::string names = ds::cli::preset_names();
    CHECK(names == "quick, desktop, nvme, burn-in, database, nvme-endurance");
    // --help's line of --preset, folded: its words from "a named set" on.
    const std::string help = parse_command_line({"--help"}).help_text;
    const auto at = help.find("a named set of tests:");
    REQUIRE(at != std::string::npos);
    std::string line;
    for (char c : help.substr(at, help.find("(listed", at) - at))
        if (c != '\n' && !(c == ' ' && !line.empty() && line.back() == ' ')) line += c;
    for (const auto& p : ds::cli::presets())
        CHECK(line.find(" " + p.name) != std::string::npos);
    std::string refusal;
    try {
        parse_command_line({"--preset", "nosuch"});
    } catch (const UsageError& e) {
        refusal = e.what();
    }
    CHECK(refusal == "--preset: unknown preset 'nosuch' (use " + names + ")");
}
