// The --keep state file: what is written comes back, a torn newest record
// falls back to the one before it, and damage to both is a clear error.
#include "target/state_file.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "model/errors.h"

using namespace ds;

namespace {

constexpr std::uint64_t kFileBytes = 64 * 4096;
constexpr std::uint32_t kUnit = 4096;
constexpr std::uint64_t kUnits = kFileBytes / kUnit;

struct TempDir {
    std::string path;
    TempDir() {
        char name[] = "/tmp/drivestress-state-test-XXXXXX";
        REQUIRE(::mkdtemp(name) != nullptr);
        path = name;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
};

run::StateGeometry geometry(const std::string& dir, unsigned files = 2) {
    run::StateGeometry g;
    g.seed = 1234;
    g.run_id = pattern::run_id_from_seed(g.seed);
    g.file_bytes = kFileBytes;
    g.unit_bytes = kUnit;
    g.bound = 3;
    for (unsigned i = 0; i < files; ++i)
        g.paths.push_back(dir + "/drivestress-" + std::to_string(i) + ".dat");
    return g;
}

// Generations that need all four bytes of the record (far past 255).
std::vector<pattern::Generation> gens(pattern::Generation base) {
    std::vector<pattern::Generation> v(kUnits);
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<pattern::Generation>(1 + base * 100003ULL + i * 65537ULL);
    return v;
}

// Overwrites `len` bytes at `offset` of the state file with 0xA5.
void scribble(const std::string& path, std::uint64_t offset, std::size_t len) {
    int fd = ::open(path.c_str(), O_RDWR);
    REQUIRE(fd >= 0);
    std::vector<unsigned char> junk(len, 0xA5);
    REQUIRE(::pwrite(fd, junk.data(), len, static_cast<off_t>(offset)) ==
            static_cast<ssize_t>(len));
    ::close(fd);
}

// The region layout, as state_file.cpp documents it: a one-block header
// (short names) and per file two copies of 4 KiB + the map, block-rounded.
constexpr std::uint64_t kHeaderBytes = 4096;
constexpr std::uint64_t kCopyBytes = 4096;  // 40 + 64 units x 4 bytes of map
std::uint64_t copy_offset(unsigned file, unsigned copy) {
    return kHeaderBytes + (2ULL * file + copy) * kCopyBytes;
}

}  // namespace

TEST_CASE("state file round trip: geometry, names and the last acknowledgement per file") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    {
        run::StateFile sf(path, geometry(dir.path));
        sf.set_bound(3, false);
        sf.acknowledged(0, gens(0));
        sf.acknowledged(0, gens(7));  // the newest wins
        sf.acknowledged(1, gens(100));
        CHECK(sf.acknowledgements(0) == 2);
        CHECK(sf.acknowledgements(1) == 1);
        CHECK(sf.write_errors() == 0);
    }
    run::LoadedState s = run::load_state_file(path);
    CHECK(s.geo.seed == 1234);
    CHECK(s.geo.run_id == pattern::run_id_from_seed(1234));
    CHECK(s.geo.file_bytes == kFileBytes);
    CHECK(s.geo.unit_bytes == kUnit);
    CHECK(s.geo.bound == 3);
    REQUIRE(s.geo.paths.size() == 2);
    CHECK(s.geo.paths[1] == dir.path + "/drivestress-1.dat");
    REQUIRE(s.files.size() == 2);
    CHECK(s.files[0].acknowledgements == 2);
    CHECK(s.files[0].acked == gens(7));
    CHECK(s.files[1].acknowledgements == 1);
    CHECK(s.files[1].acked == gens(100));
    CHECK_FALSE(s.files[0].used_older_copy);
    CHECK(s.files[0].bound == 3);
}

TEST_CASE("a fresh state file has nothing acknowledged; reset forgets everything") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    run::StateFile sf(path, geometry(dir.path, 1));
    auto s = run::load_state_file(path);
    CHECK(s.files[0].acknowledgements == 0);
    CHECK(s.files[0].acked == std::vector<pattern::Generation>(kUnits, 0));
    sf.acknowledged(0, gens(1));
    sf.reset();
    s = run::load_state_file(path);
    CHECK(s.files[0].acknowledgements == 2);
    CHECK(s.files[0].acked == std::vector<pattern::Generation>(kUnits, 0));
}

