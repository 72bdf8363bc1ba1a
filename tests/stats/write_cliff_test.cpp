// The write cliff: where a sustained write drops and between which levels, one
// or two steps, what noise and slow slides are not, and recovery after idle.
#include "stats/write_cliff.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

using ds::stats::find_write_cliff;
using ds::stats::measure_cliff_recovery;
using ds::stats::ThroughputInterval;
using ds::stats::WriteCliff;
using ds::stats::WriteCliffRule;

namespace {

constexpr std::uint64_t kMiB = 1 << 20;

// +-4% around the level; any 30 consecutive intervals hold each factor six
// times, so a level's median is exactly its nominal rate even after one
// 1.00 interval is replaced by a dip or a spike.
const std::vector<double> kNoise{1.00, 1.04, 0.96, 1.02, 0.98};

struct Series {
    std::vector<ThroughputInterval> intervals;

    // `count` intervals of `seconds` at `mib_per_s`, times the noise pattern.
    Series& level(std::size_t count, double mib_per_s, const std::vector<double>& noise = {1.0},
                  double seconds = 1.0) {
        for (std::size_t i = 0; i < count; ++i) {
            const double rate = mib_per_s * noise[i % noise.size()] * kMiB;
            intervals.push_back(
                {seconds, static_cast<std::uint64_t>(std::llround(rate * seconds))});
        }
        return *this;
    }
    // Replaces interval `i`'s bytes by `factor` times what it had.
    Series& scale(std::size_t i, double factor) {
        intervals.at(i).bytes = static_cast<std::uint64_t>(
            std::llround(static_cast<double>(intervals.at(i).bytes) * factor));
        return *this;
    }
    std::uint64_t total() const {
        std::uint64_t t = 0;
        for (const auto& i : intervals)
            t += i.bytes;
        return t;
    }
};

}  // namespace

TEST_CASE("a clean cliff: where, and from which level to which") {
    Series s;
    s.level(30, 3100).level(30, 850);
    const WriteCliff c = find_write_cliff(s.intervals);
    CHECK(c.intervals == 60);
    CHECK(c.total_bytes == (30 * 3100 + 30 * 850) * kMiB);
    CHECK(c.total_seconds == 60);
    CHECK(c.long_enough);
    REQUIRE(c.steps.size() == 1);
    CHECK(c.steps[0].interval == 30);
    CHECK(c.steps[0].bytes_before == 30 * 3100 * kMiB);  // 90.8 GiB
    CHECK(c.steps[0].seconds_before == 30);
    CHECK(c.steps[0].before_bytes_per_s == 3100.0 * kMiB);
    CHECK(c.steps[0].after_bytes_per_s == 850.0 * kMiB);
    CHECK(c.steps[0].drop_pct == doctest::Approx(100.0 * (1 - 850.0 / 3100)).epsilon(1e-12));
}

TEST_CASE("a noisy cliff with one-interval dips and spikes: same place, same levels") {
    Series s;
    s.level(30, 3100, kNoise).level(30, 850, kNoise);
    s.scale(10, 0.3).scale(20, 1.5).scale(45, 0.1);  // 1.00-factor intervals
    const WriteCliff c = find_write_cliff(s.intervals);
    REQUIRE(c.steps.size() == 1);
    CHECK(c.steps[0].interval == 30);
    std::uint64_t before = 0;
    for (std::size_t i = 0; i < 30; ++i)
        before += s.intervals[i].bytes;
    CHECK(c.steps[0].bytes_before == before);
    CHECK(c.steps[0].before_bytes_per_s == 3100.0 * kMiB);
    CHECK(c.steps[0].after_bytes_per_s == 850.0 * kMiB);
}

