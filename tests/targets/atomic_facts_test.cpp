// A block queue's atomic-write limits read from a fake sysfs tree laid out
// as /sys is (dev/block/MAJ:MIN links to the device's directory; a
// partition's queue is its disk's), and a file's promise from statx.
#include "targets/atomic_facts.h"

#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

struct FakeSysfs {
    fs::path root;
    FakeSysfs() {
        std::string t = (fs::temp_directory_path() / "drivestress-sysfs.XXXXXX").string();
        REQUIRE(::mkdtemp(t.data()) != nullptr);
        root = t;
        fs::create_directories(root / "dev" / "block");
    }
    ~FakeSysfs() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }
    // A disk at devices/.../NAME with queue files `limits` (name, value).
    fs::path disk(const std::string& devno, const std::string& name,
                  std::initializer_list<std::pair<const char*, const char*>> limits) {
        const fs::path dir = root / "devices" / "virtual" / "block" / name;
        fs::create_directories(dir / "queue");
        for (const auto& [file, value] : limits)
            std::ofstream(dir / "queue" / file) << value << "\n";
        fs::create_directory_symlink(dir, root / "dev" / "block" / devno);
        return dir;
    }
    void partition(const fs::path& disk, const std::string& devno, const std::string& name) {
        fs::create_directories(disk / name);
        std::ofstream(disk / name / "partition") << "1\n";
        fs::create_directory_symlink(disk / name, root / "dev" / "block" / devno);
    }
};

}  // namespace

TEST_CASE("a queue's four limits, in bytes, and any other atomic_write_ file") {
    FakeSysfs sys;
    sys.disk("259:0", "nvme0n1",
             {{"atomic_write_unit_min_bytes", "4096"},
              {"atomic_write_unit_max_bytes", "16384"},
              {"atomic_write_max_bytes", "131072"},
              {"atomic_write_boundary_bytes", "0"},
              {"atomic_write_hw_max_bytes", "262144"},
              {"discard_max_bytes", "2199023255040"}});
    std::string note;
    const auto q = ds::targets::read_queue_atomic(259, 0, sys.root.string(), note);
    REQUIRE(q.has_value());
    CHECK(q->device == "nvme0n1");
    CHECK(q->unit_min == 4096);
    CHECK(q->unit_max == 16384);
    CHECK(q->max_bytes == 131072);
    CHECK(q->boundary == 0);
    REQUIRE(q->other.size() == 1);  // not discard_max_bytes
    CHECK(q->other[0].first == "atomic_write_hw_max_bytes");
    CHECK(q->other[0].second == 262144);
    CHECK(note.empty());
}

TEST_CASE("a partition's limits are its disk's, named by the disk") {
    FakeSysfs sys;
    const fs::path disk = sys.disk("259:0", "nvme0n1",
                                   {{"atomic_write_unit_min_bytes", "512"},
                                    {"atomic_write_unit_max_bytes", "65536"},
                                    {"atomic_write_max_bytes", "65536"},
                                    {"atomic_write_boundary_bytes", "131072"}});
    sys.partition(disk, "259:1", "nvme0n1p1");
    std::string note;
    const auto q = ds::targets::read_queue_atomic(259, 1, sys.root.string(), note);
    REQUIRE(q.has_value());
    CHECK(q->device == "nvme0n1");
    CHECK(q->unit_min == 512);
    CHECK(q->boundary == 131072);
}

TEST_CASE("a loop device's queue has none: all zeros") {
    FakeSysfs sys;
    sys.disk("7:3", "loop3",
             {{"atomic_write_unit_min_bytes", "0"},
              {"atomic_write_unit_max_bytes", "0"},
              {"atomic_write_max_bytes", "0"},
              {"atomic_write_boundary_bytes", "0"}});
    std::string note;
    const auto q = ds::targets::read_queue_atomic(7, 3, sys.root.string(), note);
    REQUIRE(q.has_value());
    CHECK(q->unit_max == 0);
    CHECK(q->unit_min == 0);
}

TEST_CASE("no queue to read: a kernel before 6.11, an unknown device, no block device") {
    FakeSysfs sys;
    sys.disk("8:0", "sda", {{"logical_block_size", "512"}});
    std::string note;
    CHECK_FALSE(ds::targets::read_queue_atomic(8, 0, sys.root.string(), note));
    CHECK(note == "block device 8:0: no queue/atomic_write_unit_max_bytes in sysfs");
    CHECK_FALSE(ds::targets::read_queue_atomic(8, 16, sys.root.string(), note));
    CHECK(note.find("8:16") != std::string::npos);
    CHECK_FALSE(ds::targets::read_queue_atomic(0, 45, sys.root.string(), note));
    CHECK(note == "no block device under the filesystem");
}

TEST_CASE("a raw device's promise is its queue's; a path that is no device, none") {
    const ds::model::AtomicPromise p = ds::targets::raw_atomic_promise("/dev/null", "/sys");
    CHECK(p.raw);
    CHECK_FALSE(p.queue.has_value());
    CHECK(p.queue_note == "/dev/null: not a block device");
    CHECK_FALSE(p.supported());
}

TEST_CASE("a file's promise comes from statx on it") {
    char path[] = "/tmp/drivestress-atomic-XXXXXX";
    const int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::unlink(path);
    const ds::model::AtomicPromise p = ds::targets::file_atomic_promise(fd, "/nonexistent-sysfs");
    ::close(fd);
    CHECK_FALSE(p.raw);
    CHECK(p.statx.has_value());  // the call answered, whatever this kernel says
    CHECK(p.statx_error.empty());
    CHECK_FALSE(p.queue.has_value());  // no such sysfs
    CHECK_FALSE(p.queue_note.empty());
}
