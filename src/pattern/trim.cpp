#include "pattern/trim.h"

#include <algorithm>
#include <cstring>

namespace ds::pattern {

std::string_view to_string(TrimPromise p) {
    switch (p) {
        case TrimPromise::zeros:
            return "zeros";
        case TrimPromise::ones:
            return "0xff";
        case TrimPromise::unspecified:
            return "unspecified";
    }
    return "unspecified";
}

namespace {

bool all_of_byte(std::span<const std::byte> s, std::byte b) {
    return std::all_of(s.begin(), s.end(), [b](std::byte x) { return x == b; });
}

// A sector as a trim may leave it.
bool trimmed_sector(std::span<const std::byte> s, TrimPromise p) {
    switch (p) {
        case TrimPromise::zeros:
            return all_of_byte(s, std::byte{0});
        case TrimPromise::ones:
            return all_of_byte(s, std::byte{0xFF});
        case TrimPromise::unspecified:
            return all_of_byte(s, std::byte{0}) || all_of_byte(s, std::byte{0xFF});
    }
    return false;
}

}  // namespace

TrimRead check_trimmed(std::span<const std::byte> actual, const UnitIdentity& last,
                       TrimPromise promise, std::span<std::byte> scratch) {
    const std::size_t n = actual.size();
    // The common answer first: the whole unit is what a trim leaves.
    bool all_trimmed = true;
    for (std::size_t at = 0; at < n && all_trimmed; at += kSectorBytes)
        all_trimmed = trimmed_sector(actual.subspan(at, kSectorBytes), promise);
    if (all_trimmed) return TrimRead::trimmed;
    if (last.generation == kUnknownGeneration) return TrimRead::wrong;
    fill_unit(scratch.first(n), last);
    for (std::size_t at = 0; at < n; at += kSectorBytes) {
        const std::span<const std::byte> s = actual.subspan(at, kSectorBytes);
        if (trimmed_sector(s, promise)) continue;
        if (std::memcmp(s.data(), scratch.data() + at, kSectorBytes) != 0) return TrimRead::wrong;
    }
    // Every sector is trimmed or the old content, some the old content.
    return promise == TrimPromise::unspecified ? TrimRead::kept : TrimRead::not_honoured;
}

}  // namespace ds::pattern
