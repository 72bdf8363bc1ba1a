// Reading the SMART / Health log from a real controller: the NVMe admin
// command Get Log Page (opcode 02h) through the kernel's NVME_IOCTL_ADMIN_CMD.
// The kernel allows it to CAP_SYS_ADMIN only.  Where the device is not NVMe
// or the command cannot be sent, the answer is a one-line reason, never a
// made-up reading.
#pragma once

#include <linux/nvme_ioctl.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "nvme/controller.h"
#include "nvme/health_log.h"

namespace ds::nvme {

inline constexpr std::uint8_t kGetLogPageOpcode = 0x02;
inline constexpr std::uint32_t kAllNamespaces = 0xFFFFFFFF;  // controller-wide log

// The Get Log Page command for log `lid` into `buffer` (a multiple of 4
// bytes, at most 16 KiB here): nsid FFFFFFFFh, CDW10 = LID | (NUMDL << 16)
// with NUMDL = dwords - 1.  Retain Asynchronous Event (CDW10 bit 15) is left
// clear, as smartctl does: reading acknowledges a pending health event so
// the controller can raise the next one.
nvme_admin_cmd get_log_page_command(std::uint8_t lid, std::span<std::byte> buffer);

struct HealthLogReading {
    std::optional<HealthLog> log;
    std::string reason;  // one line when there is no log: the device, the call, its answer
};

// Reads the health log through `device`: a controller (/dev/nvme0) or one
// of its namespaces (/dev/nvme0n1).
HealthLogReading read_health_log(const std::string& device);

// Through the controller's device, or its namespace's when the controller
// node does not exist (a container given only the block device).
HealthLogReading read_health_log(const NvmeController& controller);

}  // namespace ds::nvme
