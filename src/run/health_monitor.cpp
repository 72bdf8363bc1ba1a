#include "run/health_monitor.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "nvme/get_log_page.h"
#include "sys/system_tree.h"
#include "sys/unique_fd.h"

namespace ds::run {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

HealthMonitor::HealthMonitor(const std::string& target, const TestHooks& hooks, DriveHealth& health)
    : health_(health) {
    nvme::ControllerLookup found = nvme::find_nvme_controller(target, sys::system_tree().sys);
    if (!found.controller) {
        health_.fixture = !hooks.health_log_fixtures.empty();
        health_.reason = found.reason;
        return;
    }
    controller_ = std::move(found.controller);
    fixtures_ = hooks.health_log_fixtures_of(controller_->name);
    health_.fixture = !fixtures_.empty();
    health_.controller = controller_->name;
    health_.device = health_.fixture ? "test fixture" : controller_->device;
    std::string why;
    // The probe is the first reading: a log that cannot be read (not root,
    // a container without the controller node) says so once, up front.
    if (!read(why)) {
        health_.reason = controller_->name + ": " + why;
        return;
    }
    readings_ = 0;  // the probe does not consume a fixture page
    health_.available = true;
}

std::optional<double> HealthMonitor::temperature() const {
    if (!controller_ || controller_->temperature_input.empty()) return std::nullopt;
    return nvme::read_temperature_celsius(controller_->temperature_input);
}

namespace {

// A 512-byte fixture page (tests only).
std::optional<nvme::HealthLog> read_fixture(const std::string& path, std::string& why) {
    sys::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    std::array<std::byte, nvme::kHealthLogBytes> page{};
    if (!fd.valid() ||
        ::read(fd.get(), page.data(), page.size()) != static_cast<ssize_t>(page.size())) {
        why = path + ": not a readable 512-byte health log fixture";
        return std::nullopt;
    }
    return nvme::parse_health_log(page);
}

}  // namespace

std::optional<nvme::HealthLog> HealthMonitor::read(std::string& why) {
    if (!controller_) {
        why = health_.reason;
        return std::nullopt;
    }
    if (!fixtures_.empty())
        return read_fixture(fixtures_[std::min(readings_++, fixtures_.size() - 1)], why);
    nvme::HealthLogReading r = nvme::read_health_log(*controller_);
    if (!r.log) why = r.reason;
    return r.log;
}

}  // namespace ds::run
