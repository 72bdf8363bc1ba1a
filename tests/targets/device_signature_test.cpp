// What a raw device already holds, as wipefs names it: file systems, swap,
// partition tables, LVM2, LUKS and md RAID signatures, or nothing recognised.
#include "targets/device_signature.h"

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

using ds::targets::kSignatureBytes;
using ds::targets::signatures_of;

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

TEST_CASE("LVM2, LUKS, md RAID, NTFS and exFAT, as wipefs names them") {
    auto lvm = blank();
    put(lvm, 512, "LABELONE");
    lvm[512 + 20] = 32;  // offset_xl: the PV header right after the label
    put(lvm, 512 + 24, "LVM2 001");
    put(lvm, 512 + 32, "abcdefGHIJKLmnopQRSTuvwxYZ012345");
    CHECK(signatures_of(lvm) == std::vector<std::string>{"LVM2 physical volume, UUID "
                                                         "abcdef-GHIJ-KLmn-opQR-STuv-wxYZ-012345"});

    auto luks2 = blank();
    put(luks2, 0, "LUKS\xba\xbe");
    luks2[7] = 2;
    put(luks2, 24, "vault");
    put(luks2, 168, "5e0f8a4c-1b2d-4e3f-9a8b-7c6d5e4f3a2b");
    CHECK(signatures_of(luks2) ==
          std::vector<std::string>{"LUKS2 encrypted volume, label \"vault\", UUID "
                                   "5e0f8a4c-1b2d-4e3f-9a8b-7c6d5e4f3a2b"});
    luks2[7] = 1;
    CHECK(signatures_of(luks2)[0].starts_with("LUKS1 encrypted volume, UUID 5e0f8a4c"));

    auto md = blank();
    const unsigned char magic[] = {0xfc, 0x4e, 0x2b, 0xa9, 1, 0, 0, 0};
    std::memcpy(md.data() + 4096, magic, sizeof magic);
    for (int i = 0; i < 16; ++i)
        md[4096 + 16 + i] = static_cast<unsigned char>(0xa0 + i);
    put(md, 4096 + 32, "host:0");
    md[4096 + 72] = 1;
    CHECK(signatures_of(md) ==
          std::vector<std::string>{"md RAID member (raid1), label \"host:0\", UUID "
                                   "a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf"});

    auto ntfs = blank();
    put(ntfs, 3, "NTFS    ");
    ntfs[510] = 0x55;
    ntfs[511] = 0xAA;
    const unsigned char serial[] = {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
    std::memcpy(ntfs.data() + 0x48, serial, sizeof serial);
    // The boot sector's 0x55AA is not a partition table here.
    CHECK(signatures_of(ntfs) ==
          std::vector<std::string>{"ntfs filesystem, UUID 1122334455667788"});

    auto exfat = blank();
    put(exfat, 3, "EXFAT   ");
    exfat[510] = 0x55;
    exfat[511] = 0xAA;
    const unsigned char id[] = {0x78, 0x56, 0x34, 0x12};
    std::memcpy(exfat.data() + 100, id, sizeof id);
    CHECK(signatures_of(exfat) == std::vector<std::string>{"exfat filesystem, UUID 1234-5678"});
}
