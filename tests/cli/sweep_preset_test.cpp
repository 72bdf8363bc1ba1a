// --sweep parsing and --preset expansion.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli/option_table.h"
#include "cli/options.h"
#include "cli/presets.h"

using ds::cli::parse_command_line;
using ds::cli::parse_sweep;
using ds::cli::UsageError;
using ds::model::SweepParam;
using V = std::vector<std::uint64_t>;

TEST_CASE("sweep lists and power-of-two ranges") {
    CHECK(parse_sweep("qd=1,4,16").values == V{1, 4, 16});
    CHECK(parse_sweep("qd=1..128").values == V{1, 2, 4, 8, 16, 32, 64, 128});
    CHECK(parse_sweep("qd=3..20").values == V{3, 6, 12, 20});
    CHECK(parse_sweep("files=1..8").param == SweepParam::files);
    auto rb = parse_sweep("rand-block=4K..64K");
    CHECK(rb.param == SweepParam::rand_block);
    CHECK(rb.values == V{4096, 8192, 16384, 32768, 65536});
}

TEST_CASE("sweep rejections name --sweep") {
    for (const char* bad :
         {"qd", "qd=", "depth=1,2", "qd=0,1", "qd=1,1", "qd=8..2", "qd=0..4", "qd=1,x", "qd=1,,2",
          "qd=1,99999", "rand-block=3000,4096", "rand-block=256,4K", "files=1..99999"}) {
        CAPTURE(bad);
        try {
            parse_sweep(bad);
            FAIL("accepted");
        } catch (const UsageError& e) {
            CHECK(std::string(e.what()).find("--sweep") != std::string::npos);
        }
    }
}

TEST_CASE("a qd sweep runs at the largest depth; conflicting options are refused") {
    auto cmd = parse_command_line({"--sweep", "qd=1..64", "/tmp"});
    CHECK(cmd.config.qd == 64);
    REQUIRE(cmd.config.sweep.has_value());
    CHECK(cmd.config.sweep->values.size() == 7);
    CHECK_THROWS_AS(parse_command_line({"--sweep", "qd=1,2", "--qd", "8"}), UsageError);
    CHECK_THROWS_AS(parse_command_line({"--sweep", "files=1,2", "-j", "2"}), UsageError);
    CHECK_THROWS_AS(parse_command_line({"--sweep", "qd=1,2", "--rand-time", "0"}), UsageError);
    CHECK_THROWS_AS(parse_command_line({"--sweep", "qd=1,2", "--iterations", "3"}), UsageError);
    CHECK_THROWS_AS(parse_command_line({"--sweep", "files=1,2", "--compare-backends"}), UsageError);
    // Deeper than half a file's units would run shallower than its row says
    // (issue 33: qd=1..3000 on 4096 units ran 2048 in a row labelled 3000).
    CHECK(parse_command_line({"--sweep", "qd=1..2048", "-s", "16M"}).config.qd == 2048);
    CHECK_THROWS_WITH_AS(parse_command_line({"--sweep", "qd=1..3000", "-s", "16M"}),
                         doctest::Contains("at most 2048 are in flight per worker"), UsageError);
    auto rb = parse_command_line({"--sweep", "rand-block=4K,64K", "-s", "64M"});
    CHECK(rb.config.rand_block == 4096);
    CHECK(rb.config.max_rand_block() == 65536);
    // The largest block must divide the file, the smallest the sequential block.
    CHECK_THROWS_AS(
        parse_command_line({"--sweep", "rand-block=4K,2M", "--seq-block", "1M", "-s", "3M"}),
        UsageError);
}

TEST_CASE("latency thresholds and knee gain") {
    auto d = parse_command_line({});
    CHECK(d.config.latency_thresholds_s ==
          std::vector<double>{1e-3, 1e-2, 1e-1});  // 1ms,10ms,100ms
    CHECK(d.config.knee_gain_pct == 5);
    auto c = parse_command_line({"--latency-thresholds", "500us,1s", "--knee-gain", "10"});
    CHECK(c.config.latency_thresholds_s == std::vector<double>{0.0005, 1});
    CHECK(c.config.knee_gain_pct == 10);
    CHECK_THROWS_AS(parse_command_line({"--latency-thresholds", "0"}), UsageError);
    CHECK_THROWS_AS(parse_command_line({"--latency-thresholds", "1s,,2s"}), UsageError);
}

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

TEST_CASE("--find-rate: any percentile, a duration bound, one spelling") {
    const auto fr = ds::cli::parse_find_rate("p99<=2ms");
    CHECK(fr.percentile == 99);
    CHECK(fr.bound_s == doctest::Approx(0.002));
    CHECK(ds::cli::parse_find_rate("p99.9<=500us").percentile == doctest::Approx(99.9));
    CHECK(ds::cli::parse_find_rate("p50<=1.5ms").bound_s == doctest::Approx(0.0015));
    for (const char* bad : {"p99<2ms", "p99=2ms", "99<=2ms", "p<=2ms", "p100<=2ms", "p0<=1ms",
                            "px<=1ms", "p99<=", "p99<=0", "p99<=fast", "p-1<=1ms", "p99 <=1ms"}) {
        CAPTURE(bad);
        try {
            ds::cli::parse_find_rate(bad);
            FAIL("accepted");
        } catch (const UsageError& e) {
            const std::string what = e.what();
            CHECK(what.find("--find-rate") != std::string::npos);
            CHECK(what.find('\n') == std::string::npos);
        }
    }
}

TEST_CASE("--find-rate is a rate sweep the search fills; what conflicts is refused by name") {
    auto cmd = parse_command_line({"--find-rate", "p99<=5ms", "/tmp"});
    REQUIRE(cmd.config.find_rate.has_value());
    REQUIRE(cmd.config.sweep.has_value());
    CHECK(cmd.config.sweep->param == SweepParam::rate);
    CHECK(cmd.config.sweep->values.empty());
    const std::vector<std::pair<std::vector<std::string>, std::string>> refused{
        {{"--sweep", "rate=10%,50%"}, "--sweep"},       {{"--rate", "1k"}, "--rate"},
        {{"--compare-backends"}, "--compare-backends"}, {{"--preset", "quick"}, "--preset"},
        {{"--iterations", "2"}, "--iterations"},        {{"--rand-time", "0"}, "random phase"},
    };
    for (const auto& [extra, named] : refused) {
        std::vector<std::string> args{"--find-rate", "p99<=5ms"};
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back("/tmp");
        CAPTURE(extra.front());
        try {
            parse_command_line(args);
            FAIL("accepted");
        } catch (const UsageError& e) {
            const std::string what = e.what();
            CHECK(what.find("--find-rate") != std::string::npos);
            CHECK(what.find(named) != std::string::npos);
        }
    }
}

TEST_CASE("--arrivals spaces a rate sweep's and --find-rate's schedules; other sweeps refuse it") {
    CHECK(parse_command_line({"--find-rate", "p99<=5ms", "--arrivals", "poisson", "/tmp"})
              .config.arrivals == ds::model::Arrivals::poisson);
    CHECK(parse_command_line({"--sweep", "rate=10%,50%", "--arrivals", "poisson", "/tmp"})
              .config.arrivals == ds::model::Arrivals::poisson);
    CHECK_THROWS_AS(parse_command_line({"--sweep", "qd=1,2", "--arrivals", "poisson", "/tmp"}),
                    UsageError);
    CHECK_THROWS_AS(parse_command_line({"--arrivals", "poisson", "/tmp"}), UsageError);
}
