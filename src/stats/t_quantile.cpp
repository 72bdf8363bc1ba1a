#include "stats/t_quantile.h"

#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace ds::stats {

namespace {

double polynomial(const std::array<double, 8>& c, double x) {  // c[0] + c[1] x + ...
    double v = c[7];
    for (std::size_t i = 7; i-- > 0;)
        v = v * x + c[i];
    return v;
}

// Wichura's AS241 (PPND16) coefficients, lowest power first: numerator and
// denominator for the centre (|p - 0.5| <= 0.425), near tails (r <= 5) and
// far tails, r = sqrt(-log(min(p, 1 - p))).
// clang-format off
constexpr std::array<double, 8> kCentralNum{
    3.3871328727963666080e0, 1.3314166789178437745e2, 1.9715909503065514427e3,
    1.3731693765509461125e4, 4.5921953931549871457e4, 6.7265770927008700853e4,
    3.3430575583588128105e4, 2.5090809287301226727e3};
constexpr std::array<double, 8> kCentralDen{
    1.0, 4.2313330701600911252e1, 6.8718700749205790830e2, 5.3941960214247511077e3,
    2.1213794301586595867e4, 3.9307895800092710610e4, 2.8729085735721942674e4,
    5.2264952788528545610e3};
constexpr std::array<double, 8> kNearNum{
    1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0,
    3.64784832476320460504e0, 1.27045825245236838258e0, 2.41780725177450611770e-1,
    2.27238449892691845833e-2, 7.74545014278341407640e-4};
constexpr std::array<double, 8> kNearDen{
    1.0, 2.05319162663775882187e0, 1.67638483018380384940e0, 6.89767334985100004550e-1,
    1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4,
    1.05075007164441684324e-9};
constexpr std::array<double, 8> kFarNum{
    6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0,
    2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
    2.71155556874348757815e-5, 2.01033439929228813265e-7};
constexpr std::array<double, 8> kFarDen{
    1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
    7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7,
    2.04426310338993978564e-15};
// clang-format on

// Wichura's AS241 (PPND16), relative error about 1e-16.  85 % of normal
// draws (distribution.h) take the central branch, a ratio of two
// polynomials; the tails add a log and a square root.
double as241(double p) {
    const double q = p - 0.5;
    if (std::abs(q) <= 0.425) {
        const double r = 0.180625 - q * q;
        return q * polynomial(kCentralNum, r) / polynomial(kCentralDen, r);
    }
    double r = std::sqrt(-std::log(q < 0 ? p : 1 - p));
    double x;
    if (r <= 5) {
        r -= 1.6;
        x = polynomial(kNearNum, r) / polynomial(kNearDen, r);
    } else {
        r -= 5;
        x = polynomial(kFarNum, r) / polynomial(kFarDen, r);
    }
    return q < 0 ? -x : x;
}

}  // namespace

double normal_quantile(double p) {
    if (!(p > 0 && p < 1))
        throw std::invalid_argument("normal quantile needs 0 < p < 1, not " + std::to_string(p));
    return as241(p);
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
