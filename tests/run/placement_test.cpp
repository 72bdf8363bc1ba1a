// Placement on a fake two-node sysfs tree: which CPUs each worker of each
// target is given, from its device's NUMA node or from --cpus.
#include "run/placement.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace ds;
namespace fs = std::filesystem;

namespace {

// A directory laid out as /sys: two nodes (CPUs 0-3 and 4-7), nvme0n1 on
// node 0, nvme1n1 (with its partition p1) on node 1, loop0 on none.
struct FakeSysfs {
    fs::path root;
    FakeSysfs() {
        std::string tmpl = (fs::temp_directory_path() / "placement_test.XXXXXX").string();
        REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
        root = tmpl;
        put("devices/system/node/node0/cpulist", "0-3\n");
        put("devices/system/node/node1/cpulist", "4-7\n");
        put("devices/system/node/possible", "0-1\n");  // not a node directory
        put("class/block/nvme0n1/device/numa_node", "0\n");
        put("class/block/nvme1n1/device/numa_node", "1\n");
        fs::create_directories(root / "class/block/nvme1n1/nvme1n1p1");
        fs::create_directory_symlink("nvme1n1/nvme1n1p1", root / "class/block/nvme1n1p1");
        put("class/block/loop0/dev", "7:0\n");
    }
    ~FakeSysfs() { fs::remove_all(root); }
    void put(const std::string& rel, const std::string& text) const {
        fs::create_directories((root / rel).parent_path());
        std::ofstream(root / rel) << text;
    }
    sys::SysfsTree tree() const { return sys::SysfsTree(root.string()); }
};

using Sets = std::vector<std::vector<unsigned>>;
const std::vector<unsigned> kNode0{0, 1, 2, 3}, kNode1{4, 5, 6, 7};

}  // namespace

TEST_CASE("cpulist text") {
    CHECK(sys::parse_cpulist("0-3,8,10-11") == std::vector<unsigned>{0, 1, 2, 3, 8, 10, 11});
    CHECK(sys::parse_cpulist("5") == std::vector<unsigned>{5});
    CHECK(sys::parse_cpulist("3-1").empty());
    CHECK(sys::parse_cpulist("a-b").empty());
    CHECK(sys::parse_cpulist("").empty());
}

TEST_CASE("two nodes: each target's workers on its device's node") {
    FakeSysfs fake;
    const auto tree = fake.tree();
    const auto nodes = sys::numa_nodes(tree);
    REQUIRE(nodes.size() == 2);
    CHECK(nodes[1].cpus == kNode1);
    CHECK(sys::device_numa_node(tree, "/dev/nvme1n1p1") == 1);  // a partition: its disk's
    CHECK_FALSE(sys::device_numa_node(tree, "/dev/loop0"));
    CHECK_FALSE(sys::device_numa_node(tree, "tmpfs"));

    const auto p =
        run::place_targets({}, {"/dev/nvme0n1", "/dev/nvme1n1p1", "/dev/loop0"}, 2, tree);
    REQUIRE(p.size() == 3);
    CHECK(p[0].how == run::TargetPlacement::How::numa_node);
    CHECK(p[1].numa_node == 1);
    CHECK(p[2].how == run::TargetPlacement::How::anywhere);
    CHECK(run::worker_cpu_sets(p, 2) == Sets{kNode0, kNode0, kNode1, kNode1, {}, {}});
    CHECK(run::placement_text(p[1]) == "numa node 1 (cpus 4-7)");
    CHECK(run::placement_text(p[2]) == "any cpu");

    SUBCASE("--cpus wins: worker i of the run (every target's) on CPU LIST[i % count]") {
        const auto q = run::place_targets({2, 5}, {"/dev/nvme0n1", "/dev/nvme1n1"}, 3, tree);
        CHECK(run::worker_cpu_sets(q, 3) == Sets{{2}, {5}, {2}, {5}, {2}, {5}});
        CHECK(q[1].cpus == std::vector<unsigned>{5, 2});   // its first worker on 5
        CHECK(run::placement_text(q[0]) == "--cpus 2,5");  // the whole list: said once
        CHECK(q[1].numa_node == 1);                        // still said
        // Two targets of two workers on four CPUs: each worker a CPU of its
        // own, and each target says which.
        const auto four =
            run::place_targets({0, 1, 2, 3}, {"/dev/nvme0n1", "/dev/nvme1n1"}, 2, tree);
        CHECK(run::worker_cpu_sets(four, 2) == Sets{{0}, {1}, {2}, {3}});
        CHECK(four[1].cpus == std::vector<unsigned>{2, 3});
        CHECK(run::placement_text(four[1]) == "cpus 2-3 of --cpus 0-3");
        // Three CPUs, two targets of two: the second wraps to the list's start.
        const auto three = run::place_targets({4, 5, 6}, {"/dev/nvme0n1", "/dev/nvme1n1"}, 2, tree);
        CHECK(run::worker_cpu_sets(three, 2) == Sets{{4}, {5}, {6}, {4}});
        CHECK(run::placement_text(three[1]) == "cpus 4,6 of --cpus 4-6");
    }
}

TEST_CASE("one node: nothing to choose, workers run anywhere") {
    FakeSysfs fake;
    fs::remove_all(fake.root / "devices/system/node/node1");
    const auto p = run::place_targets({}, {"/dev/nvme0n1"}, 2, fake.tree());
    CHECK(p[0].how == run::TargetPlacement::How::anywhere);
    CHECK(run::worker_cpu_sets(p, 2) == Sets{{}, {}});
    CHECK(run::placement_text(p[0]) == "any cpu (numa node 0)");
}
