// The command line as a whole: every option's default and field, the targets,
// the seed tool's aliases, each refusal naming its option, --help and
// --version, the backend's modes and the words a LIST option takes.
#include "cli/command_line.h"

#include "cli/option_table.h"
#include "units/units.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

using ds::cli::help_text;
using ds::cli::option_specs;
using ds::cli::Outputs;
using ds::cli::parse_command_line;
using ds::cli::ParsedCommandLine;
using ds::cli::ProgressMode;
using ds::cli::UsageError;
using ds::model::BackendChoice;
using ds::model::Phase;
using ds::model::RunConfig;

namespace {

constexpr std::uint64_t KiB = 1024;
constexpr std::uint64_t MiB = KiB * 1024;
constexpr std::uint64_t GiB = MiB * 1024;

using Args = std::vector<std::string>;

Outputs outputs(const Args& args) {
    return parse_command_line(args).outputs;
}

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

const std::vector<Phase> kAll{Phase::seq_write, Phase::seq_read, Phase::random, Phase::reverify};

}  // namespace

TEST_CASE("the option table's defaults are the structs' own: no second copy can drift") {
    // RunConfig and Outputs hold each default once; --help shows the option
    // table's text for it.  Parsing nothing must give the structs as built,
    // field by field, for every option that has a default.
    const RunConfig built;
    const RunConfig c = parse({});
    CHECK(c.file_bytes == built.file_bytes);
    CHECK(c.files == built.files);
    CHECK(c.qd == built.qd);
    CHECK(c.backend == built.backend);
    CHECK(c.completion_wait == built.completion_wait);
    CHECK(c.spin_us == built.spin_us);
    CHECK(c.seq_block == built.seq_block);
    CHECK(c.rand_block == built.rand_block);
    CHECK(c.read_pct == built.read_pct);
    CHECK(c.rand_time_s == built.rand_time_s);
    CHECK(c.arrivals == built.arrivals);
    CHECK(c.iterations == built.iterations);
    CHECK(c.phases == built.phases);
    CHECK(c.interval_s == built.interval_s);
    CHECK(c.iteration_detail == built.iteration_detail);
    CHECK(c.latency_thresholds_s == built.latency_thresholds_s);
    CHECK(c.repeat == built.repeat);
    CHECK(c.knee_gain_pct == built.knee_gain_pct);
    CHECK(c.cliff_interval_s == built.cliff_interval_s);
    CHECK(c.batch == built.batch);
    CHECK(c.sync == built.sync);
    CHECK(c.sync_every == built.sync_every);
    CHECK(c.distribution == built.distribution);
    CHECK(c.compress == built.compress);
    CHECK(c.trim_pct == built.trim_pct);
    CHECK(c.dedupe == built.dedupe);
    CHECK(c.replay_speed == built.replay_speed);
    CHECK(c.replay_loops == built.replay_loops);
    CHECK(parse({"--replay", "x"}).replay_max_bytes == built.replay_max_bytes);
    CHECK(parse({"--io-log", "x"}).io_log_format == built.io_log_format);
    const auto steady = parse({"--steady-state", "1s"}).steady_state;
    REQUIRE(steady.has_value());
    CHECK(steady->window_rounds == ds::stats::SteadyStateRule{}.window_rounds);
    CHECK(steady->max_rounds == ds::stats::SteadyStateRule{}.max_rounds);
    const Outputs built_out;
    const Outputs out = parse_command_line({}).outputs;
    CHECK(out.prom_interval_s == built_out.prom_interval_s);
    CHECK(out.progress == built_out.progress);
    CHECK(out.units == built_out.units);
    // Every option with a default is one of those above (a new one must be
    // added here).
    const std::set<std::string> covered{"size",
                                        "files",
                                        "qd",
                                        "backend",
                                        "wait",
                                        "seq-block",
                                        "rand-block",
                                        "read-pct",
                                        "trim-pct",
                                        "replay-speed",
                                        "replay-loops",
                                        "replay-max-bytes",
                                        "io-log-format",
                                        "distribution",
                                        "compress",
                                        "dedupe",
                                        "rand-time",
                                        "arrivals",
                                        "iterations",
                                        "phases",
                                        "interval",
                                        "iteration-detail",
                                        "latency-thresholds",
                                        "repeat",
                                        "knee-gain",
                                        "cliff-interval",
                                        "batch",
                                        "sync",
                                        "sync-every",
                                        "steady-window",
                                        "steady-max-rounds",
                                        "prom-interval",
                                        "progress",
                                        "units"};
    for (const auto& spec : ds::cli::option_specs())
        if (spec.default_value) {
            CAPTURE(spec.name);
            CHECK(covered.count(spec.name) == 1);
        }
}

