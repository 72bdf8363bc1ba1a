// Sweeps: --sweep's parameters and values (qd, files, rand-block, rate),
// parsed and checked against the rest of the run, and --knee-gain, which
// says where a sweep saturates.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "cli/options_reader.h"
#include "model/plan.h"

namespace ds::cli {

using namespace detail;

// rate=10k,20k,50k (IOPS), rate=10%,50%,100% (of the closed-loop IOPS,
// measured first), or a range LO..HI in steps of LO (rate=10%..100%).
static model::Sweep parse_rate_sweep(const std::string& list) {
    model::Sweep sw;
    sw.param = model::SweepParam::rate;
    sw.percent = !list.empty() && list.find('%') != std::string::npos;
    auto value = [&](std::string t) -> std::uint64_t {
        if (sw.percent) {
            if (t.empty() || t.back() != '%')
                throw UsageError("--sweep rate: '" + t + "' mixes IOPS with percentages");
            t.pop_back();
        }
        const double v =
            with_option("--sweep", t, [](const std::string& x) { return units::parse_rate(x); });
        if (sw.percent && (v < 1 || v > 1000 || v != std::floor(v)))
            throw UsageError("--sweep rate: '" + t + "%' is not a whole percent from 1 to 1000");
        return static_cast<std::uint64_t>(std::llround(v));
    };
    if (auto range = list.find(".."); range != std::string::npos) {
        const std::uint64_t lo = value(list.substr(0, range)), hi = value(list.substr(range + 2));
        if (hi < lo || hi / lo > 100)
            throw UsageError("--sweep rate: range '" + list +
                             "' must go up, in at most 100 steps of its first value");
        for (std::uint64_t v = lo; v <= hi; v += lo)
            sw.values.push_back(v);
    } else {
        for (const auto& item : with_option(
                 "--sweep", list, [](const std::string& t) { return units::split_list(t); }))
            sw.values.push_back(value(item));
    }
    std::set<std::uint64_t> seen;
    for (auto v : sw.values)
        if (!seen.insert(v).second)
            throw UsageError("--sweep: value " + std::to_string(v) + " given twice");
    return sw;
}

model::Sweep parse_sweep(const std::string& text) {
    auto eq = text.find('=');
    if (eq == std::string::npos)
        throw UsageError("--sweep: '" + text + "' is not NAME=VALUES (e.g. qd=1..128)");
    std::string name = text.substr(0, eq), list = text.substr(eq + 1);
    model::Sweep sw;
    if (name == "qd")
        sw.param = model::SweepParam::qd;
    else if (name == "files")
        sw.param = model::SweepParam::files;
    else if (name == "rand-block")
        sw.param = model::SweepParam::rand_block;
    else if (name == "rate")
        return parse_rate_sweep(list);
    else
        throw UsageError("--sweep: unknown parameter '" + name +
                         "' (use qd, files, rand-block or rate)");
    const bool sizes = sw.param == model::SweepParam::rand_block;
    auto value = [&](const std::string& t) {
        return with_option("--sweep", t, [&](const std::string& v) {
            return sizes ? units::parse_size(v) : units::parse_count(v);
        });
    };
    if (auto range = list.find(".."); range != std::string::npos) {
        std::uint64_t lo = value(list.substr(0, range)), hi = value(list.substr(range + 2));
        if (lo == 0 || hi < lo)
            throw UsageError("--sweep: range '" + list + "' must go from a positive value up");
        for (std::uint64_t v = lo; v <= hi; v *= 2) {
            sw.values.push_back(v);
            if (v > hi / 2) break;
        }
        if (sw.values.back() != hi) sw.values.push_back(hi);
    } else {
        for (const auto& item : with_option(
                 "--sweep", list, [](const std::string& t) { return units::split_list(t); }))
            sw.values.push_back(value(item));
    }
    std::set<std::uint64_t> seen;
    for (auto v : sw.values) {
        if (v == 0) throw UsageError("--sweep: values must be greater than zero");
        if (!seen.insert(v).second)
            throw UsageError("--sweep: value " + std::to_string(v) + " given twice");
        const std::uint64_t limit = sw.param == model::SweepParam::qd      ? kMaxQd
                                    : sw.param == model::SweepParam::files ? kMaxFiles
                                                                           : kMaxBlock;
        if (v > limit)
            throw UsageError("--sweep: " + name + " value " + std::to_string(v) + " is above " +
                             std::to_string(limit));
        if (sizes && (!is_power_of_two(v) || v < 512))
            throw UsageError("--sweep: rand-block " + units::format_size_option(v) +
                             " must be a power of two of at least 512");
    }
    return sw;
}

}  // namespace ds::cli

