// The --keep state file: what is written comes back, a torn newest record
// falls back to the one before it, and damage to both is a clear error.
#include "targets/state_file.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "model/errors.h"
#include "targets/target.h"

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

model::StateGeometry geometry(const std::string& dir, unsigned files = 2) {
    model::StateGeometry g;
    g.seed = 1234;
    g.run_id = pattern::data_id_from_seed(g.seed);
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
        targets::StateFile sf(path, geometry(dir.path));
        sf.set_bound(3, false);
        sf.acknowledged(0, gens(0));
        sf.acknowledged(0, gens(7));  // the newest wins
        sf.acknowledged(1, gens(100));
        CHECK(sf.acknowledgements(0) == 2);
        CHECK(sf.acknowledgements(1) == 1);
        CHECK(sf.write_errors() == 0);
    }
    targets::LoadedState s = targets::load_state_file(path);
    CHECK(s.geo.seed == 1234);
    CHECK(s.geo.run_id == pattern::data_id_from_seed(1234));
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

// Format 4 for incompressible data (readable by the release before); 5 with
// the units' shape for --compress, 6 with --dedupe's share in it too, which
// verification needs to reproduce the units.
TEST_CASE("state file format: 4 plain, 5 with --compress, 6 with --dedupe: the units' shape") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    auto format_of = [&] {
        std::uint32_t v = 0;
        const int fd = ::open(path.c_str(), O_RDONLY);
        REQUIRE(fd >= 0);
        CHECK(::pread(fd, &v, sizeof v, 8) == sizeof v);
        ::close(fd);
        return v;
    };
    const std::uint32_t dedupe30 = ds::pattern::make_shape(512, 300);
    const std::uint32_t both = ds::pattern::make_shape(248, 1000);
    for (const std::uint32_t shape : {512U, 248U, 56U, dedupe30, both}) {
        CAPTURE(shape);
        std::filesystem::remove(path);
        model::StateGeometry g = geometry(dir.path);
        g.shape = shape;
        { targets::StateFile sf(path, g); }
        CHECK(format_of() == (shape == 512 ? 4U : shape <= 512 ? 5U : 6U));
        CHECK(targets::load_state_file(path).geo.shape == shape);
    }
}

TEST_CASE("a fresh state file has nothing acknowledged; reset forgets everything") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    targets::StateFile sf(path, geometry(dir.path, 1));
    auto s = targets::load_state_file(path);
    CHECK(s.files[0].acknowledgements == 0);
    CHECK(s.files[0].acked == std::vector<pattern::Generation>(kUnits, 0));
    sf.acknowledged(0, gens(1));
    sf.reset();
    s = targets::load_state_file(path);
    CHECK(s.files[0].acknowledgements == 2);
    CHECK(s.files[0].acked == std::vector<pattern::Generation>(kUnits, 0));
}

TEST_CASE("the bound travels with each record: 0 after a phase end, rewritten before a phase") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    targets::StateFile sf(path, geometry(dir.path, 1));
    sf.set_bound(1, true);  // before seq-write: nothing acknowledged yet, bound 1
    auto s = targets::load_state_file(path);
    CHECK(s.files[0].bound == 1);
    CHECK(s.files[0].acked == std::vector<pattern::Generation>(kUnits, 0));
    sf.set_bound(0, false);  // the phase ended
    sf.acknowledged(0, gens(5));
    s = targets::load_state_file(path);
    CHECK(s.files[0].bound == 0);  // nothing may be newer than a phase end's record
    CHECK(s.files[0].acked == gens(5));
    sf.set_bound(model::kAnyNewerBound, true);  // a random phase without flushes starts
    s = targets::load_state_file(path);
    CHECK(s.files[0].bound == model::kAnyNewerBound);
    CHECK(s.files[0].acked == gens(5));  // the same record, under the phase's bound
    CHECK(s.files[0].acknowledgements == 3);

    SUBCASE("a torn record under \"any newer\" stays \"any newer\"") {
        sf.acknowledged(0, gens(9));  // sequence 4 -> copy 0
        sf.acknowledged(0, gens(9));  // sequence 5 -> copy 1, torn
        scribble(path, copy_offset(0, 1) + 40, 8);
        s = targets::load_state_file(path);
        CHECK(s.files[0].used_older_copy);
        CHECK(s.files[0].bound == model::kAnyNewerBound);
    }
    SUBCASE("a torn record after a phase end keeps bound 0") {
        sf.set_bound(0, false);
        sf.acknowledged(0, gens(9));  // sequence 4 -> copy 0
        sf.set_bound(200, true);      // sequence 5 -> copy 1, torn
        scribble(path, copy_offset(0, 1) + 40, 8);
        s = targets::load_state_file(path);
        CHECK(s.files[0].used_older_copy);
        CHECK(s.files[0].acked == gens(9));
        CHECK(s.files[0].bound == 0);
    }
}