TEST_CASE("defaults are the table in DESIGN.md") {
    RunConfig c = parse({});
    CHECK(c.target == ".");
    CHECK(c.file_bytes == 256 * MiB);
    CHECK(c.files == 4);
    CHECK(c.qd == 32);
    CHECK(c.backend == BackendChoice::automatic);
    CHECK(c.seq_block == 1 * MiB);
    CHECK(c.rand_block == 4 * KiB);
    CHECK(c.read_pct == 70);
    CHECK(c.rand_time_s == 10.0);
    CHECK(!c.rand_ops.has_value());
    CHECK(c.iterations == 1);
    CHECK(!c.duration_s.has_value());
    CHECK(c.phases == kAll);
    CHECK(!c.seed_given);
    CHECK(!c.recreate);
    CHECK(!c.buffered);
    CHECK(c.verify);
    CHECK(parse_command_line({}).outputs.json.none());
    CHECK(parse_command_line({}).outputs.progress == ProgressMode::automatic);
    CHECK(!c.sweep.has_value());
    CHECK(c.knee_gain_pct == 5.0);
    // Thresholds that separate SSDs (2 s and 10 s: always 0 % on one).
    CHECK(c.latency_thresholds_s == std::vector<double>{1e-3, 1e-2, 1e-1});
    CHECK(!c.compare_backends);
}

TEST_CASE("every option sets its field") {
    SUBCASE("--size / -s") {
        CHECK(parse({"--size", "64M"}).file_bytes == 64 * MiB);
        CHECK(parse({"-s", "8M"}).file_bytes == 8 * MiB);
        CHECK(parse({"--size=2G"}).file_bytes == 2 * GiB);
        CHECK(parse({"--size", "1048576"}).file_bytes == 1 * MiB);
    }
    SUBCASE("--files / -j") {
        CHECK(parse({"--files", "7"}).files == 7);
        CHECK(parse({"-j", "1"}).files == 1);
    }
    SUBCASE("--qd / -q") {
        CHECK(parse({"--qd", "128"}).qd == 128);
        CHECK(parse({"-q", "1"}).qd == 1);
    }
    SUBCASE("--backend") {
        CHECK(parse({"--backend", "io_uring"}).backend == BackendChoice::io_uring);
        CHECK(parse({"--backend", "sync"}).backend == BackendChoice::sync);
        CHECK(parse({"--backend", "auto"}).backend == BackendChoice::automatic);
    }
    SUBCASE("--seq-block") {
        CHECK(parse({"--seq-block", "256K"}).seq_block == 256 * KiB);
        CHECK(parse({"--seq-block", "4M"}).seq_block == 4 * MiB);
    }
    SUBCASE("--rand-block") {
        CHECK(parse({"--rand-block", "512"}).rand_block == 512);
        CHECK(parse({"--rand-block", "64K"}).rand_block == 64 * KiB);
        RunConfig c = parse({"--rand-block", "64M", "--seq-block", "64M", "--size", "128M"});
        CHECK(c.rand_block == 64 * MiB);
        CHECK(c.seq_block == 64 * MiB);
        CHECK(c.rand_mix.empty());  // one size, the unit: no mix
    }
    SUBCASE("--rand-block with a mix of sizes: the smallest is the unit") {
        RunConfig c = parse({"--rand-block", "128K:20, 4K:60,16K:20"});
        CHECK(c.rand_block == 4 * KiB);
        REQUIRE(c.rand_mix.size() == 3);
        CHECK(c.rand_mix[0] == ds::units::BlockShare{4 * KiB, 60});
        CHECK(c.rand_mix[2] == ds::units::BlockShare{128 * KiB, 20});
        CHECK(c.max_rand_block() == 128 * KiB);
        CHECK(c.rand_block_text() == "4K:60,16K:20,128K:20");
    }
    SUBCASE("--unit below one --rand-block: operations of that size, units of this one") {
        RunConfig c = parse({"--rand-block", "16K", "--unit", "4K"});
        CHECK(c.rand_block == 4 * KiB);
        REQUIRE(c.rand_mix.size() == 1);
        CHECK(c.max_rand_block() == 16 * KiB);
        CHECK(c.rand_block_text() == "16K");
        c = parse({"--rand-block", "8K:50,64K:50", "--unit", "2K"});
        CHECK(c.rand_block == 2 * KiB);
        CHECK(c.rand_mix.size() == 2);
    }
    SUBCASE("--read-pct") {
        CHECK(parse({"--read-pct", "0"}).read_pct == 0);
        CHECK(parse({"--read-pct", "100"}).read_pct == 100);
        CHECK(parse({"--read-pct", "35"}).read_pct == 35);
    }
    SUBCASE("--rand-time") {
        CHECK(parse({"--rand-time", "30s"}).rand_time_s == 30.0);
        CHECK(parse({"--rand-time", "2m"}).rand_time_s == 120.0);
        CHECK(parse({"--rand-time", "0"}).rand_time_s == 0.0);
        CHECK(parse({"--rand-time", "1.5"}).rand_time_s == doctest::Approx(1.5));
    }
    SUBCASE("--rand-ops") {
        RunConfig c = parse({"--rand-ops", "5000"});
        REQUIRE(c.rand_ops.has_value());
        CHECK(*c.rand_ops == 5000);
    }
    SUBCASE("--iterations") {
        CHECK(parse({"--iterations", "3"}).iterations == 3);
        CHECK(parse({"--iterations", "0"}).iterations == 0);
    }
    SUBCASE("--duration") {
        RunConfig c = parse({"--duration", "1h"});
        REQUIRE(c.duration_s.has_value());
        CHECK(*c.duration_s == 3600.0);
        c = parse({"--duration", "90"});
        REQUIRE(c.duration_s.has_value());
        CHECK(*c.duration_s == 90.0);
    }
    SUBCASE("--phases keeps the natural order") {
        CHECK(parse({"--phases", "seq-write"}).phases == std::vector<Phase>{Phase::seq_write});
        CHECK(parse({"--phases", "seq-write,random"}).phases ==
              std::vector<Phase>{Phase::seq_write, Phase::random});
        CHECK(parse({"--phases", "reverify,random,seq-write"}).phases ==
              std::vector<Phase>{Phase::seq_write, Phase::random, Phase::reverify});
        CHECK(parse({"--phases", "seq-write,seq-read,random,reverify"}).phases == kAll);
    }
    SUBCASE("--seed") {
        RunConfig c = parse({"--seed", "12345"});
        CHECK(c.seed == 12345);
        CHECK(c.seed_given);
        c = parse({"--seed", "0"});
        CHECK(c.seed == 0);
        CHECK(c.seed_given);
        CHECK(parse({"--seed", "18446744073709551615"}).seed == UINT64_MAX);
    }
    SUBCASE("--recreate") {
        CHECK(parse({"--recreate"}).recreate);
    }
    SUBCASE("--buffered") {
        CHECK(parse({"--buffered"}).buffered);
    }
    SUBCASE("--no-verify drops reverify from the default phases") {
        RunConfig c = parse({"--no-verify"});
        CHECK(!c.verify);
        CHECK(c.phases == std::vector<Phase>{Phase::seq_write, Phase::seq_read, Phase::random});
        c = parse({"--no-verify", "--phases", "seq-write,random"});
        CHECK(!c.verify);
        CHECK(c.phases == std::vector<Phase>{Phase::seq_write, Phase::random});
    }
    SUBCASE("--json") {
        CHECK(outputs({"--json", "-"}).json.is_stdout());
        CHECK(!outputs({"--json", "-"}).json.is_path());
        CHECK(outputs({"--json", "/tmp/drivestress-options-test.json"}).json.text() ==
              "/tmp/drivestress-options-test.json");
        CHECK(outputs({"--json", "result.json"}).json.is_path());
        CHECK(outputs({"--json", "result.json"}).json.text() == "result.json");
        CHECK(outputs({"--json", "-"}).files().empty());  // stdout is no file of the run's
        CHECK(outputs({"--json", "result.json"}).files() ==
              std::vector<std::pair<std::string, std::string>>{{"--json", "result.json"}});
        CHECK(outputs({"--json", "-"}).files().empty());
    }
    SUBCASE("--progress") {
        CHECK(outputs({"--progress", "always"}).progress == ProgressMode::always);
        CHECK(outputs({"--progress", "never"}).progress == ProgressMode::never);
        CHECK(outputs({"--progress", "auto"}).progress == ProgressMode::automatic);
    }
}

