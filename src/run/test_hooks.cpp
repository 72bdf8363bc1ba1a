#include "run/test_hooks.h"

#include <unistd.h>  // environ

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

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

// "A,B,,C" -> {A, B, C}.
std::vector<std::string> comma_list(const std::string& list) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        if (comma > at) out.push_back(list.substr(at, comma - at));
        at = comma + 1;
    }
    return out;
}

}  // namespace

const std::vector<std::string>& TestHooks::health_log_fixtures_of(
    const std::string& controller) const {
    const auto own = controller_health_log_fixtures.find(controller);
    return own != controller_health_log_fixtures.end() ? own->second : health_log_fixtures;
}

TestHooks TestHooks::from_environment() {
    TestHooks h;
    const char* on_signal = std::getenv("DRIVESTRESS_TEST_STOP_ON_SIGNAL");
    h.stop_on_signal = on_signal && *on_signal == '1';
    seconds_from("DRIVESTRESS_TEST_SNAPSHOT_S", false, h.snapshot_period_s);
    seconds_from("DRIVESTRESS_TEST_CHECKPOINT_S", true, h.checkpoint_period_s);
    if (const char* p = std::getenv("DRIVESTRESS_TEST_SYSFS_ROOT"); p && *p) h.sysfs_root = p;
    if (const char* p = std::getenv("DRIVESTRESS_TEST_HEALTH_LOGS"); p && *p)
        h.health_log_fixtures = comma_list(p);
    static const std::string per_controller = "DRIVESTRESS_TEST_HEALTH_LOGS_";
    for (char** e = environ; e && *e; ++e) {
        const std::string var(*e);
        const std::size_t eq = var.find('=');
        if (var.compare(0, per_controller.size(), per_controller) == 0 && eq != std::string::npos &&
            eq > per_controller.size())
            h.controller_health_log_fixtures[var.substr(per_controller.size(),
                                                        eq - per_controller.size())] =
                comma_list(var.substr(eq + 1));
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
