// What an NVMe namespace promises a deallocated (trimmed) block reads back
// as: DLFEAT, byte 33 of Identify Namespace (admin opcode 06h, CNS 00h),
// bits 2:0 (NVMe base specification, "Deallocated or Unwritten Logical
// Block Error" and DLFEAT): 001b zeros, 010b 0xFF, 000b not reported.  Read
// through NVME_IOCTL_ADMIN_CMD on the namespace's own device (CAP_SYS_ADMIN);
// where it cannot be read the answer says why, never a guess.
#pragma once

#include <linux/nvme_ioctl.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace ds::nvme {

inline constexpr std::uint8_t kIdentifyOpcode = 0x06;
inline constexpr std::size_t kIdentifyBytes = 4096;
inline constexpr std::size_t kDlfeatByte = 33;

enum class DeallocatedRead { not_reported, zeros, ones };

// DLFEAT's read behaviour from an Identify Namespace data structure
// (kIdentifyBytes); a reserved value (011b to 111b) is not_reported.
DeallocatedRead deallocated_read(std::span<const std::byte> identify_namespace);

// The Identify Namespace command (CNS 00h) for namespace `nsid` into `buffer`.
nvme_admin_cmd identify_namespace_command(std::uint32_t nsid, std::span<std::byte> buffer);

struct DeallocatedReading {
    std::optional<DeallocatedRead> value;
    std::string reason;  // one line when there is none: the device, the call, its answer
};

// Asks the namespace at `device` (/dev/nvme0n1, or a partition of it).
DeallocatedReading read_deallocated(const std::string& device);

}  // namespace ds::nvme