TEST_CASE("TARGET positional and --path") {
    CHECK(parse({"/mnt/scratch"}).target == "/mnt/scratch");
    CHECK(parse({"/mnt/scratch/prefix-"}).target == "/mnt/scratch/prefix-");
    CHECK(parse({"-s", "8M", "/mnt/x", "-j", "2"}).target == "/mnt/x");
    CHECK(parse({"--path", "/mnt/y"}).target == "/mnt/y");
    CHECK(parse({"--path=/mnt/z"}).target == "/mnt/z");
}

TEST_CASE("several targets: TARGET... then each --raw-device with its --destroy-data") {
    const auto c = parse({"-j", "2", "-s", "8M", "/mnt/a", "--raw-device", "/dev/loop3",
                          "--destroy-data", "/dev/loop3", "/mnt/b", "--raw-device", "/dev/loop4",
                          "--destroy-data", "/dev/loop4"});
    REQUIRE(c.target_count() == 4);
    CHECK(c.workers() == 8);
    CHECK(c.target == "/mnt/a");
    CHECK(c.raw_device.empty());
    CHECK(c.for_target(1).target == "/mnt/b");
    CHECK(c.for_target(1).raw_device.empty());
    CHECK(c.for_target(2).raw_device == "/dev/loop3");
    CHECK(c.for_target(3).raw_device_confirm == "/dev/loop4");
    CHECK(c.for_target(3).target == "/dev/loop4");
    CHECK(c.for_target(3).more_targets.empty());
    CHECK(c.file_bytes == 8 * MiB);
    SUBCASE("devices alone take their size from the devices") {
        CHECK(parse({"--raw-device", "/dev/a", "--destroy-data", "/dev/a", "--raw-device", "/dev/b",
                     "--destroy-data", "/dev/b"})
                  .file_bytes == 0);
    }
    SUBCASE("a directory among devices: the default size") {
        CHECK(parse({"/mnt/a", "--raw-device", "/dev/b", "--destroy-data", "/dev/b"}).file_bytes ==
              256 * MiB);
    }
}

