#include "target/device_signature.h"

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

using ds::run::kSignatureBytes;
using ds::run::signatures_of;

namespace {

std::vector<unsigned char> blank() {
    return std::vector<unsigned char>(kSignatureBytes, 0);
}

void put(std::vector<unsigned char>& b, std::size_t at, const char* s) {
    std::memcpy(b.data() + at, s, std::strlen(s));
}

}  // namespace

TEST_CASE("nothing recognised: no signature") {
    CHECK(signatures_of(blank()).empty());
    CHECK(signatures_of({}).empty());  // an empty device
}

TEST_CASE("ext2, ext3 and ext4 told apart by their features, with label and UUID") {
    auto b = blank();
    b[1024 + 56] = 0x53;
    b[1024 + 57] = 0xEF;
    for (int i = 0; i < 16; ++i)
        b[1024 + 104 + i] = static_cast<unsigned char>(0x10 + i);
    put(b, 1024 + 120, "data");
    CHECK(signatures_of(b) == std::vector<std::string>{"ext2 filesystem, label \"data\", UUID "
                                                       "10111213-1415-1617-1819-1a1b1c1d1e1f"});
    b[1024 + 92] = 0x4;  // has_journal
    CHECK(signatures_of(b)[0].starts_with("ext3 filesystem"));
    b[1024 + 96] = 0x40;  // extents
    CHECK(signatures_of(b)[0].starts_with("ext4 filesystem"));
}

TEST_CASE("xfs, swap, a GPT and an MBR partition table") {
    auto xfs = blank();
    put(xfs, 0, "XFSB");
    put(xfs, 108, "scratch");
    CHECK(signatures_of(xfs)[0].starts_with("xfs filesystem, label \"scratch\", UUID "));
    auto swap = blank();
    put(swap, 4096 - 10, "SWAPSPACE2");
    CHECK(signatures_of(swap)[0].starts_with("swap, UUID "));
    auto gpt = blank();
    gpt[510] = 0x55;
    gpt[511] = 0xAA;
    put(gpt, 512, "EFI PART");
    CHECK(signatures_of(gpt) == std::vector<std::string>{"gpt partition table"});
    auto mbr = blank();
    mbr[510] = 0x55;
    mbr[511] = 0xAA;
    CHECK(signatures_of(mbr) == std::vector<std::string>{"dos partition table"});
    auto ours = blank();
    put(ours, 0, "DSTRUNIT");
    CHECK(signatures_of(ours) == std::vector<std::string>{"drivestress data of an earlier run"});
}
