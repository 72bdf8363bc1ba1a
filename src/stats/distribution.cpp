#include "stats/distribution.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include "stats/t_quantile.h"

namespace ds::stats {

namespace {

constexpr std::string_view kAccepted =
    "uniform, zipf:THETA (0 < THETA <= 100, not 1), pareto:H (0 < H < 1), normal:SIGMA% "
    "(0 < SIGMA <= 100), zoned:OPS/SPACE,... (whole percentages, each column adding up to 100)";

// Built with append(): "literal" + std::string trips GCC 12's -Wrestrict once
// inlined (a false positive, GCC bug 105329).
std::string quoted(std::string_view s) {
    std::string q = "\"";
    q.append(s);
    q += '"';
    return q;
}

[[noreturn]] void reject(std::string_view text, const std::string& why) {
    throw std::invalid_argument("distribution " + quoted(text) + ": " + why +
                                "; accepted: " + std::string(kAccepted));
}

std::optional<double> to_number(std::string_view s) {
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::string number_text(double v) {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest round trip
    return ec == std::errc{} ? std::string(buf, end) : std::to_string(v);
}

// A whole percentage 1..100.
unsigned whole_percent(std::string_view text, std::string_view s) {
    unsigned v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size() || v < 1 || v > 100)
        reject(text, quoted(s) + " is not a whole percentage from 1 to 100");
    return v;
}

// OPS/SPACE pairs separated by ',' or ':'; each column adds up to 100, so
// there are at most 100 zones.
std::vector<Zone> parse_zones(std::string_view text, std::string_view list) {
    std::vector<Zone> zones;
    unsigned ops = 0, space = 0;
    for (;;) {
        const std::size_t end = list.find_first_of(",:");
        const std::string_view item = list.substr(0, end);
        const std::size_t slash = item.find('/');
        if (slash == std::string_view::npos)
            reject(text, "zone " + quoted(item) + " is not OPS/SPACE");
        const Zone z{whole_percent(text, item.substr(0, slash)),
                     whole_percent(text, item.substr(slash + 1))};
        ops += z.ops_pct;
        space += z.space_pct;
        if (ops > 100 || space > 100) break;
        zones.push_back(z);
        if (end == std::string_view::npos) break;
        list.remove_prefix(end + 1);
    }
    const auto sum = [](unsigned pct) {
        return pct > 100 ? std::string("more than 100") : std::to_string(pct);
    };
    if (ops != 100) reject(text, "the OPS percentages add up to " + sum(ops) + ", not 100");
    if (space != 100) reject(text, "the SPACE percentages add up to " + sum(space) + ", not 100");
    return zones;
}

// The number after "NAME:", checked against the kind's range.
double parameter(std::string_view text, DistributionKind kind, std::string_view value) {
    const bool normal = kind == DistributionKind::normal;
    if (normal && value.ends_with('%')) value.remove_suffix(1);
    const std::optional<double> v = to_number(value);
    if (!v) reject(text, quoted(value) + " is not a number");
    // fio's ranges, but for normal, where fio takes 0 <= SIGMA < 100 (0
    // meaning its default spread) and here SIGMA is the deviation itself.
    if (kind == DistributionKind::zipf && (*v <= 0 || *v == 1 || *v > kMaxZipfTheta))
        reject(text, "THETA must be above 0, not 1, and at most 100");
    if (kind == DistributionKind::pareto && (*v <= 0 || *v >= 1))
        reject(text, "H must be above 0 and below 1");
    if (normal && (*v <= 0 || *v > 100)) reject(text, "SIGMA must be above 0 % and at most 100 %");
    return *v;
}

void check(const DistributionSpec& spec) {
    const std::string text = spec.text();
    if (spec.kind == DistributionKind::zoned) {
        parse_zones(text, text.substr(text.find(':') + 1));
    } else if (spec.kind != DistributionKind::uniform) {
        parameter(text, spec.kind, number_text(spec.parameter));
    }
}

std::uint64_t low_bits(unsigned bits) {
    return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

}  // namespace

std::string DistributionSpec::text() const {
    switch (kind) {
        case DistributionKind::uniform:
            return "uniform";
        case DistributionKind::zipf:
            return "zipf:" + number_text(parameter);
        case DistributionKind::pareto:
            return "pareto:" + number_text(parameter);
        case DistributionKind::normal:
            return "normal:" + number_text(parameter) + "%";
        case DistributionKind::zoned:
            break;
    }
    std::string s = "zoned:";
    for (const Zone& z : zones) {
        if (&z != &zones.front()) s += ',';
        s += std::to_string(z.ops_pct) + "/" + std::to_string(z.space_pct);
    }
    return s;
}

DistributionSpec parse_distribution(std::string_view text) {
    const std::size_t colon = text.find(':');
    const std::string_view name = text.substr(0, colon);
    const std::string_view value =
        colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
    DistributionSpec spec;
    if (name == "uniform" || name == "random") {
        if (colon != std::string_view::npos) reject(text, "uniform takes no value");
        return spec;
    }
    if (name == "zipf") {
        spec.kind = DistributionKind::zipf;
    } else if (name == "pareto") {
        spec.kind = DistributionKind::pareto;
    } else if (name == "normal") {
        spec.kind = DistributionKind::normal;
    } else if (name == "zoned") {
        spec.kind = DistributionKind::zoned;
    } else {
        reject(text, "unknown distribution " + quoted(name));
    }
    if (value.empty()) reject(text, std::string(name) + " needs a value after ':'");
    if (spec.kind == DistributionKind::zoned) {
        spec.zones = parse_zones(text, value);
    } else {
        spec.parameter = parameter(text, spec.kind, value);
    }
    return spec;
}

std::uint64_t hot_rank_count(std::uint64_t n, double fraction) {
    const double x = std::clamp(fraction, 0.0, 1.0) * static_cast<double>(n);
    // 0.07 * 100 is 7.000000000000001 in double: a few ulps from a whole
    // number is that number.
    const double whole = std::round(x);
    const double k = std::abs(x - whole) <= x * 1e-15 ? whole : std::ceil(x);
    return std::min(n, static_cast<std::uint64_t>(k));
}

namespace {

// expm1(t) / t and log1p(t) / t, continuous through t = 0.
double expm1_ratio(double t) {
    return std::abs(t) > 1e-8 ? std::expm1(t) / t : 1 + t / 2;
}
double log1p_ratio(double t) {
    return std::abs(t) > 1e-8 ? std::log1p(t) / t : 1 - t / 2;
}

// Zipf's hat for rejection-inversion (Hörmann and Derflinger, "Rejection-
// inversion to generate variates from monotone discrete distributions",
// 1996): the weight x^-theta, its integral from 1 to x and that integral's
// inverse, written through expm1 and log1p so that theta near 1 (where the
// integral tends to log x) loses no precision.
double zipf_weight(double x, double theta) {
    return std::exp(-theta * std::log(x));
}
double zipf_integral(double x, double theta) {
    const double lx = std::log(x);
    return lx * expm1_ratio((1 - theta) * lx);
}
// `reciprocal` is 1 / (1 - theta): a multiply in place of a division.
double zipf_integral_inverse(double y, double theta, double reciprocal) {
    const double t = std::max(-1.0, y * (1 - theta));
    return std::exp(std::abs(t) > 1e-8 ? std::log1p(t) * reciprocal : log1p_ratio(t) * y);
}

// The generalized harmonic number sum(i^-theta, i = 1..m): the first
// kDirect terms summed, the rest by Euler-Maclaurin up to the f''' term,
// whose remainder past i = 1000 is below 1e-20.
double harmonic(std::uint64_t m, double theta) {
    constexpr std::uint64_t kDirect = 1000;
    double sum = 0;
    for (std::uint64_t i = std::min(m, kDirect); i >= 1; --i)  // smallest terms first
        sum += zipf_weight(static_cast<double>(i), theta);
    if (m <= kDirect) return sum;
    const double a = kDirect + 1, b = static_cast<double>(m);
    const auto d1 = [theta](double x) { return -theta * std::pow(x, -theta - 1); };
    const auto d3 = [theta](double x) {
        return -theta * (theta + 1) * (theta + 2) * std::pow(x, -theta - 3);
    };
    const double span = std::log(b / a);
    const double integral = std::pow(a, 1 - theta) * span * expm1_ratio((1 - theta) * span);
    return sum + integral + (zipf_weight(a, theta) + zipf_weight(b, theta)) / 2 +
           (d1(b) - d1(a)) / 12 - (d3(b) - d3(a)) / 720;
}

}  // namespace

Distribution::Distribution(const DistributionSpec& spec, std::uint64_t n_units, std::uint64_t seed)
    : spec_(spec), n_(n_units) {
    check(spec_);
    if (n_ == 0) throw std::invalid_argument("a distribution needs at least one unit");
    if (spec_.kind != DistributionKind::uniform && n_ > (std::uint64_t{1} << 53))
        throw std::invalid_argument(spec_.text() + " takes at most 2^53 units, not " +
                                    std::to_string(n_));
    bits_ = static_cast<unsigned>(std::bit_width(n_ - 1));
    std::uint64_t state = seed;
    for (std::uint64_t& key : keys_)
        key = splitmix64(state);
    const double p = spec_.parameter;
    switch (spec_.kind) {
        case DistributionKind::uniform:
            break;
        case DistributionKind::zipf:
            init_zipf();
            break;
        case DistributionKind::pareto:
            // fio's pareto: rank = n * u^(log h / log(1 - h)), so that a
            // share 1 - h of the draws falls in a share h of the ranks.
            exponent_ = std::log(p) / std::log(1 - p);
            mirrored_ = p > 0.5;
            break;
        case DistributionKind::normal:
            sigma_ = p / 100 * static_cast<double>(n_);
            break;
        case DistributionKind::zoned:
            init_zones();
            break;
    }
}

void Distribution::init_zipf() {
    const double theta = spec_.parameter;
    h_first_ = zipf_integral(1.5, theta) - 1;
    h_last_ = zipf_integral(static_cast<double>(n_) + 0.5, theta);
    exponent_ = 1 / (1 - theta);
    squeeze_ = 2 - zipf_integral_inverse(zipf_integral(2.5, theta) - zipf_weight(2, theta), theta,
                                         exponent_);
}

// Zone i covers ranks [floor(S * n / 100), floor(S' * n / 100)) where S and
// S' are the SPACE percentages before and through it, as fio's zones do.
void Distribution::init_zones() {
    __extension__ using u128 = unsigned __int128;
    unsigned space = 0;
    std::size_t pct = 0;
    for (const Zone& z : spec_.zones) {
        const auto first = static_cast<std::uint64_t>(u128{space} * n_ / 100);
        space += z.space_pct;
        const auto end = static_cast<std::uint64_t>(u128{space} * n_ / 100);
        for (unsigned i = 0; i < z.ops_pct; ++i)
            zone_of_pct_[pct++] = static_cast<std::uint8_t>(zone_ranks_.size());
        zone_ranks_.push_back({first, std::max<std::uint64_t>(end - first, 1)});
    }
}

// One candidate of rejection-inversion: invert the hat's integral at a
// uniform point, round to the nearest rank, accept it when it lies under
// the weight's own area (98 % pass the squeeze, without a second log).
std::uint64_t Distribution::zipf_candidate(double u) const {
    const double theta = spec_.parameter;
    const double y = h_last_ + u * (h_first_ - h_last_);
    const double x = zipf_integral_inverse(y, theta, exponent_);  // > 0.5, or +inf
    // Rounded by a conversion: std::floor is a library call without SSE4.1.
    const auto nearest = static_cast<std::uint64_t>(std::min(x, static_cast<double>(n_)) + 0.5);
    const auto k = static_cast<double>(std::clamp<std::uint64_t>(nearest, 1, n_));
    if (k - x <= squeeze_ || y >= zipf_integral(k + 0.5, theta) - zipf_weight(k, theta))
        return static_cast<std::uint64_t>(k) - 1;
    return kRejected;
}

// fio draws (n - 1) * u^exponent, which reaches n - 1 only at u = 1; n *
// u^exponent covers every rank.  With h > 0.5 the exponent is below 1 and
// the draws crowd the top: mirrored, rank 0 stays the hottest.
std::uint64_t Distribution::pareto_rank(double u) const {
    const auto r = std::min(
        n_ - 1, static_cast<std::uint64_t>(std::pow(u, exponent_) * static_cast<double>(n_)));
    return mirrored_ ? n_ - 1 - r : r;
}

// A deviation from the middle of [0, n); one that falls outside is halved
// until it fits, as fio's gauss_next() does.  Positions are then ranked by
// their distance from the middle (the middle rank 0, then alternately the
// next one above and below): rank 0 is the hottest up to SIGMA 27 %.
std::uint64_t Distribution::normal_rank(double u) const {
    const double half = static_cast<double>(n_) / 2;
    double d = sigma_ * normal_quantile(u);
    while (!(std::abs(d) < half))
        d *= 0.5;
    const auto at = std::min(n_ - 1, static_cast<std::uint64_t>(half + d));
    const std::uint64_t middle = (n_ - 1) / 2;
    return at <= middle ? 2 * (middle - at) : 2 * (at - middle) - 1;
}

namespace {

// One Feistel round on x = (left: `hi` bits, right: `lo` bits): the right
// part moves up unchanged, the left part is xored with a keyed hash of it
// and moves down.  A bijection whatever the hash; widths trade places, so an
// odd bit count needs no padding.  The hash is one multiply (its top half
// depends on every bit of the right part), which halves the cost of a
// splitmix64 finalizer and still scatters neighbouring ranks.
std::uint64_t feistel_round(std::uint64_t x, std::uint64_t key, unsigned lo, std::uint64_t lo_mask,
                            unsigned hi, std::uint64_t hi_mask) {
    const std::uint64_t right = x & lo_mask;
    const std::uint64_t hash = ((right ^ key) * 0x9E3779B97F4A7C15ULL) >> 32;
    return (right << hi) | (((x >> lo) ^ hash) & hi_mask);
}

}  // namespace

std::uint64_t Distribution::permute_once(std::uint64_t x) const {
    const unsigned hi = bits_ / 2, lo = bits_ - hi;  // lo <= 32: the hash has 32 bits
    const std::uint64_t hi_mask = low_bits(hi), lo_mask = low_bits(lo);
    for (std::size_t i = 0; i < keys_.size(); i += 2) {
        x = feistel_round(x, keys_[i], lo, lo_mask, hi, hi_mask);
        x = feistel_round(x, keys_[i + 1], hi, hi_mask, lo, lo_mask);
    }
    return x;
}

// Cycle walking: the network permutes [0, 2^bits); stepping along it until
// a value below n is reached permutes [0, n).  2^bits < 2n, so fewer than
// two steps on average.
std::uint64_t Distribution::unit_of(std::uint64_t rank) const {
    if (spec_.kind == DistributionKind::uniform) return rank;
    std::uint64_t x = rank;
    do {
        x = permute_once(x);
    } while (x >= n_);
    return x;
}

double Distribution::share_below(std::uint64_t ranks) const {
    if (ranks >= n_) return 1;
    if (ranks == 0) return 0;
    const double share = static_cast<double>(ranks) / static_cast<double>(n_);
    switch (spec_.kind) {
        case DistributionKind::uniform:
            return share;
        case DistributionKind::zipf:
            return zipf_share_below(ranks);
        case DistributionKind::pareto:
            return mirrored_ ? 1 - std::pow(1 - share, 1 / exponent_)
                             : std::pow(share, 1 / exponent_);
        case DistributionKind::normal:
            return normal_share_below(ranks);
        case DistributionKind::zoned:
            return zoned_share_below(ranks);
    }
    return share;
}

double Distribution::zipf_share_below(std::uint64_t ranks) const {
    return harmonic(ranks, spec_.parameter) / harmonic(n_, spec_.parameter);
}

// The ranks below `ranks` are the positions whose offset from the middle,
// n / 2, lies in [lo, hi); the deviation that lands there is sigma * z when
// |sigma * z| < n / 2, else sigma * z / 2^j for the first j that fits.
double Distribution::normal_share_below(std::uint64_t ranks) const {
    const double half = static_cast<double>(n_) / 2;
    const double scale = sigma_ * std::sqrt(2.0);
    // P(|deviation| < t) for 0 <= t <= n / 2, summed over the halvings j.
    const auto within = [&](double t) {
        if (t >= half) return 1.0;
        double p = std::erf(t / scale);
        for (double from = half, to = 2 * t; from < to && from < 40 * scale; from *= 2, to *= 2)
            p += std::erfc(from / scale) - std::erfc(to / scale);
        return p;
    };
    const auto below = [&](double t) { return 0.5 + (t < 0 ? -0.5 : 0.5) * within(std::abs(t)); };
    const double middle = static_cast<double>((n_ - 1) / 2);
    const double lo = middle + 1 - static_cast<double>((ranks + 1) / 2) - half;
    const double hi = middle + 1 + static_cast<double>(ranks / 2) - half;
    return below(hi) - below(lo);
}

double Distribution::zoned_share_below(std::uint64_t ranks) const {
    double share = 0;
    for (std::size_t i = 0; i < zone_ranks_.size(); ++i) {
        const ZoneRanks& z = zone_ranks_[i];
        const std::uint64_t inside = ranks <= z.first ? 0 : std::min(ranks - z.first, z.count);
        share += spec_.zones[i].ops_pct / 100.0 * static_cast<double>(inside) /
                 static_cast<double>(z.count);
    }
    return share;
}

namespace {

// Ertl, "New cardinality estimation algorithms for HyperLogLog sketches"
// (2017), sigma and tau of the improved raw estimator.
double ertl_sigma(double x) {
    if (x == 1) return std::numeric_limits<double>::infinity();
    double y = 1, z = x, before;
    do {
        x *= x;
        before = z;
        z += x * y;
        y += y;
    } while (z != before);
    return z;
}

double ertl_tau(double x) {
    if (x == 0 || x == 1) return 0;
    double y = 1, z = 1 - x, before;
    do {
        x = std::sqrt(x);
        before = z;
        y *= 0.5;
        z -= (1 - x) * (1 - x) * y;
    } while (z != before);
    return z / 3;
}

}  // namespace

SkewTally::SkewTally(std::uint64_t n_ranks) : registers_(std::size_t{1} << kRegisterBits, 0) {
    for (std::size_t i = 0; i < kHotFractions.size(); ++i)
        hot_ranks_[i] = hot_rank_count(n_ranks, kHotFractions[i]);
}

void SkewTally::merge(const SkewTally& other) {
    ops_ += other.ops_;
    for (std::size_t i = 0; i < hot_ops_.size(); ++i)
        hot_ops_[i] += other.hot_ops_[i];
    for (std::size_t i = 0; i < registers_.size(); ++i)
        registers_[i] = std::max(registers_[i], other.registers_[i]);
}

double SkewTally::hot_share(std::size_t i) const {
    return ops_ ? static_cast<double>(hot_ops_[i]) / static_cast<double>(ops_) : 0.0;
}

double SkewTally::distinct_units() const {
    constexpr unsigned q = 64 - kRegisterBits;  // register values 0..q+1
    std::array<double, q + 2> counts{};
    for (const std::uint8_t r : registers_)
        counts[r] += 1;
    const auto m = static_cast<double>(registers_.size());
    double z = m * ertl_tau(1 - counts[q + 1] / m);
    for (unsigned k = q; k >= 1; --k)
        z = 0.5 * (z + counts[k]);
    z += m * ertl_sigma(counts[0] / m);
    return m * m / (2 * std::log(2.0) * z);  // alpha_inf m^2 / z, alpha_inf = 1 / (2 ln 2)
}

}  // namespace ds::stats
