#include "units/block_mix.h"

#include <algorithm>
#include <stdexcept>

#include "units/units.h"

namespace ds::units {

namespace {

constexpr std::uint64_t kMinBlock = 512;
constexpr std::uint64_t kMaxBlock = 64ULL << 20;

BlockShare parse_share(const std::string& item) {
    const auto colon = item.find(':');
    if (colon == std::string::npos)
        throw std::invalid_argument("'" + item + "' has no weight (SIZE:WEIGHT, as 4K:60)");
    BlockShare s;
    const std::uint64_t bytes = parse_size(item.substr(0, colon));
    if (bytes < kMinBlock || bytes > kMaxBlock || (bytes & (bytes - 1)) != 0)
        throw std::invalid_argument("'" + item +
                                    "': the size must be a power of two from 512 to 64M");
    s.bytes = static_cast<std::uint32_t>(bytes);
    const std::string weight = item.substr(colon + 1);
    std::uint64_t w = 0;
    try {
        w = parse_count(weight);
    } catch (const std::invalid_argument&) {
        throw std::invalid_argument("'" + item +
                                    "': the weight must be a whole number of per cent");
    }
    if (w < 1 || w > 100)
        throw std::invalid_argument("'" + item + "': the weight must be from 1 to 100");
    s.weight = static_cast<unsigned>(w);
    return s;
}

}  // namespace

std::vector<BlockShare> parse_block_mix(std::string_view text) {
    std::vector<BlockShare> mix;
    unsigned total = 0;
    for (const std::string& item : split_list(text)) {
        const BlockShare s = parse_share(item);
        for (const BlockShare& other : mix)
            if (other.bytes == s.bytes)
                throw std::invalid_argument(format_size_option(s.bytes) + " is listed twice");
        mix.push_back(s);
        total += s.weight;
    }
    if (mix.size() > kMaxMixSizes)
        throw std::invalid_argument("at most " + std::to_string(kMaxMixSizes) + " sizes");
    if (total != 100)
        throw std::invalid_argument("the weights sum to " + std::to_string(total) + ", not 100");
    std::sort(mix.begin(), mix.end(),
              [](const BlockShare& a, const BlockShare& b) { return a.bytes < b.bytes; });
    return mix;
}

std::string block_mix_text(const std::vector<BlockShare>& mix) {
    std::string out;
    for (const BlockShare& s : mix) {
        if (!out.empty()) out += ',';
        out += format_size_option(s.bytes) + ':' + std::to_string(s.weight);
    }
    return out;
}

}  // namespace ds::units
