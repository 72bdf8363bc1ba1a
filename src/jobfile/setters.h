// The taken options' setters: each reads its value (a bare key: nullopt)
// into a Job, throwing std::invalid_argument with the reason.  Split by
// subject over setters_*.cpp; job_options.cpp finds them by fio's name.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "jobfile/job.h"

namespace ds::jobfile::detail {

using Value = std::optional<std::string>;
using Setter = void (*)(Job&, const Value&);

struct Taken {
    const char* name;  // fio's name of the option (aliases are looked up first)
    Setter set;
};

std::span<const Taken> job_setters();       // jobs, groups, files, time
std::span<const Taken> workload_setters();  // the workload, the queue, durability
std::span<const Taken> rate_setters();      // rate, data, placement, logs, steady state

// The value's text; a bare key is refused ("needs a value").
const std::string& need(const Value& v);
// One value where fio takes a list per direction or a range: no ',' ':' or
// '-' (fio would split there); fio drops one trailing ','.
std::string_view single(const Value& v);
// A fio "set" option: a bare key is true.
bool flag(const Value& v);

}  // namespace ds::jobfile::detail
