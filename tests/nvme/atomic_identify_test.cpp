// What an NVMe controller and namespace promise about untorn writes, from
// the Identify fixtures (no NVMe device here: reading one answers with a
// reason, never a value).
#include "nvme/atomic_identify.h"

#include <doctest/doctest.h>

#include <array>
#include <span>

#include "atomic_identify_fixture.h"

using ds::nvme::AtomicIdentify;
using ds::nvme::parse_atomic_identify;

constexpr std::uint64_t KiB = 1024;

TEST_CASE("Identify's atomic fields are read at their offsets") {
    const AtomicIdentify a =
        parse_atomic_identify(fixture::atomic_controller(), fixture::atomic_namespace());
    CHECK(a.lba_bytes == 4096);
    CHECK(a.awun == 0x00FF);
    CHECK(a.awupf == 0x0001);
    CHECK(a.namespace_atomics);
    CHECK(a.nawun == 0x0007);
    CHECK(a.nawupf == 0x0003);
    CHECK(a.nabsn == 0x001F);
    CHECK(a.nabo == 0x0010);
    CHECK(a.nabspf == 0x000F);
}

TEST_CASE("with NSABP the namespace's fields promise, 0's based, in its blocks") {
    const AtomicIdentify a =
        parse_atomic_identify(fixture::atomic_controller(), fixture::atomic_namespace());
    CHECK(a.any_write_bytes() == 32 * KiB);   // NAWUN: 8 x 4 KiB
    CHECK(a.power_fail_bytes() == 16 * KiB);  // NAWUPF: 4 x 4 KiB
    CHECK(a.boundary_bytes() == 128 * KiB);   // NABSN: 32 blocks
    CHECK(a.power_fail_boundary_bytes() == 64 * KiB);
    CHECK(a.boundary_offset_bytes() == 64 * KiB);  // NABO: LBA 16
}

TEST_CASE("without NSABP the controller's AWUN and AWUPF promise, with no boundaries") {
    fixture::Identify ns = fixture::atomic_namespace();
    ns[24] = std::byte{0x00};
    const AtomicIdentify a = parse_atomic_identify(fixture::atomic_controller(), ns);
    CHECK_FALSE(a.namespace_atomics);
    CHECK(a.any_write_bytes() == 1024 * KiB);  // AWUN: 256 x 4 KiB
    CHECK(a.power_fail_bytes() == 8 * KiB);    // AWUPF: 2 x 4 KiB
    CHECK(a.boundary_bytes() == 0);
    CHECK(a.power_fail_boundary_bytes() == 0);
}

TEST_CASE("the block is the LBA format FLBAS names, bits 6:5 above 3:0") {
    fixture::Identify ns = fixture::atomic_namespace();
    ns[26] = std::byte{0x21};  // format 17: (1 << 4) | 1
    ns[128 + 4 * 17 + 2] = std::byte{0x0D};
    CHECK(parse_atomic_identify(fixture::atomic_controller(), ns).lba_bytes == 8192);
    ns[26] = std::byte{0x00};  // format 0: 512 bytes
    const AtomicIdentify a = parse_atomic_identify(fixture::atomic_controller(), ns);
    CHECK(a.lba_bytes == 512);
    CHECK(a.power_fail_bytes() == 2 * KiB);
}

TEST_CASE("pages too short leave their fields at 0: one 512-byte block") {
    std::array<std::byte, 16> tiny{};
    const AtomicIdentify a = parse_atomic_identify(tiny, tiny);
    CHECK(a.lba_bytes == 512);
    CHECK(a.awupf == 0);
    CHECK_FALSE(a.namespace_atomics);
    CHECK(a.power_fail_bytes() == 512);
}

TEST_CASE("the Identify Controller command: opcode 06h, CNS 01h, no namespace, 4 KiB") {
    std::array<std::byte, ds::nvme::kIdentifyBytes> buf{};
    const nvme_admin_cmd c = ds::nvme::identify_controller_command(buf);
    CHECK(c.opcode == 0x06);
    CHECK(c.nsid == 0);
    CHECK(c.cdw10 == 1);
    CHECK(c.data_len == 4096);
    CHECK(c.addr == reinterpret_cast<std::uintptr_t>(buf.data()));
}

TEST_CASE("a device that is not an NVMe namespace gives a reason, not a value") {
    const auto r = ds::nvme::read_atomic_identify("/dev/null");
    CHECK_FALSE(r.value.has_value());
    CHECK(r.reason.find("/dev/null") != std::string::npos);
    const auto missing = ds::nvme::read_atomic_identify("/nonexistent/nvme9n1");
    CHECK_FALSE(missing.value.has_value());
    CHECK(missing.reason.find("open") != std::string::npos);
}
