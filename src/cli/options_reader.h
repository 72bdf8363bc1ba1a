// What the readers of the command line share (cli/options.cpp, the workload
// and run readers; cli/run_options.cpp, the features' readers): the parsed
// options read by name with their units, and the limits.  Not for use
// outside cli/.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cli/options.h"
#include "model/config.h"
#include "units/units.h"

namespace ds::cli::detail {

namespace po = boost::program_options;

inline constexpr std::uint64_t kMaxFiles = 4096;
inline constexpr std::uint64_t kMaxQd = 4096;
inline constexpr std::uint64_t kMaxBlock = 64ULL << 20;
// --iteration-detail keeps 3 histograms of 37 KiB per phase of each iteration
// kept: 10000 iterations of 4 phases hold 4.4 GiB.
inline constexpr std::uint64_t kMaxIterationDetail = 10000;

inline bool is_power_of_two(std::uint64_t v) {
    return v && (v & (v - 1)) == 0;
}

// Runs a parser and turns its complaint into a UsageError naming the option.
template <typename F>
auto with_option(const std::string& option, const std::string& text, F&& parse) {
    try {
        return parse(text);
    } catch (const std::invalid_argument& e) {
        throw UsageError(option + ": " + e.what());
    }
}

// The parsed options, read by name with their units.  A preset's test
// (`preset`: long name -> value, "" for a switch) fills in what the user did
// not give, as if given: the user's own options win.
class Options {
  public:
    using Values = std::vector<std::pair<std::string, std::string>>;
    explicit Options(const po::variables_map& vm, const Values* preset = nullptr)
        : vm_(vm), preset_(preset) {}

    bool given(const char* name) const { return by_user(name) || from_preset(name); }
    bool flag(const char* name) const {
        return by_user(name) ? vm_[name].as<bool>() : from_preset(name) || vm_[name].as<bool>();
    }
    const std::string& text(const char* name) const {
        if (!by_user(name))
            if (const std::string* v = from_preset(name)) return *v;
        return vm_[name].as<std::string>();
    }
    std::vector<std::string> texts(const char* name) const {
        return vm_.count(name) ? vm_[name].as<std::vector<std::string>>()
                               : std::vector<std::string>{};
    }
    std::uint64_t size(const char* name) const {
        return with_option(opt(name), text(name),
                           [](const std::string& t) { return units::parse_size(t); });
    }
    std::uint64_t count(const char* name, std::uint64_t lo, std::uint64_t hi) const {
        const std::uint64_t v = with_option(
            opt(name), text(name), [](const std::string& t) { return units::parse_count(t); });
        if (v < lo || v > hi)
            throw UsageError(opt(name) + ": '" + text(name) + "' is out of range (" +
                             std::to_string(lo) + " to " + std::to_string(hi) + ")");
        return v;
    }
    double duration(const char* name) const {
        return with_option(opt(name), text(name),
                           [](const std::string& t) { return units::parse_duration(t); });
    }
    static std::string opt(const char* name) { return std::string("--") + name; }

  private:
    bool by_user(const char* name) const { return vm_.count(name) && !vm_[name].defaulted(); }
    const std::string* from_preset(const char* name) const {
        if (preset_)
            for (const auto& [key, value] : *preset_)
                if (key == name) return &value;
        return nullptr;
    }

    const po::variables_map& vm_;
    const Values* preset_;
};

// The readers of each feature's options (cli/run_options.cpp).
void read_sweep(const Options& o, model::RunConfig& c);
void read_find_rate(const Options& o, model::RunConfig& c);
// --replay and its --replay-* options (after --phases; read_workload_data calls it).
void read_replay(const Options& o, model::RunConfig& c);
// --backend nop: refuses what needs a device or data, turns verification off.
void read_nop(const Options& o, model::RunConfig& c);
// --io-log and --io-log-format (after --repeat).
void read_io_log(const Options& o, model::RunConfig& c);
// --rand-block (one size or a mix) and --unit: sets the mix and the
// verification unit (c.rand_block); returns the largest size.
std::uint64_t read_random_blocks(const Options& o, model::RunConfig& c);
// Where the verification unit came from, for a message.
std::string unit_source(const Options& o);
// --distribution (where the random phase's blocks land), --trim-pct (after
// --read-pct), --compress (how compressible the written data is) and
// --dedupe (how much of it is duplicated).
void read_workload_data(const Options& o, model::RunConfig& c);
void check_arrivals(const Options& o, const model::RunConfig& c);
void read_steady_state(const Options& o, model::RunConfig& c);
void read_sustained_write(const Options& o, model::RunConfig& c);
void read_latency_thresholds(const Options& o, model::RunConfig& c);
void read_durability(const Options& o, model::RunConfig& c);
void read_modes(const Options& o, model::RunConfig& c);
void read_sync_compare(const Options& o, model::RunConfig& c);
// --atomic (after --backend, --replay and --sync-compare): refuses what it
// cannot combine with; the sizes are checked against the target's promise
// later (model/atomic_writes.h).
void read_atomic(const Options& o, model::RunConfig& c);

}  // namespace ds::cli::detail
