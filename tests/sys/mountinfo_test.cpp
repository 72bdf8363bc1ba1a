// /proc/self/mountinfo parsed: lines with optional fields, escaped paths, a
// mount found by id or device, and this process's own table.
#include "sys/mountinfo.h"

#include <sys/sysmacros.h>

#include <doctest/doctest.h>

using ds::sys::MountEntry;

namespace {

const char* kTable =
    "22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n"
    "36 22 0:41 /sub /mnt/with\\040space rw master:3 shared:9 - btrfs /dev/loop0 rw,space_cache\n"
    "40 22 0:45 / /merged rw - overlay overlay "
    "rw,lowerdir=/l,upperdir=/u/a\\,b,workdir=/w\n"
    "garbage line without the separator\n"
    "41 22 x:y / /bad rw - ext4 /dev/x rw\n";

}  // namespace

TEST_CASE("every well-formed line, optional fields skipped, paths unescaped") {
    const auto t = ds::sys::parse_mountinfo(kTable);
    REQUIRE(t.size() == 3);
    CHECK(t[0].id == 22);
    CHECK(t[0].dev == makedev(254, 1));
    CHECK(t[0].mount_point == "/");
    CHECK(t[0].fstype == "ext4");
    CHECK(t[0].source == "/dev/vda1");
    CHECK(t[1].mount_point == "/mnt/with space");
    CHECK(t[1].root == "/sub");
    CHECK(t[1].fstype == "btrfs");
    CHECK(t[2].super_options == "rw,lowerdir=/l,upperdir=/u/a\\,b,workdir=/w");
}

TEST_CASE("a mount found by id when there is one, else by device") {
    const auto t = ds::sys::parse_mountinfo(kTable);
    const MountEntry* by_id = ds::sys::find_mount(t, 36, makedev(254, 1));
    REQUIRE(by_id != nullptr);
    CHECK(by_id->fstype == "btrfs");
    const MountEntry* by_dev = ds::sys::find_mount(t, std::nullopt, makedev(254, 1));
    REQUIRE(by_dev != nullptr);
    CHECK(by_dev->id == 22);
    CHECK(ds::sys::find_mount(t, 99, 0) == nullptr);
}

TEST_CASE("octal escapes decoded; a backslash before anything else dropped") {
    CHECK(ds::sys::unescape_mount_field("a\\040b\\011c\\134d") == "a b\tc\\d");
    CHECK(ds::sys::unescape_mount_field("/u/a\\,b") == "/u/a,b");
    CHECK(ds::sys::unescape_mount_field("end\\04") == "end04");  // too short: not octal
    CHECK(ds::sys::unescape_mount_field("\\") == "\\");
}

TEST_CASE("this process's own table has the root mount") {
    const auto t = ds::sys::read_mountinfo();
    REQUIRE(t.has_value());
    bool root = false;
    for (const auto& e : *t)
        root = root || e.mount_point == "/";
    CHECK(root);
}