namespace ds::cli::detail {

// --knee-gain PCT: a sweep saturates at the first point after which no
// later point adds PCT % more (stats/knee.h).
void read_knee_gain(const Options& o, model::RunConfig& c) {
    c.knee_gain_pct = static_cast<double>(o.count("knee-gain", 0, 1000));
}

// --sweep NAME=VALUES: one random phase per value (read once the workload,
// the phases and the rate are: a value replaces its option).
void read_sweep(const Options& o, model::RunConfig& c) {
    if (!o.given("sweep")) return;
    c.sweep = parse_sweep(o.text("sweep"));
    if (!c.has_phase(model::Phase::random) || !(c.rand_ops || c.rand_time_s > 0))
        throw UsageError("--sweep needs the random phase (--phases with random, --rand-time > 0)");
    if (c.iterations != 1) throw UsageError("--sweep runs one iteration; drop --iterations");
    const auto& v = c.sweep->values;
    const std::uint64_t lo = *std::min_element(v.begin(), v.end());
    const std::uint64_t hi = *std::max_element(v.begin(), v.end());
    switch (c.sweep->param) {
        case model::SweepParam::qd:
            if (o.given("qd")) throw UsageError("--sweep qd=... and --qd both given");
            c.qd = static_cast<unsigned>(hi);
            // At most half of a file's units are in flight (picking a free
            // one stays cheap): a deeper point would run shallower than its
            // row says.  (A raw device's region size is known later.)
            if (const std::uint64_t units = c.file_bytes / c.max_rand_block();
                units && hi > model::max_random_depth(c.file_bytes, c.max_rand_block()))
                throw UsageError(
                    "--sweep qd: " + std::to_string(hi) + " is more than half of a file's " +
                    std::to_string(units) + " blocks (--size " +
                    units::format_size_option(c.file_bytes) + ", --rand-block " +
                    units::format_size_option(c.max_rand_block()) + "): at most " +
                    std::to_string(model::max_random_depth(c.file_bytes, c.max_rand_block())) +
                    " are in flight per worker");
            break;
        case model::SweepParam::files:
            if (o.given("files")) throw UsageError("--sweep files=... and --files both given");
            c.files = static_cast<unsigned>(hi);
            break;
        case model::SweepParam::rand_block:
            if (o.given("rand-block"))
                throw UsageError("--sweep rand-block=... and --rand-block both given");
            if (o.given("unit"))
                throw UsageError(
                    "--sweep rand-block=... and --unit both given (the smallest value is the "
                    "unit)");
            // The smallest block is the verification unit; the others are
            // whole multiples of it.
            if (c.seq_block % lo != 0 ||
                (c.file_bytes && (c.file_bytes % hi != 0 || hi > c.file_bytes)))
                throw UsageError("--sweep rand-block: values must divide --seq-block " +
                                 units::format_size_option(c.seq_block) +
                                 " (smallest) and --size " +
                                 units::format_size_option(c.file_bytes) + " (largest)");
            c.rand_block = static_cast<std::uint32_t>(lo);
            break;
        case model::SweepParam::rate:
            if (c.rate > 0) throw UsageError("--sweep rate=... and --rate both given");
            break;
    }
}

}  // namespace ds::cli::detail
