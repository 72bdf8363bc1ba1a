#include "run/test_hooks.h"

#include <cstdlib>
#include <string>

namespace ds::run {

TestHooks TestHooks::from_environment() {
    TestHooks h;
    const char* on_signal = std::getenv("DRIVESTRESS_TEST_STOP_ON_SIGNAL");
    h.stop_on_signal = on_signal && *on_signal == '1';
    if (const char* p = std::getenv("DRIVESTRESS_TEST_SNAPSHOT_S")) {
        char* end = nullptr;
        const double s = std::strtod(p, &end);
        if (end != p && *end == '\0' && s > 0 && s <= 3600) h.snapshot_period_s = s;
    }
    const char* v = std::getenv("DRIVESTRESS_TEST_STOP");
    if (!v || !*v) return h;
    std::string s(v);
    h.stop_before_create = s == "create";
    auto colon = s.find(':');
    h.stop_phase = phase_from_string(s.substr(0, colon));
    if (colon != std::string::npos)
        h.stop_after_ops = std::strtoull(s.c_str() + colon + 1, nullptr, 10);
    return h;
}

}  // namespace ds::run
