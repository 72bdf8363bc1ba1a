// The syntax of a fio job file, read as fio 3.33's init.c reads it
// (__parse_jobs_ini): sections, options, comments, includes and ${VAR},
// into raw sections whose values are still text.  Bounded: a line over
// 64 KiB, input over 16 MiB (the file and its includes), NUL or other
// binary bytes, a section with no name, an include loop or more than 16
// levels of include are refused with one JobFileError ("FILE:LINE: ...").
//
// Lines: leading blanks go; a line whose first other character is ';' or
// '#' is a comment; anywhere else ';' or '#' ends the line (fio has no
// escape for them, so a value cannot hold either), and trailing blanks go.
// "[NAME]" opens a section ("[global...]" is a global one, as fio compares
// six letters); "include FILE" reads FILE's lines into the current section
// (relative to the including file; fio also tries the working directory
// first); "KEY=VALUE" or a bare "KEY" is an option.  Blanks before '=' go,
// blanks after it stay, as in fio (to fio "bs = 4k" is bs=" 4k", 4 bytes).
// ${VAR} is the environment variable's value (empty when unset), and fio's
// keywords $pagesize, $mb_memory and $ncpus are replaced; an option that
// holds a keyword and + - * or / is refused (fio would hand it to bc).
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jobfile/error.h"

namespace ds::jobfile {

inline constexpr std::size_t kMaxLineBytes = 64 * 1024;
inline constexpr std::size_t kMaxInputBytes = 16 * 1024 * 1024;
inline constexpr int kMaxIncludeDepth = 16;

// What the job file may ask of the process: its environment and fio's keywords.
struct Environment {
    // ${VAR}: the variable's value, nullopt when unset.
    std::function<std::optional<std::string>(const std::string&)> variable;
    std::string pagesize;   // $pagesize: bytes of a page
    std::string mb_memory;  // $mb_memory: MiB of memory
    std::string ncpus;      // $ncpus: CPUs configured
    bool includes = true;   // false: `include` is refused (a reader that opens no file)
};
// This process's: getenv, sysconf.
Environment process_environment();

struct RawOption {
    std::string key;                   // as written, blanks around it removed
    std::optional<std::string> value;  // the text after '='; nullopt for a bare key
    Origin origin;
    bool operator==(const RawOption&) const = default;
};

struct Section {
    std::string name;  // between the brackets, as written
    bool global = false;
    Origin origin;  // its header line
    std::vector<RawOption> options;
};

// The sections of a job file; "-" reads `standard_input`.
std::vector<Section> read_sections(const std::string& path, std::istream& standard_input,
                                   const Environment& env);
// The sections of a job file's text, named `name` in messages (includes
// relative to its directory).
std::vector<Section> parse_sections(std::string_view text, const std::string& name,
                                    const Environment& env);

}  // namespace ds::jobfile
