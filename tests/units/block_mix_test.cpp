// --rand-block's mix of sizes: parsing, the canonical text and every refusal.
#include "units/block_mix.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

using namespace ds;
using units::BlockShare;

namespace {

// The message parse_block_mix refuses `text` with ("" when it accepts it).
std::string refusal(const std::string& text) {
    try {
        units::parse_block_mix(text);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a mix is sorted by size, weights kept, and printed as the option takes it") {
    const auto mix = units::parse_block_mix("128K:20,4k:60, 16KiB:20");
    REQUIRE(mix.size() == 3);
    CHECK(mix[0] == BlockShare{4096, 60});
    CHECK(mix[1] == BlockShare{16384, 20});
    CHECK(mix[2] == BlockShare{131072, 20});
    CHECK(units::block_mix_text(mix) == "4K:60,16K:20,128K:20");
    CHECK(units::block_mix_text(units::parse_block_mix("512:100")) == "512:100");
}

TEST_CASE("refusals name the bad item and the accepted form") {
    CHECK(refusal("4K:60,16K:20") == "the weights sum to 80, not 100");
    CHECK(refusal("4K:60,4K:40") == "4K is listed twice");
    CHECK(refusal("3K:50,4K:50").find("'3K:50': the size must be a power of two") == 0);
    CHECK(refusal("256:50,4K:50").find("power of two from 512 to 64M") != std::string::npos);
    CHECK(refusal("128M:100").find("power of two from 512 to 64M") != std::string::npos);
    CHECK(refusal("4K,8K:100") == "'4K' has no weight (SIZE:WEIGHT, as 4K:60)");
    CHECK(refusal("4K:x,8K:50") == "'4K:x': the weight must be a whole number of per cent");
    CHECK(refusal("4K:0,8K:100") == "'4K:0': the weight must be from 1 to 100");
    CHECK(refusal("4K:101") == "'4K:101': the weight must be from 1 to 100");
    // Every power of two from 512 to 64M once (18 sizes): within kMaxMixSizes.
    CHECK(refusal("512:15,1K:5,2K:5,4K:5,8K:5,16K:5,32K:5,64K:5,128K:5,256K:5,512K:5,1M:5,2M:5,"
                  "4M:5,8M:5,16M:5,32M:5,64M:5")
              .empty());
    CHECK(!refusal("4K:60,,8K:40").empty());
    CHECK(refusal("4K:60,16K:20,128K:20").empty());
}
