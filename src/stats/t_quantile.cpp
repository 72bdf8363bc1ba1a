#include "stats/t_quantile.h"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace ds::stats {

namespace {

// Acklam's approximation of the normal quantile, relative error 1.15e-9.
double acklam(double p) {
    static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                   -2.759285104469687e+02, 1.383577518672690e+02,
                                   -3.066479806614716e+01, 2.506628277459239e+00};
    static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                   -1.556989798598866e+02, 6.680131188771972e+01,
                                   -1.328068155288572e+01};
    static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                   -2.400758277161838e+00, -2.549732539343734e+00,
                                   4.374664141464968e+00,  2.938163982698783e+00};
    static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                   2.445134137142996e+00, 3.754408661907416e+00};
    constexpr double p_low = 0.02425;
    auto tail = [&](double q) {
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    };
    if (p < p_low) return tail(std::sqrt(-2 * std::log(p)));
    if (p > 1 - p_low) return -tail(std::sqrt(-2 * std::log1p(-p)));
    const double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

}  // namespace

double normal_quantile(double p) {
    if (!(p > 0 && p < 1))
        throw std::invalid_argument("normal quantile needs 0 < p < 1, not " + std::to_string(p));
    double x = acklam(p);
    // One Halley step against the exact distribution function.
    const double e = 0.5 * std::erfc(-x / std::numbers::sqrt2) - p;
    const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
    x -= u / (1 + x * u / 2);
    return x;
}

double t_quantile(double confidence, std::size_t df) {
    if (!(confidence > 0 && confidence < 1))
        throw std::invalid_argument("confidence must be between 0 and 1, not " +
                                    std::to_string(confidence));
    if (df < 1) throw std::invalid_argument("a t quantile needs at least 1 degree of freedom");
    const double p = 1 - confidence;  // two-sided tail probability
    if (df == 1) return std::tan(std::numbers::pi / 2 * confidence);
    if (df == 2) return std::sqrt(2 / (p * (2 - p)) - 2);
    // Hill (1970), as R's qt() starts from it.
    const double n = static_cast<double>(df);
    const double a = 1 / (n - 0.5), b = 48 / (a * a);
    double c = ((20700 * a / b - 98) * a - 16) * a + 96.36;
    const double d = ((94.5 / (b + c) - 3) / b + 1) * std::sqrt(a * std::numbers::pi / 2) * n;
    double y = std::pow(d * p, 2 / n);
    if (y > 0.05 + a) {  // expansion about the normal
        const double x = normal_quantile(0.5 * p);
        y = x * x;
        if (n < 5) c += 0.3 * (n - 4.5) * (x + 0.6);
        c = (((0.05 * d * x - 5) * x - 7) * x - 2) * x + b + c;
        y = (((((0.4 * y + 6.3) * y + 36) * y + 94.5) / c - y - 3) / b + 1) * x;
        y = std::expm1(a * y * y);
    } else {  // far tail for small df
        y = ((1 / (((n + 6) / (n * y) - 0.089 * d - 0.822) * (n + 2) * 3) + 0.5 / (n + 4)) * y -
             1) *
                (n + 1) / (n + 2) +
            1 / y;
    }
    return std::sqrt(n * y);
}

}  // namespace ds::stats