TEST_CASE("a poisoned file is never acknowledged again") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    targets::StateFile sf(path, geometry(dir.path));
    sf.acknowledged(0, gens(5));
    sf.acknowledged(1, gens(5));
    sf.poison(0);
    sf.acknowledged(0, gens(6));
    sf.set_bound(10, true);
    auto s = targets::load_state_file(path);
    CHECK(s.files[0].acked == std::vector<pattern::Generation>(kUnits, 0));
    CHECK(s.files[0].acknowledgements == 2);  // the record that says "nothing"
    CHECK(s.files[1].acked == gens(5));
    CHECK(s.files[1].bound == 10);
}

TEST_CASE("a torn newest record: the one before it is used, with a doubled bound") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    {
        targets::StateFile sf(path, geometry(dir.path));
        sf.set_bound(3, false);
        sf.acknowledged(0, gens(0));   // sequence 1 -> copy 1
        sf.acknowledged(0, gens(50));  // sequence 2 -> copy 0
    }
    // Half of the newest record's map never reached the disk.
    scribble(path, copy_offset(0, 0) + 40 + 40, 24);
    auto s = targets::load_state_file(path);
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
        { targets::StateFile sf(p2, geometry(d2.path)); }
        scribble(p2, copy_offset(1, 1), 16);
        auto s2 = targets::load_state_file(p2);
        CHECK(s2.files[1].acknowledgements == 0);
        CHECK(s2.files[1].acked == std::vector<pattern::Generation>(kUnits, 0));
    }
}

TEST_CASE("both records of a file damaged, a damaged header, a foreign file: clear errors") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    {
        targets::StateFile sf(path, geometry(dir.path));
        sf.acknowledged(1, gens(0));
        sf.acknowledged(1, gens(1));
    }
    SUBCASE("both copies") {
        scribble(path, copy_offset(1, 0) + 40, 8);
        scribble(path, copy_offset(1, 1) + 40, 8);
        CHECK_THROWS_WITH_AS(targets::load_state_file(path),
                             doctest::Contains("both copies of file 1's acknowledgement record "
                                               "are damaged"),
                             model::SetupError);
    }
    SUBCASE("header") {
        scribble(path, 16, 1);  // the seed
        CHECK_THROWS_WITH_AS(targets::load_state_file(path),
                             doctest::Contains("damaged state file header"), model::SetupError);
    }
    SUBCASE("older formats (one-byte generations; a run id from the seed) are refused") {
        CHECK(targets::kStateFormatVersion == 4);
        for (const std::uint32_t old : {2U, 3U}) {
            int fd = ::open(path.c_str(), O_RDWR);
            REQUIRE(fd >= 0);
            REQUIRE(::pwrite(fd, &old, sizeof old, 8) == static_cast<ssize_t>(sizeof old));
            ::close(fd);
            try {
                (void)targets::load_state_file(path);
                FAIL("an old state file was accepted");
            } catch (const model::SetupError& e) {
                const std::string what = e.what();
                CHECK(what.find("state file format " + std::to_string(old) + " is not supported") !=
                      std::string::npos);
                CHECK(what.find('\n') == std::string::npos);
            }
        }
    }
    SUBCASE("not a state file, or missing") {
        const std::string other = dir.path + "/notes.txt";
        std::FILE* f = std::fopen(other.c_str(), "w");
        std::fputs("my notes", f);
        std::fclose(f);
        CHECK_THROWS_WITH_AS(targets::load_state_file(other),
                             doctest::Contains("not a drivestress state file"), model::SetupError);
        CHECK_THROWS_AS(targets::load_state_file(dir.path + "/none.state"), model::SetupError);
        // ... and never overwritten by a --keep run, nor is an earlier
        // state file (the evidence of an earlier run).
        CHECK_THROWS_WITH_AS(targets::StateFile(other, geometry(dir.path)),
                             doctest::Contains("refusing to replace it"), model::SetupError);
        CHECK_THROWS_WITH_AS(targets::StateFile(path, geometry(dir.path)),
                             doctest::Contains("refusing to replace it"), model::SetupError);
        CHECK(targets::load_state_file(path).geo.paths.size() == 2);  // untouched
    }
}

