// The option table and --help made from it: 80 columns, every option with its
// metavariable and default, each parsed once, and the word wrapping.
#include "cli/option_table.h"

#include <doctest/doctest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.h"

using ds::cli::kHelpColumn;
using ds::cli::kHelpWidth;
using ds::cli::option_specs;
using ds::cli::OptionSpec;
using ds::cli::wrap;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    return lines;
}

// The --help line that starts the entry of option `o` ("  -s, --size SIZE ...").
std::string entry_of(const std::vector<std::string>& lines, const OptionSpec& o) {
    const std::string name = std::string("--") + o.name;
    for (const auto& l : lines) {
        // "  -s, --size SIZE" or "      --backend ...": the name at column 6.
        if (l.size() >= 6 + name.size() && l.compare(6, name.size(), name) == 0 &&
            (l.size() == 6 + name.size() || l[6 + name.size()] == ' '))
            return l;
    }
    return "";
}

}  // namespace

TEST_CASE("--help fits 80 columns") {
    const std::string help = ds::cli::help_text();
    for (const auto& l : lines_of(help)) {
        CAPTURE(l);
        CHECK(l.size() <= kHelpWidth);
    }
    CHECK(help == ds::cli::parse_command_line({"--help"}).help_text);
}

TEST_CASE("--help names every option with its metavariable and default, never Boost's arg") {
    const std::string help = ds::cli::help_text();
    const auto lines = lines_of(help);
    CHECK(help.find(" arg") == std::string::npos);
    CHECK(help.find("(=") == std::string::npos);
    for (const auto& o : option_specs()) {
        CAPTURE(std::string(o.name));
        std::string expect = o.short_name ? std::string("  -") + o.short_name + ", --" + o.name
                                          : std::string("      --") + o.name;
        if (o.metavar) expect += std::string(" ") + o.metavar;
        const std::string line = entry_of(lines, o);
        CHECK(line.substr(0, expect.size()) == expect);
        const bool takes_value =
            o.kind == OptionSpec::Kind::value || o.kind == OptionSpec::Kind::repeated;
        CHECK(takes_value == (o.metavar != nullptr));
        if (o.default_value) {
            // The default may wrap onto the entry's next line: look in the help.
            CHECK(help.find(std::string("(default: ") + o.default_value + ")") !=
                  std::string::npos);
        }
    }
}

TEST_CASE("the usage line says a run takes several targets, as it does") {
    const std::string help = ds::cli::help_text();
    CHECK(help.rfind("Usage: drivestress [OPTIONS] [TARGET...]\n", 0) == 0);
    const auto cmd = ds::cli::parse_command_line({"/a", "/b", "/c"});
    CHECK(cmd.config.target == "/a");
    CHECK(cmd.config.more_targets.size() == 2);
}

TEST_CASE("--help says what SIZE and DURATION take, as the parsers do") {
    const std::string help = ds::cli::help_text();
    CHECK(help.find("SIZE takes K/M/G/T (binary: 1K = 1024) or plain bytes") != std::string::npos);
    CHECK(help.find("DURATION takes us/ms/s/m/h; a plain number is seconds") != std::string::npos);
    // Every example given in the help parses.
    for (const char* d : {"500ms", "10", "2m", "1h"})
        CHECK_NOTHROW(ds::cli::parse_command_line({"--rand-time", d}));
    for (const char* s : {"4K", "256M", "1G"})
        CHECK_NOTHROW(ds::cli::parse_command_line({"--seq-block", "4K", "--size", s}));
}

TEST_CASE("every option of the table is parsed, each name once") {
    std::set<std::string> names;
    for (const auto& o : option_specs()) {
        CAPTURE(std::string(o.name));
        CHECK(names.insert(o.name).second);
        if (o.short_name) CHECK(names.insert(std::string("-") + o.short_name).second);
    }
    auto parser = ds::cli::boost_options();
    for (const auto& o : option_specs()) {
        CAPTURE(std::string(o.name));
        CHECK(parser.find_nothrow(o.name, false) != nullptr);
    }
}

TEST_CASE("wrap: width, indent, and words that stay whole") {
    CHECK(wrap("  x:", "a b c", 80, 6) == "  x: a b c\n");
    CHECK(wrap("", "aaa bbb ccc", 7, 2) == "aaa bbb\n  ccc\n");
    // A padded first part takes the first word without another space.
    CHECK(wrap("ab  ", "cd", 80, 4) == "ab  cd\n");
    // "--qd 8" is one word: never split at its space.
    CHECK(wrap("t:", std::vector<std::string>{"--files 1", "--qd 8"}, 12, 3) ==
          "t: --files 1\n   --qd 8\n");
    // A word longer than the line stands alone rather than being cut.
    CHECK(wrap("", "abcdefghij xy", 5, 1) == "abcdefghij\n xy\n");
    // An option entry: the name padded to the help column, then the text.
    CHECK(wrap(std::string(kHelpColumn, ' '), "x", kHelpWidth, kHelpColumn) ==
          std::string(kHelpColumn, ' ') + "x\n");
}
