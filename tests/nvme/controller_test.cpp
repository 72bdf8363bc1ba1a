// The NVMe controller behind a target found in sysfs (namespaces, partitions,
// multipath, device mapper) and its hwmon temperature, or a one-line reason.
#include "nvme/controller.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using ds::nvme::find_nvme_controller;
using ds::nvme::find_nvme_controller_of;
using ds::nvme::read_temperature_celsius;

namespace {

// A fake sysfs root under a temporary directory, laid out as the kernel
// does (paths relative to the root):
//   devices/pci0000:00/0000:00:04.0/nvme/nvme0/            controller
//       hwmon1/{name=nvme,temp1_input=38850}                hwmon on the controller
//       nvme0n1/                                            namespace, 259:0
//       nvme0n1/nvme0n1p2/partition                         its partition, 259:2
//   devices/pci0000:00/0000:00:05.0/                        a second drive's PCI device
//       hwmon/hwmon0/name=pch                               an unrelated sensor
//       hwmon/hwmon3/{name=nvme,temp1_input=-5000}          hwmon on the PCI device (old kernels)
//       nvme/nvme10/, nvme/nvme2/ (device -> ../../)       two controllers of one subsystem
//   devices/virtual/nvme-subsystem/nvme-subsys1/
//       nvme2n1/                                            multipath namespace, 259:5
//       nvme10, nvme2 -> ../../../pci0000:00/0000:00:05.0/nvme/...
//   devices/virtual/block/dm-0/slaves/nvme0n1p2 -> the partition above (253:0)
//   devices/virtual/block/dm-1/slaves/{nvme0n1p2, vda1}    (253:1)
//   devices/pci0000:00/0000:00:02.0/virtio1/block/vda/vda1  virtio disk 254:0, 254:1
//   dev/block/MAJ:MIN -> ../../devices/...                  for each block device
struct FakeSysfs {
    fs::path root;

    FakeSysfs() {
        std::string tmpl = (fs::temp_directory_path() / "controller_test.XXXXXX").string();
        REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
        root = tmpl;
        fs::create_directories(root / "dev/block");
        build_direct_nvme();
        build_multipath_nvme();
        build_stacks_and_virtio();
    }
    ~FakeSysfs() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }

    void file(const fs::path& rel, const std::string& text) const {
        fs::create_directories((root / rel).parent_path());
        std::ofstream(root / rel) << text << "\n";
    }
    void dir(const fs::path& rel) const { fs::create_directories(root / rel); }
    void link(const fs::path& rel, const std::string& target) const {
        fs::create_directories((root / rel).parent_path());
        fs::create_directory_symlink(target, root / rel);
    }
    // (Re)places dev/block/<devno>: a test may reuse the number of the real
    // filesystem the temporary directory is on.
    void block(const std::string& devno, const std::string& device_rel) const {
        fs::remove(root / "dev/block" / devno);
        link("dev/block/" + devno, "../../" + device_rel);
    }

