// The drive behind a target as the report names it: a SCSI disk's or an NVMe
// controller's model, serial, firmware and sector sizes, or nothing known.
#include "report/host_info.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

using ds::report::DriveInfo;
namespace fs = std::filesystem;

namespace {

// A sysfs tree of its own: /dev/block/MAJ:MIN links into /devices, as the
// kernel lays it out for a SCSI disk with a partition, an NVMe namespace,
// a virtio disk, LVM on the SCSI partition and a RAID over two disks.
struct FakeSysfs {
    fs::path root;

    FakeSysfs() {
        std::string tmpl = (fs::temp_directory_path() / "host_info_test.XXXXXX").string();
        REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
        root = tmpl;
        fs::create_directories(root / "dev" / "block");
        const fs::path sda = disk("pci0/host0/block/sda", 512, 4096);
        put(sda / "device" / "model", "Samsung SSD 870   \n");  // padded, as SCSI does
        put(sda / "device" / "rev", "SVT01B6Q\n");
        put(sda / "device" / "vpd_pg80", std::string("\0\x80\0\x0b S6PNNX0R12", 15));
        put(sda / "sda1" / "partition", "1\n");
        link("8:0", "pci0/host0/block/sda");
        link("8:1", "pci0/host0/block/sda/sda1");

        const fs::path ctrl = root / "devices" / "pci1" / "nvme" / "nvme0";
        put(ctrl / "model", "WDC WDS100T2B0C-00PXH0                  \n");
        put(ctrl / "serial", "21183G801234        \n");
        put(ctrl / "firmware_rev", "211070WD\n");
        const fs::path ns = disk("pci1/nvme/nvme0/nvme0n1", 4096, 4096);
        fs::create_directory_symlink(ctrl, ns / "device");
        link("259:0", "pci1/nvme/nvme0/nvme0n1");

        const fs::path vda = disk("pci2/virtio1/block/vda", 512, 4096);
        put(vda / "serial", "overlayblk\n");
        fs::create_directories(vda / "device");  // virtio: no model there
        link("254:0", "pci2/virtio1/block/vda");

        const fs::path dm = disk("virtual/block/dm-0", 512, 4096);
        fs::create_directories(dm / "slaves");
        fs::create_directory_symlink(sda / "sda1", dm / "slaves" / "sda1");
        link("253:0", "virtual/block/dm-0");

        const fs::path md = disk("virtual/block/md0", 512, 4096);
        fs::create_directories(md / "slaves");
        fs::create_directory_symlink(sda, md / "slaves" / "sda");
        fs::create_directory_symlink(vda, md / "slaves" / "vda");
        link("9:0", "virtual/block/md0");
    }
    ~FakeSysfs() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }

    fs::path disk(const std::string& where, int logical, int physical) {
        const fs::path d = root / "devices" / where;
        put(d / "queue" / "logical_block_size", std::to_string(logical) + "\n");
        put(d / "queue" / "physical_block_size", std::to_string(physical) + "\n");
        return d;
    }
    void put(const fs::path& file, const std::string& text) {
        fs::create_directories(file.parent_path());
        std::ofstream(file, std::ios::binary) << text;
    }
    void link(const std::string& dev, const std::string& where) {
        fs::create_directory_symlink(root / "devices" / where, root / "dev" / "block" / dev);
    }
    DriveInfo of(unsigned major, unsigned minor) const {
        return DriveInfo::of_device(major, minor, root.string());
    }
};

}  // namespace

TEST_CASE("a SCSI partition stands for its disk: model, firmware, VPD serial, sector sizes") {
    FakeSysfs sys;
    const DriveInfo d = sys.of(8, 1);
    CHECK(d.name == "sda");
    CHECK(d.model == "Samsung SSD 870");
    CHECK(d.firmware == "SVT01B6Q");
    CHECK(d.serial == "S6PNNX0R12");
    CHECK(d.logical_block_bytes == 512);
    CHECK(d.physical_block_bytes == 4096);
    CHECK(sys.of(8, 0).serial == "S6PNNX0R12");
}

TEST_CASE("an NVMe namespace takes model, serial and firmware from its controller") {
    FakeSysfs sys;
    const DriveInfo d = sys.of(259, 0);
    CHECK(d.name == "nvme0n1");
    CHECK(d.model == "WDC WDS100T2B0C-00PXH0");
    CHECK(d.serial == "21183G801234");
    CHECK(d.firmware == "211070WD");
    CHECK(d.logical_block_bytes == 4096);
}

TEST_CASE(
    "a virtio disk has a serial and no model; LVM on one disk is followed down; RAID is not") {
    FakeSysfs sys;
    const DriveInfo vda = sys.of(254, 0);
    CHECK(vda.name == "vda");
    CHECK(vda.serial == "overlayblk");
    CHECK(vda.model == "");
    CHECK(vda.firmware == "");
    CHECK(sys.of(253, 0).name == "sda");
    CHECK(sys.of(253, 0).model == "Samsung SSD 870");
    const DriveInfo md = sys.of(9, 0);
    CHECK(md.name == "md0");
    CHECK(md.model == "");
    CHECK(md.logical_block_bytes == 512);
}

TEST_CASE("no disk: nothing known") {
    FakeSysfs sys;
    const DriveInfo d = sys.of(0, 42);  // an anonymous device (tmpfs, btrfs)
    CHECK(d.name == "");
    CHECK(d.logical_block_bytes == 0);
    CHECK(DriveInfo::of("/nonexistent/path", "tmpfs").name == "");
}
