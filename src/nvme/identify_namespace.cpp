#include "nvme/identify_namespace.h"

#include <fcntl.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstring>

#include "sys/unique_fd.h"

namespace ds::nvme {

DeallocatedRead deallocated_read(std::span<const std::byte> identify_namespace) {
    if (identify_namespace.size() <= kDlfeatByte) return DeallocatedRead::not_reported;
    switch (std::to_integer<unsigned>(identify_namespace[kDlfeatByte]) & 0x7) {
        case 1:
            return DeallocatedRead::zeros;
        case 2:
            return DeallocatedRead::ones;
        default:
            return DeallocatedRead::not_reported;
    }
}

nvme_admin_cmd identify_namespace_command(std::uint32_t nsid, std::span<std::byte> buffer) {
    nvme_admin_cmd cmd{};
    cmd.opcode = kIdentifyOpcode;
    cmd.nsid = nsid;
    cmd.addr = reinterpret_cast<std::uintptr_t>(buffer.data());
    cmd.data_len = static_cast<std::uint32_t>(buffer.size());
    cmd.cdw10 = 0;  // CNS 00h: Identify Namespace
    return cmd;
}

DeallocatedReading read_deallocated(const std::string& device) {
    DeallocatedReading out;
    sys::UniqueFd fd(::open(device.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
        out.reason = device + ": open: " + std::strerror(errno);
        return out;
    }
    const int nsid = ::ioctl(fd.get(), NVME_IOCTL_ID);
    if (nsid <= 0) {
        out.reason = device + ": not an NVMe namespace (NVME_IOCTL_ID: " +
                     std::strerror(nsid < 0 ? errno : EINVAL) + ")";
        return out;
    }
    alignas(4096) std::byte data[kIdentifyBytes]{};
    nvme_admin_cmd cmd = identify_namespace_command(static_cast<std::uint32_t>(nsid), data);
    const int rc = ::ioctl(fd.get(), NVME_IOCTL_ADMIN_CMD, &cmd);
    if (rc != 0) {
        out.reason = device + ": Identify Namespace failed (" +
                     (rc < 0 ? std::string(std::strerror(errno)) : "status " + std::to_string(rc)) +
                     ")";
        return out;
    }
    out.value = deallocated_read(data);
    return out;
}

}  // namespace ds::nvme