TEST_CASE("the bound travels with each record: 0 after a phase end, rewritten before a phase") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    run::StateFile sf(path, geometry(dir.path, 1));
    sf.set_bound(1, true);  // before seq-write: nothing acknowledged yet, bound 1
    auto s = run::load_state_file(path);
    CHECK(s.files[0].bound == 1);
    CHECK(s.files[0].acked == std::vector<pattern::Generation>(kUnits, 0));
    sf.set_bound(0, false);  // the phase ended
    sf.acknowledged(0, gens(5));
    s = run::load_state_file(path);
    CHECK(s.files[0].bound == 0);  // nothing may be newer than a phase end's record
    CHECK(s.files[0].acked == gens(5));
    sf.set_bound(run::kAnyNewerBound, true);  // a random phase without flushes starts
    s = run::load_state_file(path);
    CHECK(s.files[0].bound == run::kAnyNewerBound);
    CHECK(s.files[0].acked == gens(5));  // the same record, under the phase's bound
    CHECK(s.files[0].acknowledgements == 3);

    SUBCASE("a torn record under \"any newer\" stays \"any newer\"") {
        sf.acknowledged(0, gens(9));  // sequence 4 -> copy 0
        sf.acknowledged(0, gens(9));  // sequence 5 -> copy 1, torn
        scribble(path, copy_offset(0, 1) + 40, 8);
        s = run::load_state_file(path);
        CHECK(s.files[0].used_older_copy);
        CHECK(s.files[0].bound == run::kAnyNewerBound);
    }
    SUBCASE("a torn record after a phase end keeps bound 0") {
        sf.set_bound(0, false);
        sf.acknowledged(0, gens(9));  // sequence 4 -> copy 0
        sf.set_bound(200, true);      // sequence 5 -> copy 1, torn
        scribble(path, copy_offset(0, 1) + 40, 8);
        s = run::load_state_file(path);
        CHECK(s.files[0].used_older_copy);
        CHECK(s.files[0].acked == gens(9));
        CHECK(s.files[0].bound == 0);
    }
}

TEST_CASE("a poisoned file is never acknowledged again") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    run::StateFile sf(path, geometry(dir.path));
    sf.acknowledged(0, gens(5));
    sf.acknowledged(1, gens(5));
    sf.poison(0);
    sf.acknowledged(0, gens(6));
    sf.set_bound(10, true);
    auto s = run::load_state_file(path);
    CHECK(s.files[0].acked == std::vector<pattern::Generation>(kUnits, 0));
    CHECK(s.files[0].acknowledgements == 2);  // the record that says "nothing"
    CHECK(s.files[1].acked == gens(5));
    CHECK(s.files[1].bound == 10);
}

TEST_CASE("a torn newest record: the one before it is used, with a doubled bound") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    {
        run::StateFile sf(path, geometry(dir.path));
        sf.set_bound(3, false);
        sf.acknowledged(0, gens(0));   // sequence 1 -> copy 1
        sf.acknowledged(0, gens(50));  // sequence 2 -> copy 0
    }
    // Half of the newest record's map never reached the disk.
    scribble(path, copy_offset(0, 0) + 40 + 40, 24);
    auto s = run::load_state_file(path);
    CHECK(s.files[0].acknowledgements == 1);
    CHECK(s.files[0].acked == gens(0));
    CHECK(s.files[0].used_older_copy);
    CHECK(s.files[0].bound == 6);
    CHECK(s.files[0].acked.back() > 255);     // four bytes per unit came back whole
    CHECK_FALSE(s.files[1].used_older_copy);  // file 1 untouched: nothing acknowledged
    CHECK(s.files[1].acknowledgements == 0);

    SUBCASE("a torn first record means nothing was acknowledged") {
        TempDir d2;
        const std::string p2 = d2.path + "/drivestress.state";
        { run::StateFile sf(p2, geometry(d2.path)); }
        scribble(p2, copy_offset(1, 1), 16);
        auto s2 = run::load_state_file(p2);
        CHECK(s2.files[1].acknowledgements == 0);
        CHECK(s2.files[1].acked == std::vector<pattern::Generation>(kUnits, 0));
    }
}

