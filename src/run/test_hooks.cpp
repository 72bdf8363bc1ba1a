#include "run/test_hooks.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace ds::run {

namespace {

// A period in seconds from variable `name` (up to an hour; zero when
// `zero_ok`) into `out`; left alone when unset or unreadable.
void seconds_from(const char* name, bool zero_ok, double& out) {
    const char* p = std::getenv(name);
    if (!p) return;
    char* end = nullptr;
    const double s = std::strtod(p, &end);
    if (end != p && *end == '\0' && (s > 0 || (zero_ok && s == 0)) && s <= 3600) out = s;
}

}  // namespace

TestHooks TestHooks::from_environment() {
    TestHooks h;
    const char* on_signal = std::getenv("DRIVESTRESS_TEST_STOP_ON_SIGNAL");
    h.stop_on_signal = on_signal && *on_signal == '1';
    seconds_from("DRIVESTRESS_TEST_SNAPSHOT_S", false, h.snapshot_period_s);
    seconds_from("DRIVESTRESS_TEST_CHECKPOINT_S", true, h.checkpoint_period_s);
    if (const char* p = std::getenv("DRIVESTRESS_TEST_SYSFS_ROOT"); p && *p) h.sysfs_root = p;
    if (const char* p = std::getenv("DRIVESTRESS_TEST_HEALTH_LOGS"); p && *p) {
        std::string list(p);
        for (std::size_t at = 0; at <= list.size();) {
            const std::size_t comma = std::min(list.find(',', at), list.size());
            if (comma > at) h.health_log_fixtures.push_back(list.substr(at, comma - at));
            at = comma + 1;
        }
    }
    const char* v = std::getenv("DRIVESTRESS_TEST_STOP");
    if (!v || !*v) return h;
    std::string s(v);
    h.stop_before_create = s == "create";
    h.stop_before_verify = s == "verify";
    auto colon = s.find(':');
    if (s.substr(0, colon) == "cleanup")
        h.stop_in_cleanup =
            colon == std::string::npos ? 0 : std::strtoull(s.c_str() + colon + 1, nullptr, 10);
    h.stop_phase = phase_from_string(s.substr(0, colon));
    if (colon != std::string::npos)
        h.stop_after_ops = std::strtoull(s.c_str() + colon + 1, nullptr, 10);
    return h;
}

}  // namespace ds::run
