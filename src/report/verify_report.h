// The report of `drivestress --verify-only STATE`: text for people, and a
// result document (schema/result.schema.json, with a "verify_only" section
// instead of a run's target, backend, config and iterations).
#pragma once

#include <cstdio>

#include <nlohmann/json.hpp>

#include "model/verify_result.h"
#include "report/host_info.h"

namespace ds::report {

void print_verify_text(std::FILE* out, const model::VerifyOnlyResult& r, const HostInfo& host);
nlohmann::json verify_json(const model::VerifyOnlyResult& r, const HostInfo& host);

}  // namespace ds::report
