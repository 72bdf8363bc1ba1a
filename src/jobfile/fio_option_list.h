// Every option fio 3.33 knows (fio_option_list.cpp, generated from the fio
// binary by scripts/fio_options.py): what the job-file reader checks a key
// against before it asks the policy (option_policy.h) what drivestress does
// with it.
#pragma once

#include <span>
#include <string_view>

namespace ds::jobfile {

struct FioOption {
    const char* name;
    const char* alias;   // "" when none (rw: "readwrite")
    const char* kind;    // fio's parse type: set, bool, int, str, time, multi, range,
                         // float_list, zone, deprecated
    const char* origin;  // "" fio's main table; "profile:P"; "engine:E1 E2 ...";
                         // "deprecated" (fio refuses it); "soft_deprecated" (ignores it)
};

// The whole list, in fio's own order (main options, profiles, engines, deprecated).
std::span<const FioOption> fio_options();

// The option a job-file key names (its name or its alias), as fio looks it
// up: the main table, the profiles and the deprecated ones first; nullptr
// when only an engine has it or fio does not know it.
const FioOption* find_main_option(std::string_view key);
// The engine option a key names (nullptr when no engine of fio 3.33 has it).
const FioOption* find_engine_option(std::string_view key);
// Whether an engine option belongs to engine `engine` (its origin lists it).
bool engine_has_option(const FioOption& option, std::string_view engine);

}  // namespace ds::jobfile