TEST_CASE("several targets: refusals name the target or the option") {
    check_rejected({"--raw-device", "/dev/a", "--destroy-data", "/dev/a", "--raw-device", "/dev/b"},
                   "--destroy-data /dev/b");
    check_rejected(
        {"--raw-device", "/dev/a", "--destroy-data", "/dev/a", "--destroy-data", "/dev/b"},
        "--destroy-data /dev/b");
    check_rejected({"/mnt/a", "/mnt/a"}, "/mnt/a");
    check_rejected({"--path", "/mnt/p", "/mnt/a"}, "--path");
    for (const char* mode : {"--keep", "--compare-backends", "--recreate"})
        check_rejected({mode, "/mnt/a", "/mnt/b"}, mode);
    check_rejected({"--sweep", "qd=1,2", "/mnt/a", "/mnt/b"}, "--sweep");
}

TEST_CASE("seed tool aliases") {
    SUBCASE("--size-mb N is N MiB") {
        CHECK(parse({"--size-mb", "64"}).file_bytes == 64 * MiB);
        CHECK(parse({"--size-mb", "1"}).file_bytes == 1 * MiB);
    }
    SUBCASE("--mixed-sec N is --rand-time N seconds") {
        CHECK(parse({"--mixed-sec", "5"}).rand_time_s == 5.0);
        CHECK(parse({"--mixed-sec", "0"}).rand_time_s == 0.0);
    }
    SUBCASE("--no-direct is --buffered") {
        CHECK(parse({"--no-direct"}).buffered);
    }
    SUBCASE("--path is TARGET") {
        CHECK(parse({"--path", "/srv/t"}).target == "/srv/t");
    }
}

