// What the readers of the command line share: the parsed options read by
// name with their units, the limits, and each concept's readers, one file
// each (declared below by file).  command_line.cpp calls them in a fixed
// order: a reader may rely on what an earlier one set in the RunConfig, and
// of two mistakes the earlier reader's is the one reported.  Not for use
// outside cli/.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cli/command_line.h"
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

// target_options.cpp: TARGET, --path, --raw-device and --destroy-data.
// The targets as given, directories first; checks they pair and differ.
std::vector<model::RunConfig::TargetSpec> given_targets(const Options& o);
void read_target(const Options& o, model::RunConfig& c);
void read_recreate(const Options& o, model::RunConfig& c);
// The modes that reshape the workers or the files are one target's.
void refuse_with_several_targets(const Options& o, const model::RunConfig& c);

// workload_options.cpp: what the workers do to their files.
// --size, --files, --qd, --seq-block and, through read_random_blocks, the
// random blocks.
void read_geometry(const Options& o, model::RunConfig& c);
// --rand-block (one size or a mix) and --unit: sets the mix and the
// verification unit (c.rand_block); returns the largest size.
std::uint64_t read_random_blocks(const Options& o, model::RunConfig& c);
// Where the verification unit came from, for a message.
std::string unit_source(const Options& o);
void read_read_pct(const Options& o, model::RunConfig& c);
void read_seed(const Options& o, model::RunConfig& c);
// --phases and --no-verify.
void read_phases(const Options& o, model::RunConfig& c);
// --trim-pct (after --read-pct), --distribution (where the random phase's
// blocks land), --compress (how compressible the written data is) and
// --dedupe (how much of it is duplicated).
void read_workload_data(const Options& o, model::RunConfig& c);

// schedule_options.cpp: how long the phases and the run last, and when
// operations are issued.
// --rand-time (--mixed-sec), --rand-ops and --seq-time.
void read_phase_lengths(const Options& o, model::RunConfig& c);
// --rate and --arrivals: the random phase's open-loop schedule.
void read_rate(const Options& o, model::RunConfig& c);
// --iterations and --duration.
void read_run_length(const Options& o, model::RunConfig& c);
// --rate against the phases (after read_phases).
void check_rate(const Options& o, const model::RunConfig& c);
void read_find_rate(const Options& o, model::RunConfig& c);
// --replay and its --replay-* options (after --phases).
void read_replay(const Options& o, model::RunConfig& c);
// --arrivals needs a schedule to space (after --rate, --sweep, --find-rate).
void check_arrivals(const Options& o, const model::RunConfig& c);
// Whether a sequential phase repeats its pass until it can be quoted.
void read_seq_passes(const Options& o, model::RunConfig& c);

// sweep_options.cpp: --sweep (parse_sweep, command_line.h) and --knee-gain.
void read_knee_gain(const Options& o, model::RunConfig& c);
void read_sweep(const Options& o, model::RunConfig& c);

// mode_options.cpp: the modes that repeat, extend or compare runs.
void read_repeat(const Options& o, model::RunConfig& c);
void read_steady_state(const Options& o, model::RunConfig& c);
void read_sustained_write(const Options& o, model::RunConfig& c);
// --compare-backends, --compare-extra and --keep.
void read_modes(const Options& o, model::RunConfig& c);
void read_sync_compare(const Options& o, model::RunConfig& c);

// backend_options.cpp: how the I/O is issued (parse_cpu_list, command_line.h).
// --backend, --sqpoll, --iopoll, --buffered (--no-direct) and --cpus.
void read_backend(const Options& o, model::RunConfig& c);
// --sync, --sync-every and --batch.
void read_durability(const Options& o, model::RunConfig& c);
// --wait (after --backend, --rate and --replay): how a ring waits.
void read_wait(const Options& o, model::RunConfig& c);
// --backend nop: refuses what needs a device or data, turns verification off.
void read_nop(const Options& o, model::RunConfig& c);
// --atomic (after --backend, --replay and --sync-compare): every write
// RWF_ATOMIC; refuses what it cannot combine with (the sizes are checked
// against the target's promise later, model/atomic_writes.h).
void read_atomic(const Options& o, model::RunConfig& c);

// job_file_options.cpp: --job-file and --job-set (last: it refuses the
// options that describe a workload of their own).
void read_job_file(const Options& o, model::RunConfig& c);

// output_options.cpp: where the results go and what they hold.
// --json, --fio-json, --timeseries, --prom and what goes with them, --progress.
// `comparison`: the comparison the run is (--compare-backends, --compare-atomic), or null.
void read_outputs(const Options& o, const char* comparison, Outputs& out);
// --fio-json needs a random phase in at least one of `runs` (a preset's tests).
void check_fio_json(const Options& o, const std::vector<const model::RunConfig*>& runs);
// --interval: the length of a --timeseries line.
void read_interval(const Options& o, model::RunConfig& c);
void read_iteration_detail(const Options& o, model::RunConfig& c);
void read_latency_thresholds(const Options& o, model::RunConfig& c);
// --io-log and --io-log-format (after --repeat).
void read_io_log(const Options& o, model::RunConfig& c);

}  // namespace ds::cli::detail
