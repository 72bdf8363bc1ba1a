#include "stats/steady_state.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ds::stats {

void check_steady_state_rule(const SteadyStateRule& rule) {
    if (rule.window_rounds < 2)
        throw std::invalid_argument("steady-state window must be at least 2 rounds, not " +
                                    std::to_string(rule.window_rounds));
    if (rule.max_rounds < rule.window_rounds)
        throw std::invalid_argument("steady-state maximum of " + std::to_string(rule.max_rounds) +
                                    " rounds is shorter than its window of " +
                                    std::to_string(rule.window_rounds));
    auto bad = [](double pct) { return !std::isfinite(pct) || pct < 0; };
    if (bad(rule.max_range_pct) || bad(rule.max_excursion_pct))
        throw std::invalid_argument("steady-state limits must be finite, non-negative percentages");
}

// The least-squares slope uses centred abscissae u = 2i - (W - 1), which are
// integers for every W: slope = 2 Su / Suu with Su = sum(u y), Suu = sum(u^2).
// Both limits are then tested cross-multiplied, on sums only:
//   range:      100 (max - min) W          <= max_range_pct     x sum
//   excursion:  100 x 2 |Su| (W - 1) x W   <= max_excursion_pct x Suu x sum
// so a window exactly at a limit passes whatever the divisions would round to
// (with integer round values the comparison is exact).
std::optional<SteadyStateWindow> evaluate_steady_state(std::span<const double> rounds,
                                                       const SteadyStateRule& rule) {
    check_steady_state_rule(rule);
    const std::size_t w = rule.window_rounds;
    if (rounds.size() < w) return std::nullopt;
    const std::span<const double> y = rounds.last(w);

    SteadyStateWindow r;
    r.first = rounds.size() - w;
    r.last = rounds.size() - 1;
    double sum = 0, su = 0, suu = 0;
    r.min = r.max = y[0];
    for (std::size_t i = 0; i < w; ++i) {
        const double u = 2.0 * static_cast<double>(i) - static_cast<double>(w - 1);
        sum += y[i];
        su += u * y[i];
        suu += u * u;
        r.min = std::min(r.min, y[i]);
        r.max = std::max(r.max, y[i]);
    }
    const double wd = static_cast<double>(w);
    r.mean = sum / wd;
    r.slope = 2.0 * su / suu;
    // The line passes through (centre index, mean).
    r.intercept = r.mean - r.slope * (static_cast<double>(r.first) + (wd - 1) / 2);
    const double excursion = std::fabs(r.slope) * (wd - 1);
    if (!(r.mean > 0)) {
        r.range_pct = r.excursion_pct = std::numeric_limits<double>::quiet_NaN();
        return r;  // never steady: no relative measure of a zero rate
    }
    r.range_pct = 100.0 * (r.max - r.min) / r.mean;
    r.excursion_pct = 100.0 * excursion / r.mean;
    r.range_ok = 100.0 * (r.max - r.min) * wd <= rule.max_range_pct * sum;
    r.excursion_ok =
        100.0 * 2.0 * std::fabs(su) * (wd - 1) * wd <= rule.max_excursion_pct * suu * sum;
    r.attained = r.range_ok && r.excursion_ok;
    return r;
}

SteadyStateTracker::SteadyStateTracker(const SteadyStateRule& rule) : rule_(rule) {
    check_steady_state_rule(rule_);
    rounds_.reserve(rule_.max_rounds);
}

SteadyStateStatus SteadyStateTracker::add_round(double value) {
    if (status_ != SteadyStateStatus::measuring) return status_;
    rounds_.push_back(value);
    if (auto w = evaluate_steady_state(rounds_, rule_)) window_ = *w;
    if (window_ && window_->attained)
        status_ = SteadyStateStatus::attained;
    else if (rounds_.size() >= rule_.max_rounds)
        status_ = SteadyStateStatus::max_rounds_reached;
    return status_;
}

}  // namespace ds::stats
