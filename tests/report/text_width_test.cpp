// Lines of the text report folded at 100 columns (report/text_width.h).
#include "report/text_width.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

using namespace ds;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

// Sets the width for one test case and puts the default back.
struct Width {
    explicit Width(std::size_t w) { report::set_text_width(w); }
    ~Width() { report::set_text_width(report::kTextWidth); }
};

const std::string kPhase =
    "  random         986.5 MiB/s    10.00 s  252.6k IOPS (r 176.8k / w 75.8k)  lat ms p50 0.441 "
    "p95 0.903 p99 1.536 p99.9 3.744 max 11.131  verified 6.7 GiB  cpu usr 13% sys 63%  "
    "334.1k IOPS/cpu-s  kernel I/O threads 80 % of a core  >1ms 3.3997% >10ms 0.0051% >100ms "
    "0.0000%";

}  // namespace

TEST_CASE("a line within the width is left as it is, a longer one folds between fields") {
    Width w(100);
    CHECK(report::fit("  seq-write  1.0 MiB/s  0.93 s") == "  seq-write  1.0 MiB/s  0.93 s");
    const auto lines = lines_of(report::fit(kPhase));
    REQUIRE(lines.size() > 1);
    for (const auto& l : lines)
        CHECK(report::columns_of(l) <= 100);
    CHECK(lines[0].rfind("  random         986.5 MiB/s    10.00 s", 0) == 0);
    for (std::size_t i = 1; i < lines.size(); ++i)
        CHECK(lines[i].rfind("             ", 0) == 0);  // indented 13
    // No field is cut: each one is whole on some line.
    for (const char* field :
         {"lat ms p50 0.441 p95 0.903 p99 1.536 p99.9 3.744 max 11.131",
          "kernel I/O threads 80 % of a core", ">1ms 3.3997% >10ms 0.0051% >100ms 0.0000%"}) {
        bool whole = false;
        for (const auto& l : lines)
            whole = whole || l.find(field) != std::string::npos;
        CHECK_MESSAGE(whole, field);
    }
}

TEST_CASE("folding drops only the breaks: the words are the same, in order") {
    Width w(100);
    auto words = [](const std::string& t) {
        std::vector<std::string> out;
        std::istringstream in(t);
        for (std::string x; in >> x;)
            if (x != "|") out.push_back(x);
        return out;
    };
    const std::string figures =
        "figures  seq 1M: write 4185.1 MiB/s, read 5302.9 MiB/s | random 4K, 70% reads, qd 32 x 4 "
        "workers: 252.6k IOPS, p99 1.536 ms | io_uring, O_DIRECT, 4 x 128 MiB on ext4, verified";
    const std::string folded = report::fit(figures, 9);
    CHECK(words(folded) == words(figures));
    const auto lines = lines_of(folded);
    REQUIRE(lines.size() == 3);  // one clause a line, without the bars
    CHECK(lines[1] ==
          "         random 4K, 70% reads, qd 32 x 4 workers: 252.6k IOPS, p99 1.536 ms");
    CHECK(words(report::fit(kPhase)) == words(kPhase));
}

TEST_CASE("a field longer than a line folds at its spaces, after a short key") {
    Width w(40);
    const std::string note =
        "note     --backend nop: every operation is an io_uring NOP; nothing reaches the device";
    const auto lines = lines_of(report::fit(note, 9));
    REQUIRE(lines.size() >= 2);
    CHECK(lines[0].rfind("note     --backend nop:", 0) == 0);  // the key keeps its text
    for (const auto& l : lines)
        CHECK(report::columns_of(l) <= 40);
    for (std::size_t i = 1; i < lines.size(); ++i)
        CHECK(lines[i].rfind("         ", 0) == 0);
}

TEST_CASE("--wide (width 0) never folds; several lines are fitted one by one") {
    {
        Width w(0);
        CHECK(report::fit(kPhase) == kPhase);
    }
    Width w(100);
    const std::string two = "short line\n" + kPhase + "\n";
    const std::string folded = report::fit(two);
    CHECK(folded.rfind("short line\n  random ", 0) == 0);
    CHECK(folded.back() == '\n');
    CHECK(report::columns_of("µs ±4 %") == 7);  // characters, not bytes
}

TEST_CASE("a number and its unit are never folded apart, whatever the width") {
    const std::string line =
        "replay   /tmp/trace.txt: 1333 reads (5.2 MiB), 667 writes (2.6 MiB), 12 trims (48 KiB); "
        "sizes 4 KiB to 1 MiB; extent 64.0 MiB; 2.5 s at 1.5k IOPS, 97.3 % verified";
    for (std::size_t width = 24; width <= 100; ++width) {
        CAPTURE(width);
        Width w(width);
        const auto lines = lines_of(report::fit(line, 9));
        REQUIRE(lines.size() >= 2);
        for (std::size_t i = 1; i < lines.size(); ++i) {
            const std::string first = lines[i].substr(9, lines[i].find(' ', 9) - 9);
            CAPTURE(lines[i - 1]);
            CAPTURE(lines[i]);
            for (const char* unit : {"MiB", "MiB),", "MiB);", "KiB);", "KiB", "s", "IOPS,", "%"})
                CHECK(first != unit);
        }
    }
    // Anything else still folds at its spaces.
    Width w(30);
    const auto lines = lines_of(report::fit("note     a b c d e f g h i j k l m n o p q r s", 9));
    CHECK(lines.size() == 2);
}
