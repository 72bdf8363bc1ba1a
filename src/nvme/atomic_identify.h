// What an NVMe controller and namespace promise about untorn (atomic)
// writes, from Identify (admin opcode 06h): the controller's AWUN and AWUPF
// (CNS 01h, bytes 526 and 528) and the namespace's NAWUN, NAWUPF, NABSN,
// NABO and NABSPF (CNS 00h, bytes 34 to 45), which replace the controller's
// when NSFEAT bit 1 (NSABP) is set (NVMe Base Specification 2.0, "Identify
// Controller" and the NVM Command Set's "Identify Namespace").  Every size
// is a 0's based count of logical blocks: 0 is one block.
//   AWUN/NAWUN    a write up to this size is never torn by another command
//                 (a concurrent read sees all old or all new data)
//   AWUPF/NAWUPF  ... nor by a power failure (what Linux's queue limits
//                 and RWF_ATOMIC rely on)
//   NABSN/NABSPF  atomic boundaries (normal, power fail): a write crossing
//                 one is not atomic; 0: none, else 0's based as the Linux
//                 driver reads it; NABO: the LBA where they start
// Read through NVME_IOCTL_ADMIN_CMD on the namespace's device
// (CAP_SYS_ADMIN); where it cannot be read the answer says why.
#pragma once

#include <linux/nvme_ioctl.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "nvme/identify_namespace.h"

namespace ds::nvme {

inline constexpr std::uint8_t kIdentifyControllerCns = 0x01;
inline constexpr std::size_t kAwunByte = 526;   // Identify Controller, 2 bytes
inline constexpr std::size_t kAwupfByte = 528;  // Identify Controller, 2 bytes
inline constexpr std::size_t kNsfeatByte = 24;  // Identify Namespace
inline constexpr std::size_t kFlbasByte = 26;   // the LBA format in use
inline constexpr std::size_t kNawunByte = 34;   // then NAWUPF 36, NACWU 38, NABSN 40,
inline constexpr std::size_t kNawupfByte = 36;  // NABO 42, NABSPF 44: 2 bytes each
inline constexpr std::size_t kNabsnByte = 40;
inline constexpr std::size_t kNaboByte = 42;
inline constexpr std::size_t kNabspfByte = 44;
inline constexpr std::size_t kLbafByte = 128;           // LBA format descriptors, 4 bytes each
inline constexpr std::uint8_t kNsfeatAtomics = 1 << 1;  // NSABP

// The fields as the drive reports them, and what they mean in bytes.
struct AtomicIdentify {
    std::uint32_t lba_bytes = 512;      // the namespace's logical block (its LBA format)
    std::uint16_t awun = 0, awupf = 0;  // controller, 0's based blocks
    bool namespace_atomics = false;     // NSABP: the namespace's fields apply
    std::uint16_t nawun = 0, nawupf = 0, nabsn = 0, nabo = 0, nabspf = 0;

    // Untorn against other commands / across a power failure: the
    // namespace's field with NSABP, else the controller's, in bytes.
    std::uint64_t any_write_bytes() const;
    std::uint64_t power_fail_bytes() const;
    // Boundaries in bytes (0: none), and where they start, in bytes.
    std::uint64_t boundary_bytes() const;
    std::uint64_t power_fail_boundary_bytes() const;
    std::uint64_t boundary_offset_bytes() const;
};

// Decodes the two Identify data structures (kIdentifyBytes each; a shorter
// span leaves the fields it lacks at 0).
AtomicIdentify parse_atomic_identify(std::span<const std::byte> controller,
                                     std::span<const std::byte> name_space);

// The Identify Controller command (CNS 01h) into `buffer`.
nvme_admin_cmd identify_controller_command(std::span<std::byte> buffer);

struct AtomicIdentifyReading {
    std::optional<AtomicIdentify> value;
    std::string reason;  // one line when there is none: the device, the call, its answer
};

// Asks the namespace at `device` (/dev/nvme0n1, or a partition of it) and
// its controller.
AtomicIdentifyReading read_atomic_identify(const std::string& device);

}  // namespace ds::nvme
