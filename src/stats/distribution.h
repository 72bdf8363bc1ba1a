// Where random I/O lands: fio's access distributions (uniform, zipf, pareto,
// normal, zoned) with fio's vocabulary and meaning, as pure functions.
//
// A draw picks a *rank* (0 = the hottest) from the distribution, then maps
// the rank to a unit through a fixed pseudo-random permutation of [0, n)
// chosen by the seed, so the hot units are scattered over the target rather
// than packed at offset 0 (fio scatters them with a hash for the same
// reason).  Uniform skips the permutation and draws exactly what the random
// phase always drew, so a seed's sequence is unchanged.
//
// What each draws, for n units (rank 0 the hottest):
//   uniform        every rank alike: (u128{r} * n) >> 64 of one random value
//   zipf:THETA     rank k with odds (k + 1)^-THETA, exactly (rejection-
//                  inversion; fio truncates its zeta sum at 10^7 terms)
//   pareto:H       fio's n * u^(log H / log(1 - H)): a share 1 - H of the
//                  draws on a share H of the ranks (H > 0.5 crowds the top
//                  end, so it is mirrored: rank 0 stays the hottest)
//   normal:SIGMA%  a Gaussian deviation of SIGMA % of n from the middle, one
//                  beyond either end halved until it fits (fio's rule);
//                  positions are ranked by distance from the middle.  Past
//                  about SIGMA 27 % the halved draws make the band just
//                  beyond half-way hotter than the middle: rank 0 is then
//                  not the hottest, though share_below() stays exact.
//   zoned:O/S,...  zone i takes O_i % of the draws, uniform over the next
//                  S_i % of the ranks (fio's zoned)
//
// Memory is O(1) in n (at most 100 zones, a 100-byte zone table); a draw
// takes O(1) expected work: zipf uses 1.004 random values per rank at theta
// 1.2 and 1.013 at 2 (rejection-inversion), the permutation walks its cycle
// fewer than 2 times on average, normal halves a deviation a few times at
// most.  bench/distribution_bench.cpp measures the cost of a draw.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ds::stats {

enum class DistributionKind { uniform, zipf, pareto, normal, zoned };

// The largest zipf THETA taken.  Past it nothing changes that a run could
// see (at 100 the second block is drawn 2^-100 as often as the first), and
// far past it (1e308) the prediction's arithmetic overflows.
inline constexpr double kMaxZipfTheta = 100;

// One zone of a zoned distribution: ops_pct of the draws land uniformly on
// the next space_pct of the ranks.  Whole percentages, as fio's.
struct Zone {
    unsigned ops_pct = 0;
    unsigned space_pct = 0;
    bool operator==(const Zone&) const = default;
};

struct DistributionSpec {
    DistributionKind kind = DistributionKind::uniform;
    double parameter = 0;      // zipf theta, pareto h, normal sigma (% of the units); else 0
    std::vector<Zone> zones;   // zoned only, hottest first
    std::string text() const;  // canonical: "zipf:1.2", "normal:5%", "zoned:60/10,30/20,10/70"
    bool operator==(const DistributionSpec&) const = default;
};

// "uniform" (or fio's "random"), "zipf:THETA", "pareto:H", "normal:SIGMA%"
// (the % optional), "zoned:OPS/SPACE,..." (zones separated by ',' or fio's
// ':').  Throws std::invalid_argument naming the text and the accepted forms.
DistributionSpec parse_distribution(std::string_view text);

// ceil(fraction * n), the number of ranks in the hottest `fraction`; a
// product that is a whole number up to rounding counts as that number.
std::uint64_t hot_rank_count(std::uint64_t n, double fraction);

// splitmix64 (Steele, Lea and Flood 2014): its finalizer spreads
// neighbouring values over all 64 bits; the generator steps a state by the
// golden gamma and mixes it, for seeds drawn from a seed.
inline std::uint64_t splitmix64_mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
inline std::uint64_t splitmix64(std::uint64_t& state) {
    return splitmix64_mix(state += 0x9E3779B97F4A7C15ULL);
}

// [0, n) from a uniform 64-bit value by a multiply and a shift (Lemire's
// range reduction) instead of a 64-bit division, which was a tenth of the
// engine's own CPU per NOP operation: how the random phase draws its blocks.
inline std::uint64_t uniform_below(std::uint64_t random, std::uint64_t n) {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((u128{random} * n) >> 64);
}

class Distribution {
  public:
    // Units [0, n_units); a skewed distribution takes n_units up to 2^53
    // (ranks are computed in double).  Throws std::invalid_argument otherwise.
    Distribution(const DistributionSpec& spec, std::uint64_t n_units, std::uint64_t seed);

    // A unit in [0, n); `next()` returns a uniform 64-bit value.
    template <class Rng>
    std::uint64_t draw(Rng& next) const {
        const std::uint64_t rank = draw_rank(next);
        return spec_.kind == DistributionKind::uniform ? rank : unit_of(rank);
    }
    // A rank in [0, n), 0 the hottest (what SkewTally counts).
    template <class Rng>
    std::uint64_t draw_rank(Rng& next) const;
    // The unit of a rank: the seed's permutation (identity for uniform).
    std::uint64_t unit_of(std::uint64_t rank) const;