TEST_CASE("rejections name the option") {
    SUBCASE("--size 0") {
        check_rejected({"--size", "0"}, "--size");
    }
    SUBCASE("--size with a bad spelling") {
        check_rejected({"--size", "4X"}, "--size");
        check_rejected({"--size", "1.5M"}, "--size");
    }
    SUBCASE("--size not a multiple of --rand-block") {
        check_rejected({"--size", "6K", "--seq-block", "4K"}, "--size");
        check_rejected({"--size", "1000", "--seq-block", "512", "--rand-block", "512"}, "--size");
    }
    SUBCASE("--rand-block not a power of two from 512 to 64M") {
        check_rejected({"--rand-block", "3000"}, "--rand-block");
        check_rejected({"--rand-block", "256"}, "--rand-block");
        check_rejected({"--rand-block", "128M"}, "--rand-block");
        check_rejected({"--rand-block", "0"}, "--rand-block");
    }
    SUBCASE("--rand-block mixes that are not SIZE:WEIGHT,... summing to 100") {
        for (const char* bad : {"4K:60,16K:20", "4K:60,16K:50", "3K:50,4K:50", "4K:60,4K:40",
                                "4K:abc,8K:50", "4K:0,8K:100", "4K60,8K:40", "4K:60,,8K:40"}) {
            CAPTURE(bad);
            check_rejected({"--rand-block", bad}, "--rand-block");
        }
        // Nine sizes: within fio's 64 (units::kMaxMixSizes).
        CHECK(parse({"--rand-block", "512:10,1K:10,2K:10,4K:10,8K:10,16K:10,32K:10,64K:10,128K:20"})
                  .rand_mix.size() == 9);
        // The largest size must divide the file; the unit, --seq-block.
        check_rejected({"--rand-block", "4K:50,128K:50", "--size", "192K", "--seq-block", "64K"},
                       "--size");
        CHECK(usage_error(
                  {"--rand-block", "4K:50,128K:50", "--size", "192K", "--seq-block", "64K"}) ==
              "--size 192K is not a multiple of --rand-block's largest size 128K");
        CHECK(usage_error({"--rand-block", "128K", "--size", "192K", "--seq-block", "128K"}) ==
              "--size 192K is not a multiple of --rand-block 128K");
        check_rejected({"--rand-block", "4K:50,16K:50", "--seq-block", "2K", "--size", "1M"},
                       "--seq-block");
        // A sweep over rand-block takes single sizes.
        check_rejected({"--rand-block", "4K:50,16K:50", "--sweep", "rand-block=4K,8K"},
                       "--rand-block");
    }
    SUBCASE("--unit must divide every random size") {
        check_rejected({"--rand-block", "4K:50,16K:50", "--unit", "8K"}, "--unit");
        check_rejected({"--unit", "3000"}, "--unit");
        check_rejected({"--unit", "4K", "--sweep", "rand-block=4K,8K"}, "--unit");
    }
    SUBCASE("--seq-block not a multiple of --rand-block") {
        check_rejected({"--seq-block", "6K"}, "--seq-block");
        check_rejected({"--seq-block", "1M", "--rand-block", "2M", "--size", "4M"}, "--seq-block");
    }
    SUBCASE("--seq-block larger than --size") {
        check_rejected({"--size", "1M", "--seq-block", "2M"}, "--seq-block");
        check_rejected({"--size", "512K"}, "--seq-block");  // default 1M
    }
    SUBCASE("--seq-block 0") {
        check_rejected({"--seq-block", "0"}, "--seq-block");
    }
    SUBCASE("--distribution: fio's forms, or one line naming the option and the forms") {
        CHECK(parse({"--distribution", "zipf:1.2"}).distribution.text() == "zipf:1.2");
        CHECK(parse({"--distribution", "zoned:60/10:30/20:10/70"}).distribution.text() ==
              "zoned:60/10,30/20,10/70");
        CHECK(parse({}).distribution.kind == ds::stats::DistributionKind::uniform);
        check_rejected({"--distribution", "zipf:1"}, "--distribution");
        check_rejected({"--distribution", "hot"}, "--distribution");
    }
    SUBCASE("--compress: a ratio from 1 to 8, or one line naming the option and the form") {
        CHECK(parse({}).compress == 1);
        CHECK(parse({"--compress", "2"}).compress == 2);
        CHECK(parse({"--compress", "1.5"}).compress == 1.5);
        CHECK(parse({"--compress", "8"}).compress == 8);
        for (const char* bad : {"0.5", "9", "8.01", "-2", "2x", "", "nan", "inf", "1e1", "0x2"}) {
            CAPTURE(bad);
            const std::string msg = usage_error({"--compress", bad});
            CHECK(contains(msg, "--compress"));
            CHECK(contains(msg, "from 1 to 8"));
            CHECK(msg.find('\n') == std::string::npos);
        }
    }
    SUBCASE("--dedupe: a percentage, 0 to 100 with one decimal, kept in tenths") {
        CHECK(parse({}).dedupe == 0);
        CHECK(parse({"--dedupe", "25"}).dedupe == 250);
        CHECK(parse({"--dedupe", "12.5"}).dedupe == 125);
        CHECK(parse({"--dedupe", "100"}).dedupe == 1000);
        CHECK(parse({"--dedupe", "0.1"}).dedupe == 1);
        CHECK(parse({"--dedupe", "30"}).unit_shape() ==
              ds::pattern::make_shape(ds::pattern::kSectorBytes, 300));
        for (const char* bad : {"101", "100.1", "x", "", "-1", "1.25", "1.", ".5", "25%", "1e1"}) {
            CAPTURE(bad);
            const std::string msg = usage_error({"--dedupe", bad});
            CHECK(contains(msg, "--dedupe"));
            CHECK(contains(msg, "from 0 to 100"));
            CHECK(msg.find('\n') == std::string::npos);
        }
    }
    SUBCASE("--read-pct out of 0..100") {
        check_rejected({"--read-pct", "101"}, "--read-pct");
        check_rejected({"--read-pct", "-1"}, "--read-pct");
        check_rejected({"--read-pct=-1"}, "--read-pct");
        check_rejected({"--read-pct", "50%"}, "--read-pct");
    }
    SUBCASE("--trim-pct: 0 to 100, and reads + trims at most 100") {
        CHECK(parse({}).trim_pct == 0);
        CHECK(parse({"--trim-pct", "5"}).trim_pct == 5);
        CHECK(parse({"--trim-pct", "30", "--read-pct", "70"}).trim_pct == 30);
        check_rejected({"--trim-pct", "101"}, "--trim-pct");
        check_rejected({"--trim-pct", "5%"}, "--trim-pct");
        check_rejected({"--trim-pct", "-1"}, "--trim-pct");
        const std::string msg = usage_error({"--trim-pct", "40"});  // --read-pct 70
        CHECK(contains(msg, "--trim-pct 40 and --read-pct 70"));
        CHECK(msg.find('\n') == std::string::npos);
    }
    SUBCASE("--files 0, --qd 0") {
        check_rejected({"--files", "0"}, "--files");
        check_rejected({"-j", "0"}, "--files");
        check_rejected({"--qd", "0"}, "--qd");
        check_rejected({"-q", "0"}, "--qd");
        check_rejected({"--files", "two"}, "--files");
    }
    SUBCASE("unknown --backend") {
        check_rejected({"--backend", "aio"}, "--backend");
        check_rejected({"--backend", ""}, "--backend");
    }
    SUBCASE("unknown phase") {
        std::string msg = usage_error({"--phases", "seq-write,sideways"});
        CHECK(contains(msg, "--phases"));
        CHECK(contains(msg, "sideways"));
    }
    SUBCASE("duplicate phase") {
        check_rejected({"--phases", "seq-write,random,random"}, "--phases");
    }
    SUBCASE("empty phase item") {
        check_rejected({"--phases", "seq-write,,random"}, "--phases");
    }
    SUBCASE("--phases without seq-write") {
        std::string msg = usage_error({"--phases", "seq-read,random"});
        CHECK(contains(msg, "--phases"));
        CHECK(contains(msg, "seq-write"));
    }
    SUBCASE("--no-verify with --phases including reverify") {
        std::string msg = usage_error({"--no-verify", "--phases", "seq-write,reverify"});
        CHECK(contains(msg, "--no-verify"));
        CHECK(contains(msg, "reverify"));
        check_rejected({"--no-verify", "--phases", "seq-write,seq-read,random,reverify"},
                       "--no-verify");
    }
    SUBCASE("--rand-ops with --rand-time") {
        std::string msg = usage_error({"--rand-ops", "100", "--rand-time", "5s"});
        CHECK(contains(msg, "--rand-ops"));
        CHECK(contains(msg, "--rand-time"));
        check_rejected({"--rand-ops", "100", "--mixed-sec", "5"}, "--rand-ops");
        check_rejected({"--rand-ops", "0"}, "--rand-ops");
    }
    SUBCASE("--size with --size-mb") {
        std::string msg = usage_error({"--size", "8M", "--size-mb", "8"});
        CHECK(contains(msg, "--size "));
        CHECK(contains(msg, "--size-mb"));
        check_rejected({"--size-mb", "0"}, "--size-mb");
    }
    SUBCASE("--rand-time with --mixed-sec") {
        std::string msg = usage_error({"--rand-time", "5s", "--mixed-sec", "5"});
        CHECK(contains(msg, "--rand-time"));
        CHECK(contains(msg, "--mixed-sec"));
    }
    SUBCASE("TARGET and --path") {  // two TARGETs are two targets of one run
        std::string msg = usage_error({"/mnt/a", "--path", "/mnt/b"});
        CHECK(contains(msg, "/mnt/a"));
        CHECK(contains(msg, "/mnt/b"));
    }
    SUBCASE("unknown option") {
        check_rejected({"--frobnicate"}, "--frobnicate");
        check_rejected({"--direct"}, "--direct");
    }
    SUBCASE("abbreviations are not guessed") {
        check_rejected({"--si", "1M"}, "--si");
        check_rejected({"--iter", "2"}, "--iter");
        check_rejected({"--no-v"}, "--no-v");
    }
    SUBCASE("an option given twice") {
        check_rejected({"--size", "1M", "--size", "2M"}, "--size");
    }
    SUBCASE("a value is required") {
        check_rejected({"--size"}, "--size");
    }
    SUBCASE("--json empty") {
        check_rejected({"--json", ""}, "--json");
    }
    // (Whether --json can be written is the environment's question:
    // environment_test.cpp.)
    SUBCASE("--progress bogus") {
        std::string msg = usage_error({"--progress", "bogus"});
        CHECK(contains(msg, "--progress"));
        CHECK(contains(msg, "bogus"));
    }
    SUBCASE("--duration 0 and bad durations") {
        check_rejected({"--duration", "0"}, "--duration");
        check_rejected({"--duration", "0s"}, "--duration");
        check_rejected({"--duration", "soon"}, "--duration");
        check_rejected({"--rand-time", "-1"}, "--rand-time");
        check_rejected({"--rand-time", "10x"}, "--rand-time");
    }
    SUBCASE("bad counts") {
        check_rejected({"--iterations", "-1"}, "--iterations");
        check_rejected({"--iterations", "1.5"}, "--iterations");
        check_rejected({"--seed", "abc"}, "--seed");
    }
}

