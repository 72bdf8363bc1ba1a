// The block appender: exactly the bytes appended reach the file, whole blocks
// written direct, a pipe written at every flush, and a failed write reported.
#include "output/block_appender.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "sys/unique_fd.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using ds::output::BlockAppender;
using ds::sys::UniqueFd;
using Flush = BlockAppender::Flush;

namespace {

using ds::test::read_file;
using ds::test::TempDir;

void append(BlockAppender& out, const std::string& s) {
    REQUIRE(out.room() >= s.size());
    std::memcpy(out.end(), s.data(), s.size());
    out.advance(s.size());
}

// Lines of varied length, from a seed.
std::string lines(std::mt19937_64& rng, std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i)
        s += "{\"line\":" + std::to_string(rng()) + std::string(rng() % 200, 'x') + "}\n";
    return s;
}

UniqueFd create(const fs::path& p) {
    UniqueFd fd(::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    REQUIRE(fd.valid());
    return fd;
}

}  // namespace

// Every flush mode in a seeded order, whole blocks direct, the rest through
// the page cache: the file is exactly what was appended.
TEST_CASE("a file gets exactly the bytes appended, whatever the flushes") {
    TempDir dir{"block_appender_test"};
    for (const std::size_t preface : {std::size_t{0}, std::size_t{100}}) {
        CAPTURE(preface);
        const fs::path p = dir.path / ("log" + std::to_string(preface));
        UniqueFd fd = create(p);
        const std::string head(preface, 'h');
        REQUIRE(::write(fd.get(), head.data(), head.size()) == static_cast<ssize_t>(preface));
        std::mt19937_64 rng(42 + preface);
        std::string want = head;
        BlockAppender out(fd.get(), 64 * 1024, false);
        for (int round = 0; round < 400; ++round) {
            const std::string s = lines(rng, 1 + rng() % 60);
            if (out.room() < s.size()) REQUIRE(out.flush(Flush::whole_blocks));
            append(out, s);
            want += s;
            const auto pick = rng() % 8;
            if (pick == 0) REQUIRE(out.flush(Flush::all));
            if (pick == 1) REQUIRE(out.flush(Flush::timely));
            if (pick == 2) REQUIRE(out.flush(Flush::whole_blocks));
        }
        REQUIRE(out.flush(Flush::all));
        CHECK(out.pending().empty());
        CHECK(read_file(p) == want);
        if (out.direct_capable()) {
            CHECK(out.direct_bytes() > want.size() / 2);
            CHECK(out.direct_bytes() % BlockAppender::kBlock == 0);
        } else {
            MESSAGE("no O_DIRECT on " << dir.path << ": only the page-cache path ran");
        }
    }
}

TEST_CASE("whole blocks: less than a block stays pending; timely writes it") {
    TempDir dir{"block_appender_test"};
    const fs::path p = dir.path / "log";
    UniqueFd fd = create(p);
    BlockAppender out(fd.get(), 64 * 1024, false);
    if (!out.direct_capable()) {
        MESSAGE("skipped: no O_DIRECT on " << dir.path);
        return;
    }
    append(out, std::string(100, 'a'));
    REQUIRE(out.flush(Flush::whole_blocks));
    CHECK(fs::file_size(p) == 0);
    CHECK(out.pending().size() == 100);
    REQUIRE(out.flush(Flush::timely));
    CHECK(fs::file_size(p) == 100);
    // Past a boundary: up to it only, the rest pending at its offset.
    append(out, std::string(BlockAppender::kBlock, 'b'));
    REQUIRE(out.flush(Flush::timely));
    CHECK(fs::file_size(p) == BlockAppender::kBlock);
    CHECK(out.pending().size() == 100);
    CHECK(reinterpret_cast<std::uintptr_t>(out.pending().data()) % BlockAppender::kBlock == 0);
    append(out, std::string(2 * BlockAppender::kBlock, 'c'));
    REQUIRE(out.flush(Flush::whole_blocks));
    CHECK(out.direct_bytes() == 2 * BlockAppender::kBlock);
    REQUIRE(out.flush(Flush::all));
    CHECK(read_file(p) == std::string(100, 'a') + std::string(BlockAppender::kBlock, 'b') +
                              std::string(2 * BlockAppender::kBlock, 'c'));
}

TEST_CASE("a pipe is written whole at every flush, never direct") {
    int p[2];
    REQUIRE(::pipe(p) == 0);
    UniqueFd r(p[0]), w(p[1]);
    BlockAppender out(w.get(), 4096, true);
    CHECK_FALSE(out.direct_capable());
    append(out, "one\n");
    REQUIRE(out.flush(Flush::whole_blocks));
    char buf[16] = {};
    REQUIRE(::read(r.get(), buf, sizeof buf) == 4);
    CHECK(std::string(buf, 4) == "one\n");
    CHECK(out.direct_bytes() == 0);
}

TEST_CASE("a failed write is reported with errno, and what was pending is dropped") {
    UniqueFd fd(::open("/dev/full", O_WRONLY | O_CLOEXEC));
    REQUIRE(fd.valid());
    BlockAppender out(fd.get(), 4096, false);
    append(out, "lost\n");
    errno = 0;
    const bool ok = out.flush(Flush::all);
    const int err = errno;
    CHECK_FALSE(ok);
    CHECK(err == ENOSPC);
    CHECK(out.pending().empty());
}

// A full file system takes part of a write: what reached the file is
// counted, bytes, lines and where the last whole line ends.
TEST_CASE("a write cut short: file_end, newlines and lines_end say what reached the file") {
    TempDir dir{"block_appender_test"};
    const fs::path path = dir.path / "log";
    UniqueFd fd = create(path);
    BlockAppender out(fd.get(), 64 * 1024, false);
    std::string text;
    for (int i = 0; text.size() < 30000; ++i)
        text +=
            "line " + std::to_string(i) + std::string(static_cast<std::size_t>(i % 90), 'x') + "\n";
    append(out, text);
    bool ok = true;
    {
        ds::test::FileSizeLimit limit(10000);  // not a block boundary, nor a line's end
        ok = out.flush(Flush::all);
    }
    CHECK_FALSE(ok);
    CHECK(out.pending().empty());
    const std::string in_file = read_file(path);
    REQUIRE(in_file.size() == 10000);
    CHECK(in_file == text.substr(0, 10000));
    CHECK(out.file_end() == 10000);
    CHECK(out.newlines() ==
          static_cast<std::uint64_t>(std::count(in_file.begin(), in_file.end(), '\n')));
    CHECK(out.lines_end() == in_file.rfind('\n') + 1);
    CHECK(out.lines_end() < 10000);
}