TEST_CASE("a two-step cliff names both steps with the level between them") {
    Series s;
    s.level(20, 3100).level(20, 1800).level(20, 850);
    const WriteCliff c = find_write_cliff(s.intervals);
    REQUIRE(c.steps.size() == 2);
    CHECK(c.steps[0].interval == 20);
    CHECK(c.steps[0].bytes_before == 20 * 3100 * kMiB);
    CHECK(c.steps[0].before_bytes_per_s == 3100.0 * kMiB);
    CHECK(c.steps[0].after_bytes_per_s == 1800.0 * kMiB);
    CHECK(c.steps[1].interval == 40);
    CHECK(c.steps[1].bytes_before == (20 * 3100 + 20 * 1800) * kMiB);
    CHECK(c.steps[1].seconds_before == 40);
    CHECK(c.steps[1].before_bytes_per_s == 1800.0 * kMiB);
    CHECK(c.steps[1].after_bytes_per_s == 850.0 * kMiB);
    CHECK(c.steps[1].drop_pct == doctest::Approx(100.0 * (1 - 850.0 / 1800)).epsilon(1e-12));
}

TEST_CASE("a two-step cliff whose second step is the larger is found in order") {
    // Least squares splits at 40 first (the larger drop); the first step is
    // then found inside the segment before it.
    Series s;
    s.level(20, 3100, kNoise).level(20, 2000, kNoise).level(20, 850, kNoise);
    const WriteCliff c = find_write_cliff(s.intervals);
    REQUIRE(c.steps.size() == 2);
    CHECK(c.steps[0].interval == 20);
    CHECK(c.steps[1].interval == 40);
    // 20 intervals hold each noise factor four times: the middle two sorted
    // are both 1.00.
    CHECK(c.steps[0].before_bytes_per_s == 3100.0 * kMiB);
    CHECK(c.steps[0].after_bytes_per_s == 2000.0 * kMiB);
    CHECK(c.steps[1].after_bytes_per_s == 850.0 * kMiB);
}

TEST_CASE("noise, single-interval dips and spikes and a short dip are not a cliff") {
    Series s;
    s.level(60, 2000, {1.00, 1.08, 0.92, 1.05, 0.95});
    s.scale(10, 0.2).scale(35, 0.0).scale(20, 2.0);
    s.scale(45, 0.4).scale(46, 0.4).scale(47, 0.4);  // shorter than a level (5 intervals)
    const WriteCliff c = find_write_cliff(s.intervals);
    CHECK(c.long_enough);
    CHECK(c.steps.empty());
    CHECK(c.total_bytes == s.total());
}

TEST_CASE("a slow slide is not a cliff, nor is a rise") {
    Series slide;
    for (int i = 0; i < 60; ++i)
        slide.level(1, 2000 - 1000.0 * i / 59);  // HDD from outer to inner tracks
    CHECK(find_write_cliff(slide.intervals).steps.empty());

    Series rise;
    rise.level(30, 850).level(30, 3100);
    CHECK(find_write_cliff(rise.intervals).steps.empty());
}

TEST_CASE("a drop smaller than the rule's minimum is not a cliff") {
    Series s;
    s.level(30, 3100).level(30, 2500);  // -19.4%
    CHECK(find_write_cliff(s.intervals).steps.empty());
    const WriteCliff c =
        find_write_cliff(s.intervals, {.min_level_intervals = 5, .min_drop_pct = 15});
    REQUIRE(c.steps.size() == 1);
    CHECK(c.steps[0].interval == 30);
}

TEST_CASE("a cliff near the start or the end is found once a level has lasted long enough") {
    Series start;
    start.level(5, 3100).level(55, 850);
    auto c = find_write_cliff(start.intervals);
    REQUIRE(c.steps.size() == 1);
    CHECK(c.steps[0].interval == 5);
    CHECK(c.steps[0].bytes_before == 5 * 3100 * kMiB);

    Series end;
    end.level(55, 3100).level(5, 850);
    c = find_write_cliff(end.intervals);
    REQUIRE(c.steps.size() == 1);
    CHECK(c.steps[0].interval == 55);

    // Three intervals are too few to tell a level from a dip.
    Series too_early;
    too_early.level(3, 3100).level(57, 850);
    CHECK(find_write_cliff(too_early.intervals).steps.empty());
    Series too_late;
    too_late.level(57, 3100).level(3, 850);
    CHECK(find_write_cliff(too_late.intervals).steps.empty());
}