TEST_CASE("--help lists every option with its default") {
    ParsedCommandLine p = parse_command_line({"--help"});
    CHECK(p.action == ParsedCommandLine::Action::help);
    const std::string& h = p.help_text;
    const std::vector<std::string> options{"--size",
                                           "--files",
                                           "--qd",
                                           "--backend",
                                           "--seq-block",
                                           "--rand-block",
                                           "--read-pct",
                                           "--rand-time",
                                           "--rand-ops",
                                           "--iterations",
                                           "--duration",
                                           "--phases",
                                           "--seed",
                                           "--recreate",
                                           "--buffered",
                                           "--no-verify",
                                           "--json",
                                           "--progress",
                                           "--help",
                                           "--version",
                                           "--size-mb",
                                           "--mixed-sec",
                                           "--no-direct",
                                           "--path",
                                           "--sweep",
                                           "--knee-gain",
                                           "--latency-thresholds",
                                           "--compare-backends",
                                           "--prom",
                                           "--prom-interval",
                                           "--prom-label"};
    for (const auto& opt : options) {
        CAPTURE(opt);
        CHECK(contains(h, opt));
    }
    for (const char* def : {"256M", "1M", "4K", "10s", "70", "32", "auto",
                            "seq-write,seq-read,random,reverify", "2s,10s"}) {
        CAPTURE(def);
        CHECK(contains(h, def));
    }
    CHECK(contains(h, "TARGET"));

    CHECK(parse_command_line({"-h"}).action == ParsedCommandLine::Action::help);
    // Help wins over an otherwise bad command line.
    CHECK(parse_command_line({"--size", "0", "--help"}).action == ParsedCommandLine::Action::help);
}

