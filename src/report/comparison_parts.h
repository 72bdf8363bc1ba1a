// What the comparison's text (backend_comparison.cpp) and JSON
// (comparison_json.cpp) share; report/ only.
#pragma once

#include "report/backend_comparison.h"

namespace ds::report {

// Row r's figures of phase p, or null when the row has none.
const ComparedPhase* find_phase(const ComparedRow& r, model::Phase p);
// a / b, 0 when b is not positive.
double ratio(double a, double b);
// The figure a phase is judged by: IOPS for random, bandwidth for the others.
bool by_iops(model::Phase p);

}  // namespace ds::report