TEST_CASE("intervals of any length: bytes and seconds before the cliff add up") {
    // 2-second intervals, the last one a quarter second at the same rate.
    Series s;
    s.level(12, 1000, {1.0}, 2.0).level(11, 250, {1.0}, 2.0).level(1, 250, {1.0}, 0.25);
    const WriteCliff c = find_write_cliff(s.intervals);
    CHECK(c.total_seconds == 46.25);
    CHECK(c.total_bytes == 24000 * kMiB + 5500 * kMiB + 62 * kMiB + kMiB / 2);
    REQUIRE(c.steps.size() == 1);
    CHECK(c.steps[0].interval == 12);
    CHECK(c.steps[0].seconds_before == 24);
    CHECK(c.steps[0].bytes_before == 24000 * kMiB);
    CHECK(c.steps[0].after_bytes_per_s == 250.0 * kMiB);
}

TEST_CASE("a series too short to judge says so") {
    Series s;
    s.level(5, 3100).level(4, 850);
    const WriteCliff c = find_write_cliff(s.intervals);
    CHECK(c.intervals == 9);
    CHECK_FALSE(c.long_enough);
    CHECK(c.steps.empty());
    CHECK(c.total_bytes == (5 * 3100 + 4 * 850) * kMiB);

    const WriteCliff none = find_write_cliff({});
    CHECK(none.intervals == 0);
    CHECK(none.total_bytes == 0);
    CHECK_FALSE(none.long_enough);
}

TEST_CASE("recovery after idle: how much came back and how long it lasted") {
    Series s;
    s.level(30, 3100).level(30, 850);
    const WriteCliff c = find_write_cliff(s.intervals);

    // (2900 - 850) / (3100 - 850) = 2050 / 2250 = 91.1%, for 10 x 2900 MiB.
    Series after;
    after.level(10, 2900).level(20, 850);
    auto r = measure_cliff_recovery(c, after.intervals, 60);
    REQUIRE(r.has_value());
    CHECK(r->idle_seconds == 60);
    CHECK(r->bytes_per_s == 2900.0 * kMiB);
    CHECK(r->recovered_pct == doctest::Approx(100.0 * 2050 / 2250).epsilon(1e-12));
    CHECK(r->segment_bytes == (10 * 2900 + 20 * 850) * kMiB);
    REQUIRE(r->bytes_to_cliff.has_value());
    CHECK(*r->bytes_to_cliff == 10 * 2900 * kMiB);

    // A short burst at the full rate, the cliff not reached again.
    Series full;
    full.level(4, 3100);
    r = measure_cliff_recovery(c, full.intervals, 300);
    REQUIRE(r.has_value());
    CHECK(r->recovered_pct == 100);
    CHECK_FALSE(r->bytes_to_cliff.has_value());
    CHECK(r->segment_bytes == 4 * 3100 * kMiB);

    // Nothing came back.
    Series none;
    none.level(20, 850);
    r = measure_cliff_recovery(c, none.intervals, 5);
    REQUIRE(r.has_value());
    CHECK(r->recovered_pct == 0);
}

TEST_CASE("recovery needs a cliff and a segment after the idle") {
    Series flat;
    flat.level(30, 3100);
    Series after;
    after.level(5, 3100);
    CHECK_FALSE(measure_cliff_recovery(find_write_cliff(flat.intervals), after.intervals, 60));
    Series cliff;
    cliff.level(30, 3100).level(30, 850);
    CHECK_FALSE(measure_cliff_recovery(find_write_cliff(cliff.intervals), {}, 60));
}

TEST_CASE("a rule or an interval that cannot be used is refused with a reason") {
    Series s;
    s.level(10, 100);
    CHECK_THROWS_WITH_AS(find_write_cliff(s.intervals, {.min_level_intervals = 0}),
                         "write-cliff level must last at least 1 interval", std::invalid_argument);
    CHECK_THROWS_AS(find_write_cliff(s.intervals, {.min_drop_pct = 0}), std::invalid_argument);
    CHECK_THROWS_AS(find_write_cliff(s.intervals, {.min_drop_pct = 100}), std::invalid_argument);
    s.intervals[3].seconds = 0;
    CHECK_THROWS_WITH_AS(find_write_cliff(s.intervals),
                         "throughput interval 3 has no positive length", std::invalid_argument);
}