TEST_CASE("the names a state file keeps, and states that cannot be acted on") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    { targets::StateFile sf(path, geometry(dir.path, 3)); }
    CHECK(targets::state_file_names(path) ==
          std::vector<std::string>{"drivestress-0.dat", "drivestress-1.dat", "drivestress-2.dat"});
    // Preallocated: a full filesystem refuses the run, not the acknowledgements.
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK(static_cast<std::uint64_t>(st.st_blocks) * 512 >= static_cast<std::uint64_t>(st.st_size));
    CHECK(static_cast<std::uint64_t>(st.st_size) == targets::state_file_bytes(3, kUnits, 60));

    SUBCASE("a symbolic link is not followed") {
        const std::string link = dir.path + "/link.state";
        REQUIRE(::symlink(path.c_str(), link.c_str()) == 0);
        CHECK_THROWS_WITH_AS(targets::load_state_file(link), doctest::Contains("symbolic link"),
                             model::SetupError);
    }
    SUBCASE("another user's state file is refused") {
        if (::geteuid() != 0) return;  // only root can give it away
        REQUIRE(::chown(path.c_str(), 65534, 65534) == 0);
        CHECK_THROWS_WITH_AS(targets::load_state_file(path),
                             doctest::Contains("owned by uid 65534"), model::SetupError);
        CHECK(targets::state_file_names(path).size() == 3);  // its protection still holds
    }
}

TEST_CASE("the bound: one write per unit without random writes, any without flushes") {
    model::RunConfig cfg;
    cfg.qd = 8;
    CHECK(targets::unacked_write_bound(cfg, 0) == model::kAnyNewerBound);
    CHECK(targets::unacked_write_bound(cfg, 10) == 28);
    // Exact past 254: generations no longer wrap at 255.
    CHECK(targets::unacked_write_bound(cfg, 1000) == 2008);
    CHECK(targets::unacked_write_bound(cfg, 0x7FFFFFFF) == model::kAnyNewerBound);
    CHECK(targets::unacked_write_bound(cfg, ~0ULL) == model::kAnyNewerBound);
    cfg.read_pct = 100;
    CHECK(targets::unacked_write_bound(cfg, 0) == 1);
    cfg.read_pct = 50;
    cfg.rand_time_s = 0;
    CHECK(targets::unacked_write_bound(cfg, 0) == 1);
}

namespace {

// What the run's safety check sees: the names the directory's state files
// protect (targets/target.h kept_files), or a refusal.
enum class Guard { refused, protects_all, unprotected };
Guard guard_of(const std::string& dir, const std::vector<std::string>& names) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    REQUIRE(fd >= 0);
    Guard g = Guard::unprotected;
    try {
        const auto kept = targets::kept_files(fd, dir);
        std::size_t found = 0;
        for (const auto& n : names)
            for (const auto& k : kept)
                if (k.name == n) {
                    ++found;
                    break;
                }
        g = found == names.size() ? Guard::protects_all : Guard::unprotected;
    } catch (const model::SetupError&) {
        g = Guard::refused;
    }
    ::close(fd);
    return g;
}