    void build_direct_nvme() const {
        const std::string c = "devices/pci0000:00/0000:00:04.0/nvme/nvme0";
        file(c + "/hwmon1/name", "nvme");
        file(c + "/hwmon1/temp1_input", "38850");
        dir(c + "/nvme0n1");
        file(c + "/nvme0n1/nvme0n1p2/partition", "2");
        block("259:0", c + "/nvme0n1");
        block("259:2", c + "/nvme0n1/nvme0n1p2");
    }
    void build_multipath_nvme() const {
        const std::string pci = "devices/pci0000:00/0000:00:05.0";
        file(pci + "/hwmon/hwmon0/name", "pch");
        file(pci + "/hwmon/hwmon0/temp1_input", "50000");
        file(pci + "/hwmon/hwmon3/name", "nvme");
        file(pci + "/hwmon/hwmon3/temp1_input", "-5000");
        for (const std::string c : {"nvme10", "nvme2"}) {
            dir(pci + "/nvme/" + c);
            link(pci + "/nvme/" + c + "/device", "../../");
        }
        const std::string subsys = "devices/virtual/nvme-subsystem/nvme-subsys1";
        dir(subsys + "/nvme2n1");
        link(subsys + "/nvme10", "../../../pci0000:00/0000:00:05.0/nvme/nvme10");
        link(subsys + "/nvme2", "../../../pci0000:00/0000:00:05.0/nvme/nvme2");
        block("259:5", subsys + "/nvme2n1");
    }
    void build_stacks_and_virtio() const {
        const std::string part = "../../../../pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1/nvme0n1p2";
        const std::string vda = "devices/pci0000:00/0000:00:02.0/virtio1/block/vda";
        file(vda + "/vda1/partition", "1");
        block("254:0", vda);
        block("254:1", vda + "/vda1");
        link("devices/virtual/block/dm-0/slaves/nvme0n1p2", part);
        link("devices/virtual/block/dm-1/slaves/nvme0n1p2", part);
        link("devices/virtual/block/dm-1/slaves/vda1",
             "../../../../pci0000:00/0000:00:02.0/virtio1/block/vda/vda1");
        block("253:0", "devices/virtual/block/dm-0");
        block("253:1", "devices/virtual/block/dm-1");
    }
};

}  // namespace

TEST_CASE("a namespace and its partition lead to their controller and its hwmon") {
    FakeSysfs sys;
    const fs::path ctrl = fs::canonical(sys.root / "devices/pci0000:00/0000:00:04.0/nvme/nvme0");
    for (unsigned minor : {0u, 2u}) {
        auto found = find_nvme_controller_of(259, minor, sys.root.string());
        REQUIRE_MESSAGE(found.controller.has_value(), found.reason);
        CHECK(found.reason == "");
        CHECK(found.controller->name == "nvme0");
        CHECK(found.controller->namespace_name == "nvme0n1");
        CHECK(found.controller->device == "/dev/nvme0");
        CHECK(found.controller->namespace_device == "/dev/nvme0n1");
        CHECK(found.controller->sysfs_dir == ctrl.string());
        CHECK(found.controller->temperature_input == (ctrl / "hwmon1/temp1_input").string());
        auto c = read_temperature_celsius(found.controller->temperature_input);
        REQUIRE(c.has_value());
        CHECK(*c == doctest::Approx(38.85));
    }
}

TEST_CASE("a multipath namespace leads to the lowest-numbered controller of its subsystem") {
    FakeSysfs sys;
    auto found = find_nvme_controller_of(259, 5, sys.root.string());
    REQUIRE_MESSAGE(found.controller.has_value(), found.reason);
    CHECK(found.controller->name == "nvme2");  // nvme2 before nvme10: by number, not text
    CHECK(found.controller->namespace_name == "nvme2n1");
    CHECK(found.controller->device == "/dev/nvme2");
    // hwmon registered on the PCI device (older kernels), the "pch" sensor skipped.
    const fs::path pci = fs::canonical(sys.root / "devices/pci0000:00/0000:00:05.0");
    CHECK(found.controller->temperature_input ==
          (fs::canonical(sys.root / "devices/pci0000:00/0000:00:05.0/nvme/nvme2") /
           "device/hwmon/hwmon3/temp1_input")
              .string());
    CHECK(*read_temperature_celsius(found.controller->temperature_input) == -5);
    CHECK(fs::equivalent(found.controller->temperature_input, pci / "hwmon/hwmon3/temp1_input"));
}

TEST_CASE("a device-mapper device over one NVMe partition leads to its controller") {
    FakeSysfs sys;
    auto found = find_nvme_controller_of(253, 0, sys.root.string());
    REQUIRE_MESSAGE(found.controller.has_value(), found.reason);
    CHECK(found.controller->name == "nvme0");
    CHECK(found.controller->namespace_name == "nvme0n1");
}

