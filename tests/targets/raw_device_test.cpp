// Raw-device geometry and the "is it in use" checks that only read /proc and
// /sys (never write): the root filesystem's own device must be refused.
#include "targets/raw_device.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <string>

#include "model/errors.h"

using namespace ds::model;
using namespace ds::targets;

namespace {

constexpr std::uint64_t MiB = 1ULL << 20;

std::string error_of(auto&& f) {
    try {
        f();
    } catch (const SetupError& e) {
        return e.what();
    }
    return "";
}

// /dev/NAME of the device holding /, from sysfs; "" when there is no node.
std::string root_device_node() {
    struct stat st {};
    if (::stat("/", &st) != 0) return "";
    std::ifstream uevent("/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" +
                         std::to_string(minor(st.st_dev)) + "/uevent");
    std::string line;
    while (std::getline(uevent, line))
        if (line.rfind("DEVNAME=", 0) == 0) {
            std::string node = "/dev/" + line.substr(8);
            struct stat nst {};
            if (::stat(node.c_str(), &nst) == 0 && S_ISBLK(nst.st_mode)) return node;
        }
    return "";
}

}  // namespace

TEST_CASE("regions: device size / files, rounded down to the sequential block") {
    CHECK(raw_region_bytes("/dev/x", 64 * MiB, 3, 0, MiB) == 21 * MiB);
    CHECK(raw_region_bytes("/dev/x", 64 * MiB, 2, 0, MiB) == 32 * MiB);
    CHECK(raw_region_bytes("/dev/x", 64 * MiB, 2, 16 * MiB, MiB) == 16 * MiB);
    CHECK(raw_region_bytes("/dev/x", 64 * MiB + 4096, 1, 0, 64 * 1024) == 64 * MiB);
    CHECK(error_of([] { raw_region_bytes("/dev/x", MiB / 2, 1, 0, MiB); }).find("too small") !=
          std::string::npos);
    CHECK(error_of([] {
              raw_region_bytes("/dev/x", 64 * MiB, 4, 32 * MiB, MiB);
          }).find("more than the device") != std::string::npos);
    CHECK(error_of([] {
              raw_region_bytes("/dev/x", 64 * MiB, 4096, ~0ULL / 2, MiB);
          }).find("more than the device") != std::string::npos);
}

TEST_CASE("regions: exact bytes where the rounded sizes would seem to fit") {
    // 2 x 32 MiB on a device 4 KiB short of 64 MiB: "64.0 MiB" alone would
    // read as room enough.
    CHECK(error_of([] { raw_region_bytes("/dev/x", 64 * MiB - 4096, 2, 32 * MiB, MiB); }) ==
          "--raw-device /dev/x: 2 x --size 32 MiB (67108864 bytes in all) is more than the "
          "device's 64.0 MiB (67104768 bytes)");
    CHECK(error_of([] {
              raw_region_bytes("/dev/x", MiB - 1, 2, 0, MiB / 2);
          }).find("1.0 MiB (1048575 bytes) is too small for 2 regions") != std::string::npos);
    // Plainly apart: no bytes added.
    CHECK(error_of([] {
              raw_region_bytes("/dev/x", 64 * MiB, 4, 32 * MiB, MiB);
          }).find("4 x --size 32 MiB is more than the device's 64 MiB") != std::string::npos);
}

TEST_CASE("not a block device") {
    CHECK(error_of([] { check_raw_device_unused("/dev/null"); }) ==
          "--raw-device /dev/null: is not a block device");
    CHECK(error_of([] { same_block_device("/dev/null", "/dev/null"); }) ==
          "--raw-device /dev/null: is not a block device");
    CHECK(error_of([] { block_device_bytes("/nonexistent"); }) ==
          "--raw-device /nonexistent: No such file or directory");
}

TEST_CASE("the device of the root filesystem is refused") {
    const std::string node = root_device_node();
    if (node.empty()) {
        MESSAGE("skipped: / is not on a block device with a node in /dev here");
        return;
    }
    std::string err = error_of([&] { check_raw_device_unused(node); });
    INFO("root device " << node);
    CHECK(err.find("backs the root filesystem") != std::string::npos);
}
