// The one ownership check (targets/ownership.h): what at a name is
// drivestress's file, and the removal that happens only while the name is
// still the file checked.
#include "targets/ownership.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "pattern/unit.h"
#include "sys/unique_fd.h"

using namespace ds;

namespace {

constexpr std::uint64_t kRun = 0x1234'5678'9abc'def0ULL;

struct TempDir {
    std::string path;
    TempDir() {
        char name[] = "/tmp/drivestress-ownership-test-XXXXXX";
        REQUIRE(::mkdtemp(name) != nullptr);
        path = name;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string at(const std::string& name) const { return path + "/" + name; }
};

// A file at `path` starting with unit `offset` of file `index` of run `run`.
void data_file(const std::string& path, std::uint32_t index, std::uint64_t run = kRun,
               std::uint64_t offset = 0) {
    std::vector<std::byte> unit(4096);
    pattern::fill_unit(unit, {run, index, offset, 1, 4096});
    sys::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    REQUIRE(fd.valid());
    REQUIRE(::write(fd.get(), unit.data(), unit.size()) == 4096);
}

std::string refusal(const TempDir& d, const std::string& name, const targets::DataFileMark& m) {
    sys::UniqueFd dir(::open(d.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    REQUIRE(dir.valid());
    const targets::CheckedFile c = targets::check_data_file(dir.get(), name, m);
    CHECK_FALSE(c.missing);
    return c.refusal;
}

}  // namespace

TEST_CASE("ours: a plain file of the caller starting with the unit 0 asked for") {
    TempDir d;
    data_file(d.at("drivestress-3.dat"), 3);
    CHECK(refusal(d, "drivestress-3.dat", {}) == "");
    CHECK(refusal(d, "drivestress-3.dat", {3}) == "");
    CHECK(refusal(d, "drivestress-3.dat", {3, kRun}) == "");
    CHECK(refusal(d, "drivestress-3.dat", {2}) ==
          "does not start with drivestress's unit 0 of file 2");
    CHECK(refusal(d, "drivestress-3.dat", {3, kRun + 1}) == "does not carry this run's data");
    // Unit 1 of file 3 at the start is not file 3's first unit.
    data_file(d.at("drivestress-3.dat"), 3, kRun, 4096);
    CHECK(refusal(d, "drivestress-3.dat", {}) == "");
    CHECK(refusal(d, "drivestress-3.dat", {3}) ==
          "does not start with drivestress's unit 0 of file 3");
}

TEST_CASE("not ours: a link, a second name, a FIFO, someone's notes; nothing there") {
    TempDir d;
    data_file(d.at("real.dat"), 0);
    REQUIRE(::symlink(d.at("real.dat").c_str(), d.at("link.dat").c_str()) == 0);
    CHECK(refusal(d, "link.dat", {0}) == "is a symbolic link");
    REQUIRE(::link(d.at("real.dat").c_str(), d.at("second.dat").c_str()) == 0);
    CHECK(refusal(d, "second.dat", {0}) == "has 2 links");
    REQUIRE(::mkfifo(d.at("fifo.dat").c_str(), 0600) == 0);
    CHECK(refusal(d, "fifo.dat", {0}) == "is not a regular file");  // opened without blocking
    {
        sys::UniqueFd fd(::open(d.at("notes.dat").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
        REQUIRE(::write(fd.get(), "my notes\n", 9) == 9);
    }
    CHECK(refusal(d, "notes.dat", {}) == "is not a drivestress file");
    const targets::CheckedFile gone = targets::check_data_file(AT_FDCWD, d.at("none.dat"), {});
    CHECK(gone.missing);
    CHECK_FALSE(gone.ours());
}

TEST_CASE("remove_checked unlinks only the file that was checked") {
    TempDir d;
    data_file(d.at("drivestress-0.dat"), 0);
    const targets::CheckedFile c =
        targets::check_data_file(AT_FDCWD, d.at("drivestress-0.dat"), {0});
    REQUIRE(c.ours());
    // Replaced under the name since the check: left alone.
    REQUIRE(::rename(d.at("drivestress-0.dat").c_str(), d.at("aside.dat").c_str()) == 0);
    data_file(d.at("drivestress-0.dat"), 0);
    CHECK_FALSE(targets::remove_checked(AT_FDCWD, d.at("drivestress-0.dat"), c.st));
    CHECK(std::filesystem::exists(d.at("drivestress-0.dat")));
    // The file checked, at its name: removed.
    CHECK(targets::remove_checked(AT_FDCWD, d.at("aside.dat"), c.st));
    CHECK_FALSE(std::filesystem::exists(d.at("aside.dat")));
}
