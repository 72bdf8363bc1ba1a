// --rand-block with several sizes: the random phase's operation sizes and
// the share of operations each one takes, as fio's bssplit.
//
// "4K:60,16K:20,128K:20": sizes are powers of two, each listed once, with
// whole-number weights from 1 that sum to 100.  Every operation's size is
// drawn from the run's seed by weight and the operation is aligned to its
// size; the verification unit (the smallest size, or --unit) divides every
// size, so a larger operation covers several units and each is verified and
// diagnosed on its own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ds::units {

struct BlockShare {
    std::uint32_t bytes = 0;
    unsigned weight = 0;  // per cent of the operations
    bool operator==(const BlockShare&) const = default;
};

// Sizes a mix may hold: fio's own bound on bssplit (BSSPLIT_MAX), so any
// fio mix runs.  An operation's size is one look-up in a table of its
// weight's 100 draws and its figures one binary search, whatever the
// count; the cost is memory: each size's figures keep two latency
// histograms (37 KiB each), 4.6 MiB per worker and phase at 64 sizes.
inline constexpr std::size_t kMaxMixSizes = 64;

// Parses "SIZE:WEIGHT,..."; in ascending size order.  Throws
// std::invalid_argument with a one-line reason naming the bad item.
std::vector<BlockShare> parse_block_mix(std::string_view text);

// "4K:60,16K:20,128K:20": the canonical text (ascending sizes).
std::string block_mix_text(const std::vector<BlockShare>& mix);

}  // namespace ds::units
