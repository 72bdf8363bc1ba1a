// The workload: what the workers do to their files.  --size, --files, --qd
// and the block sizes, --read-pct and --trim-pct, --phases, --seed, and the
// data written: --distribution, --compress and --dedupe.
#include <cstddef>
#include <set>
#include <string>

#include "cli/options_reader.h"

namespace ds::cli::detail {

// Sizes, blocks, workers and depth.  A raw device's default region size is
// the device's (0 here, resolved before the run).
void read_geometry(const Options& o, model::RunConfig& c) {
    if (o.given("size-mb")) {
        if (o.given("size")) throw UsageError("--size and --size-mb both given");
        c.file_bytes = o.count("size-mb", 1, 1ULL << 40) << 20;
    } else {
        c.file_bytes = o.size("size");
    }
    // Derived from the devices' sizes only when every target is a device
    // (several: the smallest device's region); a directory among them
    // takes the default.
    bool all_raw = !c.raw_device.empty();
    for (const auto& t : c.more_targets)
        all_raw = all_raw && !t.raw_device.empty();
    const bool derived = all_raw && !o.given("size") && !o.given("size-mb");
    if (derived) c.file_bytes = 0;
    c.files = static_cast<unsigned>(o.count("files", 1, kMaxFiles));
    c.qd = static_cast<unsigned>(o.count("qd", 1, kMaxQd));
    const std::uint64_t seq = o.size("seq-block");
    const std::uint64_t rand = read_random_blocks(o, c);
    if (seq == 0 || seq > kMaxBlock)
        throw UsageError("--seq-block: " + units::format_size_option(seq) +
                         " must be from 512 to 64M");
    if (seq % c.rand_block != 0)
        throw UsageError("--seq-block " + units::format_size_option(seq) +
                         " is not a multiple of the unit " +
                         units::format_size_option(c.rand_block) + " (" + unit_source(o) + ")");
    c.seq_block = static_cast<std::uint32_t>(seq);
    if (derived) return;
    if (c.file_bytes == 0) throw UsageError("--size: must be greater than zero");
    if (c.file_bytes % rand != 0)
        throw UsageError("--size " + units::format_size_option(c.file_bytes) +
                         " is not a multiple of --rand-block" +
                         (c.rand_mix.size() > 1 ? "'s largest size " : " ") +
                         units::format_size_option(rand));
    if (seq > c.file_bytes)
        throw UsageError("--seq-block " + units::format_size_option(seq) +
                         " is larger than --size " + units::format_size_option(c.file_bytes));
}

// Where the verification unit came from, for a message.
std::string unit_source(const Options& o) {
    return o.given("unit") ? "--unit" : "the smallest --rand-block";
}

// --rand-block, one size or a mix (model/block_mix.h), and --unit: sets the
// mix and the verification unit (c.rand_block); returns the largest size.
std::uint64_t read_random_blocks(const Options& o, model::RunConfig& c) {
    const std::string& text = o.text("rand-block");
    c.rand_mix.clear();
    if (text.find_first_of(":,") != std::string::npos) {
        c.rand_mix = with_option("--rand-block", text,
                                 [](const std::string& t) { return units::parse_block_mix(t); });
    } else {
        const std::uint64_t rand = o.size("rand-block");
        if (!is_power_of_two(rand) || rand < 512 || rand > kMaxBlock)
            throw UsageError("--rand-block: " + units::format_size_option(rand) +
                             " must be a power of two from 512 to 64M, or a mix as "
                             "4K:60,16K:20,128K:20");
        c.rand_mix.push_back({static_cast<std::uint32_t>(rand), 100});
    }
    std::uint64_t unit = c.rand_mix.front().bytes;
    if (o.given("unit")) {
        unit = o.size("unit");
        if (!is_power_of_two(unit) || unit < 512 || unit > kMaxBlock)
            throw UsageError("--unit: " + units::format_size_option(unit) +
                             " must be a power of two from 512 to 64M");
        if (c.rand_mix.front().bytes % unit != 0)
            throw UsageError("--unit " + units::format_size_option(unit) +
                             " does not divide --rand-block " +
                             units::format_size_option(c.rand_mix.front().bytes));
    }
    c.rand_block = static_cast<std::uint32_t>(unit);
    const std::uint64_t largest = c.rand_mix.back().bytes;
    // One size that is the unit: no mix (every operation is one unit).
    if (c.rand_mix.size() == 1 && largest == unit) c.rand_mix.clear();
    return largest;
}

// --read-pct: the share of the random phase's operations that are reads.
void read_read_pct(const Options& o, model::RunConfig& c) {
    c.read_pct = static_cast<unsigned>(o.count("read-pct", 0, 100));
}

// --seed: the base of every unit's data, random when not given.
void read_seed(const Options& o, model::RunConfig& c) {
    if (o.given("seed")) {
        c.seed = with_option("--seed", o.text("seed"),
                             [](const std::string& t) { return units::parse_count(t); });
        c.seed_given = true;
    }
}

// --phases (in their natural order, whatever order they are given in) and
// --no-verify.
void read_phases(const Options& o, model::RunConfig& c) {
    c.verify = !o.flag("no-verify");
    c.phases.clear();
    std::set<model::Phase> seen;
    for (const auto& name : with_option("--phases", o.text("phases"), [](const std::string& t) {
             return units::split_list(t);
         })) {
        auto p = model::phase_from_string(name);
        if (!p)
            throw UsageError("--phases: unknown phase '" + name +
                             "' (use seq-write, seq-read, random, reverify)");
        if (!seen.insert(*p).second) throw UsageError("--phases: '" + name + "' given twice");
    }
    if (!seen.count(model::Phase::seq_write))
        throw UsageError("--phases: must include seq-write (the files start empty every run)");
    if (!c.verify && o.given("phases") && seen.count(model::Phase::reverify))
        throw UsageError("--phases reverify conflicts with --no-verify (it only verifies)");
    for (model::Phase p : model::kAllPhases)  // always in their natural order
        if (seen.count(p) && !(p == model::Phase::reverify && !c.verify)) c.phases.push_back(p);
}

// A plain decimal from 1 to 8 (pattern/unit.h, kMaxCompressRatio, says why 8).
static void read_compress(const Options& o, model::RunConfig& c) {
    const std::string t = o.text("compress");
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(t, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    const bool digits = !t.empty() && t.find_first_not_of("0123456789.") == std::string::npos;
    if (!digits || used != t.size() || !(v >= 1 && v <= model::kMaxCompress))
        throw UsageError("--compress: '" + t +
                         "' is not a ratio from 1 to 8 (a number such as 1.5, 2 or 4; 1 = "
                         "incompressible)");
    c.compress = v;
}

// --trim-pct, beside --read-pct (read first): the rest are writes.
static void read_trims(const Options& o, model::RunConfig& c) {
    c.trim_pct = static_cast<unsigned>(o.count("trim-pct", 0, 100));
    if (c.read_pct + c.trim_pct > 100)
        throw UsageError("--trim-pct " + std::to_string(c.trim_pct) + " and --read-pct " +
                         std::to_string(c.read_pct) +
                         " add up to more than 100 (reads + trims <= 100, the rest are writes)");
}

// A percentage from 0 to 100 with one decimal at most, kept in tenths
// (model::kDedupeScale).
static void read_dedupe(const Options& o, model::RunConfig& c) {
    const std::string t = o.text("dedupe");
    const std::size_t dot = t.find('.');
    const std::string whole = t.substr(0, dot);
    const std::string tenth = dot == std::string::npos ? "0" : t.substr(dot + 1);
    const bool digits = !whole.empty() && whole.size() <= 3 && tenth.size() == 1 &&
                        (whole + tenth).find_first_not_of("0123456789") == std::string::npos;
    const unsigned v = digits ? static_cast<unsigned>(std::stoul(whole) * 10 + std::stoul(tenth))
                              : model::kDedupeScale + 1;
    if (v > model::kDedupeScale)
        throw UsageError("--dedupe: '" + t +
                         "' is not a percentage from 0 to 100 (a number such as 25 or 12.5; 0 = "
                         "no duplicate units)");
    c.dedupe = v;
}

// --trim-pct, --distribution, --compress and --dedupe.
void read_workload_data(const Options& o, model::RunConfig& c) {
    read_trims(o, c);
    c.distribution = with_option("--distribution", o.text("distribution"),
                                 [](const std::string& t) { return stats::parse_distribution(t); });
    read_compress(o, c);
    read_dedupe(o, c);
}

}  // namespace ds::cli::detail
