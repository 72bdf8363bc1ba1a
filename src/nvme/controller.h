// The NVMe controller behind a run's target, found through sysfs: a raw
// namespace (/dev/nvme0n1, a partition of it), or a file or directory on a
// filesystem whose block device is one, directly or through a single-device
// stack (dm, md over one partition).  The sysfs root is a parameter so tests
// can lay out a fake tree.
#pragma once

#include <optional>
#include <string>

namespace ds::nvme {

struct NvmeController {
    std::string name;               // "nvme0"
    std::string namespace_name;     // "nvme0n1": the namespace holding the target
    std::string device;             // "/dev/nvme0": the controller's character device
    std::string namespace_device;   // "/dev/nvme0n1"
    std::string sysfs_dir;          // the controller's directory under the sysfs root
    std::string temperature_input;  // its hwmon temp1_input (composite temperature,
                                    // millidegrees Celsius); "" when it has no hwmon
};

struct ControllerLookup {
    std::optional<NvmeController> controller;
    std::string reason;  // one line when there is none: what the target is on instead
};

// For `target`: a block device node (its own device) or any other path
// (the device of the filesystem it is on).
ControllerLookup find_nvme_controller(const std::string& target,
                                      const std::string& sysfs_root = "/sys");

// For the block device major:minor.
ControllerLookup find_nvme_controller_of(unsigned major, unsigned minor,
                                         const std::string& sysfs_root = "/sys");

// Degrees Celsius from an hwmon temp*_input file (millidegrees); nullopt when
// it cannot be read or parsed.  Each read of an NVMe sensor makes the kernel
// fetch the health log from the drive, so sample it once per interval, not
// per operation.
std::optional<double> read_temperature_celsius(const std::string& temp_input);

}  // namespace ds::nvme
