#include "nvme/get_log_page.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sys/unique_fd.h"

namespace ds::nvme {

nvme_admin_cmd get_log_page_command(std::uint8_t lid, std::span<std::byte> buffer) {
    const auto dwords = static_cast<std::uint32_t>(buffer.size() / 4);
    nvme_admin_cmd cmd{};
    cmd.opcode = kGetLogPageOpcode;
    cmd.nsid = kAllNamespaces;
    cmd.addr = reinterpret_cast<std::uintptr_t>(buffer.data());
    cmd.data_len = static_cast<std::uint32_t>(buffer.size());
    // NUMDL is 16 bits (NUMDU in CDW11 stays 0): enough for the 512-byte page.
    cmd.cdw10 = lid | ((dwords - 1) & 0xFFFF) << 16;
    return cmd;
}

namespace {

// The ioctl's failure, in words that say what to do about it.
std::string ioctl_reason(const std::string& device, int err) {
    const std::string call = " (NVME_IOCTL_ADMIN_CMD: " + std::string(std::strerror(err)) + ")";
    if (err == ENOTTY || err == EINVAL) return device + ": not an NVMe device" + call;
    if (err == EPERM || err == EACCES)
        return device + ": reading the health log needs CAP_SYS_ADMIN" + call;
    return device + ": Get Log Page failed" + call;
}

}  // namespace

HealthLogReading read_health_log(const std::string& device) {
    HealthLogReading out;
    sys::UniqueFd fd(::open(device.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
        out.reason = device + ": open: " + std::strerror(errno);
        return out;
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
        out.reason = device + ": not a device node";
        return out;
    }
    alignas(4096) std::byte page[kHealthLogBytes]{};  // page-aligned: the kernel maps it for DMA
    nvme_admin_cmd cmd = get_log_page_command(kHealthLogId, page);
    const int rc = ::ioctl(fd.get(), NVME_IOCTL_ADMIN_CMD, &cmd);
    if (rc < 0) {
        out.reason = ioctl_reason(device, errno);
        return out;
    }
    if (rc > 0) {  // the controller's status field: status code type and status code
        char status[16];
        std::snprintf(status, sizeof status, "0x%x", static_cast<unsigned>(rc));
        out.reason = device + ": Get Log Page 02h answered NVMe status " + status;
        return out;
    }
    out.log = parse_health_log(std::span<const std::byte, kHealthLogBytes>(page));
    return out;
}

HealthLogReading read_health_log(const NvmeController& controller) {
    struct stat st {};
    if (::stat(controller.device.c_str(), &st) != 0 && errno == ENOENT)
        return read_health_log(controller.namespace_device);
    return read_health_log(controller.device);
}

}  // namespace ds::nvme
