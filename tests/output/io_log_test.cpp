// The --io-log sink: the record, its NDJSON and fio lines, full rings dropping
// and counting, two workers' records each once and in order, write errors.
// suite threads: the workers' pushes against IoLog's writer thread
#include "output/io_log.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "temp_dir.h"

namespace fs = std::filesystem;
using ds::output::IoLog;
using ds::output::IoLogFormat;
using ds::output::IoLogOp;
using ds::output::IoLogPhase;
using ds::output::IoLogVerify;
using ds::output::IoRecord;

namespace {

using ds::test::read_file;
using ds::test::TempDir;

constexpr std::uint64_t kStart = 1'000'000'000;

IoRecord record(IoLogOp op, std::uint64_t offset, std::uint32_t length, std::uint64_t due,
                std::uint64_t submit, std::uint64_t complete, std::int32_t result,
                IoLogVerify verify = IoLogVerify::none, std::uint16_t target = 0,
                IoLogPhase phase = IoLogPhase::random) {
    return IoRecord{due,
                    submit,
                    complete,
                    offset,
                    length,
                    result,
                    target,
                    static_cast<std::uint8_t>(op),
                    static_cast<std::uint8_t>(verify),
                    static_cast<std::uint8_t>(phase)};
}

std::size_t count_lines(const std::string& s) {
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace

TEST_CASE("a record is 48 bytes and trivially copyable") {
    CHECK(sizeof(IoRecord) == 48);
    CHECK(std::is_trivially_copyable_v<IoRecord>);
}

TEST_CASE("ndjson: one exact line per record, times relative to the start") {
    TempDir dir{"io_log_test"};
    const fs::path out = dir.path / "log.ndjson";
    IoLog log(out, IoLogFormat::ndjson, 1, {"a", "b"}, kStart);
    CHECK(log.push(0, record(IoLogOp::write, 8192, 4096, 0, kStart + 130, kStart + 200, 4096,
                             IoLogVerify::none, 0, IoLogPhase::seq_write)));
    CHECK(log.push(0, record(IoLogOp::read, 4096, 4096, kStart + 123, kStart + 130, kStart + 200,
                             4096, IoLogVerify::ok, 1)));
    CHECK(log.push(0, record(IoLogOp::read, 0, 512, 0, kStart + 300, kStart + 400, -5,
                             IoLogVerify::mismatch)));
    CHECK(log.push(0, record(IoLogOp::read, 0, 512, 0, kStart + 400, kStart + 500, 512,
                             IoLogVerify::unverified, 0, IoLogPhase::reverify)));
    // Before the start (a clock mix-up): printed as 0.
    CHECK(log.push(0, record(IoLogOp::flush, 0, 0, 0, kStart - 5, kStart + 600, 0,
                             IoLogVerify::none, 0, IoLogPhase::seq_read)));
    CHECK(log.push(0, record(IoLogOp::trim, 1 << 20, 65536, 0, kStart + 700, kStart + 800, 65536)));
    CHECK(log.finish() == "");
    CHECK(log.written() == 6);
    CHECK(log.dropped() == 0);
    CHECK(log.drop_summary() == "");
    const std::string text = read_file(out);
    CHECK(text ==
          "{\"target\":0,\"phase\":\"seq-write\",\"op\":\"write\",\"offset\":8192,"
          "\"length\":4096,\"due_ns\":null,\"submit_ns\":130,\"complete_ns\":200,"
          "\"result\":4096,\"verify\":null}\n"
          "{\"target\":1,\"phase\":\"random\",\"op\":\"read\",\"offset\":4096,"
          "\"length\":4096,\"due_ns\":123,\"submit_ns\":130,\"complete_ns\":200,"
          "\"result\":4096,\"verify\":\"ok\"}\n"
          "{\"target\":0,\"phase\":\"random\",\"op\":\"read\",\"offset\":0,\"length\":512,"
          "\"due_ns\":null,\"submit_ns\":300,\"complete_ns\":400,\"result\":-5,"
          "\"verify\":\"mismatch\"}\n"
          "{\"target\":0,\"phase\":\"reverify\",\"op\":\"read\",\"offset\":0,\"length\":512,"
          "\"due_ns\":null,\"submit_ns\":400,\"complete_ns\":500,\"result\":512,"
          "\"verify\":\"unverified\"}\n"
          "{\"target\":0,\"phase\":\"seq-read\",\"op\":\"flush\",\"offset\":0,\"length\":0,"
          "\"due_ns\":null,\"submit_ns\":0,\"complete_ns\":600,\"result\":0,\"verify\":null}\n"
          "{\"target\":0,\"phase\":\"random\",\"op\":\"trim\",\"offset\":1048576,"
          "\"length\":65536,\"due_ns\":null,\"submit_ns\":700,\"complete_ns\":800,"
          "\"result\":65536,\"verify\":null}\n");
    // Every line is a JSON document a reader can take field by field.
    std::istringstream lines(text);
    std::string line;
    std::getline(lines, line);
    std::getline(lines, line);
    const auto j = nlohmann::json::parse(line);
    CHECK(j.at("target") == 1);
    CHECK(j.at("phase") == "random");
    CHECK(j.at("op") == "read");
    CHECK(j.at("offset") == 4096);
    CHECK(j.at("length") == 4096);
    CHECK(j.at("due_ns") == 123);
    CHECK(j.at("submit_ns") == 130);
    CHECK(j.at("complete_ns") == 200);
    CHECK(j.at("result") == 4096);
    CHECK(j.at("verify") == "ok");
    std::getline(lines, line);
    const auto k = nlohmann::json::parse(line);
    CHECK(k.at("due_ns").is_null());
    CHECK(k.at("result") == -5);
    while (std::getline(lines, line))
        CHECK(nlohmann::json::accept(line));
}

TEST_CASE("fio: version 3 header, add and open lines, us timestamps, sync, close") {
    TempDir dir{"io_log_test"};
    const fs::path out = dir.path / "log.fio";
    IoLog log(out, IoLogFormat::fio, 1, {"/dev/shm/a", "b"}, kStart);
    // Due time when present, else the submit time; us, rounded down.
    CHECK(log.push(0, record(IoLogOp::write, 0, 4096, 0, kStart + 1'999, kStart + 9'000, 4096)));
    CHECK(log.push(0, record(IoLogOp::read, 4096, 512, kStart + 5'000, kStart + 7'000,
                             kStart + 9'000, 512, IoLogVerify::ok, 1)));
    // Earlier than the line before (pushed late): stamped with that line's time.
    CHECK(log.push(0, record(IoLogOp::trim, 8192, 4096, 0, kStart + 3'000, kStart + 9'000, 0)));
    CHECK(log.push(0, record(IoLogOp::flush, 123, 77, 0, kStart + 12'345'678, kStart + 12'400'000,
                             0, IoLogVerify::none, 1)));
    CHECK(log.finish() == "");
    CHECK(log.written() == 4);
    CHECK(read_file(out) ==
          "fio version 3 iolog\n"
          "0 /dev/shm/a add\n"
          "0 b add\n"
          "0 /dev/shm/a open\n"
          "0 b open\n"
          "1 /dev/shm/a write 0 4096\n"
          "5 b read 4096 512\n"
          "5 /dev/shm/a trim 8192 4096\n"
          "12345 b sync 0 0\n"
          "12345 /dev/shm/a close\n"
          "12345 b close\n");
}

TEST_CASE("fio: a target name fio cannot read back is refused") {
    TempDir dir{"io_log_test"};
    const fs::path out = dir.path / "log.fio";
    for (const std::string& name : {std::string("my disk"), std::string(), std::string(257, 'x')}) {
        try {
            IoLog log(out, IoLogFormat::fio, 1, {"ok", name}, kStart);
            FAIL("accepted '" << name << "'");
        } catch (const std::system_error& e) {
            CHECK(e.code().value() == EINVAL);
            CHECK(std::string(e.what()).find(out.string()) != std::string::npos);
        }
    }
    CHECK(!fs::exists(out));  // refused before anything was created
    IoLog ndjson(out, IoLogFormat::ndjson, 1, {"my disk"}, kStart);  // names unused there
    CHECK(ndjson.finish() == "");
}

TEST_CASE("a ring that is full drops and counts; the writer held back by a full pipe") {
    int p[2];
    REQUIRE(::pipe2(p, O_CLOEXEC | O_NONBLOCK) == 0);
    // Fill the pipe so that the log's first write waits for a reader.
    const std::string junk(4096, 'x');
    while (::write(p[1], junk.data(), junk.size()) > 0) {
    }
    constexpr int kPushed = 1000;
    int refused = 0;
    std::string got;
    {
        IoLog log("/dev/fd/" + std::to_string(p[1]), IoLogFormat::ndjson, 1, {"t"}, kStart, 4);
        ::close(p[1]);  // the log holds its own descriptor of the pipe
        for (int i = 0; i < kPushed; ++i) {
            const auto t = kStart + static_cast<std::uint64_t>(i);
            if (!log.push(0, record(IoLogOp::write, 0, 512, 0, t, t, 512))) ++refused;
        }
        // At most the ring and what the writer took before it blocked.
        CHECK(refused > 0);
        CHECK(log.dropped() == static_cast<std::uint64_t>(refused));
        std::thread reader([&] {
            ::fcntl(p[0], F_SETFL, 0);
            char buf[65536];
            ssize_t n;
            while ((n = ::read(p[0], buf, sizeof buf)) > 0)
                got.append(buf, static_cast<std::size_t>(n));
        });
        CHECK(log.finish() == "");
        reader.join();
        CHECK(log.written() + log.dropped() == kPushed);
        CHECK(log.dropped() == static_cast<std::uint64_t>(refused));
        CHECK(count_lines(got) == log.written());
        CHECK(log.drop_summary() == "io-log: " + std::to_string(refused) + " of 1000 lines " +
                                        "dropped: the log could not keep up");
        // After finish(), a push is refused and counted too.
        CHECK(!log.push(0, record(IoLogOp::read, 0, 512, 0, kStart, kStart, 512)));
        CHECK(log.dropped() == static_cast<std::uint64_t>(refused) + 1);
    }
    ::close(p[0]);
}

// Worker w's records carry its number as the target and a sequence number
// as the offset; the file must hold exactly the accepted ones, in order.
TEST_CASE("two workers pushing 1M records each: every accepted record once, in order") {
    TempDir dir{"io_log_test"};
    const fs::path out = dir.path / "log.ndjson";
    constexpr std::uint64_t kEach = 1'000'000;
    std::vector<std::vector<std::uint64_t>> accepted(2);
    std::uint64_t written = 0, dropped = 0;
    {
        IoLog log(out, IoLogFormat::ndjson, 2, {"a", "b"}, kStart);
        std::vector<std::thread> workers;
        for (std::uint16_t w = 0; w < 2; ++w)
            workers.emplace_back([&, w] {
                for (std::uint64_t i = 0; i < kEach; ++i) {
                    const auto t = kStart + i * 10;
                    if (log.push(w, record(IoLogOp::read, i, 4096, 0, t, t + 5, 4096,
                                           IoLogVerify::ok, w)))
                        accepted[w].push_back(i);
                }
            });
        for (auto& t : workers)
            t.join();
        CHECK(log.finish() == "");
        written = log.written();
        dropped = log.dropped();
    }
    CHECK(written + dropped == 2 * kEach);
    CHECK(written == accepted[0].size() + accepted[1].size());
    MESSAGE("dropped " << dropped << " of " << 2 * kEach << " on this machine");
    const std::string text = read_file(out);
    CHECK(count_lines(text) == written);
    std::vector<std::size_t> next(2, 0);
    bool in_order = true;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = text.find('\n', at);
        const std::string_view line(text.data() + at, end - at);
        at = end + 1;
        const auto target = line[10] - '0';  // {"target":N
        const auto key = line.find("\"offset\":") + 9;
        std::uint64_t offset = 0;
        std::from_chars(line.data() + key, line.data() + line.size(), offset);
        auto& n = next[static_cast<std::size_t>(target)];
        const auto& want = accepted[static_cast<std::size_t>(target)];
        if (n >= want.size() || want[n] != offset) in_order = false;
        ++n;
    }
    CHECK(in_order);
    CHECK(next[0] == accepted[0].size());
    CHECK(next[1] == accepted[1].size());
}

TEST_CASE("a write error is one line from finish(); pushes go on without blocking") {
    IoLog log("/dev/full", IoLogFormat::ndjson, 1, {"t"}, kStart, 16);
    std::uint64_t pushed = 0;
    for (int i = 0; i < 10; ++i, ++pushed)
        (void)log.push(0, record(IoLogOp::write, 0, 512, 0, kStart, kStart, 512));
    // Let the writer meet the error, then push far more than the ring holds.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (int i = 0; i < 100'000; ++i, ++pushed)
        (void)log.push(0, record(IoLogOp::write, 0, 512, 0, kStart, kStart, 512));
    const std::string error = log.finish();
    CHECK(error == "io-log /dev/full: write: No space left on device");
    CHECK(log.written() == 0);
    CHECK(log.dropped() == pushed);
    CHECK(log.finish() == error);  // idempotent
}

// A file system that fills (here a file size limit): the log keeps its
// whole lines, each one counted as written, and no cut last line, so it
// still replays; every record pushed is written or dropped.
TEST_CASE("a log that fills its file system: whole lines counted, the cut last line removed") {
    for (const IoLogFormat format : {IoLogFormat::ndjson, IoLogFormat::fio}) {
        CAPTURE(static_cast<int>(format));
        TempDir dir{"io_log_test"};
        const fs::path out = dir.path / "log";
        std::uint64_t pushed = 0;
        std::string error;
        std::uint64_t written = 0, dropped = 0;
        {
            ds::test::FileSizeLimit limit(50'000);  // not a block boundary, nor a line's end
            IoLog log(out, format, 1, {"/dev/shm/a"}, kStart, 4096);
            for (std::uint64_t i = 0; i < 4000; ++i, ++pushed)
                (void)log.push(
                    0, record(IoLogOp::write, i * 4096, 4096, 0, kStart + i, kStart + i + 5, 4096));
            error = log.finish();
            written = log.written();
            dropped = log.dropped();
        }
        CHECK(error == "io-log " + out.string() + ": write: File too large");
        const std::string text = read_file(out);
        REQUIRE(!text.empty());
        CHECK(text.size() <= 50'000);
        CHECK(text.back() == '\n');  // no partial last line
        const std::uint64_t header = format == IoLogFormat::fio ? 3 : 0;
        CHECK(count_lines(text) == header + written);
        CHECK(written > 100);
        CHECK(written + dropped == pushed);
        // Each line whole: the last one is the record pushed as number written - 1.
        const std::string last = text.substr(text.rfind('\n', text.size() - 2) + 1);
        const std::string offset = std::to_string((written - 1) * 4096);
        if (format == IoLogFormat::ndjson)
            CHECK(nlohmann::json::parse(last)["offset"] == (written - 1) * 4096);
        else
            CHECK(last.find(" /dev/shm/a write " + offset + " 4096\n") != std::string::npos);
    }
}

TEST_CASE("finish() twice, and a log without records") {
    TempDir dir{"io_log_test"};
    const fs::path ndjson = dir.path / "log.ndjson", fio = dir.path / "log.fio";
    IoLog a(ndjson, IoLogFormat::ndjson, 3, {"x"}, kStart);
    CHECK(a.finish() == "");
    CHECK(a.finish() == "");
    CHECK(read_file(ndjson) == "");
    { IoLog b(fio, IoLogFormat::fio, 0, {"x"}, kStart); }  // the destructor finishes
    CHECK(read_file(fio) == "fio version 3 iolog\n0 x add\n0 x open\n0 x close\n");
}

TEST_CASE("a ring capacity that is not a power of two is refused") {
    TempDir dir{"io_log_test"};
    CHECK_THROWS_AS(IoLog(dir.path / "l", IoLogFormat::ndjson, 1, {"x"}, kStart, 1000),
                    std::system_error);
}
