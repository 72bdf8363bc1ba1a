#include "stats/steady_state.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "stats/t_quantile.h"

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

namespace {

// The slope's interval from the residuals about the line: its standard
// error is s / sqrt(sum((i - mean i)^2)) = s / sqrt(Suu / 4), s^2 the
// residual variance over W - 2 degrees of freedom.
void slope_interval(std::span<const double> y, double suu, SteadyStateWindow& r) {
    const std::size_t w = y.size();
    r.slope_low = r.slope_high = r.slope;
    if (w < 3) return;
    const double mean = r.mean;
    double ss = 0;
    for (std::size_t i = 0; i < w; ++i) {
        const double u = 2.0 * static_cast<double>(i) - static_cast<double>(w - 1);
        const double e = y[i] - (mean + r.slope * u / 2);
        ss += e * e;
    }
    const double se = std::sqrt(ss / static_cast<double>(w - 2) / (suu / 4));
    const double half = t_quantile(0.95, w - 2) * se;
    r.slope_low = r.slope - half;
    r.slope_high = r.slope + half;
    r.trend_judged = true;
    r.trend_within_noise = r.slope_low <= 0 && 0 <= r.slope_high;
}

}  // namespace

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
    slope_interval(y, suu, r);
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

std::string_view trend_name(const SteadyStateWindow& w) {
    if (!w.trend_judged) return "unjudged";
    if (w.trend_within_noise) return "within_noise";
    return w.slope > 0 ? "rising" : "falling";
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
