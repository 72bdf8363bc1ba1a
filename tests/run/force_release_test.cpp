// --verify-only STATE --cleanup --force: what it plans to remove before it
// removes anything, never a file another state file of the directory
// keeps (readable or not), and never another version's state file.
#include "run/force_release.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "model/errors.h"
#include "pattern/unit.h"
#include "sys/unique_fd.h"
#include "targets/state_file.h"
#include "targets/target.h"

using namespace ds;

namespace {

constexpr std::uint64_t kRun = 0x0dd5'eed5'0000'0001ULL;
constexpr std::uint32_t kUnit = 4096;

struct TempDir {
    std::string path;
    TempDir() {
        char name[] = "/tmp/drivestress-force-test-XXXXXX";
        REQUIRE(::mkdtemp(name) != nullptr);
        path = name;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string at(const std::string& name) const { return path + "/" + name; }
    bool has(const std::string& name) const { return std::filesystem::exists(at(name)); }
};

// A kept data file: unit 0 of file `index` of the run, then one more unit.
void data_file(const TempDir& d, const std::string& name, std::uint32_t index) {
    std::vector<std::byte> units(2 * kUnit);
    pattern::fill_unit({units.data(), kUnit}, {kRun, index, 0, 1, kUnit});
    pattern::fill_unit({units.data() + kUnit, kUnit}, {kRun, index, kUnit, 1, kUnit});
    sys::UniqueFd fd(::open(d.at(name).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    REQUIRE(fd.valid());
    REQUIRE(::write(fd.get(), units.data(), units.size()) == static_cast<ssize_t>(units.size()));
}

// A whole state file at `state` naming `names` (the --keep run's files).
void readable_state(const TempDir& d, const std::string& state,
                    const std::vector<std::string>& names) {
    model::StateGeometry g;
    g.seed = 7;
    g.run_id = kRun;
    g.file_bytes = 2 * kUnit;
    g.unit_bytes = kUnit;
    g.bound = 1;
    for (const auto& n : names)
        g.paths.push_back(d.at(n));
    targets::StateFile sf(d.at(state), g);
}

// What a power cut can leave at a state file's name: `bytes` zero bytes.
void damaged_state(const TempDir& d, const std::string& state, std::size_t bytes = 0) {
    sys::UniqueFd fd(::open(d.at(state).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    REQUIRE(fd.valid());
    const std::vector<char> zeros(bytes);
    REQUIRE(::write(fd.get(), zeros.data(), bytes) == static_cast<ssize_t>(bytes));
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
    for (const auto& x : v)
        if (x == s) return true;
    return false;
}

}  // namespace

TEST_CASE("a prefix run's kept files survive --force on an empty drivestress.state") {
    TempDir d;
    // --keep --path DIR/drivestress- keeps drivestress-0.dat and -1.dat under
    // drivestress-.state; drivestress.state is empty (damaged, or planted).
    data_file(d, "drivestress-0.dat", 0);
    data_file(d, "drivestress-1.dat", 1);
    readable_state(d, "drivestress-.state", {"drivestress-0.dat", "drivestress-1.dat"});
    data_file(d, "drivestress-2.dat", 2);  // a leftover no state names
    damaged_state(d, "drivestress.state");

    run::ForceRelease plan(d.at("drivestress.state"));
    CHECK(plan.why() != "");
    CHECK(plan.to_remove() == std::vector<std::string>{d.at("drivestress-2.dat")});
    const std::string kept = ": kept by drivestress-.state, which can be read (verify it)";
    CHECK(plan.left() == std::vector<std::string>{d.at("drivestress-0.dat") + kept,
                                                  d.at("drivestress-1.dat") + kept});
    CHECK(d.has("drivestress-2.dat"));  // planned, not yet removed
    CHECK(d.has("drivestress.state"));

    CHECK(plan.carry_out() == std::vector<std::string>{d.at("drivestress-2.dat")});
    CHECK_FALSE(plan.state_left());
    CHECK_FALSE(d.has("drivestress-2.dat"));
    CHECK_FALSE(d.has("drivestress.state"));
    CHECK(d.has("drivestress-0.dat"));
    CHECK(d.has("drivestress-1.dat"));
    CHECK(targets::load_state_file(d.at("drivestress-.state")).files.size() == 2);
}

TEST_CASE("a directory run's kept files survive --force on an empty drivestress-.state") {
    TempDir d;
    data_file(d, "drivestress-0.dat", 0);
    data_file(d, "drivestress-1.dat", 1);
    readable_state(d, "drivestress.state", {"drivestress-0.dat", "drivestress-1.dat"});
    damaged_state(d, "drivestress-.state");

    run::ForceRelease plan(d.at("drivestress-.state"));
    CHECK(plan.to_remove().empty());
    REQUIRE(plan.left().size() == 2);
    CHECK(plan.left()[0] ==
          d.at("drivestress-0.dat") + ": kept by drivestress.state, which can be read (verify it)");
    CHECK(plan.carry_out().empty());
    CHECK_FALSE(d.has("drivestress-.state"));
    CHECK(d.has("drivestress-0.dat"));
    CHECK(d.has("drivestress-1.dat"));
}

TEST_CASE("a state that cannot be read either still keeps every file of its stem") {
    TempDir d;
    // a10.dat is file 0 of prefix "a1" and file 10 of prefix "a": both
    // state files are damaged, so either may have kept it.
    data_file(d, "a10.dat", 0);
    data_file(d, "a11.dat", 1);
    damaged_state(d, "a1.state", 4096);  // a whole block of zeros
    damaged_state(d, "a.state", 4096);

    {
        run::ForceRelease plan(d.at("a1.state"));  // holds the directory's lock
        CHECK(plan.to_remove().empty());
        REQUIRE(plan.left().size() == 2);
        CHECK(plan.left()[0] ==
              d.at("a10.dat") + ": may be kept by a.state, which cannot be read either");
        (void)plan.carry_out();
    }
    CHECK_FALSE(d.has("a1.state"));
    CHECK(d.has("a10.dat"));
    // With a1.state gone, a.state's release takes what is provably its own.
    run::ForceRelease second(d.at("a.state"));
    CHECK(second.to_remove().empty());  // a10.dat is file 0's unit, not file 10's
    CHECK(contains(second.left(),
                   d.at("a10.dat") + ": does not start with drivestress's unit 0 of file 10"));
}

TEST_CASE("another version's state file is refused for --force, naming its format") {
    TempDir d;
    data_file(d, "drivestress-0.dat", 0);
    readable_state(d, "drivestress.state", {"drivestress-0.dat"});
    for (const std::uint32_t format : {8U, 3U, 1000U}) {
        CAPTURE(format);
        sys::UniqueFd fd(::open(d.at("drivestress.state").c_str(), O_WRONLY | O_CLOEXEC));
        REQUIRE(::pwrite(fd.get(), &format, sizeof format, 8) == sizeof format);
        CHECK(targets::other_version_format(d.at("drivestress.state")) == format);
        const std::string refusal = ": a state file of format " + std::to_string(format) +
                                    ", which this drivestress does not read (formats 4 to 7)";
        CHECK_THROWS_WITH_AS(run::ForceRelease(d.at("drivestress.state")),
                             doctest::Contains(refusal.c_str()), model::SetupError);
        CHECK(d.has("drivestress-0.dat"));
        CHECK(d.has("drivestress.state"));
        // A run into the directory says to verify it with that version,
        // not to release it with --force.
        sys::UniqueFd dir(::open(d.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        CHECK_THROWS_WITH_AS(targets::kept_files(dir.get(), d.path),
                             doctest::Contains("verify them with the drivestress version that "
                                               "wrote it"),
                             model::SetupError);
    }
    // A format word no version writes (0, past 65535) is damage: released.
    for (const std::uint32_t word : {0U, 0xdeadbeefU}) {
        sys::UniqueFd fd(::open(d.at("drivestress.state").c_str(), O_WRONLY | O_CLOEXEC));
        REQUIRE(::pwrite(fd.get(), &word, sizeof word, 8) == sizeof word);
        CHECK_FALSE(targets::other_version_format(d.at("drivestress.state")).has_value());
    }
    run::ForceRelease plan(d.at("drivestress.state"));
    CHECK(plan.to_remove() == std::vector<std::string>{d.at("drivestress-0.dat")});
}

TEST_CASE("a readable state, a name that is not a state's: refused, nothing removed") {
    TempDir d;
    data_file(d, "drivestress-0.dat", 0);
    readable_state(d, "drivestress.state", {"drivestress-0.dat"});
    CHECK_THROWS_WITH_AS(run::ForceRelease(d.at("drivestress.state")),
                         doctest::Contains("can be read; --force is only for a state file"),
                         model::SetupError);
    CHECK_THROWS_WITH_AS(run::ForceRelease(d.at("drivestress-0.dat")),
                         doctest::Contains("not a state file's name"), model::SetupError);
    CHECK(d.has("drivestress-0.dat"));
    CHECK(d.has("drivestress.state"));
}
