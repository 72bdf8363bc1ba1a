#include "nvme/atomic_identify.h"

#include <fcntl.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstring>

#include "sys/errno_text.h"
#include "sys/unique_fd.h"

namespace ds::nvme {

namespace {

std::uint16_t le16(std::span<const std::byte> page, std::size_t at) {
    if (page.size() < at + 2) return 0;
    return static_cast<std::uint16_t>(std::to_integer<unsigned>(page[at]) |
                                      std::to_integer<unsigned>(page[at + 1]) << 8);
}

std::uint8_t byte_at(std::span<const std::byte> page, std::size_t at) {
    return page.size() > at ? std::to_integer<std::uint8_t>(page[at]) : 0;
}

// The logical block of the LBA format in use: FLBAS bits 3:0, with bits
// 6:5 above them when there are more than 16 formats; its LBADS (byte 2 of
// the descriptor) is log2 of the block.  512 when the page says nothing
// usable.
std::uint32_t lba_bytes(std::span<const std::byte> ns) {
    const std::uint8_t flbas = byte_at(ns, kFlbasByte);
    const unsigned index = (flbas & 0x0F) | ((flbas >> 5) & 0x03) << 4;
    const unsigned lbads = byte_at(ns, kLbafByte + 4 * index + 2);
    return lbads >= 9 && lbads < 32 ? std::uint32_t{1} << lbads : 512;
}

std::string failure(const std::string& device, const char* what, int rc) {
    return device + ": " + what + " failed (" +
           (rc < 0 ? sys::errno_text(errno) : "status " + std::to_string(rc)) + ")";
}

}  // namespace

std::uint64_t AtomicIdentify::any_write_bytes() const {
    return (std::uint64_t{namespace_atomics ? nawun : awun} + 1) * lba_bytes;
}

std::uint64_t AtomicIdentify::power_fail_bytes() const {
    return (std::uint64_t{namespace_atomics ? nawupf : awupf} + 1) * lba_bytes;
}

std::uint64_t AtomicIdentify::boundary_bytes() const {
    return namespace_atomics && nabsn ? (std::uint64_t{nabsn} + 1) * lba_bytes : 0;
}

std::uint64_t AtomicIdentify::power_fail_boundary_bytes() const {
    return namespace_atomics && nabspf ? (std::uint64_t{nabspf} + 1) * lba_bytes : 0;
}

std::uint64_t AtomicIdentify::boundary_offset_bytes() const {
    return std::uint64_t{nabo} * lba_bytes;
}

AtomicIdentify parse_atomic_identify(std::span<const std::byte> controller,
                                     std::span<const std::byte> name_space) {
    AtomicIdentify a;
    a.lba_bytes = lba_bytes(name_space);
    a.awun = le16(controller, kAwunByte);
    a.awupf = le16(controller, kAwupfByte);
    a.namespace_atomics = byte_at(name_space, kNsfeatByte) & kNsfeatAtomics;
    a.nawun = le16(name_space, kNawunByte);
    a.nawupf = le16(name_space, kNawupfByte);
    a.nabsn = le16(name_space, kNabsnByte);
    a.nabo = le16(name_space, kNaboByte);
    a.nabspf = le16(name_space, kNabspfByte);
    return a;
}

nvme_admin_cmd identify_controller_command(std::span<std::byte> buffer) {
    nvme_admin_cmd cmd{};
    cmd.opcode = kIdentifyOpcode;
    cmd.nsid = 0;
    cmd.addr = reinterpret_cast<std::uintptr_t>(buffer.data());
    cmd.data_len = static_cast<std::uint32_t>(buffer.size());
    cmd.cdw10 = kIdentifyControllerCns;
    return cmd;
}

AtomicIdentifyReading read_atomic_identify(const std::string& device) {
    AtomicIdentifyReading out;
    sys::UniqueFd fd(::open(device.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
        out.reason = device + ": open: " + sys::errno_text(errno);
        return out;
    }
    const int nsid = ::ioctl(fd.get(), NVME_IOCTL_ID);
    if (nsid <= 0) {
        out.reason = device + ": not an NVMe namespace (NVME_IOCTL_ID: " +
                     sys::errno_text(nsid < 0 ? errno : EINVAL) + ")";
        return out;
    }
    alignas(4096) std::byte ctrl[kIdentifyBytes]{};
    alignas(4096) std::byte ns[kIdentifyBytes]{};
    nvme_admin_cmd c = identify_controller_command(ctrl);
    if (int rc = ::ioctl(fd.get(), NVME_IOCTL_ADMIN_CMD, &c); rc != 0) {
        out.reason = failure(device, "Identify Controller", rc);
        return out;
    }
    nvme_admin_cmd n = identify_namespace_command(static_cast<std::uint32_t>(nsid), ns);
    if (int rc = ::ioctl(fd.get(), NVME_IOCTL_ADMIN_CMD, &n); rc != 0) {
        out.reason = failure(device, "Identify Namespace", rc);
        return out;
    }
    out.value = parse_atomic_identify(ctrl, ns);
    return out;
}

}  // namespace ds::nvme
