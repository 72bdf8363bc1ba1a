// Sweeps: --sweep's parameters, lists and ranges and what each refuses, the
// options a sweep replaces, --knee-gain, and the schedules a rate sweep
// shares with --find-rate and --arrivals.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/command_line.h"

using ds::cli::parse_command_line;
using ds::cli::parse_sweep;
using ds::cli::ParsedCommandLine;
using ds::cli::UsageError;
using ds::model::RunConfig;
using ds::model::SweepParam;
using V = std::vector<std::uint64_t>;

namespace {

constexpr std::uint64_t KiB = 1024;

using Args = std::vector<std::string>;

RunConfig parse(const Args& args) {
    ParsedCommandLine p = parse_command_line(args);
    REQUIRE(p.action == ParsedCommandLine::Action::run);
    return p.config;
}

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

TEST_CASE("sweep lists and power-of-two ranges") {
    CHECK(parse_sweep("qd=1,4,16").values == V{1, 4, 16});
    CHECK(parse_sweep("qd=1..128").values == V{1, 2, 4, 8, 16, 32, 64, 128});
    CHECK(parse_sweep("qd=3..20").values == V{3, 6, 12, 20});
    CHECK(parse_sweep("files=1..8").param == SweepParam::files);
    auto rb = parse_sweep("rand-block=4K..64K");
    CHECK(rb.param == SweepParam::rand_block);
    CHECK(rb.values == V{4096, 8192, 16384, 32768, 65536});
}

TEST_CASE("parse_sweep's refusals name --sweep") {
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

TEST_CASE("--sweep: one parameter, a list or a range of powers of two") {
    SUBCASE("qd list; --qd becomes the largest value") {
        RunConfig c = parse({"--sweep", "qd=1,4,16"});
        REQUIRE(c.sweep.has_value());
        CHECK(c.sweep->param == ds::model::SweepParam::qd);
        CHECK(c.sweep->values == std::vector<std::uint64_t>{1, 4, 16});
        CHECK(c.qd == 16);
    }
    SUBCASE("values keep the order given") {
        RunConfig c = parse({"--sweep", "qd=8,1,2"});
        REQUIRE(c.sweep.has_value());
        CHECK(c.sweep->values == std::vector<std::uint64_t>{8, 1, 2});
        CHECK(c.qd == 8);
    }
    SUBCASE("qd range") {
        RunConfig c = parse({"--sweep", "qd=1..8"});
        REQUIRE(c.sweep.has_value());
        CHECK(c.sweep->values == std::vector<std::uint64_t>{1, 2, 4, 8});
    }
    SUBCASE("a range ends on its upper bound") {
        RunConfig c = parse({"--sweep", "qd=1..6"});
        REQUIRE(c.sweep.has_value());
        CHECK(c.sweep->values == std::vector<std::uint64_t>{1, 2, 4, 6});
    }
    SUBCASE("files; --files becomes the largest value") {
        RunConfig c = parse({"--sweep", "files=1..4"});
        REQUIRE(c.sweep.has_value());
        CHECK(c.sweep->param == ds::model::SweepParam::files);
        CHECK(c.sweep->values == std::vector<std::uint64_t>{1, 2, 4});
        CHECK(c.files == 4);
    }
    SUBCASE("rand-block sizes; the smallest is the verification unit") {
        RunConfig c = parse({"--sweep", "rand-block=4K,16K,64K"});
        REQUIRE(c.sweep.has_value());
        CHECK(c.sweep->param == ds::model::SweepParam::rand_block);
        CHECK(c.sweep->values == std::vector<std::uint64_t>{4 * KiB, 16 * KiB, 64 * KiB});
        CHECK(c.rand_block == 4 * KiB);
    }
}

TEST_CASE("--sweep rejections name --sweep") {
    check_rejected({"--sweep", "qd"}, "--sweep");
    check_rejected({"--sweep", "depth=1,2"}, "--sweep");
    check_rejected({"--sweep", "qd=0,1"}, "--sweep");
    check_rejected({"--sweep", "qd=4,4"}, "--sweep");
    check_rejected({"--sweep", "qd=8..2"}, "--sweep");
    check_rejected({"--sweep", "qd=0..8"}, "--sweep");
    check_rejected({"--sweep", "qd=1,,2"}, "--sweep");
    check_rejected({"--sweep", "qd=1,x"}, "--sweep");
    check_rejected({"--sweep", "qd=1,5000"}, "--sweep");
    check_rejected({"--sweep", "files=1,5000"}, "--sweep");
    check_rejected({"--sweep", "rand-block=3000"}, "--sweep");
    check_rejected({"--sweep", "rand-block=256,4K"}, "--sweep");
    check_rejected({"--sweep", "rand-block=2M,4M"}, "--sweep");  // do not divide --seq-block 1M
    check_rejected({"--sweep", "qd=1,2", "--qd", "4"}, "--sweep");
    check_rejected({"--sweep", "files=1,2", "--files", "4"}, "--sweep");
    check_rejected({"--sweep", "rand-block=4K,8K", "--rand-block", "4K"}, "--sweep");
    check_rejected({"--sweep", "qd=1,2", "--iterations", "2"}, "--sweep");
    check_rejected({"--sweep", "qd=1,2", "--rand-time", "0"}, "--sweep");
    check_rejected({"--sweep", "qd=1,2", "--phases", "seq-write,seq-read"}, "--sweep");
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

TEST_CASE("--knee-gain: 0 to 1000 percent") {
    CHECK(parse({"--knee-gain", "10"}).knee_gain_pct == 10.0);
    CHECK(parse({"--knee-gain", "0"}).knee_gain_pct == 0.0);
    check_rejected({"--knee-gain", "1001"}, "--knee-gain");
    check_rejected({"--knee-gain", "-1"}, "--knee-gain");
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
