// Facts about the machine and the drive under test, for the report header,
// the JSON document and the Prometheus textfile.
#pragma once

#include <cstdint>
#include <string>

namespace ds::report {

struct HostInfo {
    std::string hostname;
    std::string kernel;   // uname release, e.g. "6.1.0-18-amd64"
    std::string machine;  // e.g. "x86_64"
    std::string cpu_model;
    unsigned cpus = 0;
    std::uint64_t memory_bytes = 0;
    std::string simd_path;  // generator path in use

    static HostInfo current();
};

// What the kernel tells about the disk under a target, from sysfs: empty
// strings and zeros where it does not say (tmpfs has no disk; virtio disks
// have a serial but no model; SCSI disks a model and firmware revision).
// A partition stands for its disk; a device-mapper or md device with exactly
// one underlying device is followed down to it (LVM on one disk), one with
// several (RAID) is reported as itself.
struct DriveInfo {
    std::string name;  // kernel name of the disk, e.g. "nvme0n1", "sda"; "": none found
    std::string model;
    std::string serial;
    std::string firmware;
    std::uint32_t logical_block_bytes = 0;
    std::uint32_t physical_block_bytes = 0;

    // The disk holding `path` (a directory, or a block device node for a raw
    // device); `mount_source` (e.g. "/dev/sda1") is tried when the
    // filesystem's device number names no disk (btrfs, overlay).
    static DriveInfo of(const std::string& path, const std::string& mount_source);
    // The disk of block device major:minor under the sysfs tree `sysfs`
    // (normally "/sys"; tests build one of their own).
    static DriveInfo of_device(unsigned major, unsigned minor, const std::string& sysfs = "/sys");
};

}  // namespace ds::report
