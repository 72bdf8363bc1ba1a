// The access distributions (uniform, zipf, pareto, normal, zoned): shares of the
// hot ranks as predicted, the permutation, the distinct estimate and the spelling.
#include "stats/distribution.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

using ds::stats::Distribution;
using ds::stats::DistributionKind;
using ds::stats::parse_distribution;
using ds::stats::SkewTally;

namespace {

// The random phase's generator: xorshift128+, seeded by splitmix64.
struct XorShift128Plus {
    std::uint64_t s0, s1;
    explicit XorShift128Plus(std::uint64_t seed) {
        s0 = mix(seed) | 1;
        s1 = mix(seed + 1);
    }
    static std::uint64_t mix(std::uint64_t z) {
        z += 0x9E3779B97F4A7C15ULL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    std::uint64_t operator()() {
        std::uint64_t a = s0;
        const std::uint64_t b = s1;
        s0 = b;
        a ^= a << 23;
        s1 = a ^ b ^ (a >> 17) ^ (b >> 26);
        return s1 + b;
    }
};

Distribution make(std::string_view text, std::uint64_t n, std::uint64_t seed = 7) {
    return Distribution(parse_distribution(text), n, seed);
}

// The observed share of `draws` ranks in the hottest 1 %, 10 %, 20 %.
SkewTally tally(const Distribution& d, std::uint64_t draws, std::uint64_t seed) {
    XorShift128Plus rng(seed);
    SkewTally t(d.units());
    for (std::uint64_t i = 0; i < draws; ++i) {
        const std::uint64_t rank = d.draw_rank(rng);
        t.add(rank, d.unit_of(rank));
    }
    return t;
}

void check_hot_shares(std::string_view text, std::uint64_t n) {
    const Distribution d = make(text, n);
    const SkewTally t = tally(d, 1'000'000, 11);
    CHECK(t.ops() == 1'000'000);
    for (std::size_t i = 0; i < SkewTally::kHotFractions.size(); ++i) {
        const double predicted = d.predicted_hot_share(SkewTally::kHotFractions[i]);
        CAPTURE(text);
        CAPTURE(n);
        CAPTURE(SkewTally::kHotFractions[i]);
        CAPTURE(predicted);
        CHECK(std::abs(t.hot_share(i) - predicted) < 0.02);
    }
}

std::vector<std::uint64_t> draws(const Distribution& d, std::uint64_t count, std::uint64_t seed) {
    XorShift128Plus rng(seed);
    std::vector<std::uint64_t> v;
    for (std::uint64_t i = 0; i < count; ++i)
        v.push_back(d.draw(rng));
    return v;
}

std::string thrown(std::string_view text) {
    try {
        parse_distribution(text);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("the hottest 1 %, 10 % and 20 % of ranks take their predicted share of 10^6 draws") {
    for (const std::string text :
         {"uniform", "zipf:0.8", "zipf:1.2", "pareto:0.3", "pareto:0.2", "pareto:0.9", "normal:5%",
          "normal:40%", "zoned:60/10,30/20,10/70"})
        check_hot_shares(text, 1'000'000);
}

TEST_CASE("zipf and pareto predict their shares on 2^33 units") {
    for (const std::string text : {"zipf:0.8", "zipf:1.2", "pareto:0.3", "pareto:0.2"})
        check_hot_shares(text, std::uint64_t{1} << 33);
}

TEST_CASE("the predicted shares agree with their definitions") {
    // zoned: the first 10 % of ranks take 60 %, the next 20 % take 30 %.
    const Distribution zoned = make("zoned:60/10,30/20,10/70", 1'000'000);
    CHECK(zoned.predicted_hot_share(0.01) == doctest::Approx(0.06));
    CHECK(zoned.predicted_hot_share(0.10) == doctest::Approx(0.60));
    CHECK(zoned.predicted_hot_share(0.20) == doctest::Approx(0.75));
    // pareto:h puts a share 1 - h of the draws on a share h of the ranks.
    CHECK(make("pareto:0.3", 1'000'000).share_below(300'000) == doctest::Approx(0.7));
    CHECK(make("pareto:0.2", 1'000'000).share_below(200'000) == doctest::Approx(0.8));
    CHECK(make("pareto:0.9", 1'000'000).share_below(100'000) == doctest::Approx(0.9));
    // normal:5%: the hottest 10 % are the positions within one sigma.
    CHECK(make("normal:5%", 1'000'000).predicted_hot_share(0.10) ==
          doctest::Approx(std::erf(1 / std::sqrt(2.0))).epsilon(1e-6));
    CHECK(make("uniform", 1'000'000).predicted_hot_share(0.20) == doctest::Approx(0.2));
    // zipf: generalized harmonic numbers, summed term by term here.
    for (const double theta : {0.8, 1.2, 0.999}) {
        double below = 0, all = 0;
        for (int i = 1; i <= 1'000'000; ++i) {
            all += std::pow(i, -theta);
            if (i <= 10'000) below = all;
        }
        const Distribution d(ds::stats::DistributionSpec{DistributionKind::zipf, theta, {}},
                             1'000'000, 1);
        CAPTURE(theta);
        CHECK(d.predicted_hot_share(0.01) == doctest::Approx(below / all).epsilon(1e-9));
    }
}

TEST_CASE("share_below matches the observed share at every rank of a few units") {
    for (const std::string text :
         {"uniform", "zipf:0.8", "zipf:1.2", "zipf:3", "pareto:0.3", "pareto:0.9", "normal:5%",
          "normal:30%", "normal:100%", "zoned:60/10,30/20,10/70", "zoned:50/1,50/99"}) {
        for (const std::uint64_t n : {1, 3, 10, 11}) {
            const Distribution d = make(text, n);
            XorShift128Plus rng(5);
            std::vector<double> count(n);
            constexpr int kDraws = 400'000;
            for (int i = 0; i < kDraws; ++i)
                count[d.draw_rank(rng)] += 1;
            double below = 0;
            for (std::uint64_t k = 1; k <= n; ++k) {
                below += count[k - 1] / kDraws;
                CAPTURE(text);
                CAPTURE(n);
                CAPTURE(k);
                CHECK(std::abs(below - d.share_below(k)) < 0.004);
            }
        }
    }
}

TEST_CASE("a seed's draws repeat across objects; another seed draws others") {
    for (const std::string text :
         {"zipf:1.2", "pareto:0.3", "normal:5%", "zoned:60/10,30/20,10/70", "uniform"}) {
        CAPTURE(text);
        const auto a = draws(make(text, 1'000'000, 42), 1000, 3);
        CHECK(a == draws(make(text, 1'000'000, 42), 1000, 3));
        if (text == "uniform") {
            // No permutation: the seed changes nothing, the generator everything.
            CHECK(a == draws(make(text, 1'000'000, 43), 1000, 3));
            CHECK(a != draws(make(text, 1'000'000, 42), 1000, 4));
        } else {
            CHECK(a != draws(make(text, 1'000'000, 43), 1000, 3));
        }
    }
}

TEST_CASE("the permutation is a bijection of [0, n)") {
    for (const std::uint64_t n : {1, 2, 3, 4, 5, 1000, 1024, 4097}) {
        for (const std::uint64_t seed : {0, 1, 99}) {
            const Distribution d = make("zipf:1.2", n, seed);
            std::vector<bool> seen(n);
            std::uint64_t moved = 0;
            for (std::uint64_t rank = 0; rank < n; ++rank) {
                const std::uint64_t unit = d.unit_of(rank);
                REQUIRE(unit < n);
                CHECK_FALSE(seen[unit]);
                seen[unit] = true;
                moved += unit != rank;
            }
            CAPTURE(n);
            if (n >= 1000) CHECK(moved > n * 9 / 10);  // scattered, not the identity
        }
    }
}

TEST_CASE("the hot ranks are scattered over the units") {
    // The hottest 1 % of ranks land in every tenth of the units.
    const Distribution d = make("zipf:1.2", 1'000'000);
    std::vector<int> tenth(10);
    for (std::uint64_t rank = 0; rank < 10'000; ++rank)
        ++tenth[d.unit_of(rank) / 100'000];
    for (const int c : tenth)
        CHECK(std::abs(c - 1000) < 150);
}

TEST_CASE("every unit of a few is reachable") {
    // Not pareto:0.9 (its coldest of 50 ranks has odds 50^-22) nor normal:5%
    // (the ends of 50 ranks lie 10 sigma out): reachable, never reached.
    for (const std::string text : {"uniform", "zipf:0.8", "zipf:1.2", "pareto:0.3", "pareto:0.2",
                                   "normal:50%", "zoned:60/10,30/20,10/70"}) {
        for (const std::uint64_t n : {1, 2, 7, 50}) {
            const auto v = draws(make(text, n), 200'000, 9);
            std::vector<bool> seen(n);
            for (const std::uint64_t unit : v) {
                REQUIRE(unit < n);
                seen[unit] = true;
            }
            CAPTURE(text);
            CAPTURE(n);
            CHECK(std::count(seen.begin(), seen.end(), true) == static_cast<long>(n));
        }
    }
}

TEST_CASE("zipf draws each rank with probability (k + 1)^-theta / H(n, theta)") {
    for (const double theta : {0.8, 1.2, 2.5}) {
        const Distribution d(ds::stats::DistributionSpec{DistributionKind::zipf, theta, {}}, 10, 1);
        double h = 0;
        for (int k = 1; k <= 10; ++k)
            h += std::pow(k, -theta);
        XorShift128Plus rng(2);
        std::vector<double> count(10);
        constexpr int kDraws = 1'000'000;
        for (int i = 0; i < kDraws; ++i)
            count[d.draw_rank(rng)] += 1;
        for (int k = 0; k < 10; ++k) {
            CAPTURE(theta);
            CAPTURE(k);
            CHECK(count[k] / kDraws == doctest::Approx(std::pow(k + 1, -theta) / h).epsilon(0.02));
        }
    }
}

TEST_CASE("uniform draws exactly the random phase's block: (u128{r} * n) >> 64") {
    __extension__ using u128 = unsigned __int128;
    for (const std::uint64_t n : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{1'000'000},
                                  (std::uint64_t{1} << 40) + 3, ~std::uint64_t{0}}) {
        const Distribution d = make("uniform", n);
        XorShift128Plus a(17), b(17);
        for (int i = 0; i < 10'000; ++i) {
            const auto expected = static_cast<std::uint64_t>((u128{b()} * n) >> 64);
            REQUIRE(d.draw(a) == expected);
        }
    }
}

TEST_CASE("uniform: N draws of N units touch 1 - 1/e of them, counted and estimated") {
    constexpr std::uint64_t n = 1'000'000;
    const Distribution d = make("uniform", n);
    XorShift128Plus rng(23);
    SkewTally t(n);
    std::vector<bool> seen(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t rank = d.draw_rank(rng);
        seen[d.unit_of(rank)] = true;
        t.add(rank, d.unit_of(rank));
    }
    const auto touched = static_cast<double>(std::count(seen.begin(), seen.end(), true));
    CHECK(touched / n == doctest::Approx(1 - std::exp(-1.0)).epsilon(0.003));
    CHECK(t.distinct_units() == doctest::Approx(touched).epsilon(0.03));
}

TEST_CASE("the distinct estimate holds from none to 10^7 units") {
    SkewTally t(100);
    CHECK(t.distinct_units() == 0);
    std::uint64_t added = 0;
    for (const std::uint64_t upto : {1, 10, 1000, 100'000, 10'000'000}) {
        for (; added < upto; ++added)
            t.add(0, added * 4096);  // offsets, not indices: the hash must spread them
        CAPTURE(upto);
        CHECK(t.distinct_units() == doctest::Approx(static_cast<double>(upto)).epsilon(0.02));
    }
    for (std::uint64_t unit = 0; unit < 1000; ++unit)
        t.add(0, unit * 4096);  // again: not distinct
    CHECK(t.distinct_units() == doctest::Approx(1e7).epsilon(0.02));
}

TEST_CASE("SkewTally: merged workers count as one") {
    const Distribution d = make("zipf:1.2", 1'000'000);
    XorShift128Plus rng(31);
    SkewTally whole(1'000'000), first(1'000'000), second(1'000'000);
    for (int i = 0; i < 100'000; ++i) {
        const std::uint64_t rank = d.draw_rank(rng);
        whole.add(rank, d.unit_of(rank));
        (i % 2 ? first : second).add(rank, d.unit_of(rank));
    }
    first.merge(second);
    CHECK(first.ops() == whole.ops());
    for (std::size_t i = 0; i < 3; ++i)
        CHECK(first.hot_share(i) == whole.hot_share(i));
    CHECK(first.distinct_units() == whole.distinct_units());
    // Ranks 0..9 of 1000 are the hottest 1 %; ranks 10..99 the rest of 10 %.
    SkewTally t(1000);
    t.add(9, 0);
    t.add(10, 1);
    t.add(199, 2);
    t.add(200, 3);
    CHECK(t.hot_share(0) == 0.25);
    CHECK(t.hot_share(1) == 0.5);
    CHECK(t.hot_share(2) == 0.75);
    CHECK(SkewTally(1).hot_share(0) == 0);
}

TEST_CASE("hot_rank_count is ceil(fraction * n), whole products exact") {
    using ds::stats::hot_rank_count;
    CHECK(hot_rank_count(1'000'000, 0.01) == 10'000);
    CHECK(hot_rank_count(1'000'000, 0.10) == 100'000);
    CHECK(hot_rank_count(1'000'000, 0.20) == 200'000);
    CHECK(hot_rank_count(std::uint64_t{1} << 33, 0.01) == 85'899'346);
    CHECK(hot_rank_count(1000, 0.001) == 1);
    CHECK(hot_rank_count(99, 0.01) == 1);
    CHECK(hot_rank_count(1, 0.2) == 1);
    CHECK(hot_rank_count(0, 0.2) == 0);
    CHECK(hot_rank_count(10, 1.5) == 10);
}

TEST_CASE("bad distributions name the text and the accepted forms") {
    for (const std::string bad : {"zipf:",
                                  "zipf:abc",
                                  "zipf:1",
                                  "zipf:0",
                                  "zipf:-1.2",
                                  "zipf:1.2:0.5",
                                  "zipf:nan",
                                  "pareto:1.5",
                                  "pareto:0",
                                  "pareto:1",
                                  "normal:0%",
                                  "normal:101%",
                                  "normal:5%%",
                                  "zoned:60/10,30/20",
                                  "zoned:60/10,40/80",
                                  "zoned:60/10,30/20,10/70,1/1",
                                  "zoned:60/10,40",
                                  "zoned:0/10,100/90",
                                  "zoned:60.5/10,39.5/90",
                                  "zoned:",
                                  "zoned:60/10,,40/90",
                                  "foo",
                                  "uniform:1",
                                  "Zipf:1.2",
                                  ""}) {
        CAPTURE(bad);
        const std::string what = thrown(bad);
        CHECK(what.find("distribution \"" + bad + "\"") == 0);
        CHECK(what.find("accepted: uniform, zipf:THETA") != std::string::npos);
        CHECK(what.find('\n') == std::string::npos);
    }
    CHECK(thrown("zoned:60/10,30/20").find("OPS percentages add up to 90") != std::string::npos);
    CHECK(thrown("zipf:1").find("not 1") != std::string::npos);
}

TEST_CASE("zipf THETA is at most 100; every prediction up to it is a number") {
    for (const std::string steep : {"zipf:100.5", "zipf:1e103", "zipf:1e308"}) {
        CAPTURE(steep);
        CHECK(thrown(steep).find("at most 100") != std::string::npos);
    }
    CHECK_THROWS_AS(
        Distribution(ds::stats::DistributionSpec{DistributionKind::zipf, 1e308, {}}, 10, 1),
        std::invalid_argument);
    // Up to the bound, on small and large files: finite shares in [0, 1],
    // and draws that land on the hottest rank once THETA is steep.
    for (const double theta : {1e-9, 0.5, 1.000001, 2.0, 20.0, 64.0, 99.9, 100.0})
        for (const std::uint64_t n :
             {std::uint64_t{16}, std::uint64_t{16384}, std::uint64_t{1} << 40}) {
            CAPTURE(theta);
            CAPTURE(n);
            const Distribution d(ds::stats::DistributionSpec{DistributionKind::zipf, theta, {}}, n,
                                 1);
            for (const double f : SkewTally::kHotFractions) {
                const double share = d.predicted_hot_share(f);
                CHECK(std::isfinite(share));
                CHECK(share >= 0);
                CHECK(share <= 1);
            }
            if (theta < 64) continue;
            CHECK(d.predicted_hot_share(0.01) == doctest::Approx(1.0));
            XorShift128Plus rng(7);
            for (int i = 0; i < 100; ++i)
                CHECK(d.draw_rank(rng) == 0);
        }
}

TEST_CASE("canonical text round-trips; fio's spellings are taken") {
    for (const std::string text :
         {"uniform", "zipf:1.2", "zipf:0.8", "zipf:1.05", "pareto:0.3", "normal:5%", "normal:0.5%",
          "normal:100%", "zoned:60/10,30/20,10/70", "zoned:100/100"}) {
        const auto spec = parse_distribution(text);
        CHECK(spec.text() == text);
        CHECK(parse_distribution(spec.text()) == spec);
    }
    CHECK(parse_distribution("random").text() == "uniform");
    CHECK(parse_distribution("normal:5").text() == "normal:5%");
    CHECK(parse_distribution("zipf:1.20").text() == "zipf:1.2");
    CHECK(parse_distribution("zoned:60/10:30/20:10/70").text() == "zoned:60/10,30/20,10/70");
    const auto zoned = parse_distribution("zoned:60/10,30/20,10/70");
    CHECK(zoned.kind == DistributionKind::zoned);
    REQUIRE(zoned.zones.size() == 3);
    CHECK(zoned.zones[1] == ds::stats::Zone{30, 20});
    CHECK(parse_distribution("zipf:1.2").parameter == 1.2);
}

TEST_CASE("a distribution takes at least one unit, and a hand-made spec is checked") {
    CHECK_THROWS_AS(make("uniform", 0), std::invalid_argument);
    CHECK_THROWS_AS(make("zipf:1.2", (std::uint64_t{1} << 53) + 1), std::invalid_argument);
    CHECK_NOTHROW(make("zipf:1.2", std::uint64_t{1} << 53));
    CHECK_THROWS_AS(
        Distribution(ds::stats::DistributionSpec{DistributionKind::zipf, 1.0, {}}, 10, 1),
        std::invalid_argument);
    CHECK_THROWS_AS(
        Distribution(ds::stats::DistributionSpec{DistributionKind::zoned, 0, {{50, 50}}}, 10, 1),
        std::invalid_argument);
}