TEST_CASE("both records of a file damaged, a damaged header, a foreign file: clear errors") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    {
        run::StateFile sf(path, geometry(dir.path));
        sf.acknowledged(1, gens(0));
        sf.acknowledged(1, gens(1));
    }
    SUBCASE("both copies") {
        scribble(path, copy_offset(1, 0) + 40, 8);
        scribble(path, copy_offset(1, 1) + 40, 8);
        CHECK_THROWS_WITH_AS(run::load_state_file(path),
                             doctest::Contains("both copies of file 1's acknowledgement record "
                                               "are damaged"),
                             run::SetupError);
    }
    SUBCASE("header") {
        scribble(path, 16, 1);  // the seed
        CHECK_THROWS_WITH_AS(run::load_state_file(path),
                             doctest::Contains("damaged state file header"), run::SetupError);
    }
    SUBCASE("an older format (one-byte generations) is refused in one line") {
        int fd = ::open(path.c_str(), O_RDWR);
        REQUIRE(fd >= 0);
        const std::uint32_t v2 = 2;
        REQUIRE(::pwrite(fd, &v2, sizeof v2, 8) == static_cast<ssize_t>(sizeof v2));
        ::close(fd);
        CHECK(run::kStateFormatVersion == 3);
        try {
            (void)run::load_state_file(path);
            FAIL("an old state file was accepted");
        } catch (const run::SetupError& e) {
            const std::string what = e.what();
            CHECK(what.find("state file format 2 is not supported") != std::string::npos);
            CHECK(what.find('\n') == std::string::npos);
        }
    }
    SUBCASE("not a state file, or missing") {
        const std::string other = dir.path + "/notes.txt";
        std::FILE* f = std::fopen(other.c_str(), "w");
        std::fputs("my notes", f);
        std::fclose(f);
        CHECK_THROWS_WITH_AS(run::load_state_file(other),
                             doctest::Contains("not a drivestress state file"), run::SetupError);
        CHECK_THROWS_AS(run::load_state_file(dir.path + "/none.state"), run::SetupError);
        // ... and never overwritten by a --keep run, nor is an earlier
        // state file (the evidence of an earlier run).
        CHECK_THROWS_WITH_AS(run::StateFile(other, geometry(dir.path)),
                             doctest::Contains("refusing to replace it"), run::SetupError);
        CHECK_THROWS_WITH_AS(run::StateFile(path, geometry(dir.path)),
                             doctest::Contains("refusing to replace it"), run::SetupError);
        CHECK(run::load_state_file(path).geo.paths.size() == 2);  // untouched
    }
}

TEST_CASE("the names a state file keeps, and states that cannot be acted on") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    { run::StateFile sf(path, geometry(dir.path, 3)); }
    CHECK(run::state_file_names(path) ==
          std::vector<std::string>{"drivestress-0.dat", "drivestress-1.dat", "drivestress-2.dat"});
    // Preallocated: a full filesystem refuses the run, not the acknowledgements.
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK(static_cast<std::uint64_t>(st.st_blocks) * 512 >= static_cast<std::uint64_t>(st.st_size));
    CHECK(static_cast<std::uint64_t>(st.st_size) == run::state_file_bytes(3, kUnits, 60));

    SUBCASE("a symbolic link is not followed") {
        const std::string link = dir.path + "/link.state";
        REQUIRE(::symlink(path.c_str(), link.c_str()) == 0);
        CHECK_THROWS_WITH_AS(run::load_state_file(link), doctest::Contains("symbolic link"),
                             run::SetupError);
    }
    SUBCASE("another user's state file is refused") {
        if (::geteuid() != 0) return;  // only root can give it away
        REQUIRE(::chown(path.c_str(), 65534, 65534) == 0);
        CHECK_THROWS_WITH_AS(run::load_state_file(path), doctest::Contains("owned by uid 65534"),
                             run::SetupError);
        CHECK(run::state_file_names(path).size() == 3);  // its protection still holds
    }
}

TEST_CASE("the bound: one write per unit without random writes, any without flushes") {
    run::RunConfig cfg;
    cfg.qd = 8;
    CHECK(run::unacked_write_bound(cfg, 0) == run::kAnyNewerBound);
    CHECK(run::unacked_write_bound(cfg, 10) == 28);
    // Exact past 254: generations no longer wrap at 255.
    CHECK(run::unacked_write_bound(cfg, 1000) == 2008);
    CHECK(run::unacked_write_bound(cfg, 0x7FFFFFFF) == run::kAnyNewerBound);
    CHECK(run::unacked_write_bound(cfg, ~0ULL) == run::kAnyNewerBound);
    cfg.read_pct = 100;
    CHECK(run::unacked_write_bound(cfg, 0) == 1);
    cfg.read_pct = 50;
    cfg.rand_time_s = 0;
    CHECK(run::unacked_write_bound(cfg, 0) == 1);
}
