#include "report/figures.h"

#include <array>

#include "units/units.h"

namespace ds::report {

namespace {

using Kind = PhaseFigure::Kind;
using model::PhaseResult;

double count(std::uint64_t v) {
    return static_cast<double>(v);
}

double per_second(std::uint64_t v, const PhaseResult& p) {
    return p.seconds > 0 ? static_cast<double>(v) / p.seconds : 0.0;
}

bool host_measured(const PhaseResult& p) {
    return p.host.measured;
}

// --trim-pct: the phase trimmed, or read trimmed units back.
bool trims_seen(const PhaseResult& p) {
    return p.counters.trim_ops || p.counters.trimmed_units_read;
}

std::string kernel_io_text(const PhaseResult& p) {
    const double pct = p.seconds > 0 ? 100 * p.host.kernel_seconds / p.seconds : 0.0;
    return units::printf_string("kernel I/O threads %.0f %% of a core", pct);
}

// clang-format off
const std::array kPhaseFigures = {
    PhaseFigure{"elapsed_s", Kind::real, "seconds", "Wall-clock time of the phase, seconds.",
                [](const PhaseResult& p) { return p.seconds; }},
    PhaseFigure{"read_bytes", Kind::count, "bytes", "Bytes read, bytes.",
                [](const PhaseResult& p) { return count(p.counters.read_bytes); }},
    PhaseFigure{"write_bytes", Kind::count, "bytes", "Bytes written, bytes.",
                [](const PhaseResult& p) { return count(p.counters.write_bytes); }},
    PhaseFigure{"read_ops", Kind::count, "operations", "Read operations completed.",
                [](const PhaseResult& p) { return count(p.counters.read_ops); }},
    PhaseFigure{"write_ops", Kind::count, "operations", "Write operations completed.",
                [](const PhaseResult& p) { return count(p.counters.write_ops); }},
    PhaseFigure{"atomic_writes", Kind::count, "operations",
                "Of write_ops, the writes that carried RWF_ATOMIC (--atomic: every one; 0 "
                "otherwise).",
                [](const PhaseResult& p) { return count(p.counters.atomic_writes); }},
    PhaseFigure{"bandwidth_bytes_per_sec", Kind::real, "bytes per second",
                "(read_bytes + write_bytes) / elapsed_s, bytes per second; 0 when elapsed_s is 0.",
                [](const PhaseResult& p) {
                    return per_second(p.counters.read_bytes + p.counters.write_bytes, p);
                }},
    PhaseFigure{"read_bandwidth_bytes_per_sec", Kind::real, "bytes per second",
                "read_bytes / elapsed_s, bytes per second.",
                [](const PhaseResult& p) { return per_second(p.counters.read_bytes, p); }},
    PhaseFigure{"write_bandwidth_bytes_per_sec", Kind::real, "bytes per second",
                "write_bytes / elapsed_s, bytes per second.",
                [](const PhaseResult& p) { return per_second(p.counters.write_bytes, p); }},
    PhaseFigure{"iops", Kind::real, "operations per second",
                "(read_ops + write_ops) / elapsed_s, operations per second.",
                [](const PhaseResult& p) {
                    return per_second(p.counters.read_ops + p.counters.write_ops, p);
                }},
    PhaseFigure{"read_iops", Kind::real, "operations per second",
                "read_ops / elapsed_s, operations per second.",
                [](const PhaseResult& p) { return per_second(p.counters.read_ops, p); }},
    PhaseFigure{"write_iops", Kind::real, "operations per second",
                "write_ops / elapsed_s, operations per second.",
                [](const PhaseResult& p) { return per_second(p.counters.write_ops, p); }},
    PhaseFigure{"verified_bytes", Kind::count, "bytes",
                "Bytes read back and checked against the expected content, bytes.",
                [](const PhaseResult& p) { return count(p.counters.verified_bytes); }},
    PhaseFigure{"unverified_units", Kind::count, "units",
                "Units whose content became unknown after a failed write (not checked "
                "afterwards).",
                [](const PhaseResult& p) { return count(p.counters.unverified_units); }},
    PhaseFigure{"retries", Kind::count, "operations",
                "-EAGAIN resubmissions and short-transfer resumes.",
                [](const PhaseResult& p) { return count(p.counters.retries); }},
    PhaseFigure{"cancelled_ops", Kind::count, "operations",
                "Operations in flight that a stop request (a signal, --duration) cancelled: "
                "io_uring only, and only those that had not reached the device "
                "(IORING_OP_ASYNC_CANCEL cannot take back what the block layer holds). Neither "
                "completed nor failed: not in read_ops/write_ops, not errors or mismatches; a "
                "cancelled write's units are not verified afterwards.",
                [](const PhaseResult& p) { return count(p.counters.cancelled_ops); }},
    PhaseFigure{"workers", Kind::count, "workers", "Workers (one file each) that ran the phase.",
                [](const PhaseResult& p) { return count(p.workers); }, nullptr, {}, nullptr, 1},
    PhaseFigure{"flush_ops", Kind::count, "operations",
                "Flushes completed (--sync fsync/fdatasync); 0 otherwise.",
                [](const PhaseResult& p) { return count(p.counters.flush_ops); }},
    PhaseFigure{"write_errors", Kind::count, "operations",
                "Writes that failed (io-error, or the filesystem full).",
                [](const PhaseResult& p) { return count(p.counters.write_errors); }},
    PhaseFigure{"trim_ops", Kind::count, "operations",
                "Trims completed (--trim-pct: a hole punched in a file, a discard on a raw "
                "device); not in iops or the bandwidth figures. Null when the phase neither "
                "trimmed nor read a trimmed unit back, as are the other trim figures.",
                [](const PhaseResult& p) { return count(p.counters.trim_ops); }, trims_seen,
                "drivestress_trim_ops_total", nullptr, 0, true},
    PhaseFigure{"trim_bytes", Kind::count, "bytes", "Bytes the completed trims dropped, bytes.",
                [](const PhaseResult& p) { return count(p.counters.trim_bytes); }, trims_seen,
                "drivestress_trim_bytes_total", nullptr, 0, true},
    PhaseFigure{"trimmed_units_read", Kind::count, "units",
                "Trimmed units read back (each time one is read) and checked against what the "
                "target promises a trimmed block reads as (a file: zeros; a raw device: zeros, "
                "0xFF or the old data, never another unit's).",
                [](const PhaseResult& p) { return count(p.counters.trimmed_units_read); },
                trims_seen, "drivestress_trimmed_units_read_total", nullptr, 0, true},
    PhaseFigure{"trim_not_honoured_units", Kind::count, "units",
                "Of trimmed_units_read, those that still held their old data where the target "
                "promises zeros or 0xFF (trim-not-honoured): a warning, not a mismatch.",
                [](const PhaseResult& p) { return count(p.counters.trim_not_honoured); }, trims_seen,
                "drivestress_trim_not_honoured_units_total", nullptr, 0, true},
    // Added as the recipe in docs/architecture.md says: a model field
    // (sys::HostLoad::kernel_seconds) and this entry.
    PhaseFigure{"kernel_io_threads_cpu_s", Kind::real, "seconds",
                "CPU time of the kernel threads and interrupts during the phase (the loop "
                "driver's workers, kworkers, ksoftirqd, irq and softirq time), seconds: the I/O "
                "path's cost outside this process, not foreign load; absent where /proc/stat "
                "could not be read.",
                [](const PhaseResult& p) { return p.host.kernel_seconds; }, host_measured,
                "drivestress_kernel_io_threads_cpu_seconds_total", kernel_io_text},
};
// clang-format on

}  // namespace

std::span<const PhaseFigure> phase_figures() {
    return kPhaseFigures;
}

}  // namespace ds::report
