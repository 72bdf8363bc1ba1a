// Every command-line option once: name, metavariable, default and help.  The
// one source of the Boost parser's options, of --help, and through --help of
// the man page (help2man) and the bash completion (scripts/completion.py).
#pragma once

#include <boost/program_options/options_description.hpp>
#include <span>
#include <string>
#include <vector>

namespace ds::cli {

struct OptionSpec {
    // action: --help, --version; repeated: a value given several times
    enum class Kind { value, flag, action, repeated };
    const char* section;        // heading in --help ("Workload")
    const char* name;           // long name, without "--"
    char short_name;            // 0: none
    const char* metavar;        // SIZE, N, DURATION, PATH, or auto|io_uring|sync
    const char* default_value;  // given to Boost (vm[name].defaulted()); nullptr: none
    const char* shown_default;  // shown when there is no Boost default ("off"); or nullptr
    const char* help;           // one or two sentences, wrapped by help_text()
    Kind kind = Kind::value;
    // A LIST of fixed words: what it may hold, comma-separated; --help shows
    // "(words: ...)", which the completion completes from.  nullptr: free.
    const char* words = nullptr;
};

// Every option, in --help order; the seed tool's aliases come last.
std::span<const OptionSpec> option_specs();

// The options of option_specs() for Boost.Program_options, defaults included.
boost::program_options::options_description boost_options();

// Help lines are at most this wide, and the man page is made from them.
constexpr std::size_t kHelpWidth = 80;
// Terms (option names, preset names) start at column 2 or more; their
// description at kHelpColumn, or on the next line when the term is longer.
// help2man reads a term followed by two spaces as a list entry, and lines
// indented this far as its continuation.
constexpr std::size_t kHelpColumn = 30;

// The full --help text: usage, what TARGET, SIZE and DURATION take, every
// option by section, the presets and the exit statuses.
std::string help_text();

// Lines of at most `width` columns: `first` (the start of line 1, e.g. an
// option's name), then `words` separated by spaces, every further line
// starting with `indent` spaces.  A word never breaks (an over-long word
// gets a line of its own); a word is a unit that must stay together, such as
// "--qd 8".  Ends with a newline.
std::string wrap(const std::string& first, const std::vector<std::string>& words, std::size_t width,
                 std::size_t indent);
// The same for running text: words are what lies between spaces.
std::string wrap(const std::string& first, const std::string& text, std::size_t width,
                 std::size_t indent);

}  // namespace ds::cli
