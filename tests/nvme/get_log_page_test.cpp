// The SMART / health log's Get Log Page command, and the reasons given for a
// device that is not NVMe, a missing device or a plain file.
#include "nvme/get_log_page.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using ds::nvme::get_log_page_command;
using ds::nvme::HealthLogReading;
using ds::nvme::kHealthLogBytes;
using ds::nvme::kHealthLogId;
using ds::nvme::NvmeController;
using ds::nvme::read_health_log;

TEST_CASE("the health log command: Get Log Page 02h, all namespaces, 128 dwords") {
    alignas(4096) std::array<std::byte, kHealthLogBytes> page{};
    const nvme_admin_cmd cmd = get_log_page_command(kHealthLogId, page);
    CHECK(cmd.opcode == 0x02);
    CHECK(cmd.flags == 0);
    CHECK(cmd.nsid == 0xFFFFFFFFu);
    CHECK(cmd.addr == reinterpret_cast<std::uintptr_t>(page.data()));
    CHECK(cmd.data_len == 512);
    // LID 02h in bits 0-7, RAE (bit 15) clear, NUMDL = 128 - 1 = 0x7F in bits 16-31.
    CHECK(cmd.cdw10 == 0x007F0002u);
    CHECK(cmd.cdw11 == 0);  // NUMDU, log specific identifier
    CHECK(cmd.cdw12 == 0);  // log page offset
    CHECK(cmd.cdw13 == 0);
    CHECK(cmd.cdw14 == 0);
    CHECK(cmd.metadata_len == 0);
    CHECK(cmd.timeout_ms == 0);  // the kernel's admin timeout

    std::array<std::byte, 4096> big{};
    CHECK(get_log_page_command(0x01, big).cdw10 == 0x03FF0001u);  // 1024 dwords
}

TEST_CASE("a device that is not NVMe answers the ioctl with a reason, not a reading") {
    const HealthLogReading r = read_health_log("/dev/null");
    CHECK_FALSE(r.log.has_value());
    CHECK(r.reason ==
          "/dev/null: not an NVMe device (NVME_IOCTL_ADMIN_CMD: Inappropriate ioctl for device)");
}

TEST_CASE("a block device that is not NVMe (a loop device) gives a reason") {
    // Skipped where no loop device can be opened (not root, no loop driver).
    const std::string loop = "/dev/loop0";
    const int fd = ::open(loop.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        MESSAGE("skipped: cannot open " << loop);
        return;
    }
    ::close(fd);
    const HealthLogReading r = read_health_log(loop);
    CHECK_FALSE(r.log.has_value());
    CHECK_MESSAGE(r.reason.rfind(loop + ": not an NVMe device (NVME_IOCTL_ADMIN_CMD: ", 0) == 0,
                  r.reason);
}

TEST_CASE("no device, or a plain file: one line naming the path") {
    HealthLogReading r = read_health_log("/nonexistent/nvme9");
    CHECK_FALSE(r.log.has_value());
    CHECK(r.reason == "/nonexistent/nvme9: open: No such file or directory");

    const fs::path f =
        fs::temp_directory_path() / ("get_log_page_test." + std::to_string(getpid()));
    std::ofstream(f) << "not a device";
    r = read_health_log(f.string());
    fs::remove(f);
    CHECK_FALSE(r.log.has_value());
    CHECK(r.reason == f.string() + ": not a device node");
}

TEST_CASE("a controller without its device node is read through its namespace") {
    NvmeController c;
    c.name = "nvme99";
    c.device = "/nonexistent/nvme99";
    c.namespace_device = "/dev/null";  // stands in for the namespace's block device
    HealthLogReading r = read_health_log(c);
    CHECK_FALSE(r.log.has_value());
    CHECK(r.reason.rfind("/dev/null: not an NVMe device", 0) == 0);

    c.device = "/dev/zero";  // present: used, the namespace not tried
    r = read_health_log(c);
    CHECK(r.reason.rfind("/dev/zero: not an NVMe device", 0) == 0);
}
