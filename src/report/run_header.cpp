// The run header of the text report: what runs where, with what, how.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "drivestress_version.h"
#include "model/drift.h"
#include "model/job.h"
#include "report/atomic_words.h"
#include "report/figures.h"
#include "report/progress_line.h"
#include "report/result_line.h"
#include "report/target_table.h"
#include "report/text_parts.h"
#include "report/text_report.h"
#include "report/text_width.h"
#include "units/units.h"

namespace ds::report {

using units::printf_string;

namespace {

// "  cpus 0,2,4" when --cpus pinned the workers.
std::string cpus_text(const model::RunConfig& cfg) {
    std::string t;
    for (unsigned c : cfg.cpus) {
        t.append(t.empty() ? "  cpus " : ",");
        t.append(std::to_string(c));
    }
    return t;
}

bool random_on(const model::RunConfig& cfg) {
    return cfg.has_phase(model::Phase::random) &&
           (cfg.rand_ops ? *cfg.rand_ops > 0 : cfg.rand_time_s > 0);
}

// "health   nvme0 (/dev/nvme0): health log before and after each phase" or
// "health   not available: <why>"; with several targets, a line each
// ("health   target 2: ...").  The per-second temperature of a --timeseries
// line is target 1's drive's; each target's share of it has its own.
std::string health_header_lines(const std::vector<model::TargetResult>& targets) {
    std::string out;
    for (std::size_t t = 0; t < targets.size(); ++t) {
        const model::DriveHealth& h = targets[t].health;
        if (!h.available && h.reason.empty()) continue;  // --sync-compare reads none
        out += "health   ";
        if (targets.size() > 1) out += "target " + std::to_string(t + 1) + ": ";
        if (!h.available)
            out += "not available: " + h.reason;
        else
            out += h.controller + " (" + h.device +
                   "): health log before and after each phase, temperature every second";
        out += '\n';
    }
    return out;
}

// "random 70% reads for 10.00 s", "... in rounds of 60 s until steady (window
// 5, at most 25 rounds)", or "random off".
std::string random_workload_text(const model::RunConfig& cfg) {
    if (!random_on(cfg)) return "random off";
    if (!cfg.replay.empty())
        return "random replays a trace" +
               (cfg.replay_speed == 0 ? std::string(" as fast as it can")
                : cfg.replay_speed == 1
                    ? std::string(" at its pace")
                    : " at " + printf_string("%g", cfg.replay_speed) + "x its pace") +
               (cfg.replay_loops > 1 ? ", " + std::to_string(cfg.replay_loops) + " times" : "");
    std::string random = "random " + std::to_string(cfg.read_pct) + "% reads ";
    if (cfg.trim_pct) random += std::to_string(cfg.trim_pct) + "% trims ";
    if (cfg.distribution.kind != stats::DistributionKind::uniform)
        random.append("(").append(cfg.distribution.text()).append(") ");
    if (cfg.steady_state)
        return random + "in rounds of " + units::format_seconds(cfg.steady_round_s) +
               " until steady (window " + std::to_string(cfg.steady_state->window_rounds) +
               ", at most " + std::to_string(cfg.steady_state->max_rounds) + " rounds)";
    return random + "for " +
           (cfg.rand_ops ? std::to_string(*cfg.rand_ops) + " ops"
                         : units::format_seconds(cfg.rand_time_s));
}

std::string backend_text(const model::BackendInfo& b) {
    std::string backend(io::to_string(b.used));
    if (!(io::backend_flags(b.used) & io::kRing))
        return backend + (b.sync_threads
                              ? " [" + std::to_string(b.sync_threads) +
                                    " threads per worker, blocking pread/pwrite]"
                              : std::string(" [single-threaded, blocking pread/pwrite]"));
    std::string flags;
    for (const auto& f : b.uring.setup_flags)
        flags += (flags.empty() ? "" : ",") + f;
    backend += " [" + (flags.empty() ? std::string("no setup flags") : flags);
    if (b.uring.fixed_files) backend += ", registered files";
    if (b.uring.fixed_buffers) backend += ", registered buffers";
    return backend + "]";
}

// How the ring's workers wait for a completion, and why: "completions:
// spin up to 50 us, then sleep (auto: depth 4 or less, a CPU to spare)";
// empty where a sleep is nothing to say (deep, not a ring, an open loop).
std::string wait_text(const model::RunPlan& plan) {
    if (plan.workers.empty()) return {};
    const model::WorkerPlan& w = plan.workers.front();
    std::size_t spinning = 0;
    unsigned spin_us = 0;
    for (const model::WorkerPlan& x : plan.workers) {
        spinning += x.wait_spin_us > 0;
        spin_us = std::max(spin_us, x.wait_spin_us);
    }
    // A sleep is what every ring did before --wait: said only where a spin
    // was asked for or was a candidate (shallow, but no CPU to spare).
    const bool says_nothing = w.wait_rule != model::WaitRule::asked &&
                              w.wait_rule != model::WaitRule::spare_cpu &&
                              w.wait_rule != model::WaitRule::no_spare;
    if (spinning == 0 && says_nothing) return {};
    std::string t = spinning == 0
                        ? "completions: sleep in the kernel"
                        : "completions: spin up to " + std::to_string(spin_us) + " us, then sleep";
    if (spinning && spinning < plan.workers.size())
        t += " (" + std::to_string(spinning) + " of " + std::to_string(plan.workers.size()) +
             " workers: the JSON plan says which)";
    switch (w.wait_rule) {
        case model::WaitRule::asked:
            return t + " (--wait)";
        case model::WaitRule::spare_cpu:
            return t + " (auto: depth " + std::to_string(model::kSpinMaxDepth) +
                   " or less, a CPU to spare)";
        case model::WaitRule::no_spare:
            return t + " (auto: no CPU to spare for a spin)";
        default:
            return t;
    }
}

// "trace.txt: fio iolog v3, 12000 events over 60.00 s: 8400 reads (33 MiB), ..."
std::string replay_text(const model::ReplayInfo& r) {
    std::string t = r.source + ": " + r.format + ", " + std::to_string(r.events) + " events over " +
                    units::format_seconds(r.span_s) + ": " + std::to_string(r.reads) + " reads (" +
                    units::format_bytes(r.read_bytes) + "), " + std::to_string(r.writes) +
                    " writes (" + units::format_bytes(r.write_bytes) + ")";
    if (r.fua_writes) t += " of which " + std::to_string(r.fua_writes) + " FUA";
    if (r.trims)
        t += ", " + std::to_string(r.trims) + (r.trims == 1 ? " trim (" : " trims (") +
             units::format_bytes(r.trim_bytes) + ")";
    if (r.flushes) t += ", " + std::to_string(r.flushes) + (r.flushes == 1 ? " flush" : " flushes");
    if (r.max_bytes)
        t += "; sizes " + units::format_bytes(r.min_bytes) +
             (r.max_bytes != r.min_bytes ? " to " + units::format_bytes(r.max_bytes) : "");
    std::uint64_t extent = 0;
    for (const auto e : r.extents)
        extent = std::max(extent, e);
    t += "; extent " + units::format_bytes(extent);
    if (r.devices.size() > 1) t += " (" + std::to_string(r.devices.size()) + " devices)";
    t += "; " + r.placement;
    if (r.widened) t += "; " + std::to_string(r.widened) + " rounded out to whole units";
    if (r.reordered) t += "; " + std::to_string(r.reordered) + " put back in time order";
    if (r.other_phases)
        t += "; " + std::to_string(r.other_phases) +
             (r.other_phases == 1 ? " record" : " records") + " of other phases left out";
    if (r.lost_events)
        t += "; INCOMPLETE: the capture lost " + std::to_string(r.lost_events) + " events";
    return t;
}

// "jobs of mix.fio: 3 in 2 groups"
std::string jobs_text(const model::RunConfig& cfg) {
    unsigned groups = 0;
    for (const model::JobSpec& j : *cfg.jobs)
        groups = std::max(groups, j.group + 1);
    return "jobs of " + (cfg.job_file == "-" ? std::string("standard input") : cfg.job_file) +
           ": " + std::to_string(cfg.jobs->size()) + " in " + std::to_string(groups) +
           (groups == 1 ? " group" : " groups");
}

// "seq-write,seq-read,random,reverify  unit 4 KiB  random 70% reads for 10 s ..."
std::string workload_text(const model::RunConfig& cfg) {
    std::string phases;
    for (auto p : cfg.phases) {
        if (!phases.empty()) phases += ',';
        phases += model::to_string(p);
    }
    const std::string random = cfg.jobs ? jobs_text(cfg) : random_workload_text(cfg);
    std::string t =
        phases + (cfg.jobs ? "" : "  unit " + units::format_bytes(cfg.rand_block)) + "  " + random +
        (cfg.rand_mix.empty() ? "" : "  blocks " + cfg.rand_block_text()) + "  iterations " +
        (cfg.iterations ? std::to_string(cfg.iterations) : "until stopped");
    if (cfg.duration_s) t += "  duration " + units::format_seconds(*cfg.duration_s);
    if (cfg.sync != model::SyncMethod::none) {
        t += "  sync " + std::string(model::to_string(cfg.sync));
        if (cfg.sync == model::SyncMethod::fsync || cfg.sync == model::SyncMethod::fdatasync)
            t += " every " + std::to_string(cfg.sync_every) +
                 (cfg.sync_every == 1 ? " write" : " writes");
    }
    if (cfg.batch > 1) t += "  batch " + std::to_string(cfg.batch);
    if (cfg.compress > 1) t += "  compress " + printf_string("%g", cfg.compress);
    if (cfg.dedupe > 0) t += "  dedupe " + printf_string("%g", cfg.dedupe_pct()) + " %";
    if (!cfg.verify) t += "  NO VERIFICATION";
    return t;
}

// What --raw-device overwrites, said before the first write lands on it.
void print_previous_contents(std::FILE* out, const std::string& dev, const model::TargetInfo& t) {
    if (t.previous_contents.empty()) {
        printf_fit(out, 9, "before   %s held no filesystem, swap or partition table signature\n",
                   dev.c_str());
        return;
    }
    std::string held;
    for (const auto& s : t.previous_contents)
        held += (held.empty() ? "" : "; ") + s;
    printf_fit(out, 9, "before   %s held: %s (overwritten by this run)\n", dev.c_str(),
               held.c_str());
}

// "ext4 on /dev/sda1"; a filesystem without a device (tmpfs, whose mount
// source is "tmpfs" again) is named once: "tmpfs, in memory".
std::string filesystem_words(const model::TargetInfo& t) {
    const std::string fs = t.filesystem.empty() ? "?" : t.filesystem;
    if (t.device.empty() || t.device == t.filesystem) return t.in_memory ? fs + ", in memory" : fs;
    return fs + " on " + t.device;
}

}  // namespace

void TextReport::print_target(const model::RunConfig& cfg, const model::RunResult& r) {
    const auto& t = r.target;
    printf_fit(out_, 9, "drivestress %s  %s  kernel %s  %u cpus  generator %s\n",
               DRIVESTRESS_VERSION, host_.hostname.c_str(), host_.kernel.c_str(), host_.cpus,
               host_.simd_path.c_str());
    const char* io = r.direct_io ? "O_DIRECT" : "buffered (page cache evicted between phases)";
    if (r.targets.size() > 1) {
        std::fputs(fit(target_header_lines(cfg, r), 9).c_str(), out_);
    } else if (!cfg.raw_device.empty()) {
        printf_fit(out_, 9, "target   %s (raw device, %s)  %u regions x %s  %s\n",
                   cfg.raw_device.c_str(), units::format_bytes(t.free_bytes).c_str(), cfg.files,
                   units::format_bytes(cfg.file_bytes).c_str(), io);
        print_previous_contents(out_, cfg.raw_device, t);
    } else {
        printf_fit(out_, 9, "target   %s%s (%s)  %u x %s  %s\n", t.path.c_str(),
                   t.prefix ? " (file-name prefix)" : "", filesystem_words(t).c_str(), cfg.files,
                   units::format_bytes(cfg.file_bytes).c_str(), io);
    }
    if (!r.direct_io_note.empty()) printf_fit(out_, 9, "note     %s\n", r.direct_io_note.c_str());
    if (cfg.nop)
        printf_fit(out_, 9,
                   "note     --backend nop: every operation is an io_uring NOP; nothing reaches "
                   "the device and nothing is verified: the figures are the engine's own cost, "
                   "not the drive's\n");
    const std::uint64_t bytes = cfg.file_bytes * cfg.workers();
    if (!r.direct_io && random_on(cfg) && cfg.read_pct > 0 &&
        (host_.memory_bytes == 0 || bytes < host_.memory_bytes))
        printf_fit(out_, 9,
                   "note     buffered: the files (%s) fit in memory (%s), so random reads of "
                   "what the phase already touched come from the page cache: its IOPS and "
                   "latency are not the drive's\n",
                   units::format_bytes(bytes).c_str(),
                   units::format_bytes(host_.memory_bytes).c_str());
}

void TextReport::print_backend(const model::RunConfig& cfg, const model::RunResult& r) {
    const auto& b = r.backend;
    if (cfg.sync_compare)  // one ring per row, one operation at a time
        printf_fit(out_, 9, "backend  %s  one operation at a time\n",
                   std::string(io::to_string(b.used)).c_str());
    else
        printf_fit(out_, 9, "backend  %s%s  qd %u per worker (sequential %u x %s)%s\n",
                   cfg.nop ? "NOP on " : "", backend_text(b).c_str(), b.effective_qd, b.seq_qd,
                   units::format_size_option(cfg.seq_block).c_str(), cpus_text(cfg).c_str());
    if (!b.fallback_reason.empty())
        printf_fit(out_, 9, "note     io_uring unavailable, using sync: %s\n",
                   b.fallback_reason.c_str());
    if ((io::backend_flags(b.used) & io::kRing) && !cfg.sync_compare && !cfg.sweep)
        if (const std::string wait = wait_text(r.plan); !wait.empty())
            printf_fit(out_, 9, "         %s\n", wait.c_str());
    for (const auto& n : b.uring.notes)
        printf_fit(out_, 9, "note     %s\n", n.c_str());
    if (!cfg.sync_compare && !cfg.sweep && r.plan.depth_limited()) {
        const model::WorkerPlan& w = r.plan.workers.front();
        printf_fit(out_, 9,
                   "note     --qd %u limited to %u per worker: at most half of a file's %s "
                   "%s are in flight, so picking a free one stays cheap\n",
                   r.plan.asked_qd, w.rand_depth,
                   std::to_string(w.file_bytes / w.max_rand_block).c_str(),
                   w.max_rand_block == w.unit ? "units" : "largest blocks");
    }
}

// The workload, the seed, what CPU % means and --keep's state file.
void TextReport::print_workload(const model::RunConfig& cfg, const model::RunResult& r) {
    if (cfg.sync_compare)
        printf_fit(out_, 9,
                   "workload sync-compare: every method at 4K, 8K, 16K writes, %s a row, "
                   "every write read back\n",
                   cfg.sync_compare_row_ops
                       ? (std::to_string(*cfg.sync_compare_row_ops) + " writes").c_str()
                       : units::format_seconds(cfg.sync_compare_row_s).c_str());
    else
        printf_fit(out_, 9, "workload %s\n", workload_text(cfg).c_str());
    printf_fit(out_, 9, "seed     %" PRIu64 "  (reproduce with --seed %" PRIu64 ")\n", r.seed,
               r.seed);
    if (!cfg.sync_compare)  // (its table has no CPU figures)
        printf_fit(out_, 9, "cpu      usr/sys %% are of one core (%u cpus: up to %u%%)\n",
                   host_.cpus, 100 * host_.cpus);
    for (const model::TargetResult& t : r.targets)  // --trim-pct: what each promises
        if (!t.trims.empty())
            printf_fit(out_, 9, "trims    %s%s%s\n", r.targets.size() > 1 ? t.name.c_str() : "",
                       r.targets.size() > 1 ? ": " : "", t.trims.c_str());
    std::fputs(fit(atomic_header_lines(cfg, r), 9).c_str(), out_);
    if (r.replay) printf_fit(out_, 9, "replay   %s\n", replay_text(*r.replay).c_str());
    std::fputs(fit(health_header_lines(r.targets), 9).c_str(), out_);
    if (!r.state_path.empty())
        printf_fit(out_, 9,
                   "state    %s  (--keep: files stay; after a power cut run "
                   "drivestress --verify-only %s)\n",
                   r.state_path.c_str(), r.state_path.c_str());
}

void TextReport::started(const model::RunConfig& cfg, const model::RunResult& r) {
    thresholds_s_ = cfg.latency_thresholds_s;
    verify_ = cfg.verify;
    nop_ = cfg.nop;
    job_file_ = cfg.jobs != nullptr;
    interval_s_ = cfg.interval_s;
    several_targets_ = r.targets.size() > 1;
    if (layout_ == Layout::brief || (layout_ == Layout::preset_test && !header_)) return;
    if (!section_.empty()) {  // a comparison: the common header once, then this run's section
        if (section_header_) {
            print_target(cfg, r);
            print_workload(cfg, r);
            if (!section_intro_.empty()) printf_fit(out_, 9, "%s\n", section_intro_.c_str());
        }
        printf_fit(out_, 9, "\n=== %s ===\n", section_.c_str());
        print_backend(cfg, r);
    } else {
        print_target(cfg, r);
        if (layout_ != Layout::preset_test) {  // each test's settings are in its label
            print_backend(cfg, r);
            print_workload(cfg, r);
        }
    }
    std::fflush(out_);
}

}  // namespace ds::report
