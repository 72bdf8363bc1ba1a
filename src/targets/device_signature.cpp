#include "targets/device_signature.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "sys/unique_fd.h"

namespace ds::targets {

namespace {

using Bytes = std::span<const unsigned char>;

bool has(Bytes b, std::size_t at, const char* magic) {
    const std::size_t n = std::strlen(magic);
    return at + n <= b.size() && std::memcmp(b.data() + at, magic, n) == 0;
}

std::uint32_t le32(Bytes b, std::size_t at) {
    return std::uint32_t{b[at]} | std::uint32_t{b[at + 1]} << 8 | std::uint32_t{b[at + 2]} << 16 |
           std::uint32_t{b[at + 3]} << 24;
}

// A NUL-padded label as text; "" when empty.
std::string label_at(Bytes b, std::size_t at, std::size_t max) {
    std::string s;
    for (std::size_t i = at; i < at + max && i < b.size() && b[i]; ++i)
        s += static_cast<char>(b[i]);
    return s;
}

// 16 bytes as the usual 8-4-4-4-12 hex groups.
std::string uuid_at(Bytes b, std::size_t at) {
    std::string s;
    for (std::size_t i = 0; i < 16; ++i) {
        char hex[3];
        std::snprintf(hex, sizeof hex, "%02x", b[at + i]);
        s += hex;
        if (i == 3 || i == 5 || i == 7 || i == 9) s += '-';
    }
    return s;
}

std::string named(const std::string& what, const std::string& label, const std::string& uuid) {
    return what + (label.empty() ? "" : ", label \"" + label + "\"") +
           (uuid.empty() ? "" : ", UUID " + uuid);
}

// ext2/3/4: superblock at 1024, magic 0xEF53 at +56; the version from the
// features (journal: ext3; extents, 64bit or flex_bg: ext4).
void ext(Bytes b, std::vector<std::string>& out) {
    constexpr std::size_t sb = 1024;
    if (b.size() < sb + 256 || b[sb + 56] != 0x53 || b[sb + 57] != 0xEF) return;
    const std::uint32_t compat = le32(b, sb + 92), incompat = le32(b, sb + 96);
    const char* type = (incompat & (0x40 | 0x80 | 0x200)) ? "ext4"
                       : (compat & 0x4)                   ? "ext3"
                                                          : "ext2";
    out.push_back(
        named(std::string(type) + " filesystem", label_at(b, sb + 120, 16), uuid_at(b, sb + 104)));
}

// A fixed-width ASCII field (LUKS's UUID), up to its first NUL.
std::string text_at(Bytes b, std::size_t at, std::size_t max) {
    return label_at(b, at, max);
}

// LVM2 physical volume: a "LABELONE" label in one of the first four
// sectors, type "LVM2 001", the PV header (its 32-character UUID first) at
// the label's offset_xl; shown 6-4-4-4-4-4-6 as pvs shows it.
void lvm2(Bytes b, std::vector<std::string>& out) {
    for (std::size_t sector = 0; sector < 4; ++sector) {
        const std::size_t at = sector * 512;
        if (!has(b, at, "LABELONE") || !has(b, at + 24, "LVM2 001")) continue;
        const std::size_t pv = at + le32(b, at + 20);
        const std::string raw = pv + 32 <= b.size() ? text_at(b, pv, 32) : "";
        std::string uuid;
        std::size_t from = 0;
        for (std::size_t len : {6, 4, 4, 4, 4, 4, 6}) {
            if (raw.size() != 32) break;
            if (from) uuid += '-';
            uuid.append(raw, from, len);
            from += len;
        }
        out.push_back(named("LVM2 physical volume", "", raw.size() == 32 ? uuid : raw));
        return;
    }
}

// LUKS1 and LUKS2 headers: magic "LUKS\xba\xbe", version (big-endian 16 bits)
// at 6, the UUID as text at 168; LUKS2 has a label at 24.
void luks(Bytes b, std::vector<std::string>& out) {
    if (b.size() < 208 || !has(b, 0, "LUKS\xba\xbe")) return;
    const unsigned version = unsigned{b[6]} << 8 | b[7];
    out.push_back(named("LUKS" + std::to_string(version) + " encrypted volume",
                        version == 2 ? label_at(b, 24, 48) : "", text_at(b, 168, 40)));
}

// Linux md RAID member, superblock 1.x: magic 0xa92b4efc at 4096 (1.2) or
// 0 (1.1); the array's UUID at +16, its name at +32, its level at +72.
// (0.90 and 1.0 keep theirs at the device's end, beyond what is read.)
void md_raid(Bytes b, std::vector<std::string>& out) {
    for (std::size_t at : {std::size_t{4096}, std::size_t{0}}) {
        if (b.size() < at + 76 || le32(b, at) != 0xa92b4efc || le32(b, at + 4) != 1) continue;
        const auto level = static_cast<std::int32_t>(le32(b, at + 72));
        std::string what = "md RAID member";
        if (level == -1) what.append(" (linear)");
        if (level >= 0 && level <= 10)
            what.append(" (raid").append(std::to_string(level)).append(")");
        out.push_back(named(what, label_at(b, at + 32, 32), uuid_at(b, at + 16)));
        return;
    }
}

// NTFS and exFAT boot sectors: the OEM name at 3; the volume serial number
// (NTFS: 64 bits at 0x48; exFAT: 32 bits at 100) is what wipefs calls UUID.
void ntfs_exfat(Bytes b, std::vector<std::string>& out) {
    char serial[24];
    if (b.size() >= 0x50 && has(b, 3, "NTFS    ")) {
        std::snprintf(serial, sizeof serial, "%08X%08X", le32(b, 0x4c), le32(b, 0x48));
        out.push_back(named("ntfs filesystem", "", serial));
    } else if (b.size() >= 104 && has(b, 3, "EXFAT   ")) {
        const std::uint32_t s = le32(b, 100);
        std::snprintf(serial, sizeof serial, "%04X-%04X", s >> 16, s & 0xffff);
        out.push_back(named("exfat filesystem", "", serial));
    }
}

}  // namespace

std::vector<std::string> signatures_of(Bytes b) {
    std::vector<std::string> out;
    ext(b, out);
    lvm2(b, out);
    luks(b, out);
    md_raid(b, out);
    ntfs_exfat(b, out);
    if (has(b, 0, "XFSB") && b.size() >= 120)
        out.push_back(named("xfs filesystem", label_at(b, 108, 12), uuid_at(b, 32)));
    if (has(b, 65536 + 64, "_BHRfS_M"))
        out.push_back(
            named("btrfs filesystem", label_at(b, 65536 + 299, 256), uuid_at(b, 65536 + 32)));
    if (has(b, 4096 - 10, "SWAPSPACE2"))
        out.push_back(named("swap", label_at(b, 1024 + 28, 16), uuid_at(b, 1024 + 12)));
    const bool boot_signature = b.size() >= 512 && b[510] == 0x55 && b[511] == 0xAA;
    const bool fat = has(b, 82, "FAT32   ") || has(b, 54, "FAT16   ") || has(b, 54, "FAT12   ");
    if (fat && boot_signature)
        out.push_back(named("vfat filesystem", label_at(b, has(b, 82, "FAT32") ? 71 : 43, 11), ""));
    if (has(b, 512, "EFI PART"))
        out.push_back("gpt partition table");
    else if (boot_signature && !fat && out.empty())
        out.push_back("dos partition table");
    if (has(b, 0, "DSTRUNIT"))  // pattern/unit.h's kUnitMagic
        out.push_back("drivestress data of an earlier run");
    return out;
}

std::vector<std::string> device_signatures(const std::string& path) {
    sys::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) return {std::string("unreadable: ") + std::strerror(errno)};
    std::vector<unsigned char> head(kSignatureBytes);
    std::size_t got = 0;
    while (got < head.size()) {
        const ssize_t n =
            ::pread(fd.get(), head.data() + got, head.size() - got, static_cast<off_t>(got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return {std::string("unreadable: ") + std::strerror(errno)};
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    head.resize(got);
    return signatures_of(head);
}

}  // namespace ds::targets
