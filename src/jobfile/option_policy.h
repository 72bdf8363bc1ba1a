// What drivestress does with each option fio knows: takes it (its value
// lands in a Job), accepts it with a note (it changes nothing drivestress
// does: the verify* family, since drivestress always verifies its own way,
// and report-only options), or refuses it with a one-line reason.  An
// option fio does not know is refused as "not a fio option".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jobfile/fio_option_list.h"

namespace ds::jobfile {

enum class Status { taken, noted, refused };

struct Policy {
    Status status = Status::refused;
    std::string reason;  // one line: what drivestress does, the note, or why not
};

// The policy of one of fio's options (main, profile, deprecated or engine).
Policy policy_of(const FioOption& option);

// "taken", "noted", "refused".
const char* status_name(Status s);

// The options the policy table names, for its test (each must be fio's).
std::vector<std::string> policy_names();

// The option table of docs/jobs.md (markdown, one row per option fio
// knows), which the docs test holds against the page.
std::string option_table_markdown();

}  // namespace ds::jobfile