    // Probability that a draw's rank is below hot_rank_count(n, fraction).
    double predicted_hot_share(double fraction) const {
        return share_below(hot_rank_count(n_, fraction));
    }
    // Probability that a draw's rank is below `ranks`.
    double share_below(std::uint64_t ranks) const;

    std::uint64_t units() const { return n_; }
    const DistributionSpec& spec() const { return spec_; }

  private:
    // The first and count of a zone's ranks (count >= 1: a zone narrower
    // than one rank takes the rank it starts at).
    struct ZoneRanks {
        std::uint64_t first = 0;
        std::uint64_t count = 1;
    };
    static constexpr std::uint64_t kRejected = ~std::uint64_t{0};

    // (0, 1) from a uniform 64-bit value: 53 bits and half a step.
    static double open_unit(std::uint64_t random) {
        return (static_cast<double>(random >> 11) + 0.5) * 0x1p-53;
    }
    std::uint64_t zipf_candidate(double u) const;  // a rank, or kRejected
    std::uint64_t pareto_rank(double u) const;
    std::uint64_t normal_rank(double u) const;
    std::uint64_t permute_once(std::uint64_t x) const;
    void init_zipf();
    void init_zones();
    double zipf_share_below(std::uint64_t ranks) const;
    double normal_share_below(std::uint64_t ranks) const;
    double zoned_share_below(std::uint64_t ranks) const;

    DistributionSpec spec_;
    std::uint64_t n_ = 0;
    // The permutation: a 4-round Feistel network on `bits_` bits (the
    // smallest power of two >= n), walked until it lands below n.
    unsigned bits_ = 0;
    std::array<std::uint64_t, 4> keys_{};
    // zipf (rejection-inversion): H(1.5) - 1, H(n + 0.5) and the squeeze s.
    double h_first_ = 0, h_last_ = 0, squeeze_ = 0;
    double exponent_ = 0;    // pareto: log(h) / log(1 - h); zipf: 1 / (1 - theta)
    bool mirrored_ = false;  // pareto with h > 0.5: its hot end is the top
    double sigma_ = 0;       // normal: standard deviation, ranks
    std::array<std::uint8_t, 100> zone_of_pct_{};  // zoned: the zone of each percent of draws
    std::vector<ZoneRanks> zone_ranks_;
};

template <class Rng>
std::uint64_t Distribution::draw_rank(Rng& next) const {
    switch (spec_.kind) {
        case DistributionKind::uniform:
            return uniform_below(next(), n_);
        case DistributionKind::zipf:
            for (;;) {
                const std::uint64_t rank = zipf_candidate(open_unit(next()));
                if (rank != kRejected) return rank;
            }
        case DistributionKind::pareto:
            return pareto_rank(open_unit(next()));
        case DistributionKind::normal:
            return normal_rank(open_unit(next()));
        case DistributionKind::zoned: {
            const ZoneRanks& z = zone_ranks_[zone_of_pct_[uniform_below(next(), 100)]];
            return z.first + uniform_below(next(), z.count);
        }
    }
    return 0;
}

// The skew a run produced, O(1) memory: how many draws fell in the hottest
// 1 %, 10 % and 20 % of ranks, and an estimate of the distinct units
// touched.  One per worker, merged at the end.
//
// Distinct units: a HyperLogLog of 2^14 one-byte registers (16 KiB) with
// Ertl's improved estimator (no bias tables, no switch to linear counting),
// standard error 1.04 / sqrt(2^14) = 0.8 % at any count up to 2^50.
// Tallies of different targets count a unit value once: mix a target's
// index into its units before add() when merging them.
class SkewTally {
  public:
    static constexpr std::array<double, 3> kHotFractions{0.01, 0.10, 0.20};
    static constexpr unsigned kRegisterBits = 14;

    explicit SkewTally(std::uint64_t n_ranks);

    void add(std::uint64_t rank, std::uint64_t unit) {
        ++ops_;
        for (std::size_t i = 0; i < kHotFractions.size(); ++i)
            hot_ops_[i] += rank < hot_ranks_[i];
        touch(unit);
    }
    void merge(const SkewTally& other);

    std::uint64_t ops() const { return ops_; }
    // Share of the draws in the hottest kHotFractions[i] of ranks (0 with no draws).
    double hot_share(std::size_t i) const;
    double distinct_units() const;  // the HyperLogLog estimate

  private:
    void touch(std::uint64_t unit) {
        // splitmix64's finalizer spreads consecutive units over the registers.
        const std::uint64_t h = splitmix64_mix(unit + 0x9E3779B97F4A7C15ULL);
        // The first kRegisterBits pick the register; the leading zeros of the
        // rest (a sentinel bit caps them) plus one is its candidate value.
        const std::uint64_t rest = (h << kRegisterBits) | (std::uint64_t{1} << (kRegisterBits - 1));
        const auto value = static_cast<std::uint8_t>(__builtin_clzll(rest) + 1);
        std::uint8_t& r = registers_[h >> (64 - kRegisterBits)];
        if (value > r) r = value;
    }

    std::uint64_t ops_ = 0;
    std::array<std::uint64_t, 3> hot_ranks_{};
    std::array<std::uint64_t, 3> hot_ops_{};
    std::vector<std::uint8_t> registers_;
};

}  // namespace ds::stats
