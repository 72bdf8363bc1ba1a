// Where a replayed trace's operations land: rounded out to units, cut at
// file boundaries and at the largest piece, devices to targets, refusals.
#include "run/replay.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "model/errors.h"

using namespace ds;

namespace {

model::ReplayInfo info_with(std::vector<std::uint64_t> extents) {
    model::ReplayInfo i;
    i.source = "t.txt";
    for (std::size_t d = 0; d < extents.size(); ++d)
        i.devices.push_back("8," + std::to_string(16 * d));
    i.extents = std::move(extents);
    return i;
}

constexpr std::uint64_t MiB = 1 << 20;

}  // namespace

TEST_CASE("an operation is rounded out to whole units and cut at each file's end") {
    const auto l = run::replay_layout(info_with({8 * MiB}), 1, 2, 4 * MiB, 4096, false, {"/t"});
    std::vector<run::ReplayPiece> out;
    CHECK(run::place_operation(l, 0, io::OpKind::write, 512, 1024, true, 7, out));
    REQUIRE(out.size() == 1);
    CHECK(out[0].file == 0);
    CHECK((out[0].op.offset == 0 && out[0].op.length == 4096 && out[0].op.fua &&
           out[0].op.due_ns == 7));
    out.clear();
    // 8 KiB across the boundary of the two 4 MiB files: a piece in each.
    CHECK_FALSE(run::place_operation(l, 0, io::OpKind::read, 4 * MiB - 4096, 8192, false, 0, out));
    REQUIRE(out.size() == 2);
    CHECK((out[0].file == 0 && out[0].op.offset == 4 * MiB - 4096 && out[0].op.length == 4096));
    CHECK((out[1].file == 1 && out[1].op.offset == 0 && out[1].op.length == 4096));
    CHECK_FALSE(out[1].op.fua);  // a read is never FUA
    out.clear();
    // A 3 MiB write: pieces of at most 1 MiB; a 3 MiB trim stays whole.
    run::place_operation(l, 0, io::OpKind::write, 0, 3 * MiB, false, 0, out);
    CHECK(out.size() == 3);
    out.clear();
    run::place_operation(l, 0, io::OpKind::trim, 0, 3 * MiB, false, 0, out);
    CHECK(out.size() == 1);
    out.clear();
    // A flush goes to every file of its target.
    run::place_operation(l, 0, io::OpKind::fdatasync, 0, 0, false, 5, out);
    REQUIRE(out.size() == 2);
    CHECK((out[0].file == 0 && out[1].file == 1 && out[1].op.length == 0));
}

TEST_CASE("devices go to the targets in order, or one after the other onto one") {
    SUBCASE("two devices, two targets of one file each") {
        const auto l =
            run::replay_layout(info_with({MiB, MiB}), 2, 1, 2 * MiB, 4096, false, {"/a", "/b"});
        std::vector<run::ReplayPiece> out;
        run::place_operation(l, 1, io::OpKind::write, 4096, 4096, false, 0, out);
        REQUIRE(out.size() == 1);
        CHECK((out[0].file == 1 && out[0].op.offset == 4096));
    }
    SUBCASE("two devices onto one target: the second after the first's extent") {
        const auto l =
            run::replay_layout(info_with({MiB + 1, MiB}), 1, 1, 4 * MiB, 4096, false, {"/a"});
        std::vector<run::ReplayPiece> out;
        run::place_operation(l, 1, io::OpKind::read, 0, 4096, false, 0, out);
        REQUIRE(out.size() == 1);
        CHECK(out[0].op.offset == MiB + 4096);  // the first's extent rounded up to a unit
    }
    SUBCASE("three devices and two targets are refused, naming both counts") {
        CHECK_THROWS_WITH_AS(run::replay_layout(info_with({MiB, MiB, MiB}), 2, 1, 4 * MiB, 4096,
                                                false, {"/a", "/b"}),
                             doctest::Contains("3 devices and the run 2 targets"),
                             model::SetupError);
    }
}

TEST_CASE("beyond the target: refused, or folded round with wrap") {
    CHECK_THROWS_WITH_AS(
        run::replay_layout(info_with({9 * MiB}), 1, 2, 4 * MiB, 4096, false, {"/t"}),
        doctest::Contains("device 8,0 reaches 9 MiB, beyond /t's 8 MiB:"), model::SetupError);
    // One byte over: the rounded sizes alone would read "4.0 MiB, beyond ... 4 MiB".
    CHECK_THROWS_WITH_AS(
        run::replay_layout(info_with({4 * MiB + 1}), 1, 1, 4 * MiB, 4096, false, {"/t"}),
        doctest::Contains(
            "device 8,0 reaches 4.0 MiB (4194305 bytes), beyond /t's 4 MiB (4194304 bytes):"),
        model::SetupError);
    const auto l = run::replay_layout(info_with({9 * MiB}), 1, 2, 4 * MiB, 4096, true, {"/t"});
    std::vector<run::ReplayPiece> out;
    run::place_operation(l, 0, io::OpKind::write, 8 * MiB + 8192, 4096, false, 0, out);
    REQUIRE(out.size() == 1);
    CHECK((out[0].file == 0 && out[0].op.offset == 8192));
    out.clear();
    // Folded, it would cross the end: it is moved back to fit.
    run::place_operation(l, 0, io::OpKind::write, 16 * MiB - 4096, 8192, false, 0, out);
    REQUIRE(out.size() == 1);
    CHECK((out[0].file == 1 && out[0].op.offset == 4 * MiB - 8192 && out[0].op.length == 8192));
}
