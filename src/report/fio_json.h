// fio's JSON+ output (--fio-json): a run's workload phase laid out as fio
// 3.33's `--output-format=json+` lays out a job, so that what reads fio's
// JSON (fio's own tools/fio_jsonplus_clat2csv, pipelines, dashboards) reads
// drivestress's.  Results in, text out: report/fio_jobs.h says which runs
// and phases are the jobs; this file lays them out.  What is mapped, what
// is approximated and what is not measured: docs/fio-json.md.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/phase_result.h"
#include "stats/histogram.h"

namespace ds::report {

// fio's latency bins (fio stat.h, FIO_IO_U_PLAT_*): below 128 ns a bin per
// nanosecond; above, each power-of-two range [2^e, 2^(e+1)) split into 64
// equal bins, so a bin is at most 1/64 of its lower bound wide and its
// value (its middle) within 1/128 of any latency in it.  29 groups end at
// 2^34 ns (17.2 s); later latencies land in the last bin.  The keys of
// "bins" are the bins' values in ns, as fio's plat_idx_to_val makes them.
// Memory: none (fio_bins keeps only the bins that hold something).
struct FioBins {
    static constexpr unsigned kBits = 6;                     // FIO_IO_U_PLAT_BITS
    static constexpr unsigned kPerGroup = 1U << kBits;       // FIO_IO_U_PLAT_VAL
    static constexpr unsigned kGroups = 29;                  // FIO_IO_U_PLAT_GROUP_NR
    static constexpr unsigned kCount = kGroups * kPerGroup;  // FIO_IO_U_PLAT_NR: 1856
    // fio's plat_val_to_idx: the bin a latency of `ns` falls in.
    static unsigned index_of(std::uint64_t ns);
    // fio's plat_idx_to_val: the value that names bin `index` (< kCount).
    static std::uint64_t value_of(unsigned index);
};

// A drivestress histogram (stats/histogram.h) in fio's bins: (bin value in
// ns, count), ascending, the bins that hold something.  Exact, not an
// estimate: drivestress splits each power of two into 128 buckets where
// fio splits it into 64, on the same boundaries, so every drivestress
// bucket lies whole inside one fio bin and its count goes there.  Only
// latencies of 2^34 ns (17.2 s) and more share fio's last bin, as in fio.
std::vector<std::pair<std::uint64_t, std::uint64_t>> fio_bins(const stats::LatencyHistogram& h);

// fio's default percentile list (fio's options.c), the keys of
// "percentile".  Each value comes from drivestress's own histogram (its
// bucket, within kRelativeError of the sample), not from fio's coarser bins.
inline constexpr double kFioPercentiles[] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                             80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

// One entry of fio's jobs[]: a job's workload phase, its copies merged into
// one entry as fio's group_reporting merges them.
struct FioJob {
    std::string name;    // "jobname"
    unsigned group = 0;  // "groupid": a group's jobs ran at once, groups one after another
    // "error": the errno of the job's first failed operation, EILSEQ when
    // the first problem was a read that found wrong data (as fio's verify
    // says it); 0 when there was none.
    int error = 0;
    // "job options": the job's workload in fio's option names and
    // spellings, in job-file order.
    std::vector<std::pair<std::string, std::string>> options;
    std::string desc;  // "desc": what drivestress did and found, in words
    // The threads that ran it (fio's numjobs): job_runtime and the CPU
    // shares are per copy, summed as group_reporting sums them.
    unsigned copies = 1;
    // Operations each copy kept in flight (iodepth_level); 0: an open loop
    // (--rate, --replay), whose depth drivestress does not sample.
    unsigned depth = 0;
    double elapsed_s = 0;                       // its run's wall time ("elapsed", whole seconds)
    const model::PhaseResult* phase = nullptr;  // its figures; never null when rendered
};

// The whole document: a run's jobs and when it ended.
struct FioDocument {
    std::string version;      // "fio version": "drivestress X.Y (fio-3.33 JSON+ layout)"
    std::int64_t end_ms = 0;  // when the run ended, ms since the epoch
    std::string time;         // the same as ctime(3) spells it in local time
    std::vector<std::pair<std::string, std::string>> global_options;
    std::vector<FioJob> jobs;  // in run order
};

// The document as a value, keys in fio's order.
nlohmann::ordered_json fio_jsonplus(const FioDocument& d);
// And as fio prints it: two-space indents, `"key" : value`, floats with six
// decimals (fio's json.c); ends with a newline.
std::string fio_jsonplus_text(const FioDocument& d);

}  // namespace ds::report
