// Steady state as the SNIA Solid State Storage Performance Test
// Specification (PTS 2.0.2) defines it: over a measurement window of the
// last W rounds (5), the range of the round values is at most 20% of their
// mean, and the least-squares line through them moves by at most 10% of the
// mean across the window (|slope| x (W - 1)).  Unlike fio's `ss`, the slope
// is per round and judged as an excursion over the whole window, and both
// criteria must hold at once.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace ds::stats {

// The rule, with PTS 2.0.2's values as defaults.
struct SteadyStateRule {
    std::size_t window_rounds = 5;  // measurement window: the last W rounds (>= 2)
    double max_range_pct = 20;      // max - min of the window, percent of its mean
    double max_excursion_pct = 10;  // |slope| x (W - 1), percent of the window mean
    std::size_t max_rounds = 25;    // the tracker gives up after this many rounds (>= W)
};

// Throws std::invalid_argument with a one-line reason when `rule` cannot be
// evaluated: a window below 2 rounds, max_rounds below the window, a limit
// that is negative or not finite.
void check_steady_state_rule(const SteadyStateRule& rule);

// One evaluation of the rule over a window.  Rounds are numbered by their
// 0-based index in the series; the fitted line is
// value = intercept + slope x index, so a plot of the window draws it as is.
// Values are in the rounds' own unit (IOPS, bytes/s).
struct SteadyStateWindow {
    std::size_t first = 0;      // index of the window's first round
    std::size_t last = 0;       // index of its last round: first + W - 1
    double mean = 0;            // of the window's values
    double min = 0;             // smallest value in the window
    double max = 0;             // largest value in the window
    double range_pct = 0;       // 100 x (max - min) / mean; NaN when mean <= 0
    double slope = 0;           // of the least-squares line, value units per round
    double intercept = 0;       // the line's value at index 0
    double excursion_pct = 0;   // 100 x |slope| x (W - 1) / mean; NaN when mean <= 0
    bool range_ok = false;      // range_pct <= max_range_pct
    bool excursion_ok = false;  // excursion_pct <= max_excursion_pct
    bool attained = false;      // both: the window is in steady state
    // The slope's 95 % interval (Student's t over the line's residuals,
    // W - 2 degrees of freedom): whether the rounds still move by more than
    // their own scatter.  A window of 2 rounds has no residual: no interval
    // (trend_judged false, low = high = slope).
    double slope_low = 0, slope_high = 0;
    bool trend_judged = false;
    bool trend_within_noise = false;  // judged, and the interval holds 0
};

// Whether the window's rounds still move beyond their own scatter:
// "within_noise", "rising", "falling" or "unjudged" (no slope interval).
std::string_view trend_name(const SteadyStateWindow& w);

// Evaluates `rule` over the last W values of `rounds`; nullopt when there are
// fewer than W.  A window whose mean is not positive is never steady (there is
// no relative measure of a zero rate).  Throws std::invalid_argument on a bad
// rule (check_steady_state_rule).
std::optional<SteadyStateWindow> evaluate_steady_state(std::span<const double> rounds,
                                                       const SteadyStateRule& rule = {});

enum class SteadyStateStatus {
    measuring,           // fewer than W rounds, or not steady yet
    attained,            // the last W rounds meet the rule
    max_rounds_reached,  // max_rounds done without meeting it
};

// Takes a phase's rounds one by one and says when to stop: at the first
// window that meets the rule, or after max_rounds rounds.
class SteadyStateTracker {
  public:
    // Throws std::invalid_argument on a bad rule (check_steady_state_rule).
    explicit SteadyStateTracker(const SteadyStateRule& rule = {});

    // Records one round's value and evaluates the window ending with it.
    // Once the status is final, further rounds are not recorded and the
    // final status is returned again.
    SteadyStateStatus add_round(double value);

    SteadyStateStatus status() const { return status_; }
    const SteadyStateRule& rule() const { return rule_; }
    // Every round recorded so far, in order.
    const std::vector<double>& rounds() const { return rounds_; }
    // The latest window evaluated (the attained one once attained); nullopt
    // before W rounds.
    const std::optional<SteadyStateWindow>& window() const { return window_; }

  private:
    SteadyStateRule rule_;
    std::vector<double> rounds_;
    std::optional<SteadyStateWindow> window_;
    SteadyStateStatus status_ = SteadyStateStatus::measuring;
};

}  // namespace ds::stats
