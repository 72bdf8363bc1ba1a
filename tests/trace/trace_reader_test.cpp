// trace::Reader on each format: the recorded samples in tests/trace/samples/
// (tracefs captured on kernel 6.18 from a loop device under ext4, cp, sync
// and fstrim; the fio v3 iolog written by fio 3.33; blkparse written from
// blkparse_fmt.c because this kernel refuses blktrace's relay files (EPERM),
// fio v2 from fio's HOWTO and iolog.c, the io-log from trace_reader.h).
#include "trace/trace_reader.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/trace/samples_path.h"  // DS_TRACE_SAMPLES, written by tests/trace/meson.build

using ds::trace::Event;
using ds::trace::Format;
using ds::trace::Op;
using ds::trace::Reader;

namespace {

std::vector<Event> read_all(Reader& reader) {
    std::vector<Event> events;
    while (auto e = reader.next())
        events.push_back(*e);
    return events;
}

std::ifstream sample(const char* file) {
    std::ifstream in(std::string(DS_TRACE_SAMPLES) + "/" + file);
    REQUIRE(in.good());
    return in;
}

void check_event(const Event& e, std::uint64_t due_ns, Op op, std::uint64_t offset,
                 std::uint64_t length, std::uint32_t device, bool fua, std::uint64_t line) {
    INFO("the event expected from line ", line);
    CHECK(e.due_ns == due_ns);
    CHECK(e.op == op);
    CHECK(e.offset == offset);
    CHECK(e.length == length);
    CHECK(e.device == device);
    CHECK(e.fua == fua);
    CHECK(e.line == line);
}

}  // namespace

TEST_CASE("the formats and operations are named as the replay reports them") {
    CHECK(to_string(Format::fio_v2) == "fio iolog v2");
    CHECK(to_string(Format::fio_v3) == "fio iolog v3");
    CHECK(to_string(Format::blkparse) == "blkparse text");
    CHECK(to_string(Format::tracefs) == "tracefs block events");
    CHECK(to_string(Format::io_log) == "drivestress io-log");
    CHECK(to_string(Op::flush) == "flush");
    CHECK(to_string(Op::sync) == "sync");
}

