#include "run/test_hooks.h"

namespace ds::run {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

namespace {

TestHooks& installed() {
    static TestHooks hooks;
    return hooks;
}

}  // namespace

const std::vector<std::string>& TestHooks::health_log_fixtures_of(
    const std::string& controller) const {
    const auto own = controller_health_log_fixtures.find(controller);
    return own != controller_health_log_fixtures.end() ? own->second : health_log_fixtures;
}

void install_test_hooks(const TestHooks& hooks) {
    installed() = hooks;
}

const TestHooks& test_hooks() {
    return installed();
}

}  // namespace ds::run
