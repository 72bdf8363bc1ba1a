// trace::Reader's refusals: each message names the input, the line, the
// line's text and what was expected; and random garbage never gets past it
// as anything but an event or std::invalid_argument.
#include <doctest/doctest.h>

#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "trace/trace_reader.h"

using ds::trace::Reader;

namespace {

// The message the whole trace ends in, "" when it reads to the end.
std::string failure(const std::string& text, const std::string& name = "trace.txt") {
    std::istringstream in(text);
    try {
        Reader reader(in, name);
        while (reader.next()) {
        }
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("an empty trace, and one with nothing but its header, have no I/O events") {
    CHECK(failure("") == "trace.txt: an empty trace: no I/O events");
    CHECK(failure("\n  \n\n", "standard input") == "standard input: an empty trace: no I/O events");
    CHECK(failure("fio version 3 iolog\n5 f add\n") == "trace.txt: an empty trace: no I/O events");
    CHECK(failure("# tracer: nop\n#\n") == "trace.txt: an empty trace: no I/O events");
}

TEST_CASE("an unknown format names its first line") {
    CHECK(failure("\nhello world\n") ==
          "trace.txt line 2: \"hello world\" is not a known trace format (expected \"fio version "
          "2 iolog\", \"fio version 3 iolog\", blkparse text, tracefs block events or a "
          "drivestress io-log)");
    CHECK(failure("fio version 1 iolog\n").find("line 1: \"fio version 1 iolog\" is not a known") !=
          std::string::npos);
}

TEST_CASE("blkparse: an unknown RWBS or action, as the brief words it") {
    std::string head;
    for (int i = 1; i <= 11; ++i)
        head += "7,0 0 " + std::to_string(i) + " 0.0" + std::to_string(i) + " 55 G W 8 + 8 [x]\n";
    CHECK(failure(head + "7,0 0 3 0.1 55 Q XW 8 + 8\n") ==
          "trace.txt line 12: \"7,0 0 3 0.1 55 Q XW 8 + 8\" is not a blkparse event (expected "
          "\"MAJ,MIN CPU SEQ SECONDS PID ACTION RWBS SECTOR + COUNT [PROCESS]\": unknown RWBS "
          "\"XW\")");
    CHECK(failure("8,0 0 1 0.1 55 K W 8 + 8 [x]\n").ends_with(": unknown action \"K\")"));
    CHECK(failure("8,0 0 1 -0.1 55 Q W 8 + 8 [x]\n").ends_with(": negative timestamp \"-0.1\")"));
    CHECK(
        failure("8,0 0 1 0.1 55 Q W 8 [x]\n").ends_with(": no \"SECTOR + COUNT\" after the RWBS)"));
    CHECK(failure("8,0 0 1 0.1 55 Q W 8 + 0 [x]\n").ends_with(": a write of 0 bytes)"));
    CHECK(failure("8,0 0 1 0.1 55 Q R 36028797018963968 + 8 [x]\n")
              .ends_with(": sector 36028797018963968 overflows 64 bits)"));
    CHECK(failure("8,0 0 1 0.1 55 Q R 36028797018963967 + 8 [x]\n")
              .ends_with(": offset 18446744073709551104 + length 4096 overflows 64 bits)"));
    CHECK(failure("8,0 0 1 0.1 55 Q W 8 + 8 [x]\nTotal (8,0):\n Reads Queued: 0\n") == "");
    CHECK(failure("8,0 0 1 0.1 55 Q W 8 + 8 [x]\nReads Queued: 0\n")
              .ends_with(": no MAJ,MIN device first)"));
}

TEST_CASE("fio: unknown actions, missing fields, zero lengths, negative numbers") {
    CHECK(failure("fio version 2 iolog\nf add\nf copy 0 4096\n") ==
          "trace.txt line 3: \"f copy 0 4096\" is not a fio iolog v2 line (expected \"FILE "
          "add|open|close\", \"FILE read|write|trim OFFSET LENGTH\", \"FILE sync|datasync\" or "
          "\"FILE wait MILLISECONDS\": unknown action \"copy\")");
    CHECK(failure("fio version 2 iolog\nf read 0\n").ends_with(": \"read\" needs OFFSET LENGTH)"));
    CHECK(failure("fio version 2 iolog\nf read 0 0\n").ends_with(": a read of 0 bytes)"));
    CHECK(failure("fio version 2 iolog\nf write -4096 512\n")
              .ends_with(": negative offset \"-4096\")"));
    CHECK(failure("fio version 3 iolog\n-5 f read 0 512\n")
              .ends_with(": negative timestamp \"-5\")"));
    CHECK(failure("fio version 3 iolog\n18446744073709552 f read 0 512\n")
              .ends_with(": timestamp 18446744073709552 overflows 64 bits)"));
    CHECK(failure("fio version 2 iolog\nf read 99999999999999999999 512\n")
              .ends_with(": offset \"99999999999999999999\" overflows 64 bits)"));
    CHECK(failure("fio version 3 iolog\n5 f wait 10 0\n7 f read 0 512\n") == "");  // ignored
}

TEST_CASE("tracefs: a broken event line") {
    CHECK(failure("# tracer: nop\n  a-1 [000] ..... 1.5: block_bio_queue: 7,0 W 8 + x [a]\n") ==
          "trace.txt line 2: \"  a-1 [000] ..... 1.5: block_bio_queue: 7,0 W 8 + x [a]\" is not "
          "a tracefs block event (expected \"TASK-PID [CPU] FLAGS SECONDS: block_bio_queue: "
          "MAJ,MIN RWBS SECTOR + COUNT [COMM]\": sector count \"x\" is not a number)");
    CHECK(failure("# tracer: nop\nno cpu field here\n").ends_with(": no [CPU] field)"));
    CHECK(failure("# x\n  a-1 [000] ..... 1.5: block_bio_queue: 7,0 QW 8 + 8 [a]\n")
              .ends_with(": unknown RWBS \"QW\")"));
}

TEST_CASE("io-log: what a record must hold") {
    CHECK(failure("{\"target\":0,\"op\":\"read\",\"offset\":0,\"length\":0,\"due_ns\":1}\n")
              .ends_with(": a read of 0 bytes)"));
    CHECK(failure("{\"target\":0,\"op\":\"erase\",\"offset\":0,\"length\":8,\"due_ns\":1}\n")
              .ends_with(": unknown op \"erase\")"));
    CHECK(failure("{\"target\":0,\"op\":\"read\",\"offset\":-8,\"length\":8,\"due_ns\":1}\n")
              .ends_with(": negative \"offset\")"));
    CHECK(failure("{\"target\":0,\"op\":\"read\",\"offset\":0,\"length\":8,\"due_ns\":null}\n")
              .ends_with(": neither \"due_ns\" nor \"submit_ns\")"));
    CHECK(failure("{\"target\":0,\"op\":\"read\",\"offset\":0,\"length\":8,\"due_ns\":1}\n{\"t\n")
              .ends_with(": not JSON)"));
    CHECK(failure("{\"target\":0,\"phase\":2,\"op\":\"read\",\"offset\":0,\"length\":8,"
                  "\"due_ns\":1}\n")
              .ends_with(": \"phase\" is not a string)"));
    CHECK(failure("{\"target\":0,\"phase\":\"seq-write\",\"op\":\"write\",\"offset\":0,"
                  "\"length\":8,\"due_ns\":1}\n") ==
          "trace.txt: no I/O events of the random phase (1 record of other phases left out)");
    std::string long_line =
        "{\"target\":0,\"op\":\"read\",\"offset\":0,\"length\":8,\"due_ns\":1,"
        "\"verify\":\"" +
        std::string(200, 'x') + "\"}";
    CHECK(failure(long_line + "\n[1]\n")
              .find("line 2: \"[1]\" is not a drivestress io-log record "
                    "(expected one JSON object: ") != std::string::npos);
    // a line is shown cut at 80 characters
    auto message = failure("{\"target\":0,\"op\":\"nope\"," + std::string(200, ' ') + "}\n");
    CHECK(message.find(std::string(56, ' ') + "...\" is not") != std::string::npos);
}

TEST_CASE("events out of order within the window are sorted; beyond it, an error naming both") {
    // More than 1 s back from the newest read: refused, naming both lines.
    CHECK(failure("fio version 3 iolog\n300 f read 0 512\n1500300 f read 0 512\n"
                  "200 f read 0 512\n") ==
          "trace.txt line 4: \"200 f read 0 512\" is not a fio iolog v3 line (expected "
          "\"MICROSECONDS FILE add|open|close\" or \"MICROSECONDS FILE "
          "read|write|trim|sync|datasync OFFSET LENGTH\": at 0.000200000 s it comes 1.500100000 "
          "s before the event of line 3 at 1.500300000 s: time steps back by more than "
          "1.000000000 s)");
    // 4096 events: the first leaves when the 4097th is read
    std::string trace = "fio version 3 iolog\n";
    for (int i = 0; i < 4097; ++i)
        trace += std::to_string(1000 + i) + " f write 0 512\n";
    CHECK(failure(trace + "999 f read 0 512\n").starts_with("trace.txt line 4099: "));
    CHECK(failure(trace + "999 f read 0 512\n")
              .ends_with("at 0.000999000 s it comes before the event of line 2 at 0.001000000 s, "
                         "already given out: out of time order by more than 4096 events)"));
    CHECK(failure(trace + "1001 f read 0 512\n") == "");  // still held: put back in order
}

TEST_CASE("blkparse: a step back of more than 1 s is refused however few events it spans") {
    const std::string head = "  8,0    0        1     5.000000000   697  Q   W 0 + 8 [dd]\n";
    // Two events, 4 s back: the window never filled, the time rule refuses it.
    CHECK(failure(head + "  8,0    0        2     1.000000000   697  Q   W 8 + 8 [dd]\n")
              .find("line 2: \"  8,0    0        2     1.000000000   697  Q   W 8 + 8 [dd]\" "
                    "is not a blkparse event") != std::string::npos);
    CHECK(failure(head + "  8,0    0        2     1.000000000   697  Q   W 8 + 8 [dd]\n")
              .ends_with(": at 1.000000000 s it comes 4.000000000 s before the event of line 1 at "
                         "5.000000000 s: time steps back by more than 1.000000000 s)"));
    // Exactly 1 s back is still put back in order.
    std::istringstream in(head + "  8,0    0        2     4.000000000   697  Q   W 8 + 8 [dd]\n");
    Reader reader(in, "trace.txt");
    auto first = reader.next();
    REQUIRE(first.has_value());
    CHECK(first->line == 2);
    CHECK(reader.reordered() == 1);
}

TEST_CASE("a line longer than 64 KiB is refused, not held") {
    std::string trace = "fio version 2 iolog\nf read 0 512\nf " + std::string(70000, 'x') + "\n";
    CHECK(failure(trace) == "trace.txt line 3: longer than 65536 bytes");
}

TEST_CASE("random garbage: an event or std::invalid_argument, nothing else") {
    const char* heads[] = {"",
                           "fio version 2 iolog\n",
                           "fio version 3 iolog\n",
                           "# tracer: nop\n",
                           "8,0 0 1 0.0 1 Q W 0 + 8 [x]\n",
                           "{\"target\":0,\"op\":\"read\","
                           "\"offset\":0,\"length\":8,\"due_ns\":0}\n"};
    const std::string alphabet = "0123456789 ,.+-:[](){}\"FWRDNSAMQZE abcdefxyz\t\x01\xff";
    const char* words[] = {"7,0",  "Q",    "WS", "+", "[001]",   "1.5:", "block_bio_queue:",
                           "read", "wait", "{",  "}", "\"op\":", "null", "99999999999999999999"};
    std::mt19937 random(2024);
    int events = 0;
    int refused = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string line;
        int length = static_cast<int>(random() % 24);
        for (int i = 0; i < length; ++i) {
            if (random() % 3 == 0)
                line += std::string(words[random() % std::size(words)]) + " ";
            else
                line += alphabet[random() % alphabet.size()];
        }
        std::istringstream in(std::string(heads[round % std::size(heads)]) + line + "\n" + line);
        try {
            Reader reader(in, "fuzz");
            while (reader.next())
                ++events;
        } catch (const std::invalid_argument&) {
            ++refused;
        }
    }
    CHECK(refused > 0);
    CHECK(events > 0);
}