TEST_CASE("--version") {
    CHECK(parse_command_line({"--version"}).action == ParsedCommandLine::Action::version);
    CHECK(parse_command_line({"-V"}).action == ParsedCommandLine::Action::version);
}

TEST_CASE("--compare-backends and --compare-extra") {
    CHECK(parse({"--compare-backends"}).compare_backends);
    check_rejected({"--compare-backends", "--backend", "sync"}, "--compare-backends");
    // Both backends' curves over depth; the other sweeps are refused.
    CHECK(parse({"--compare-backends", "--sweep", "qd=1,2"}).sweep.has_value());
    check_rejected({"--compare-backends", "--sweep", "files=1,2"}, "--compare-backends");
    check_rejected({"--compare-backends", "--sweep", "rand-block=4K,8K"}, "--compare-backends");

    RunConfig extra = parse({"--compare-backends", "--compare-extra", "sync-qd1,sqpoll"});
    CHECK(extra.compare_sync_qd1);
    CHECK(extra.compare_sqpoll);
    CHECK_FALSE(parse({"--compare-backends"}).compare_sync_qd1);
    check_rejected({"--compare-extra", "sqpoll"}, "--compare-extra");
    check_rejected({"--compare-backends", "--compare-extra", "sync"}, "--compare-extra");
    check_rejected({"--compare-backends", "--compare-extra", "sync-qd1", "--sweep", "qd=1,2"},
                   "--compare-extra");
}

TEST_CASE("--sqpoll and --iopoll: io_uring modes, refused where they cannot apply") {
    RunConfig d = parse({});
    CHECK_FALSE(d.sqpoll);
    CHECK_FALSE(d.iopoll);
    RunConfig c = parse({"--sqpoll", "--iopoll", "--backend", "io_uring"});
    CHECK(c.sqpoll);
    CHECK(c.iopoll);
    CHECK(parse({"--iopoll"}).iopoll);  // auto: refused later if io_uring is unusable
    CHECK(usage_error({"--iopoll", "--backend", "sync"}) ==
          "--iopoll is an io_uring mode; it cannot be used with --backend sync");
    CHECK(usage_error({"--sqpoll", "--backend", "sync"}) ==
          "--sqpoll is an io_uring mode; it cannot be used with --backend sync");
    CHECK(usage_error({"--iopoll", "--buffered"}) ==
          "--iopoll needs O_DIRECT; it cannot be used with --buffered");
    CHECK(usage_error({"--iopoll", "--no-direct"}) ==
          "--iopoll needs O_DIRECT; it cannot be used with --no-direct");
    CHECK(usage_error({"--sqpoll", "--compare-backends"}) ==
          "--sqpoll is an io_uring mode; --compare-backends also runs sync");
    CHECK(usage_error({"--sqpoll", "--buffered"}).empty());  // SQPOLL works buffered
}

TEST_CASE("--compare-atomic sweeps the write size only") {
    RunConfig c = parse({"--compare-atomic", "--sweep", "rand-block=4K,16K"});
    CHECK(c.compare_atomic);
    REQUIRE(c.sweep);
    CHECK(c.sweep->values.size() == 2);
    CHECK(usage_error({"--compare-atomic", "--sweep", "qd=1,2"}) ==
          "--compare-atomic sweeps rand-block only (what RWF_ATOMIC costs by write size)");
}

TEST_CASE("--wait: auto, sleep, spin or spin:US; a spin only where a ring waits") {
    using ds::model::CompletionWait;
    CHECK(parse({}).completion_wait == CompletionWait::automatic);
    CHECK(parse({}).spin_us == ds::model::kDefaultSpinUs);
    CHECK(parse({"--wait", "sleep"}).completion_wait == CompletionWait::sleep);
    RunConfig c = parse({"--wait", "spin"});
    CHECK(c.completion_wait == CompletionWait::spin);
    CHECK(c.spin_us == ds::model::kDefaultSpinUs);
    CHECK(parse({"--wait", "spin:200"}).spin_us == 200);
    CHECK(usage_error({"--wait", "poll"}) ==
          "--wait: 'poll' is not one of auto, sleep, spin, spin:US");
    CHECK(usage_error({"--wait", "spin:0"}) ==
          "--wait spin:0: the spin must be 1 to 10000 microseconds");
    CHECK(usage_error({"--wait", "spin:20000"}) ==
          "--wait spin:20000: the spin must be 1 to 10000 microseconds");
    CHECK(usage_error({"--wait", "spin:x"}).find("--wait") != std::string::npos);
    CHECK(usage_error({"--wait", "spin", "--backend", "sync"}) ==
          "--wait spin and --backend sync: a sync worker waits in blocking calls, not on a ring");
    CHECK(usage_error({"--wait", "spin", "--iopoll"}) ==
          "--wait spin and --iopoll: a polled ring spins on the device already");
    CHECK(usage_error({"--wait", "spin", "--rate", "1000"}) ==
          "--wait spin and --rate: an open loop waits on the ring's timer until each due time");
    CHECK(usage_error({"--wait", "sleep", "--backend", "sync"}).empty());  // says nothing wrong
}

