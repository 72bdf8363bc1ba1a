// What the files of the text report share (report/text_report.cpp and the
// renderings by feature: phase_text, drift_text, sweep_text, endurance_text,
// run_header, live_status).  Not for use outside report/.
//
// Lines are built with append(), not `"literal" + std::string(...)`: once
// inlined, GCC 12 reports the latter as an overlapping memcpy (-Wrestrict, a
// false positive: GCC bug 105329), and the build has no warnings.
#pragma once

#include <cstdint>
#include <string>

namespace ds::report {

// Nanoseconds as milliseconds with three decimals: "0.866".
std::string ms(std::uint64_t ns);

// As the option spells it: "2s", "10ms", "500us" (whole units), else
// format_seconds ("1.50 ms").
std::string threshold_name(double s);

}  // namespace ds::report