TEST_CASE("what is not one NVMe namespace gets a one-line reason") {
    FakeSysfs sys;
    auto two = find_nvme_controller_of(253, 1, sys.root.string());
    CHECK_FALSE(two.controller.has_value());
    CHECK(two.reason ==
          "block device 253:1 (dm-1) spans 2 devices (nvme0n1p2, vda1), not one NVMe namespace");

    auto virtio = find_nvme_controller_of(254, 1, sys.root.string());
    CHECK_FALSE(virtio.controller.has_value());
    CHECK(virtio.reason == "block device 254:1 (vda) is not an NVMe namespace");

    auto missing = find_nvme_controller_of(8, 16, sys.root.string());
    CHECK_FALSE(missing.controller.has_value());
    CHECK(missing.reason == "block device 8:16: " + (sys.root / "dev/block/8:16").string() +
                                ": No such file or directory");

    auto anonymous = find_nvme_controller_of(0, 45, sys.root.string());
    CHECK_FALSE(anonymous.controller.has_value());
    CHECK(anonymous.reason ==
          "device 0:45 is not a block device (tmpfs, overlayfs, btrfs, NFS...)");
}

TEST_CASE("a controller without hwmon is found, with no temperature input") {
    FakeSysfs sys;
    fs::remove_all(sys.root / "devices/pci0000:00/0000:00:04.0/nvme/nvme0/hwmon1");
    auto found = find_nvme_controller_of(259, 0, sys.root.string());
    REQUIRE(found.controller.has_value());
    CHECK(found.controller->temperature_input == "");
}

TEST_CASE("a file's filesystem device is looked up, and the reason names the path") {
    FakeSysfs sys;
    const fs::path f = sys.root / "target.dat";
    std::ofstream(f) << "x";
    struct stat st {};
    REQUIRE(::stat(f.c_str(), &st) == 0);
    const std::string devno =
        std::to_string(::major(st.st_dev)) + ":" + std::to_string(::minor(st.st_dev));
    // Pretend the temporary directory's filesystem lives on nvme0n1p2.
    sys.block(devno, "devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1/nvme0n1p2");
    auto found = find_nvme_controller(f.string(), sys.root.string());
    REQUIRE_MESSAGE(found.controller.has_value(), found.reason);
    CHECK(found.controller->name == "nvme0");
    // The directory itself is on the same filesystem.
    CHECK(find_nvme_controller(sys.root.string(), sys.root.string()).controller.has_value());

    auto gone = find_nvme_controller((sys.root / "absent").string(), sys.root.string());
    CHECK_FALSE(gone.controller.has_value());
    CHECK(gone.reason == (sys.root / "absent").string() + ": No such file or directory");

    auto null = find_nvme_controller("/dev/null", sys.root.string());
    CHECK(null.reason == "/dev/null: not a file, directory or block device");
}

TEST_CASE("on this machine's real sysfs, a temporary file is not on NVMe and says why") {
    // This development machine has no NVMe drive; where one exists the
    // lookup may legitimately succeed, so only the shape is checked then.
    const fs::path dir = fs::temp_directory_path();
    auto found = find_nvme_controller(dir.string());
    if (found.controller) {
        MESSAGE("temporary directory is on " << found.controller->namespace_name);
        CHECK(found.reason == "");
    } else {
        CHECK(found.reason.rfind(dir.string() + ": ", 0) == 0);
        CHECK(found.reason.find('\n') == std::string::npos);
    }
}

TEST_CASE("temperature inputs that cannot be read or parsed give no reading") {
    FakeSysfs sys;
    CHECK_FALSE(read_temperature_celsius((sys.root / "absent").string()).has_value());
    sys.file("bad", "hot");
    CHECK_FALSE(read_temperature_celsius((sys.root / "bad").string()).has_value());
    sys.file("zero", "0");
    CHECK(*read_temperature_celsius((sys.root / "zero").string()) == 0);
}