std::vector<unsigned char> read_bytes(const std::string& path) {
    std::vector<unsigned char> v(std::filesystem::file_size(path));
    int fd = ::open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::pread(fd, v.data(), v.size(), 0) == static_cast<ssize_t>(v.size()));
    ::close(fd);
    return v;
}

}  // namespace

// Issue 37: a damaged state file must never let its files go unprotected,
// nor be read as something it does not say.  Every single-byte change (set
// to 0, xor 0x01, xor 0xff) and every truncation of a real state file:
// either it loads and says exactly what was written (the newest record of
// each file, or the one before it when the newest is damaged), or it does
// not load and the run's safety check refuses or still protects every file
// it kept.  Never: a load that says something else, or files unprotected.
TEST_CASE("state file fuzz: every byte changed, every length cut (issue 37)") {
    TempDir dir;
    const std::string path = dir.path + "/drivestress.state";
    const model::StateGeometry geo = geometry(dir.path);
    {
        targets::StateFile sf(path, geo);
        sf.acknowledged(0, gens(1));
        sf.acknowledged(0, gens(2));
        sf.acknowledged(1, gens(3));
    }
    const std::vector<unsigned char> good = read_bytes(path);
    const std::vector<std::string> names = {"drivestress-0.dat", "drivestress-1.dat"};
    const std::vector<pattern::Generation> none(kUnits, pattern::kUnknownGeneration);
    const std::vector<std::vector<pattern::Generation>> newest = {gens(2), gens(3)};
    const std::vector<std::vector<pattern::Generation>> older = {gens(1), none};
    std::size_t loaded = 0, refused = 0, protected_only = 0;

    auto check = [&](const std::string& what) {
        INFO(what);
        bool loads = false;
        try {
            const targets::LoadedState s = targets::load_state_file(path);
            loads = true;
            CHECK(s.geo.seed == geo.seed);
            CHECK(s.geo.run_id == geo.run_id);
            CHECK(s.geo.file_bytes == geo.file_bytes);
            CHECK(s.geo.unit_bytes == geo.unit_bytes);
            CHECK(s.geo.paths == geo.paths);
            REQUIRE(s.files.size() == 2);
            for (std::size_t f = 0; f < 2; ++f) {
                const bool as_written = s.files[f].acked == newest[f];
                const bool fell_back = s.files[f].used_older_copy && s.files[f].acked == older[f];
                CHECK((as_written || fell_back));
            }
        } catch (const model::SetupError&) {
        }
        const Guard g = guard_of(dir.path, names);
        CHECK(g != Guard::unprotected);
        if (loads)
            ++loaded;
        else if (g == Guard::refused)
            ++refused;
        else
            ++protected_only;
    };

    const int fd = ::open(path.c_str(), O_RDWR);
    REQUIRE(fd >= 0);
    auto put = [&](std::size_t at, unsigned char b) {
        REQUIRE(::pwrite(fd, &b, 1, static_cast<off_t>(at)) == 1);
    };
    for (std::size_t at = 0; at < good.size(); ++at) {
        for (const int how : {0, 1, 2}) {
            const unsigned char was = good[at];
            const unsigned char now = how == 0 ? 0 : how == 1 ? was ^ 0x01 : was ^ 0xff;
            if (now == was) continue;
            put(at, now);
            check("byte " + std::to_string(at) + " changed to " + std::to_string(now));
            put(at, was);
        }
    }
    for (std::size_t len = good.size(); len-- > 0;) {
        REQUIRE(::ftruncate(fd, static_cast<off_t>(len)) == 0);
        check("cut to " + std::to_string(len) + " bytes");
    }
    ::close(fd);
    // The header's bytes are all checked: most changes there refuse.
    CHECK(refused > 0);
    CHECK(loaded > 0);  // a damaged newest record: the one before it
    MESSAGE(loaded << " loaded as written, " << refused << " refused, " << protected_only
                   << " not loaded but protected by name");
}