TEST_CASE("tracefs on 6.18: block_bio_queue is used, block_rq_issue and the header skipped") {
    auto in = sample("tracefs_6.18.txt");
    Reader reader(in, "tracefs_6.18.txt");
    CHECK(reader.format() == Format::tracefs);
    auto events = read_all(reader);
    REQUIRE(events.size() == 19);  // 18 bio_queue lines, FWFSM gives a flush and a write
    check_event(events[0], 0, Op::read, 130944ull * 512, 4096, 0, false, 13);
    check_event(events[1], 129'000, Op::read, 131056ull * 512, 4096, 0, false, 15);
    check_event(events[4], 6'174'000, Op::read, 32770ull * 512, 1024, 0, false, 21);
    // WFS: a write with FUA, no preflush
    check_event(events[5], 9'797'000, Op::write, 1024, 1024, 0, true, 23);
    // FWFSM 32958 + 2: the preflush, then the FUA write, both from line 29
    check_event(events[8], 96'882'000, Op::flush, 0, 0, 0, false, 29);
    check_event(events[9], 96'882'000, Op::write, 32958ull * 512, 1024, 0, true, 29);
    // FWS 0 + 0: sync(2)'s flush carries no data
    check_event(events[10], 106'583'000, Op::flush, 0, 0, 0, false, 33);
    check_event(events[12], 159'037'000, Op::trim, 8800ull * 512, 7586ull * 512, 0, false, 36);
    check_event(events[18], 160'590'000, Op::trim, 19464ull * 512, 36ull * 512, 0, false, 45);
    CHECK(reader.devices() == std::vector<std::string>{"7,0"});
    CHECK(reader.skipped() == 12 + 16);  // the header, the block_rq_issue lines
    CHECK(reader.reordered() == 0);
}

TEST_CASE("tracefs with block_rq_issue alone: requests, flush requests as flushes") {
    std::istringstream in(
        "  mount-19785   [001] ..... 18988.727761: block_rq_issue: 7,0 RA 4096 () 130944 + 8 "
        "be,0,4 [mount]\n"
        "  kworker/1:2H-27062   [001] ..... 18988.737578: block_rq_issue: 7,0 FF 0 () 0 + 0 "
        "none,0,0 [kworker/1:2H]\n"
        "  kworker/0:2H-25122   [000] ..... 18988.888284: block_rq_issue: 7,0 D 43008 () 17326 "
        "+ 84 be,0,4 [kworker/0:2H]\n"
        "  sg-1 [000] ..... 18988.888300: block_rq_issue: 8,16 R 512 (12 00 00 00 24 00) 0 + 1 "
        "[sg]\n");
    Reader reader(in, "rq.txt");
    CHECK(reader.format() == Format::tracefs);
    auto events = read_all(reader);
    REQUIRE(events.size() == 4);
    check_event(events[0], 0, Op::read, 130944ull * 512, 4096, 0, false, 1);
    check_event(events[1], 9'817'000, Op::flush, 0, 0, 0, false, 2);
    check_event(events[2], 160'523'000, Op::trim, 17326ull * 512, 84 * 512, 0, false, 3);
    check_event(events[3], 160'539'000, Op::read, 0, 512, 1, false, 4);
    CHECK(reader.devices() == std::vector<std::string>{"7,0", "8,16"});
    CHECK(reader.skipped() == 0);
}

TEST_CASE("tracefs from two CPUs slightly out of order comes out sorted") {
    std::istringstream in(
        "# tracer: nop\n"
        "  a-1 [000] ..... 100.000100: block_bio_queue: 7,0 W 8 + 8 [a]\n"
        "  b-2 [001] ..... 100.000300: block_bio_queue: 7,0 W 16 + 8 [b]\n"
        "  a-1 [000] ..... 100.000200: block_bio_queue: 7,0 R 24 + 8 [a]\n"
        "  a-1 [000] d..1. 100.000250: sched_switch: prev_comm=a\n"
        "CPU:1 [LOST 3 EVENTS]\n"
        "  c-3 [001] 100.000400: block_bio_queue: 7,0 WS 32 + 8 [c]\n");
    Reader reader(in, "cpus.txt");
    auto events = read_all(reader);
    REQUIRE(events.size() == 4);
    check_event(events[0], 0, Op::write, 4096, 4096, 0, false, 2);
    check_event(events[1], 100'000, Op::read, 12288, 4096, 0, false, 4);
    check_event(events[2], 200'000, Op::write, 8192, 4096, 0, false, 3);
    check_event(events[3], 300'000, Op::write, 16384, 4096, 0, false, 7);  // no flags column
    CHECK(reader.reordered() == 1);
    CHECK(reader.skipped() == 3);  // the comment, sched_switch, the lost events
    CHECK(reader.lost_events() == 3);
}

TEST_CASE("tracefs: every [LOST N EVENTS] line's N is summed, whatever CPU lost them") {
    std::istringstream in(
        "  a-1 [000] ..... 100.000100: block_bio_queue: 7,0 W 8 + 8 [a]\n"
        "CPU:1 [LOST 184 EVENTS]\n"
        "  b-2 [001] ..... 100.000300: block_bio_queue: 7,0 W 16 + 8 [b]\n"
        "CPU:0 [LOST 4294967296 EVENTS]\n"
        "  a-1 [000] ..... 100.000400: block_bio_queue: 7,0 R 24 + 8 [a]\n");
    Reader reader(in, "lossy.txt");
    CHECK(read_all(reader).size() == 3);
    CHECK(reader.lost_events() == 184 + 4294967296ULL);
    CHECK(reader.skipped() == 2);
}

TEST_CASE("drivestress io-log: the random phase's records only, the others counted") {
    std::istringstream in(
        "{\"target\":0,\"phase\":\"seq-write\",\"op\":\"write\",\"offset\":0,"
        "\"length\":1048576,\"due_ns\":null,\"submit_ns\":10}\n"
        "{\"target\":0,\"phase\":\"random\",\"op\":\"read\",\"offset\":4096,"
        "\"length\":4096,\"due_ns\":null,\"submit_ns\":20}\n"
        "{\"target\":1,\"phase\":\"seq-read\",\"op\":\"read\",\"offset\":0,"
        "\"length\":1048576,\"due_ns\":null,\"submit_ns\":30}\n"
        "{\"target\":0,\"op\":\"write\",\"offset\":8192,\"length\":4096,\"submit_ns\":40}\n"
        "{\"target\":0,\"phase\":\"reverify\",\"op\":\"read\",\"offset\":0,"
        "\"length\":1048576,\"due_ns\":null,\"submit_ns\":50}\n");
    Reader reader(in, "run.ndjson");
    auto events = read_all(reader);
    REQUIRE(events.size() == 2);  // the random read and the record without a phase
    check_event(events[0], 0, Op::read, 4096, 4096, 0, false, 2);
    check_event(events[1], 20, Op::write, 8192, 4096, 0, false, 4);
    CHECK(reader.other_phase_records() == 3);
    CHECK(reader.skipped() == 0);
    CHECK(reader.devices() == std::vector<std::string>{"0"});  // target 1 only in seq-read
}

TEST_CASE("fio iolog v3 from fio 3.33: microseconds since the log started") {
    auto in = sample("fio_v3_3.33.txt");
    Reader reader(in, "fio_v3_3.33.txt");
    CHECK(reader.format() == Format::fio_v3);
    auto events = read_all(reader);
    REQUIRE(events.size() == 18);
    check_event(events[0], 0, Op::read, 61440, 4096, 0, false, 4);  // 619 us
    check_event(events[3], 72'000, Op::write, 491520, 4096, 0, false, 7);
    check_event(events[9], 109'000, Op::sync, 0, 0, 0, false, 13);  // "728 ... sync 954368 0"
    check_event(events[17], 158'000, Op::read, 585728, 4096, 0, false, 21);
    CHECK(reader.devices() == std::vector<std::string>{"/dev/shm/h36fio.dat"});
    CHECK(reader.skipped() == 3);  // add, open, close
}

TEST_CASE("fio iolog v2: no clock but wait, milliseconds since fio started") {
    auto in = sample("fio_v2.txt");
    Reader reader(in, "fio_v2.txt");
    CHECK(reader.format() == Format::fio_v2);
    auto events = read_all(reader);
    REQUIRE(events.size() == 7);
    check_event(events[0], 0, Op::write, 0, 4096, 0, false, 6);
    check_event(events[1], 0, Op::read, 4096, 8192, 0, false, 7);
    check_event(events[2], 10'000'000, Op::write, 1048576, 65536, 1, false, 9);
    check_event(events[3], 10'000'000, Op::sync, 0, 0, 1, false, 10);
    check_event(events[4], 10'000'000, Op::trim, 1ull << 30, 1048576, 0, false, 11);
    // "wait 5" after "wait 10": fio's mark is already past, no delay
    check_event(events[5], 10'000'000, Op::sync, 0, 0, 0, false, 13);
    check_event(events[6], 25'000'000, Op::read, 0, 512, 0, false, 15);
    CHECK(reader.devices() == std::vector<std::string>{"/dev/sdb", "/tmp/data.bin"});
    CHECK(reader.skipped() == 6);  // two add, two open, two close
}

TEST_CASE("fio iolog v2 without waits: every event due at 0") {
    std::istringstream in("fio version 2 iolog\nf add\nf write 0 512\nf read 512 512\n");
    Reader reader(in, "v2.txt");
    auto events = read_all(reader);
    REQUIRE(events.size() == 2);
    CHECK(events[0].due_ns == 0);
    CHECK(events[1].due_ns == 0);
    CHECK(events[1].offset == 512);
}

TEST_CASE("blkparse text: Q events only, the summary skipped") {
    auto in = sample("blkparse.txt");
    Reader reader(in, "blkparse.txt");
    CHECK(reader.format() == Format::blkparse);
    auto events = read_all(reader);
    REQUIRE(events.size() == 9);
    check_event(events[0], 0, Op::write, 3417048ull * 512, 4096, 0, false, 1);
    check_event(events[1], 1'000'000, Op::read, 2048 * 512, 131072, 0, false, 8);
    check_event(events[2], 1'000'500, Op::read, 2304 * 512, 131072, 0, false, 9);
    check_event(events[3], 2'500'000, Op::flush, 0, 0, 0, false, 11);  // "Q FWS [sync]"
    check_event(events[4], 2'600'000, Op::write, 1024 * 512, 4096, 0, true, 12);
    check_event(events[5], 2'700'000, Op::flush, 0, 0, 0, false, 13);
    check_event(events[6], 2'700'000, Op::write, 1032 * 512, 4096, 0, true, 13);
    check_event(events[7], 3'000'000, Op::trim, 4096 * 512, 2048 * 512, 0, false, 14);
    check_event(events[8], 3'500'000, Op::write, 0, 4096, 1, false, 15);
    CHECK(reader.devices() == std::vector<std::string>{"8,0", "8,16"});
    CHECK(reader.skipped() == 8 + 9);  // G P I U D C M m, the summary's lines
}

TEST_CASE(
    "drivestress io-log: due_ns, or submit_ns in a closed loop; written in completion order") {
    auto in = sample("io_log.ndjson");
    Reader reader(in, "io_log.ndjson");
    CHECK(reader.format() == Format::io_log);
    auto events = read_all(reader);
    REQUIRE(events.size() == 5);
    check_event(events[0], 0, Op::write, 0, 4096, 0, false, 1);
    check_event(events[1], 1000, Op::write, 4096, 512, 1, true, 3);
    check_event(events[2], 2000, Op::read, 8192, 4096, 0, false, 2);
    check_event(events[3], 8600, Op::flush, 0, 0, 1, false, 4);
    check_event(events[4], 8700, Op::trim, 1048576, 1048576, 0, false, 5);
    CHECK(reader.devices() == std::vector<std::string>{"3", "0"});
    CHECK(reader.reordered() == 1);
    CHECK(reader.skipped() == 0);
}

TEST_CASE("blank lines and CRLF line ends are taken") {
    std::istringstream in(
        "\n  \r\nfio version 3 iolog\r\n10 f read 0 4096\r\n\r\n30 f write 8 8\r\n");
    Reader reader(in, "crlf.txt");
    CHECK(reader.format() == Format::fio_v3);
    auto events = read_all(reader);
    REQUIRE(events.size() == 2);
    check_event(events[1], 20'000, Op::write, 8, 8, 0, false, 6);
    CHECK(reader.skipped() == 0);
}

TEST_CASE("tracefs: block_bio_queue seen after block_rq_issue still wins within the window") {
    std::istringstream in(
        "  k-9 [000] ..... 5.000010: block_rq_issue: 7,0 W 4096 () 0 + 8 none,0,0 [k]\n"
        "  k-9 [000] ..... 5.000020: block_rq_issue: 7,0 FF 0 () 0 + 0 none,0,0 [k]\n"
        "  a-1 [001] ..... 5.000005: block_bio_queue: 7,0 W 0 + 8 [a]\n"
        "  k-9 [000] ..... 5.000030: block_rq_issue: 7,0 R 512 () 8 + 1 none,0,0 [k]\n"
        "  a-1 [001] ..... 5.000040: block_bio_queue: 7,0 R 8 + 1 [a]\n");
    Reader reader(in, "late_bio.txt");
    auto events = read_all(reader);
    REQUIRE(events.size() == 2);
    check_event(events[0], 0, Op::write, 0, 4096, 0, false, 3);
    check_event(events[1], 35'000, Op::read, 4096, 512, 0, false, 5);
    CHECK(reader.skipped() == 3);    // the three rq_issue lines
    CHECK(reader.reordered() == 0);  // line 3 was late only against rq_issue events dropped
}

TEST_CASE("fio iolog v2 starting with a wait: the first event is still due at 0") {
    std::istringstream in(
        "fio version 2 iolog\nf add\nf wait 100 0\nf read 0 512\nf wait 150 0\n"
        "f write 512 512\n");
    Reader reader(in, "wait_first.txt");
    auto events = read_all(reader);
    REQUIRE(events.size() == 2);
    check_event(events[0], 0, Op::read, 0, 512, 0, false, 4);
    check_event(events[1], 50'000'000, Op::write, 512, 512, 0, false, 6);
}
