// DLFEAT from an Identify Namespace data structure, and the command that asks
// for it.  No NVMe device here: read_deallocated() on anything else answers
// with a reason, never a value.
#include "nvme/identify_namespace.h"

#include <doctest/doctest.h>

#include <array>

using ds::nvme::DeallocatedRead;

TEST_CASE("DLFEAT bits 2:0 say what a deallocated block reads back as") {
    std::array<std::byte, ds::nvme::kIdentifyBytes> id{};
    CHECK(ds::nvme::deallocated_read(id) == DeallocatedRead::not_reported);
    id[33] = std::byte{0x01};
    CHECK(ds::nvme::deallocated_read(id) == DeallocatedRead::zeros);
    id[33] = std::byte{0x02};
    CHECK(ds::nvme::deallocated_read(id) == DeallocatedRead::ones);
    id[33] = std::byte{0x09};  // bit 3 (deallocate in Write Zeroes) does not change the read
    CHECK(ds::nvme::deallocated_read(id) == DeallocatedRead::zeros);
    id[33] = std::byte{0x13};  // 011b: reserved
    CHECK(ds::nvme::deallocated_read(id) == DeallocatedRead::not_reported);
    id[32] = std::byte{0x01};  // the byte before is another field
    id[33] = std::byte{0x00};
    CHECK(ds::nvme::deallocated_read(id) == DeallocatedRead::not_reported);
    CHECK(ds::nvme::deallocated_read(std::span(id).first(20)) == DeallocatedRead::not_reported);
}

TEST_CASE("the Identify Namespace command: opcode 06h, CNS 00h, the namespace, 4 KiB") {
    std::array<std::byte, ds::nvme::kIdentifyBytes> buf{};
    const nvme_admin_cmd c = ds::nvme::identify_namespace_command(3, buf);
    CHECK(c.opcode == 0x06);
    CHECK(c.nsid == 3);
    CHECK(c.cdw10 == 0);
    CHECK(c.data_len == 4096);
    CHECK(c.addr == reinterpret_cast<std::uintptr_t>(buf.data()));
}

TEST_CASE("a device that is not an NVMe namespace gives a reason, not a value") {
    const auto r = ds::nvme::read_deallocated("/dev/null");
    CHECK_FALSE(r.value.has_value());
    CHECK(r.reason.find("/dev/null") != std::string::npos);
    const auto missing = ds::nvme::read_deallocated("/nonexistent/nvme9n1");
    CHECK_FALSE(missing.value.has_value());
    CHECK(missing.reason.find("open") != std::string::npos);
}
