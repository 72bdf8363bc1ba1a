#include "report/host_info.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "pattern/generator.h"
#include "sys/system_tree.h"

namespace ds::report {

HostInfo HostInfo::current() {
    HostInfo h;
    utsname u{};
    if (uname(&u) == 0) {
        h.hostname = u.nodename;
        h.kernel = u.release;
        h.machine = u.machine;
    }
    h.cpus = std::thread::hardware_concurrency();
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) h.memory_bytes = static_cast<std::uint64_t>(pages) * page;
    std::ifstream cpuinfo(sys::system_tree().proc_path("cpuinfo"));
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos) h.cpu_model = line.substr(colon + 2);
            break;
        }
    }
    h.simd_path = std::string(pattern::to_string(pattern::active_simd_path()));
    return h;
}

}  // namespace ds::report

namespace ds::report {

namespace {

namespace fs = std::filesystem;

// A sysfs attribute as one line: surrounding blanks trimmed (SCSI pads
// models, NVMe pads serials), bytes that are not printable ASCII replaced
// by '?' so the text is safe in JSON and in label values; "" when absent.
std::string attribute(const fs::path& file) {
    std::ifstream in(file);
    std::string text;
    if (!in || !std::getline(in, text)) return {};
    for (char& c : text)
        if (c < 0x20 || c > 0x7e) c = '?';
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::uint32_t number_attribute(const fs::path& file) {
    const std::string text = attribute(file);
    std::uint32_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    return ec == std::errc{} && end == text.data() + text.size() ? v : 0;
}

// SCSI unit serial number (VPD page 0x80): a 4-byte header whose last byte
// is the length, then the serial in ASCII.
std::string vpd_serial(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (page.size() < 4 || static_cast<unsigned char>(page[1]) != 0x80) return {};
    const std::size_t length =
        std::min<std::size_t>(static_cast<unsigned char>(page[3]), page.size() - 4);
    std::string serial = page.substr(4, length);
    for (char& c : serial)
        if (c < 0x20 || c > 0x7e) c = ' ';
    const auto first = serial.find_first_not_of(' ');
    if (first == std::string::npos) return {};
    return serial.substr(first, serial.find_last_not_of(' ') - first + 1);
}

// The disk a sysfs block directory stands for: a partition's parent; the
// one device under a device-mapper or md device (LVM on one disk).
fs::path disk_of(fs::path dir) {
    std::error_code ec;
    for (int depth = 0; depth < 8; ++depth) {
        if (fs::exists(dir / "partition", ec)) dir = dir.parent_path();
        if (fs::exists(dir / "device", ec)) break;
        std::vector<fs::path> below;
        for (const auto& entry : fs::directory_iterator(dir / "slaves", ec))
            below.push_back(entry.path());
        if (below.size() != 1) break;
        fs::path next = fs::canonical(below.front(), ec);
        if (ec) break;
        dir = next;
    }
    return dir;
}

}  // namespace

DriveInfo DriveInfo::of_device(unsigned major, unsigned minor, const std::string& sysfs) {
    DriveInfo d;
    std::error_code ec;
    const fs::path link =
        fs::path(sysfs) / "dev" / "block" / (std::to_string(major) + ":" + std::to_string(minor));
    fs::path dir = fs::canonical(link, ec);
    if (ec) return d;
    dir = disk_of(dir);
    d.name = dir.filename().string();
    d.logical_block_bytes = number_attribute(dir / "queue" / "logical_block_size");
    d.physical_block_bytes = number_attribute(dir / "queue" / "physical_block_size");
    const fs::path device = dir / "device";
    d.model = attribute(device / "model");
    // NVMe controllers have device/serial, virtio disks a serial of their
    // own, SCSI disks the VPD page.
    d.serial = attribute(device / "serial");
    if (d.serial.empty()) d.serial = attribute(dir / "serial");
    if (d.serial.empty()) d.serial = vpd_serial(device / "vpd_pg80");
    d.firmware = attribute(device / "firmware_rev");                 // NVMe
    if (d.firmware.empty()) d.firmware = attribute(device / "rev");  // SCSI, ATA
    return d;
}

DriveInfo DriveInfo::of(const std::string& path, const std::string& mount_source) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISBLK(st.st_mode)) return of_device(major(st.st_rdev), minor(st.st_rdev));
        if (major(st.st_dev) != 0) {
            DriveInfo d = of_device(major(st.st_dev), minor(st.st_dev));
            if (!d.name.empty()) return d;
        }
    }
    // An anonymous device number (btrfs, overlayfs): the mount's source.
    if (mount_source.rfind("/dev/", 0) == 0 && ::stat(mount_source.c_str(), &st) == 0 &&
        S_ISBLK(st.st_mode))
        return of_device(major(st.st_rdev), minor(st.st_rdev));
    return {};
}

}  // namespace ds::report
