// Result files: replaced atomically, nothing left on failure, planted links and
// temporary names defeated, and which streams and devices are accepted.
// suite threads: a reader thread at the other end of a FIFO
#include "output/output_file.h"

#include "sys/full_io.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "temp_dir.h"

namespace fs = std::filesystem;
using ds::output::check_output_destination;
using ds::output::create_output_file;
using ds::output::OutputKind;
using ds::output::write_file_atomically;

namespace {

using ds::test::read_file;
using ds::test::TempDir;

// Expects `f` to throw a std::system_error whose text has `path` and `words`.
template <typename F>
void expect_refusal(F&& f, const std::string& path, const std::string& words) {
    try {
        f();
        FAIL("no exception for " << path);
    } catch (const std::system_error& e) {
        CHECK(std::string(e.what()).find(path) != std::string::npos);
        CHECK_MESSAGE(std::string(e.what()).find(words) != std::string::npos, e.what());
    }
}

}  // namespace

TEST_CASE("the file is replaced atomically and no temporary file is left") {
    TempDir dir{"output_file_test"};
    const fs::path path = dir.path / "drivestress.prom";
    write_file_atomically(path, "first 1\n");
    CHECK(read_file(path) == "first 1\n");
    CHECK(dir.entries() == std::vector<std::string>{"drivestress.prom"});
    write_file_atomically(path, "second 2\n");
    CHECK(read_file(path) == "second 2\n");
    CHECK(dir.entries() == std::vector<std::string>{"drivestress.prom"});

    // A reader racing the writer sees one whole version or the other, never a
    // missing or partial file (1 MiB each, so a torn write would show).
    const std::string a(1 << 20, 'a'), b(1 << 20, 'b');
    write_file_atomically(path, a);
    std::atomic<bool> stop{false};
    std::atomic<int> bad{0}, reads{0};
    std::thread reader([&] {
        while (!stop) {
            std::ifstream in(path, std::ios::binary);
            if (!in) {
                ++bad;
                continue;
            }
            std::ostringstream s;
            s << in.rdbuf();
            if (s.str() != a && s.str() != b) ++bad;
            ++reads;
        }
    });
    for (int i = 0; i < 40; ++i)
        write_file_atomically(path, i % 2 ? a : b);
    stop = true;
    reader.join();
    CHECK(bad == 0);
    CHECK(reads > 0);
    CHECK(dir.entries() == std::vector<std::string>{"drivestress.prom"});
}

TEST_CASE("a failed write throws naming the path and leaves nothing") {
    TempDir dir{"output_file_test"};
    SUBCASE("the directory does not exist") {
        const std::string path = (dir.path / "missing" / "x.prom").string();
        try {
            write_file_atomically(path, "x 1\n");
            FAIL("no exception");
        } catch (const std::system_error& e) {
            CHECK(std::string(e.what()).find(path) != std::string::npos);
            CHECK(e.code() == std::errc::no_such_file_or_directory);
        }
    }
    SUBCASE("a directory in the way") {
        const fs::path path = dir.path / "x.prom";
        fs::create_directory(path);
        expect_refusal([&] { write_file_atomically(path, "x 1\n"); }, path, "is a directory");
        CHECK(dir.entries() == std::vector<std::string>{"x.prom"});
    }
    SUBCASE("the disk is full: /dev/full as a stream") {
        expect_refusal([&] { write_file_atomically("/dev/full", "x 1\n"); }, "/dev/full", "write");
    }
}

TEST_CASE("a planted symbolic link is refused and its target is untouched") {
    TempDir dir{"output_file_test"};
    const fs::path victim = dir.path / "victim";
    std::ofstream(victim) << "precious";
    const fs::path link = dir.path / "result.json";
    fs::create_symlink(victim, link);
    expect_refusal([&] { write_file_atomically(link, "{}"); }, link, "symbolic link");
    expect_refusal([&] { (void)create_output_file(link); }, link, "symbolic link");
    CHECK(read_file(victim) == "precious");
    CHECK(fs::is_symlink(link));
    CHECK(dir.entries() == std::vector<std::string>{"result.json", "victim"});
}

TEST_CASE("a planted hard link is replaced, never written through") {
    TempDir dir{"output_file_test"};
    const fs::path victim = dir.path / "victim";
    std::ofstream(victim) << "precious";
    const fs::path link = dir.path / "result.json";
    fs::create_hard_link(victim, link);
    write_file_atomically(link, "{}");
    CHECK(read_file(victim) == "precious");
    CHECK(read_file(link) == "{}");
    CHECK(fs::hard_link_count(victim) == 1);

    fs::remove(link);
    fs::create_hard_link(victim, link);
    {
        ds::sys::UniqueFd fd = create_output_file(link);
        REQUIRE(fd.valid());
        CHECK(ds::sys::write_full(fd.get(), "line\n"));
    }
    CHECK(read_file(victim) == "precious");
    CHECK(read_file(link) == "line\n");
}

TEST_CASE("temporary names planted in advance do not stop the write") {
    // Whatever an attacker creates beside the path, the temporary file gets
    // a fresh unpredictable name (O_EXCL) and the result lands.
    TempDir dir{"output_file_test"};
    const fs::path path = dir.path / "r.json";
    for (int i = 0; i < 20; ++i)
        std::ofstream(dir.path / (".r.json." + std::to_string(i) + ".tmp")) << "x";
    write_file_atomically(path, "ok");
    CHECK(read_file(path) == "ok");
    CHECK(dir.entries().size() == 21);
}

TEST_CASE("streams: FIFO, /dev/null, standard stream names; other devices refused") {
    TempDir dir{"output_file_test"};
    CHECK(check_output_destination("/dev/null") == OutputKind::stream);
    CHECK(check_output_destination("/dev/stdout") == OutputKind::stream);
    CHECK(check_output_destination("/dev/fd/2") == OutputKind::stream);
    CHECK(check_output_destination((dir.path / "new").string()) == OutputKind::regular);
    write_file_atomically("/dev/null", "discarded");
    expect_refusal([] { (void)check_output_destination("/dev/zero"); }, "/dev/zero", "is a device");
    // A descriptor that is not open is refused when written.
    expect_refusal([] { write_file_atomically("/dev/fd/987654", "x"); }, "/dev/fd/987654",
                   "not open");

    const fs::path fifo = dir.path / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    SUBCASE("a FIFO without a reader fails at once") {
        expect_refusal([&] { write_file_atomically(fifo, "x"); }, fifo, "no reader");
    }
    SUBCASE("a FIFO with a reader gets the whole document") {
        const std::string doc(200'000, 'j');  // more than a pipe buffer
        std::string got;
        int rfd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
        REQUIRE(rfd >= 0);
        // The read end stays non-blocking: before the writer opens, a read
        // would see end-of-file; poll until everything arrived instead.
        std::thread reader([&] {
            char buf[65536];
            while (got.size() < doc.size()) {
                pollfd p{rfd, POLLIN, 0};
                if (::poll(&p, 1, 10'000) <= 0) break;  // a hang is the failure
                ssize_t n = ::read(rfd, buf, sizeof buf);
                if (n > 0) got.append(buf, static_cast<std::size_t>(n));
                if (n == 0 && (p.revents & POLLHUP)) break;
            }
            ::close(rfd);
        });
        write_file_atomically(fifo, doc);
        reader.join();
        CHECK(got == doc);
    }
    CHECK(fs::is_fifo(fifo));
}