TEST_CASE("--backend nop: io_uring NOPs, nothing verified, device and data options refused") {
    CHECK_FALSE(parse({}).nop);
    RunConfig c = parse({"--backend", "nop"});
    CHECK(c.nop);
    CHECK(c.backend == BackendChoice::io_uring);
    CHECK_FALSE(c.verify);  // no byte is read: nothing can be verified
    CHECK(c.phases == std::vector<Phase>{Phase::seq_write, Phase::seq_read, Phase::random});
    RunConfig s = parse({"--backend", "nop", "--sqpoll", "--phases", "seq-write,random"});
    CHECK(s.sqpoll);  // the engine's cost with a polling thread: t/io_uring measures it too
    CHECK(s.phases == std::vector<Phase>{Phase::seq_write, Phase::random});
    for (const Args& a :
         {Args{"--raw-device", "/dev/loop0", "--destroy-data", "/dev/loop0"}, Args{"--buffered"},
          Args{"--iopoll"}, Args{"--sync", "fdatasync"}, Args{"--sync", "dsync"}, Args{"--keep"},
          Args{"--sync-compare"}, Args{"--sustained-write", "2"},
          Args{"--phases", "seq-write,random,reverify"}, Args{"--preset", "quick"},
          Args{"--compare-backends"}}) {
        Args args{"--backend", "nop"};
        args.insert(args.end(), a.begin(), a.end());
        const std::string msg = usage_error(args);
        CAPTURE(msg);
        CHECK(!msg.empty());
        // Each names both options (--compare-backends refuses any --backend).
        CHECK((contains(msg, "--backend nop") || contains(msg, "drop --backend")));
        CHECK(contains(msg, a[0]));
    }
    CHECK(contains(usage_error({"--backend", "none"}), "auto, io_uring, sync, nop"));
}

TEST_CASE("--verify-only: the options it combines with, as its refusal and --help say") {
    const ParsedCommandLine p = parse_command_line(
        {"--verify-only", "/tmp/x.state", "--wide", "--progress", "never", "--cleanup", "--force"});
    CHECK(p.action == ParsedCommandLine::Action::verify_only);
    CHECK(p.outputs.wide);
    CHECK(p.verify_force);
    CHECK(usage_error({"--verify-only", "/tmp/x.state", "--qd", "4"}) ==
          "--verify-only takes the run's settings from STATE; --qd cannot be combined with it "
          "(only --json, --wide, --progress, --cleanup and --force can)");
    // --help's line of --verify-only names each of them.
    const std::string help = parse_command_line({"--help"}).help_text;
    const auto at = help.find("--verify-only STATE");
    REQUIRE(at != std::string::npos);
    const std::string line = help.substr(at, help.find("\n      --cleanup", at) - at);
    for (const char* name : ds::cli::kWithVerifyOnly) {
        CAPTURE(name);
        CHECK(line.find(std::string("--") + name) != std::string::npos);
    }
}

TEST_CASE("every word a LIST option's table entry names is accepted by that option") {
    // The completion offers these words (issue 27): none may be refused.
    int lists = 0;
    for (const auto& spec : option_specs()) {
        if (!spec.words) continue;
        ++lists;
        const std::string opt = std::string("--") + spec.name;
        for (const auto& word : ds::units::split_list(spec.words)) {
            std::vector<std::string> args{opt, word, "/tmp"};
            if (opt == "--compare-extra") args.insert(args.begin(), "--compare-backends");
            if (opt == "--phases" && word != "seq-write") args[1] = "seq-write," + word;
            CAPTURE(opt);
            CAPTURE(word);
            CHECK_NOTHROW(parse_command_line(args));
        }
        CHECK(contains(help_text(), std::string("(words: ") + spec.words + ")"));
    }
    CHECK(lists == 2);  // --phases, --compare-extra
}

TEST_CASE("--atomic: every write RWF_ATOMIC; refused with what cannot carry it") {
    CHECK_FALSE(parse({}).atomic);
    const RunConfig c = parse({"--atomic", "--sync", "dsync"});
    CHECK(c.atomic);
    CHECK(c.sync == ds::model::SyncMethod::dsync);
    CHECK(usage_error({"--atomic", "--buffered"}) ==
          "--atomic and --buffered both given: RWF_ATOMIC needs O_DIRECT");
    CHECK(usage_error({"--atomic", "--no-direct"}) ==
          "--atomic and --no-direct both given: RWF_ATOMIC needs O_DIRECT");
    check_rejected({"--atomic", "--backend", "nop"}, "--backend nop");
    check_rejected({"--atomic", "--replay", "trace.log"}, "--replay");
    check_rejected({"--atomic", "--sync-compare"}, "--sync-compare");
    // Sizes are the target's to judge (model/atomic_writes.h): parsing takes them.
    CHECK(parse({"--atomic", "--seq-block", "12K"}).seq_block == 12 * KiB);
}
